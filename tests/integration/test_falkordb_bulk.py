"""GRAPH.BULK through kgqa.runtime.store.falkordb_bulk against the real embedded FalkorDB: what goes in comes back
out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgqa.errors import StoreError
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.falkordb_bulk import EdgeBlock, NodeBlock, bulk_insert, set_vectors

DISEASES = {
    "id": ["D0", "D1", "D2", "D3"],
    "name": ['say "hi"', "it's", "naïve 日本語 ✓", "back\\slash"],
    "doc": ["line one\nline two", "tab\there", "", "{braces} and `ticks` and $dollar"],
}
GENES = {"id": np.array(["G0", "G1", "G2"]), "name": np.array(["BRCA1", "TP53", "x" * 5000]), "doc": ["a", "b", "c"]}
# internal ids: diseases 0..3, genes 4..6 (block order)
ASSOCIATED = EdgeBlock("associated with", np.array([4, 4, 5, 6, 6], np.int64), np.array([0, 1, 1, 2, 3], np.int64))
INTERACTS = EdgeBlock("interacts/with", np.array([4, 5, 6, 4]), np.array([5, 6, 4, 4]))  # a self-loop too
BLOCKS = [NodeBlock("disease", DISEASES), NodeBlock("gene/protein", GENES)]


@pytest.fixture
def store(tmp_path: Path):
    with FalkorStore(tmp_path / "db") as s:
        yield s


def _nodes(store: FalkorStore, graph: str) -> list[list]:
    return store.read(graph, "MATCH (n) RETURN id(n), labels(n), n.id, n.name, n.doc ORDER BY id(n)")


def _edges(store: FalkorStore, graph: str) -> list[list]:
    return store.read(
        graph, "MATCH (a)-[r]->(b) RETURN type(r), a.id, b.id, id(a), id(b) ORDER BY type(r), id(a), id(b)"
    )


def _expected_nodes() -> list[list]:
    rows = [[i, ["disease"], *(DISEASES[k][i] for k in ("id", "name", "doc"))] for i in range(4)]
    return rows + [[4 + i, ["gene/protein"], *(str(GENES[k][i]) for k in ("id", "name", "doc"))] for i in range(3)]


def _expected_edges() -> list[list]:
    ids = DISEASES["id"] + GENES["id"].tolist()
    out = [
        [block.rel_type, ids[s], ids[d], s, d]
        for block in (ASSOCIATED, INTERACTS)
        for s, d in zip(block.src.tolist(), block.dst.tolist(), strict=True)
    ]
    return sorted(out, key=lambda row: (row[0], row[3], row[4]))


def test_round_trip_nodes_properties_and_exact_edges(store: FalkorStore) -> None:
    stats = bulk_insert(store.client.connection, "g", BLOCKS, [ASSOCIATED, INTERACTS])
    assert (stats.nodes, stats.edges, stats.calls) == (7, 9, 2)  # nodes, then edges
    assert _nodes(store, "g") == _expected_nodes()
    assert _edges(store, "g") == _expected_edges()
    counts = store.read("g", "MATCH (n) RETURN labels(n)[0] AS l, count(n) ORDER BY l")
    assert counts == [["disease", 4], ["gene/protein", 3]]
    schema = store.schema("g")
    assert {(r.source, r.type, r.target, r.count) for r in schema.relationships} == {
        ("gene/protein", "associated with", "disease", 5),
        ("gene/protein", "interacts/with", "gene/protein", 4),
    }


def test_chunked_insert_gives_the_same_graph(store: FalkorStore) -> None:
    conn = store.client.connection
    bulk_insert(conn, "whole", BLOCKS, [ASSOCIATED, INTERACTS])
    # 40 bytes: at most one or two nodes or edges per call, and the 5000-character name alone in its call
    # generators, as a caller streaming its blocks would pass them
    stats = bulk_insert(conn, "chunked", iter(BLOCKS), (e for e in [ASSOCIATED, INTERACTS]), max_token_bytes=40)
    assert stats.calls >= 10 and (stats.nodes, stats.edges) == (7, 9)
    assert _nodes(store, "chunked") == _nodes(store, "whole") == _expected_nodes()
    assert _edges(store, "chunked") == _edges(store, "whole") == _expected_edges()


def test_vector_columns_become_vecf32_exactly(store: FalkorStore) -> None:
    rng = np.random.default_rng(3)
    names, docs = rng.standard_normal((2, 4, 16)).astype(np.float32)
    genes = rng.standard_normal((3, 16))  # float64 input is stored as float32 too
    blocks = [
        NodeBlock("disease", {**DISEASES, "name_emb": names, "doc_emb": docs}),
        NodeBlock("gene/protein", {"id": GENES["id"], "name_emb": genes}),
    ]
    for graph, max_bytes in (("v", 1 << 20), ("v_chunked", 300)):
        stats = bulk_insert(store.client.connection, graph, blocks, [ASSOCIATED], max_token_bytes=max_bytes)
        assert stats.vector_queries >= 2 and (stats.calls > 2) == (graph == "v_chunked")
        rows = store.read(
            graph, "MATCH (n) RETURN id(n), n.name, typeOf(n.name_emb), n.name_emb, n.doc_emb ORDER BY id(n)"
        )
        assert [r[2] for r in rows] == ["Vectorf32"] * 7
        assert [r[1] for r in rows[:4]] == DISEASES["name"]
        for i, row in enumerate(rows):
            expected = names[i] if i < 4 else genes[i - 4].astype(np.float32)
            assert np.array_equal(np.array(row[3], np.float32), expected)
            assert row[4] is None if i >= 4 else np.array_equal(np.array(row[4], np.float32), docs[i])
        assert len(_edges(store, graph)) == 5


def test_set_vectors_by_internal_id(store: FalkorStore) -> None:
    conn = store.client.connection
    bulk_insert(conn, "g", BLOCKS, [])
    vectors = np.random.default_rng(4).standard_normal((3, 8)).astype(np.float32)
    set_vectors(conn, "g", "name_emb", np.array([6, 0, 4]), vectors, batch_rows=2)
    rows = store.read("g", "MATCH (n) WHERE n.name_emb IS NOT NULL RETURN id(n), n.name_emb ORDER BY id(n)")
    assert [r[0] for r in rows] == [0, 4, 6]
    got = {r[0]: np.array(r[1], np.float32) for r in rows}
    for node, vector in zip((6, 0, 4), vectors, strict=True):
        assert np.abs(got[node] - vector).max() < 1e-6  # sent as text rounded to 7 decimals


def test_refusals_leave_no_graph(store: FalkorStore) -> None:
    conn = store.client.connection
    bad = [
        ([NodeBlock("a:b", {"id": ["x"]})], []),  # ':' would split the label in two
        ([NodeBlock("a", {})], []),  # no property: the server would loop
        ([NodeBlock("a", {"id": ["x", "y"], "name": ["x"]})], []),
        ([NodeBlock("a", {"id": ["x"]})], [EdgeBlock("r", np.array([0]), np.array([1]))]),  # no node 1: dangling
        ([NodeBlock("a", {"id": ["x"]})], [EdgeBlock("r", np.array([-1]), np.array([0]))]),
        ([NodeBlock("a", {"id": ["x"]})], [EdgeBlock("r:s", np.array([0]), np.array([0]))]),
        ([NodeBlock("a", {"v": np.array([[np.nan]])})], []),
        ([NodeBlock("a", {"id": ["x"]}), NodeBlock("b", {"id": ["nul\x00inside"]})], []),
    ]
    for labels, relations in bad:
        with pytest.raises(StoreError):
            bulk_insert(conn, "bad", labels, relations, max_token_bytes=8)
        assert conn.exists("bad") == 0
    bulk_insert(conn, "g", BLOCKS, [])
    with pytest.raises(StoreError, match="already exists"):
        bulk_insert(conn, "g", BLOCKS, [])
    assert len(_nodes(store, "g")) == 7  # the existing graph is untouched


def test_failure_after_the_first_call_deletes_the_partial_graph(store: FalkorStore) -> None:
    conn = store.client.connection
    sent: list[str] = []
    execute = conn.execute_command

    def spy(*args, **kwargs):
        sent.append(args[0])
        return execute(*args, **kwargs)

    conn.execute_command = spy
    ids = [f"n{i}" for i in range(5000)] + ["nul\x00inside"]  # the NUL is in the second window of 4096 nodes
    with pytest.raises(StoreError, match="NUL"):
        bulk_insert(conn, "bad", [NodeBlock("a", {"id": ids})], [], max_token_bytes=4096)
    assert "GRAPH.BULK" in sent and conn.exists("bad") == 0


def test_empty_insert_creates_an_empty_graph(store: FalkorStore) -> None:
    stats = bulk_insert(store.client.connection, "empty", [], [])
    assert (stats.nodes, stats.edges, stats.calls) == (0, 0, 1)
    assert "empty" in store.graphs() and store.read("empty", "MATCH (n) RETURN count(n)") == [[0]]
