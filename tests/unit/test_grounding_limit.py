"""Every compiled pattern query carries a LIMIT (``pattern_limit``); a round whose rows reach it is reported, as
targets beyond it were not read."""

from __future__ import annotations

from typing import Any

import numpy as np

from kgqa.cypher.parser import parse
from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import GraphSchema, sanitize
from kgqa.runtime.steps.s4_grounding import NodeMatch, at_scope, constant_candidates, exact_names, ground
from kgqa.runtime.store.base import AliasHit, VectorHit
from tests.helpers.store_fakes import OneByOne

SCHEMA = GraphSchema(("drug", "disease"), (("drug", "indication", "disease"),), NodeKeys("id", "name"))
PLAN = sanitize(parse("MATCH (y:drug)-[:indication]->(d:disease {name: 'migraine'}) RETURN y"), SCHEMA).plan
FOUND = {"d": [NodeMatch("1", "migraine"), NodeMatch("7", "migraines")]}


class LimitedStore:
    """Returns as many rows as the query's LIMIT allows, from an endless supply of drugs."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
        self.sent.append((query, params))
        return [[str(100 + i), f"drug {i}", "drug", ["1"]] for i in range(params["limit"])]


def test_the_limit_is_a_parameter_and_reaching_it_is_reported() -> None:
    store = LimitedStore()
    vectors = {"d": np.zeros(4, dtype=np.float32)}
    result = ground(store, "prime", PLAN, vectors, SCHEMA, k=20, l_max=2, found=FOUND, limit=3)  # type: ignore[arg-type]
    query, params = store.sent[0]
    assert query.endswith(" LIMIT $limit") and params["limit"] == 3
    assert result.capped == "l=1 reached the LIMIT of 3 rows (pattern_limit): further targets not read"
    assert result.last_params["limit"] == 3  # what reproduces the answers in Neo4j Browser


def test_fewer_rows_than_the_limit_report_nothing() -> None:
    class Few(LimitedStore):
        def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
            return [["100", "drug", "drug", ["1"]]]

    vectors = {"d": np.zeros(4, dtype=np.float32)}
    result = ground(Few(), "prime", PLAN, vectors, SCHEMA, k=1, l_max=2, found=FOUND, limit=3)  # type: ignore[arg-type]
    assert result.capped == ""


def test_nodes_of_the_very_name_tie_for_the_first_candidate() -> None:
    """Two diseases named 'Migraine' (in OMIM and Orphanet): the question names either, so l = 1 grounds through
    both; l = 2 would ground through the same two and is not run; the next candidate joins at l = 3."""
    store = LimitedStore()
    found = {
        "d": [
            NodeMatch("1", "migraine", exact=True),
            NodeMatch("2", "Migraine", exact=True),
            NodeMatch("3", "Migraine", "migraine", exact=True),  # an exact alias match: not a tie of the name
            NodeMatch("7", "migraines", "", 0.93),
        ]
    }
    vectors = {"d": np.zeros(4, dtype=np.float32)}
    result = ground(store, "prime", PLAN, vectors, SCHEMA, k=20, l_max=3, found=found, limit=5)  # type: ignore[arg-type]
    sent = [params[result.query.constant_params["d"]] for _, params in store.sent]
    assert sent == [["1", "2"], ["1", "2", "3"]]
    assert [r.scope for r in result.rounds] == [1, 3] and result.tied == {"d": 2}
    assert exact_names(found["d"]) == 2 and exact_names(found["d"][2:]) == 0


class Named(OneByOne):
    """Three nodes named 'Migraine', one with it as an alias, and near names by vector."""

    def exact_name(self, graph: str, label: str, text: str) -> list[tuple[str, str]]:
        return [("1", "Migraine"), ("2", "migraine"), ("3", "MIGRAINE")] if text.lower() == "migraine" else []

    def exact_alias(self, graph: str, labels: Any, text: str) -> list[AliasHit]:
        return [AliasHit("4", "disease", "Hemicrania", "migraine", 1.0)]

    def vector_top_k(self, graph: str, label: str, index: str, vector: Any, k: int) -> list[VectorHit]:
        return [VectorHit("2", "migraine", label, 0.99), VectorHit("8", "Migraines", label, 0.95)][:k]

    def alias_top_k(self, graph: str, vector: Any, k: int) -> list[AliasHit]:
        return [AliasHit("9", "disease", "Aura", "migraine aura", 0.9)][:k]


def test_step_4_puts_the_exact_names_first_and_counts_only_them_as_ties() -> None:
    symbol = PLAN.symbol("d")
    vector = np.zeros(4, dtype=np.float32)
    every = constant_candidates(Named(), "prime", symbol, vector, ("disease",), 10, aliases=True)  # type: ignore[arg-type]
    assert [(m.id, m.exact) for m in every] == [
        ("1", True),
        ("2", True),
        ("3", True),
        ("4", True),
        ("8", False),
        ("9", False),
    ]
    assert exact_names(every) == 3  # the node aliased 'migraine' follows the three named so, untied
    two = constant_candidates(Named(), "prime", symbol, vector, ("disease",), 2, aliases=True)  # type: ignore[arg-type]
    assert [m.id for m in two] == ["1", "2"]  # l_max bounds the ties too
    assert at_scope(["1", "2", "3", "4"], 1, 3) == ["1", "2", "3"] and at_scope(["1", "2"], 5, 2) == ["1", "2"]
