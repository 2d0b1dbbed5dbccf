"""The embedded store's vector directory (kgqa/runtime/store/vectors.py) on the real FalkorDB: searches agree with
exact cosine ranking through both the exact and the HNSW path, a reopen serves the same answers without rebuilding,
and a load killed at any point of its publish leaves the previous graph with its own vectors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kgqa.errors import StoreError
from kgqa.runtime.store import vectors
from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import VECTORS_DIR, VECTORS_KEY, FalkorStore

DIM = 16
ROOT = Path(__file__).resolve().parents[2]


def _unit(seed: int, n: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _meta(name: str, fingerprint: str) -> SkbMeta:
    return SkbMeta(name, "test", "1", "test-embedder", DIM, ("disease",), 0, 0, fingerprint, "2026-01-01")


def _load(store: FalkorStore, graph: str, seed: int, n: int = 300) -> np.ndarray:
    names, docs = _unit(seed, n), _unit(seed + 100, n)
    rows = [NodeRow(f"D{i}", f"disease {seed}-{i}", "doc", names[i], docs[i]) for i in range(n)]
    with store.writer(graph, _meta(graph, f"fp{seed}")) as writer:
        writer.add_nodes("disease", rows)
        writer.create_vector_indexes(["disease"], DIM)
    return names


def _exact(matrix: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    sims = matrix @ query / np.linalg.norm(matrix, axis=1) / np.linalg.norm(query)
    return [f"D{i}" for i in np.lexsort((np.arange(len(sims)), -sims))[:k]]


def _directories(home: Path) -> list[str]:
    return sorted(p.name for p in (home / VECTORS_DIR).iterdir())


@pytest.mark.parametrize("exact_rows", [10_000, 10], ids=["exact", "hnsw"])
def test_searches_rank_as_exact_cosine_and_survive_a_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact_rows: int
) -> None:
    monkeypatch.setattr(vectors, "EXACT_ROWS", exact_rows)
    query = _unit(7, 1)[0]
    with FalkorStore(tmp_path / "db") as store:
        names = _load(store, "g", seed=1)
        hits = store.vector_top_k("g", "disease", "name", query, 5)
        assert [h.id for h in hits] == _exact(names, query, 5)
        assert hits[0].name == f"disease 1-{hits[0].id[1:]}" and hits[0].label == "disease"
        assert [round(h.similarity, 5) for h in hits] == sorted((round(h.similarity, 5) for h in hits), reverse=True)
        plain = store.plain_similarities("g", "disease", ["D3", "nope", "D1"], query)
        assert set(plain) == {"D1", "D3"}  # step 6 reads doc_emb where no plain_emb is stored
        assert plain["D3"] == pytest.approx(float(_unit(101, 300)[3] @ query), abs=1e-5)
        hnsw = list((tmp_path / "db" / VECTORS_DIR).glob("*/*.usearch"))
        assert len(hnsw) == (2 if exact_rows == 10 else 0)  # name and doc index of the one label
    with FalkorStore(tmp_path / "db") as store:  # a fresh open maps the files: the same answers, nothing rebuilt
        again = store.vector_top_k("g", "disease", "name", query, 5)
        assert [(h.id, h.similarity) for h in again] == [(h.id, h.similarity) for h in hits]
        kinds = {(i.label, i.property, i.kind) for i in store.schema("g").indexes}
        assert {
            ("disease", "name_emb", "VECTOR"),
            ("disease", "doc_emb", "VECTOR"),
            ("disease", "name_key", "RANGE"),
        } <= kinds


@pytest.mark.parametrize("exact_rows", [10_000, 10], ids=["exact", "hnsw"])
def test_many_vectors_searched_at_once_find_what_each_finds_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact_rows: int
) -> None:
    """Entity linking searches every span of a question in one call: the same hits, in the same order, with the
    same similarities (to float32's last bits) as a call per span, names included."""
    monkeypatch.setattr(vectors, "EXACT_ROWS", exact_rows)
    queries = _unit(9, 20)
    with FalkorStore(tmp_path / "db") as store:
        names = _load(store, "g", seed=1)
        many = store.vector_top_k_many("g", "disease", "name", queries, 3)
        alone = [store.vector_top_k("g", "disease", "name", query, 3) for query in queries]
        assert [[(h.id, h.name) for h in hits] for hits in many] == [[(h.id, h.name) for h in hits] for hits in alone]
        # one matrix product against one per query: float32 sums in another order, equal to the last bit or two
        for hits, single in zip(many, alone, strict=True):
            assert [h.similarity for h in hits] == pytest.approx([h.similarity for h in single], abs=1e-6)
        if exact_rows > 300:  # HNSW's candidates are approximate: only the exact path must match exact ranking
            assert [[h.id for h in hits] for hits in many] == [_exact(names, query, 3) for query in queries]
        assert all(h.name.startswith("disease 1-") for hits in many for h in hits)
        assert store.vector_top_k_many("g", "disease", "name", queries[:0], 3) == []


def test_equally_similar_nodes_rank_by_row_alone_or_with_other_queries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes of one name have one vector: a search's ties go to the first stored, whatever else is searched with it
    (np.argpartition alone picks any of them)."""
    monkeypatch.setattr(vectors, "PRODUCT_CELLS", 1000)  # three blocks of queries
    same = _unit(3, 1)[0]
    others = _unit(5, 50)
    rows = [NodeRow(f"R{i}", f"other {i}", "doc", others[i], others[i]) for i in range(50)]
    rows += [NodeRow(f"S{i}", "Marfan syndrome", "doc", same, same) for i in range(200)]
    with FalkorStore(tmp_path / "db") as store:
        with store.writer("g", _meta("g", "fp")) as writer:
            writer.add_nodes("disease", rows)
            writer.create_vector_indexes(["disease"], DIM)
        others = _unit(4, 11)
        alone = store.vector_top_k("g", "disease", "name", same, 3)
        many = store.vector_top_k_many("g", "disease", "name", np.vstack([others, same]), 3)
        assert [h.id for h in alone] == [h.id for h in many[-1]] == ["S0", "S1", "S2"]  # the rows as written


def test_a_second_load_replaces_the_vectors_and_removes_the_old_directory(tmp_path: Path) -> None:
    query = _unit(7, 1)[0]
    with FalkorStore(tmp_path / "db") as store:
        _load(store, "g", seed=1)
        first = _directories(tmp_path / "db")
        names = _load(store, "g", seed=2)
        assert [h.id for h in store.vector_top_k("g", "disease", "name", query, 3)] == _exact(names, query, 3)
        assert len(_directories(tmp_path / "db")) == 1 and _directories(tmp_path / "db") != first


KILL_AT_PUBLISH = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    import usearch.index
    from kgqa.runtime.store import falkordb, vectors
    from test_store_vectors import _load

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    stage = sys.argv[1]
    if stage == "during-finish":  # while the new HNSW index is saved: the directory is still .partial
        vectors.EXACT_ROWS = 10
        usearch.index.Index.save = die
    elif stage == "before-publish":  # the new directory is complete, the graph not yet renamed
        finish = vectors.VectorWriter.finish
        vectors.VectorWriter.finish = lambda self, *a: (finish(self, *a), die())
    elif stage == "before-save":  # renamed and keyed in the server's memory, not saved
        falkordb.FalkorStore._published = die
    _load(falkordb.FalkorStore(Path({home!r})), "g", seed=2)
    """
)


@pytest.mark.parametrize("stage", ["during-finish", "before-publish", "before-save"])
def test_a_load_killed_during_publish_keeps_the_old_graph_and_its_own_vectors(tmp_path: Path, stage: str) -> None:
    """The kgqa process is SIGKILLed (its server dies with it) at each point between a complete vector directory
    and the SAVE; the next open serves the first load's graph with the first load's vectors, and removes the
    directory the killed load left."""
    home = tmp_path / "db"
    query = _unit(7, 1)[0]
    with FalkorStore(home) as store:
        names = _load(store, "g", seed=1)
        before = [(h.id, h.name, h.similarity) for h in store.vector_top_k("g", "disease", "name", query, 5)]
        kept = _directories(home)
    script = KILL_AT_PUBLISH.format(tests=str(Path(__file__).parent), home=str(home))
    done = subprocess.run([sys.executable, "-c", script, stage], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(_directories(home)) == 2  # the killed load's directory (partial or complete) is still there
    with FalkorStore(home) as store:
        meta = store.meta("g")
        assert meta is not None and meta.fingerprint == "fp1"
        after = [(h.id, h.name, h.similarity) for h in store.vector_top_k("g", "disease", "name", query, 5)]
        assert after == before and [h[0] for h in after] == _exact(names, query, 5)
        assert _directories(home) == kept


def test_an_open_never_serves_vectors_of_another_graph(tmp_path: Path) -> None:
    query = _unit(7, 1)[0]
    with FalkorStore(tmp_path / "db") as store:
        _load(store, "a", seed=1)
        _load(store, "b", seed=2)
        conn = store.client.connection
        token_b = conn.get(VECTORS_KEY.format("b"))
        conn.set(VECTORS_KEY.format("a"), token_b)  # as if the key and the directories disagreed after a crash
        with pytest.raises(StoreError, match=r"does not belong to graph 'a'.*load the SKB again"):
            store.vector_top_k("a", "disease", "name", query, 3)
        conn.set(VECTORS_KEY.format("a"), "0123456789abcdef")
        with pytest.raises(StoreError, match=r"vectors of graph 'a' .* cannot be read.*load the SKB again"):
            store.vector_top_k("a", "disease", "name", query, 3)
        conn.delete(VECTORS_KEY.format("a"))
        with pytest.raises(StoreError, match=r"graph 'a' has no vector directory.*kgqa load"):
            store.vector_top_k("a", "disease", "name", query, 3)


def _damage(directory: Path, number: int, how: str) -> None:
    if how == "truncated matrix":
        file = directory / f"t{number}.name_emb.f32"
        os.truncate(file, file.stat().st_size - 4)
    elif how == "missing ids":
        (directory / f"t{number}.ids.npy").unlink()
    elif how == "garbage ids":
        (directory / f"t{number}.ids.npy").write_bytes(b"\x00\xffnot an array" * 10)
    elif how == "truncated hnsw":
        file = directory / f"t{number}.name_emb.usearch"
        os.truncate(file, file.stat().st_size // 2)
    elif how == "garbage hnsw":
        file = directory / f"t{number}.name_emb.usearch"
        file.write_bytes(b"\x00" * file.stat().st_size)
    else:
        (directory / vectors.MANIFEST).write_text('{"format": 2, "tab')


@pytest.mark.parametrize(
    "how", ["truncated matrix", "missing ids", "garbage ids", "truncated hnsw", "garbage hnsw", "torn manifest"]
)
def test_damaged_vector_files_are_refused_saying_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A file of the vector directory cut short, gone or overwritten (a disk error, a careless hand): the search
    fails with one line naming the damage and the way out (a forced load), never an internal error or a crash, and
    never answers from what is left. An overwrite that keeps a matrix file's size is not detected (no checksum is read
    at open: reading every vector would undo what the directory is for, a fast reopen)."""
    monkeypatch.setattr(vectors, "EXACT_ROWS", 10)  # HNSW indexes to damage too
    with FalkorStore(tmp_path / "db") as store:
        _load(store, "g", seed=1)
    (directory,) = (tmp_path / "db" / VECTORS_DIR).iterdir()
    number = json.loads((directory / vectors.MANIFEST).read_text())["tables"]["disease"]["number"]
    _damage(directory, number, how)
    with FalkorStore(tmp_path / "db") as store:
        with pytest.raises(
            StoreError, match=r"^the vectors of graph 'g' \(.*\) are damaged: .*kgqa load .*--force"
        ) as err:
            store.vector_top_k("g", "disease", "name", _unit(7, 1)[0], 3)
        assert "\n" not in str(err.value)
        assert store.meta("g") is not None  # the graph itself still reads: only its vectors need the load


def test_hnsw_for_every_large_name_index_and_the_candidate_types_documents_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large non-candidate label's document index is searched exactly (no HNSW build), and still answers."""
    monkeypatch.setattr(vectors, "EXACT_ROWS", 10)
    names, docs = _unit(1, 40), _unit(2, 40)
    with FalkorStore(tmp_path / "db") as store:
        with store.writer("g", _meta("g", "fp")) as writer:  # candidate type: disease
            for label in ("disease", "gene"):
                writer.add_nodes(label, [NodeRow(f"D{i}", f"{label} {i}", "doc", names[i], docs[i]) for i in range(40)])
            writer.create_vector_indexes(["disease", "gene"], DIM)
        tables = store.vectors("g").tables
        assert (tables["disease"].hnsw, tables["gene"].hnsw) == ({"name_emb", "doc_emb"}, {"name_emb"})
        query = _unit(7, 1)[0]
        assert [h.id for h in store.vector_top_k("g", "gene", "doc", query, 4)] == _exact(docs, query, 4)
