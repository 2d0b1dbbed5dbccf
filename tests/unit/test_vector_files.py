"""The vector directory's files without a server: ids are found through the sorted id file, every HNSW build is
reported to the load's progress, an id too long for fixed-width files is refused, and a directory of another format
is refused with the command that rebuilds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgqa.errors import StoreError
from kgqa.runtime.store import vectors
from kgqa.runtime.store.vectors import VectorTables, VectorWriter

DIM = 8


class Recorder:
    """A ProgressSink that remembers each task's total and how far it got."""

    def __init__(self) -> None:
        self.tasks: dict[int, list[Any]] = {}

    def add_task(self, description: str, *, total: float | None = 100.0) -> int:
        self.tasks[len(self.tasks)] = [description, total, 0]
        return len(self.tasks) - 1

    def advance(self, task_id: Any, advance: float = 1) -> None:
        self.tasks[task_id][2] += advance

    def update(self, task_id: Any, *, total: float | None = None, completed: float | None = None) -> None:
        raise AssertionError("not used")


def _write(root: Path, ids: list[str], progress: Recorder | None = None) -> VectorWriter:
    writer = VectorWriter(root, "g", ef_runtime=20)
    matrix = np.random.default_rng(0).standard_normal((len(ids), DIM)).astype(np.float32)
    half = len(ids) // 2  # two blocks, as a load writes a label chunk by chunk
    writer.add("disease", ids[:half], {"name_emb": matrix[:half]})
    writer.add("disease", ids[half:], {"name_emb": matrix[half:]})
    writer.finish({"disease": ["name_emb"]}, {("disease", "name_emb")}, progress)
    return writer


def test_ids_are_found_by_their_row_whatever_their_order(tmp_path: Path) -> None:
    ids = [f"N{i}" for i in range(50, 0, -1)] + ["a", "Z", "é"]
    writer = _write(tmp_path, ids)
    table = VectorTables(writer.final, "g", writer.token, 20).table("disease")
    assert table.rows_of(["N1", "é", "missing", "N50", "Z"]) == {"N1": 49, "é": 52, "N50": 0, "Z": 51}
    assert table.rows_of([]) == {}
    assert [table.ids[row] for row in table.rows_of(ids).values()] == ids


def test_every_hnsw_build_is_reported_to_the_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "EXACT_ROWS", 10)
    monkeypatch.setattr(vectors, "ADD_BATCH", 16)
    progress = Recorder()
    writer = _write(tmp_path, [f"N{i}" for i in range(40)], progress)
    assert progress.tasks == {0: ["indexing disease.name_emb", 40, 40]}
    assert VectorTables(writer.final, "g", writer.token, 20).table("disease").hnsw == {"name_emb"}


def test_an_id_too_long_for_the_id_files_is_refused(tmp_path: Path) -> None:
    writer = VectorWriter(tmp_path, "g", ef_runtime=20)
    long_id = "x" * (vectors.MAX_ID_CHARS + 1)
    with pytest.raises(StoreError, match=r"label 'disease': node id 'x+'\.\.\. has 257 characters.*at most 256"):
        writer.add("disease", ["ok", long_id], {"name_emb": np.ones((2, DIM), np.float32)})
    writer.discard()
    assert list(tmp_path.iterdir()) == []


def test_a_directory_of_another_format_asks_for_a_reload(tmp_path: Path) -> None:
    writer = _write(tmp_path, ["a", "b"])
    manifest = writer.final / vectors.MANIFEST
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "format": 1}))
    with pytest.raises(StoreError, match=r"of graph 'g' has format 1, this kgqa reads 2: run `kgqa load`"):
        VectorTables(writer.final, "g", writer.token, 20)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=12),
    st.lists(st.integers(0, 3), min_size=1, max_size=4),
    st.integers(1, 14),
)
def test_exact_top_k_ranks_by_similarity_then_row(rows: list[int], queries: list[int], k: int) -> None:
    """Few distinct values, so that ties at the k-th similarity are the rule: the vectorised search must pick as a
    sort by (similarity descending, row) does, for k = 1, k within the rows and k beyond them."""
    sims = np.array([[float((r * 7 + q * 3) % 4) for r in rows] for q in queries], dtype=np.float32)
    expected = [sorted(range(len(rows)), key=lambda row: (-line[row], row))[:k] for line in sims]
    found = vectors._top_k_exact(sims, k)
    assert [[row for row, _ in hits] for hits in found] == expected
    assert all(sim == sims[q, row] for q, hits in enumerate(found) for row, sim in hits)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.3, 0.6, 0.85, 0.97]), st.integers(1, 12))
def test_a_search_with_a_floor_finds_what_the_exact_search_finds(seed: int, floor: float, k: int) -> None:
    """The first pass along the principal directions only skips rows it proves under the floor: rows bunched
    round a few directions (many above the floor, many near it) and some zero rows, against float64 cosines (the
    returned similarities are rounded to :data:`vectors.ROUNDED` decimals, so the check allows twice that)."""
    rng = np.random.default_rng(seed)
    dims = 3 * vectors.PROJECTED_DIMS
    centres = rng.standard_normal((5, dims))
    matrix = (centres[rng.integers(0, 5, 400)] + 0.3 * rng.standard_normal((400, dims))).astype(np.float32)
    matrix[rng.integers(0, 400, 5)] = 0.0
    near = matrix[rng.integers(0, 400, 6)] + 0.1 * rng.standard_normal((6, dims))
    queries = np.vstack([near, np.zeros((1, dims))]).astype(np.float32)
    inverse = vectors._inverse(np.linalg.norm(matrix, axis=1))
    found = vectors.Projection.of(matrix, inverse).top_k_above(matrix, inverse, queries, k, floor)
    units = [m / n if (n := np.linalg.norm(m)) else m for m in matrix.astype(np.float64)]
    slack = 2 * 10.0**-vectors.ROUNDED
    for query, hits in zip(queries.astype(np.float64), found, strict=True):
        length = np.linalg.norm(query)
        exact = np.array([0.0 if not length else float(u @ query) / length for u in units])
        sims = [sim for _, sim in hits]
        assert sims == sorted(sims, reverse=True) and len(hits) <= k
        assert all(abs(sim - exact[row]) <= slack and exact[row] >= floor - slack for row, sim in hits)
        sure = np.flatnonzero(exact >= floor + slack)
        assert min(k, len(sure)) <= len(hits) <= min(k, int((exact >= floor - slack).sum()))
        last = sims[-1] if len(hits) == k else floor
        assert {int(row) for row in sure if exact[row] > last + slack} <= {row for row, _ in hits}
    assert found[-1] == []  # a zero query is similar to nothing


def test_columns_added_later_link_the_old_files_and_go_where_their_ids_are(tmp_path: Path) -> None:
    """The document vectors a load publishes its graph without (issue 71) go into a new directory that holds the old
    one's files as hard links, each row where its id is, whatever order they come in; the old directory is left as
    it was, and a directory with a row missing is never made."""
    ids = [f"N{i}" for i in range(40)]
    old = _write(tmp_path, ids)
    tables = VectorTables(old.final, "g", old.token, 20)
    docs = np.random.default_rng(1).standard_normal((len(ids), 4)).astype(np.float32)
    writer = vectors.ColumnWriter(tmp_path, tables, ["disease"], {"doc_emb": 4}, {"doc_emb"}, 20)
    order = list(reversed(range(len(ids))))
    writer.add("disease", [ids[i] for i in order[:25]], {"doc_emb": docs[order[:25]]})
    writer.add("disease", [ids[i] for i in order[25:]], {"doc_emb": docs[order[25:]]})
    writer.finish(set())
    new = VectorTables(tmp_path / writer.token, "g", writer.token, 20).table("disease")
    assert new.indexed == {"name_emb", "doc_emb"} and np.array_equal(np.asarray(new.matrix("doc_emb")), docs)
    assert np.array_equal(np.asarray(new.matrix("name_emb")), np.asarray(tables.table("disease").matrix("name_emb")))
    assert (tmp_path / writer.token / "t0.name_emb.f32").stat().st_ino == (old.final / "t0.name_emb.f32").stat().st_ino
    assert tables.table("disease").indexed == {"name_emb"}  # the old directory as it was
    assert new.top_k("doc_emb", docs[7], 1)[0][0] == 7

    partial = vectors.ColumnWriter(tmp_path, tables, ["disease"], {"doc_emb": 4}, {"doc_emb"}, 20)
    partial.add("disease", ids[:39], {"doc_emb": docs[:39]})
    with pytest.raises(StoreError, match="1 of 40 nodes have no doc_emb"):
        partial.finish(set())
    partial.discard()
    with pytest.raises(StoreError, match="node 'nope' is not stored once"):
        vectors.ColumnWriter(tmp_path, tables, ["disease"], {"doc_emb": 4}, set(), 20).add(
            "disease", ["nope"], {"doc_emb": docs[:1]}
        )
