"""The pattern compiler: golden text, parameters only, and execution on the real embedded FalkorDB."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cypher.compile import pattern_query
from cypher.errors import CypherSyntaxError
from cypher.parser import parse
from cypher.sanitize import GraphSchema, sanitize
from kgqa.store.base import NodeRow, SkbMeta
from kgqa.store.falkordb import FalkorStore

SCHEMA = GraphSchema(
    ("drug", "gene/protein", "disease"),
    (("drug", "target", "gene/protein"), ("drug", "indication", "disease")),
)
QUESTION = (
    "MATCH (y:drug)-[:target]->(g:`gene/protein` {name: 'CYP3A4'}), (y)-[:indication]->(d:disease {name: 'worms'}) "
    "WHERE y.name CONTAINS 'mec' RETURN y"
)


def compiled(query: str = QUESTION):
    return pattern_query(sanitize(parse(query), SCHEMA).plan)


def test_golden_text_and_parameters() -> None:
    q = compiled()
    assert q.text == (
        "MATCH (v1:`gene/protein`) WHERE v1.id IN $c0 MATCH (v2:`disease`) WHERE v2.id IN $c1 "
        "MATCH (v0:`drug`)-[:`target`]->(v1:`gene/protein`) MATCH (v0:`drug`)-[:`indication`]->(v2:`disease`) "
        "WHERE v0.`name` CONTAINS $p0 RETURN v0.id AS id, v0.name AS name, labels(v0)[0] AS label, "
        "collect(DISTINCT v1.id) AS m0, collect(DISTINCT v2.id) AS m1"
    )
    assert q.params == {"p0": "mec"}
    assert q.constant_params == {"g": "c0", "d": "c1"}


def test_values_never_reach_the_text() -> None:
    q = compiled("MATCH (y:drug)-[:target]->(g:`gene/protein` {name: \"x' }) DETACH DELETE y //\"}) "
                 "WHERE y.name CONTAINS 'a\\\"b' RETURN y")  # fmt: skip
    assert "DETACH" not in q.text and 'a"b' not in q.text
    assert q.params == {"p0": 'a"b'}


def test_plan_without_a_returned_node_is_an_error() -> None:
    with pytest.raises(CypherSyntaxError, match="returns no node variable"):
        compiled("MATCH (y:drug)-[:target]->(g:`gene/protein` {name: 'x'}) RETURN count(*)")


def test_pattern_runs_on_falkordb(tmp_path: Path) -> None:
    v = np.ones(4, dtype=np.float32) / 2
    rows = {
        "drug": [("D1", "ivermectin"), ("D2", "mebendazole"), ("D3", "aspirin")],
        "gene/protein": [("G1", "CYP3A4"), ("G2", "PTGS1")],
        "disease": [("S1", "worms"), ("S2", "pain")],
    }
    edges = {
        ("drug", "target", "gene/protein"): [("D1", "G1"), ("D2", "G1"), ("D3", "G2")],
        ("drug", "indication", "disease"): [("D1", "S1"), ("D2", "S1"), ("D3", "S2")],
    }
    meta = SkbMeta("g", "t", "1", "e", 4, ("drug",), 7, 6, "f", "now")
    with FalkorStore(tmp_path / "db") as store:
        with store.writer("g", meta) as writer:
            for label, nodes in rows.items():
                writer.add_nodes(label, [NodeRow(i, n, n, v, v) for i, n in nodes])
            for (s, t, d), pairs in edges.items():
                writer.add_edges(s, t, d, pairs)
        q = compiled()
        found = store.read("g", q.text, {**q.params, "c0": ["G1"], "c1": ["S1"]})
        assert found == [["D1", "ivermectin", "drug", ["G1"], ["S1"]]]  # mebendazole fits, but not CONTAINS 'mec'
        unfiltered = compiled(QUESTION.replace("WHERE y.name CONTAINS 'mec' ", ""))
        found = store.read("g", unfiltered.text, {"c0": ["G1", "G2"], "c1": ["S1", "S2"]})
        assert sorted([*row[:2], sorted(row[3]), row[4]] for row in found) == [
            ["D1", "ivermectin", ["G1"], ["S1"]],
            ["D2", "mebendazole", ["G1"], ["S1"]],
            ["D3", "aspirin", ["G2"], ["S2"]],
        ]
        assert store.read("g", unfiltered.text, {"c0": ["G2"], "c1": ["S1"]}) == []
        assert store.schema("g").node_count == 7
