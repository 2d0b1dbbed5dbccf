"""The compiled pattern query executed on the real embedded FalkorDB (its golden text:
tests/unit/test_cypher_compile.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import FalkorStore
from tests.helpers.cypher_compile import QUESTION, compiled


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


def test_the_cost_probes_count_what_the_walk_would_read(tmp_path: Path) -> None:
    """Step 5's probes on the real store (kgqa.runtime.steps.s4_grounding.Degrees): a paper's fields (its first hop)
    by a counted walk, and the papers of those fields (its second, where the hub is) by the fields' degrees; each
    is the rows the walk itself reads (counted here by walking it), the second up to the edges back to the start."""
    v = np.ones(4, dtype=np.float32) / 2
    papers = [(f"P{i}", f"paper {i}") for i in range(40)]
    topics = [(f"P{i}", "F0") for i in range(40)] + [("P0", "F1"), ("P1", "F1"), ("P2", "F2")]
    cites = [(f"P{i}", "P0") for i in range(1, 30)] + [("P0", "P1")]
    meta = SkbMeta("g", "t", "1", "e", 4, ("paper",), 43, len(topics) + len(cites), "f", "now")
    with FalkorStore(tmp_path / "db") as store:
        with store.writer("g", meta) as writer:
            writer.add_nodes("paper", [NodeRow(i, n, n, v, v) for i, n in papers])
            writer.add_nodes("field", [NodeRow(f"F{i}", f"field {i}", "", v, v) for i in range(3)])
            writer.add_edges("paper", "has_topic", "field", topics)
            writer.add_edges("paper", "cites", "paper", cites)
        ids = ["P0", "P2", "P39", "nothing"]
        first = store.degrees("g", "paper", ids, ["has_topic"], "out", "field")
        assert first == {"P0": 2, "P2": 2, "P39": 1}  # an id the graph lacks has no row
        second = store.walk_degrees("g", "paper", ids, ["has_topic"], "out", "field", ["has_topic"], "in")
        walk = "MATCH (n:paper)-[:has_topic]->(:field)<-[:has_topic]-(p) WHERE n.id IN $ids RETURN n.id, count(p)"
        assert second == {"P0": 40 + 2, "P2": 40 + 1, "P39": 40}  # F0 has 40 papers, F1 2, F2 1
        walked = {str(i): int(n) for i, n in store.read("g", walk, {"ids": ids})}
        # a degree counts the edge back to the paper too, which the walk need not take again: at most one a field
        assert all(walked[i] <= second[i] <= walked[i] + first[i] for i in walked) and set(walked) == set(second)
        both = store.walk_degrees("g", "paper", ["P1"], ["cites"], "out", "paper", ["cites", "has_topic"], "any")
        assert both == {"P1": 29 + 1 + 2}  # P0: cited by 29, cites P1, and its two fields
