"""The compiled pattern query executed on the real embedded FalkorDB (its golden text:
tests/unit/test_cypher_compile.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import FalkorStore
from tests.unit.test_cypher_compile import QUESTION, compiled


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
        # FalkorDB follows the binding order: both constants by their id index, met by Expand Into, never one
        # traversal that reaches the second constant through whatever lies between and filters it at the end
        plan = str(store._reader.select_graph("g").explain(unfiltered.text, {"c0": ["G1"], "c1": ["S1"]}))
        assert plan.count("Node By Index Scan") == 2 and "Expand Into | (v0)->(v2:disease)" in plan, plan
