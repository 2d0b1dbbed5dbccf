"""Steps 4-5 on the real embedded store: exact-name-first candidates and scope expansion rounds (the schedule of
scopes: tests/unit/test_steps.py)."""

from __future__ import annotations

from pathlib import Path

from kgqa.cypher.parser import parse
from kgqa.cypher.sanitize import sanitize
from kgqa.runtime.app import Kgqa
from kgqa.runtime.steps.s4_grounding import constant_vectors, ground
from kgqa.runtime.store.base import graph_schema


def test_grounding_expands_until_k_targets(config, prime_dir: Path) -> None:
    with Kgqa(config) as kg:
        kg.load("prime", prime_dir)
        schema = graph_schema(kg.schema("prime"))
        plan = sanitize(
            parse("MATCH (y:drug)-[:indication]->(d:Disease {name: 'Strongyloidiasis'}) RETURN y"), schema
        ).plan
        vectors = constant_vectors(kg.embedder, plan)
        one = ground(kg.store, "prime", plan, vectors, schema, k=1, l_max=100)
        assert one.candidates["d"][0] == "0"  # the exact (case-insensitive) name match comes first
        assert [(t.id, t.name, t.round_l) for t in one.targets] == [("2", "ivermectin", 1)]
        assert [r.scope for r in one.rounds] == [1]

        two = ground(kg.store, "prime", plan, vectors, schema, k=2, l_max=100)
        assert [t.name for t in two.targets] == ["ivermectin", "sumatriptan"]
        assert two.targets[1].round_l == 2 and [r.scope for r in two.rounds] == [1, 2]

        many = ground(kg.store, "prime", plan, vectors, schema, k=20, l_max=100)
        # not enough targets, and the 2 diseases are every candidate: the rounds after l = 2 would ground through
        # the same two, so they are not run
        assert len(many.candidates["d"]) == 2 and [r.scope for r in many.rounds] == [1, 2]
        assert kg.schema("prime").node_count == 8  # reads only
