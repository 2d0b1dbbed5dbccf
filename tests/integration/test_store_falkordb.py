"""The store interface against the real embedded FalkorDB (no mocks); its literals:
tests/unit/test_falkordb_literals.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgqa.errors import StoreError, StoreLockedError
from kgqa.runtime.store import queries as q
from kgqa.runtime.store.base import ALIAS_LABEL, AliasRow, NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import FalkorStore

DIM = 16


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _meta(name: str = "g", nodes: int = 0, edges: int = 0) -> SkbMeta:
    return SkbMeta(name, "test", "1", "test-embedder", DIM, ("disease",), nodes, edges, "fp", "2026-01-01")


def _write(store: FalkorStore, rng: np.random.Generator, n: int = 50, name: str = "g") -> np.ndarray:
    docs = _unit(rng, n)
    names = _unit(rng, n)
    rows = [NodeRow(f"D{i}", f"disease {i}", f'doc "{i}" \\ ü', names[i], docs[i]) for i in range(n)]
    genes = [NodeRow(i, f"gene {i}", "gene doc", names[i], docs[i]) for i in range(5)]
    with store.writer(name, _meta(name, n + 5, 4)) as writer:
        writer.add_nodes("disease", rows)
        writer.add_nodes("gene/protein", genes)
        writer.add_edges("gene/protein", "associated with", "disease", [(0, "D0"), (1, "D1"), (1, "D2"), (2, "D0")])
        writer.create_vector_indexes(["disease", "gene/protein"], DIM)
    return docs


@pytest.fixture
def store(tmp_path: Path):
    with FalkorStore(tmp_path / "db") as s:
        yield s


def test_write_schema_and_meta(store: FalkorStore) -> None:
    _write(store, np.random.default_rng(0))
    assert store.graphs() == ["g"]
    meta = store.meta("g")
    assert meta is not None and meta.node_count == 55 and meta.candidate_types == ("disease",)
    schema = store.schema("g")
    assert {(label.name, label.count) for label in schema.labels} == {("disease", 50), ("gene/protein", 5)}
    assert [(r.source, r.type, r.target, r.count) for r in schema.relationships] == [
        ("gene/protein", "associated with", "disease", 4)
    ]
    kinds = {(i.label, i.property, i.kind) for i in schema.indexes}
    assert ("disease", "doc_emb", "VECTOR") in kinds and ("gene/protein", "id", "RANGE") in kinds
    assert all(i.status == "OPERATIONAL" for i in schema.indexes)


def test_values_round_trip_unchanged(store: FalkorStore) -> None:
    _write(store, np.random.default_rng(0))
    rows = store.read("g", "MATCH (n:disease {id: $id}) RETURN n.doc, n.name", {"id": "D7"})
    assert rows == [['doc "7" \\ ü', "disease 7"]]
    # ids are stored as strings, whatever their type in the source (kgqa/runtime/load.py says why)
    assert store.read("g", "MATCH (n:`gene/protein` {id: $id}) RETURN n.name", {"id": "3"}) == [["gene 3"]]


def test_vector_top_k_matches_exact_search(store: FalkorStore) -> None:
    rng = np.random.default_rng(1)
    docs = _write(store, rng)
    query = _unit(rng, 1)[0]
    hits = store.vector_top_k("g", "disease", "doc", query, 10)
    exact = np.argsort(-(docs @ query))[:10]
    assert [h.id for h in hits] == [f"D{i}" for i in exact]
    assert hits[0].similarity == pytest.approx(float(docs[exact[0]] @ query), abs=1e-5)
    assert all(h.label == "disease" for h in hits)
    everything = store.vector_top_k("g", "disease", "doc", query, 2000)  # k beyond the label's size (step 6)
    assert [h.id for h in everything] == [f"D{i}" for i in np.argsort(-(docs @ query))]
    floor = (hits[2].similarity + hits[3].similarity) / 2  # linking reads only the hits this similar
    [above] = store.vector_top_k_many("g", "disease", "doc", query[None, :], 10, floor=floor)
    assert [h.id for h in above] == [h.id for h in hits[:3]]
    assert [h.similarity for h in above] == [pytest.approx(h.similarity, abs=1e-5) for h in hits[:3]]


def test_plain_vectors_round_trip_by_id_without_an_index(store: FalkorStore) -> None:
    """Step 6's ``plain_emb`` go in through GRAPH.BULK beside the indexed vectors and come back by id bit for bit
    (float32), in export rows too; a label written without them (one vector serves both, outside STaRK) reads its
    ``doc_emb`` instead, and a block mixing both is refused before anything is sent."""
    rng = np.random.default_rng(5)
    names, docs, plain = _unit(rng, 6), _unit(rng, 6), _unit(rng, 6)
    rows = [NodeRow(f"D{i}", f"disease {i}", "doc", names[i], docs[i], "", plain[i]) for i in range(6)]
    with store.writer("g", _meta(nodes=8)) as writer:
        writer.add_nodes("disease", rows)
        writer.add_nodes("gene/protein", [NodeRow(i, f"gene {i}", "", names[i], docs[i]) for i in range(2)])
        with pytest.raises(StoreError, match="1 of 2 rows lack a plain document vector"):
            writer.add_nodes("drug", [rows[0], NodeRow("y", "y", "", names[0], docs[0])])
        writer.create_vector_indexes(["disease", "gene/protein"], DIM)
    got = store.plain_vectors("g", "disease", ["D4", "D1", "missing"])
    assert sorted(got) == ["D1", "D4"]
    for node_id, vector in got.items():
        assert vector.dtype == np.float32 and np.array_equal(vector, plain[int(node_id[1:])])
    genes = store.plain_vectors("g", "gene/protein", ["0", "1"])
    assert all(np.array_equal(genes[str(i)], docs[i]) for i in range(2))
    # step 6 asks the server for the similarities instead: the dot products of the vectors read above, to float32
    question = _unit(rng, 1)[0]
    similar = store.plain_similarities("g", "disease", ["D4", "D1", "missing"], question)
    assert sorted(similar) == ["D1", "D4"]
    for node_id, similarity in similar.items():
        assert similarity == pytest.approx(float(plain[int(node_id[1:])] @ question), abs=1e-6)
    by_doc = store.plain_similarities("g", "gene/protein", ["0", "1"], question)
    assert by_doc == {str(i): pytest.approx(float(docs[i] @ question), abs=1e-6) for i in range(2)}
    exported = {
        row[0]: row for row in store.node_rows("g", "disease", ["D2"]) + store.node_rows("g", "gene/protein", ["1"])
    }
    assert np.array_equal(np.array(exported["D2"][6], np.float32), plain[2]) and exported["1"][6] is None
    indexed = {(i.label, i.property) for i in store.schema("g").indexes}
    assert ("disease", "doc_emb") in indexed and not any(prop == "plain_emb" for _, prop in indexed)
    assert store.schema("g").node_count == 8  # the refused block wrote nothing


def test_read_refuses_writes(store: FalkorStore) -> None:
    _write(store, np.random.default_rng(0))
    for query in ("CREATE (:x)", "MATCH (n) DETACH DELETE n", "MATCH (n) SET n.name = 'x'", "MERGE (:y {id: 1})"):
        with pytest.raises(StoreError, match="refused"):
            store.read("g", query)
    assert store.schema("g").node_count == 55


def test_a_new_load_replaces_the_graph_atomically(store: FalkorStore) -> None:
    rng = np.random.default_rng(0)
    _write(store, rng)
    _write(store, rng, n=20)
    assert store.schema("g").node_count == 25  # replaced, not appended


def test_interrupted_writer_leaves_the_previous_graph(store: FalkorStore) -> None:
    rng = np.random.default_rng(0)
    _write(store, rng)
    with pytest.raises(RuntimeError, match="boom"), store.writer("g", _meta(nodes=1)) as writer:
        writer.add_nodes("disease", [NodeRow("X", "x", "x", _unit(rng, 1)[0], _unit(rng, 1)[0])])
        raise RuntimeError("boom")
    assert store.schema("g").node_count == 55
    assert store.meta("g").node_count == 55  # type: ignore[union-attr]
    assert store.graphs() == ["g"]  # the staging graph is not listed


def test_graph_persists_across_restarts(tmp_path: Path) -> None:
    with FalkorStore(tmp_path / "db") as store:
        docs = _write(store, np.random.default_rng(2))
    with FalkorStore(tmp_path / "db") as store:
        store.await_indexes("g")
        assert store.schema("g").node_count == 55
        hits = store.vector_top_k("g", "disease", "doc", docs[3], 1)
        assert hits[0].id == "D3"


def test_unsaved_writes_do_not_persist(tmp_path: Path) -> None:
    """Only a completed load SAVEs: a kill before that leaves the previous on-disk state."""
    with FalkorStore(tmp_path / "db") as store:
        store.client.select_graph("scratch").query("CREATE (:x)")
    with FalkorStore(tmp_path / "db") as store:
        assert "scratch" not in store.graphs()


def test_second_process_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    with FalkorStore(tmp_path / "db") as store:
        with pytest.raises(StoreLockedError, match=r"in use by another kgqa process \(pid \d+\)"):
            FalkorStore(tmp_path / "db")
        assert store.graphs() == []  # the refused opener did not disturb the running server
    with FalkorStore(tmp_path / "db"):  # the lock is released on close
        pass


def test_close_stops_the_server(tmp_path: Path) -> None:
    import psutil

    store = FalkorStore(tmp_path / "db")
    pid = store.server_pid
    assert pid is not None and psutil.pid_exists(pid)
    store.close()
    store.close()  # idempotent
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_meta_of_unknown_graph_is_none(store: FalkorStore) -> None:
    assert store.meta("nope") is None


def test_edges_between_ids_that_need_escaping(store: FalkorStore) -> None:
    rng = np.random.default_rng(3)
    ids = ['q"uote', "back\\slash", "ünï", "plain:1", "new\nline"]
    vectors = _unit(rng, len(ids))
    rows = [NodeRow(i, i, "doc", v, v) for i, v in zip(ids, vectors, strict=True)]
    pairs = [(ids[i], ids[(i + 1) % len(ids)]) for i in range(len(ids))]
    with store.writer("g", _meta(nodes=len(ids), edges=len(pairs))) as writer:
        writer.add_nodes("disease", rows)
        writer.add_edges("disease", "linked to", "disease", pairs)
    found = store.read("g", "MATCH (a)-[:`linked to`]->(b) RETURN a.id, b.id ORDER BY a.id")
    assert sorted(map(tuple, found)) == sorted(pairs)


def test_generated_answers_are_found_from_the_anchor_by_index(store: FalkorStore) -> None:
    """The question generator's exact answers start at the anchor's id index: from the answer label, the match was a
    label scan (25 minutes of generation at MAG size)."""
    _write(store, np.random.default_rng(4))
    hops = [("associated with", "gene/protein"), ("associated with", "disease")]
    assert store.path_answers("g", "disease", hops, "D1", "") == ["D2"]
    assert store.path_answers("g", "disease", hops, "D0", "") == []  # the anchor itself is no answer
    assert store.path_answers("g", "disease", hops[:1], "1", "") == ["D1", "D2"]
    assert store.path_answers("g", "disease", hops[:1], "1", "nothing like this") == []
    plan = store._reader.select_graph("g").explain(q.path_answers("disease", hops), {"anchor": "D1", "keyword": ""})
    assert "Node By Index Scan | (a:disease)" in str(plan) and "Label Scan" not in str(plan)


def test_aliases_are_searchable_but_not_part_of_the_schema(store: FalkorStore) -> None:
    """Alias nodes: found by vector, by exact text (any case) and by node; never a label, count or answer."""
    rng = np.random.default_rng(3)
    names, vectors = _unit(rng, 3), _unit(rng, 4)
    rows = [NodeRow(f"P{i}", f"term {i}", "doc", names[i], names[i]) for i in range(3)]
    aliases = [
        AliasRow("P0", "effect/phenotype", "term 0", "Enlarged liver", vectors[0]),
        AliasRow("P0", "effect/phenotype", "term 0", "Hepatomegaly of the liver", vectors[1]),
        AliasRow("P2", "effect/phenotype", "term 2", "Fits", vectors[2]),
        AliasRow("G1", "gene/protein", "GENE1", "enlarged liver", vectors[3]),
    ]
    with store.writer("h", _meta("h", 3)) as writer:
        writer.add_nodes("effect/phenotype", rows)
        writer.add_aliases(aliases[:2])
        writer.add_nodes("gene/protein", [NodeRow("G1", "GENE1", "doc", names[0], names[0])])
        writer.add_aliases(aliases[2:])
        writer.add_edges("gene/protein", "associated with", "effect/phenotype", [("G1", "P2")])
        writer.create_vector_indexes(["effect/phenotype", "gene/protein"], DIM)
    schema = store.schema("h")
    assert {label.name for label in schema.labels} == {"effect/phenotype", "gene/protein"}
    assert schema.has_aliases and ALIAS_LABEL not in store.labels("h")
    _write(store, rng)
    assert not store.schema("g").has_aliases
    hits = store.alias_top_k("h", vectors[2], 4)
    assert (hits[0].id, hits[0].label, hits[0].name, hits[0].alias) == ("P2", "effect/phenotype", "term 2", "Fits")
    assert hits[0].similarity == pytest.approx(1.0, abs=1e-5) and len(hits) == 4
    floor = (hits[1].similarity + hits[2].similarity) / 2  # only the hits as similar as linking reads
    [above] = store.alias_top_k_many("h", vectors[2][None, :], 4, floor=floor)
    assert [(h.id, h.alias) for h in above] == [(h.id, h.alias) for h in hits[:2]]
    assert [h.similarity for h in above] == [pytest.approx(h.similarity, abs=1e-5) for h in hits[:2]]
    exact = store.exact_alias("h", ["effect/phenotype", "gene/protein"], "  ENLARGED liver ")
    assert [(h.id, h.alias) for h in exact] == [("P0", "Enlarged liver"), ("G1", "enlarged liver")]
    assert store.exact_alias("h", ["effect/phenotype"], "fits") == [
        type(exact[0])("P2", "effect/phenotype", "term 2", "Fits", 1.0)
    ]
    assert store.aliases("h", "effect/phenotype", ["P0", "P1", "P2"]) == {
        "P0": ("Enlarged liver", "Hepatomegaly of the liver"),
        "P2": ("Fits",),
    }
    assert store.read("h", "MATCH (n:`effect/phenotype`) RETURN count(n)") == [[3]]
    # alias blocks take internal ids too: an edge written after them still joins the nodes it names
    assert store.read("h", "MATCH (a)-[:`associated with`]->(b) RETURN a.id, b.id") == [["G1", "P2"]]


def test_full_text_scores_of_the_given_ids(store: FalkorStore) -> None:
    rng = np.random.default_rng(4)
    v = _unit(rng, 3)
    docs = ["convulsions and epilepsy", "lack of coordination", "epilepsy in infancy, epilepsy again"]
    with store.writer("t", _meta("t", 3)) as writer:
        writer.add_nodes("effect/phenotype", [NodeRow(f"P{i}", f"term {i}", d, v[i], v[i]) for i, d in enumerate(docs)])
        writer.create_vector_indexes(["effect/phenotype"], DIM)
    assert store.schema("t").has_text_index
    scores = store.text_scores("t", "effect/phenotype", ["epilepsy", "infancy"], ["P0", "P1", "P2"])
    assert set(scores) == {"P0", "P2"} and scores["P2"] > scores["P0"] > 0
    assert store.text_scores("t", "effect/phenotype", ["coordination"], ["P0"]) == {}  # only the ids asked for
    assert store.text_scores("t", "effect/phenotype", [], ["P0"]) == {}
    with pytest.raises(StoreError, match=r"plain lower-case words \(a prefix .* quoted phrase of them\), got 'a\|b'"):
        store.text_scores("t", "effect/phenotype", ["a|b"], ["P0"])
    # a quoted phrase matches its words in their order, stop words and all
    assert set(store.text_scores("t", "effect/phenotype", ['"lack of coordination"'], ["P0", "P1", "P2"])) == {"P1"}
    assert store.text_scores("t", "effect/phenotype", ['"coordination of lack"'], ["P0", "P1", "P2"]) == {}
    assert set(store.text_scores("t", "effect/phenotype", ['"epilepsy in infancy"'], ["P0", "P1", "P2"])) == {"P2"}
    top = store.text_top_k("t", "effect/phenotype", ["epilepsy", "infancy"], 3)
    assert [(h.id, h.name, h.label) for h in top] == [
        ("P2", "term 2", "effect/phenotype"),
        ("P0", "term 0", "effect/phenotype"),
    ]
    assert top[0].score > top[1].score > 0  # both words in P2's document
    both = store.text_top_k("t", "effect/phenotype", ["epilepsy", "coordination"], 3)
    assert {h.id for h in both} == {"P0", "P1", "P2"}
    assert [(-h.score, h.id) for h in both] == sorted((-h.score, h.id) for h in both)  # best first, ties by id
    assert len(store.text_top_k("t", "effect/phenotype", ["epilepsy", "coordination"], 1)) == 1
    assert store.text_top_k("t", "effect/phenotype", [], 2) == []
    with pytest.raises(StoreError, match="plain lower-case words"):
        store.text_top_k("t", "effect/phenotype", ["Epilepsy"], 2)
    # a prefix of three letters or more ("symbol starts with EPI")
    assert {h.id for h in store.text_top_k("t", "effect/phenotype", ["epi*"], 3)} == {"P0", "P2"}
    assert set(store.text_scores("t", "effect/phenotype", ["coord*", "inf*"], ["P0", "P1", "P2"])) == {"P1", "P2"}
    for bad in ("ep*", "*", "epi**", "e*i"):
        with pytest.raises(StoreError, match="plain lower-case words"):
            store.text_top_k("t", "effect/phenotype", [bad], 2)
