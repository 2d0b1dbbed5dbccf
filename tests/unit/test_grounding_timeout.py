"""A pattern query that runs past the store's time limit ends the scope expansion instead of the question: the
targets of the rounds before stand (an LLM's plan can be far broader than the graph can answer in time)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kgqa.cypher.parser import parse
from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import GraphSchema, sanitize
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.steps.s4_grounding import NodeMatch, ground

SCHEMA = GraphSchema(("drug", "disease"), (("drug", "indication", "disease"),), NodeKeys("id", "name"))
PLAN = sanitize(parse("MATCH (y:drug)-[:indication]->(d:disease {name: 'migraine'}) RETURN y"), SCHEMA).plan
FOUND = {"d": [NodeMatch("1", "migraine"), NodeMatch("7", "migraines"), NodeMatch("8", "aura")]}


class SlowStore:
    """Answers the first round with one drug, then times out."""

    def __init__(self) -> None:
        self.scopes: list[int] = []

    def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
        self.scopes.append(len(params["c0"]))
        if len(self.scopes) > 1:
            raise StoreTimeoutError("query ran past 60000 ms: Query timed out")
        return [["3", "sumatriptan", "drug", ["1"]]]


def test_a_timed_out_round_keeps_the_targets_before_it() -> None:
    store = SlowStore()
    vectors = {"d": np.zeros(4, dtype=np.float32)}
    result = ground(store, "prime", PLAN, vectors, SCHEMA, k=5, l_max=3, found=FOUND)  # type: ignore[arg-type]
    assert store.scopes == [1, 2]
    assert [(t.id, t.round_l) for t in result.targets] == [("3", 1)]
    assert [r.scope for r in result.rounds] == [1]
    assert result.timed_out.startswith("l=2 ran past the time limit (query ran past 60000 ms")
    assert result.last_params["c0"] == ["1"]  # the query and parameters that gave the kept targets
