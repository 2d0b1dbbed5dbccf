"""The embedded store's bounds against the real server: no temporary file of a killed save left behind, a bounded
log."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kgqa.store.base import NodeRow, SkbMeta
from kgqa.store.falkordb import FalkorStore
from kgqa.store.server import LOG_KEPT, LOG_MAX_BYTES, LOG_NAME, RDB_NAME

SIZE = 40
COUNT = "MATCH (n:X) RETURN count(n)"


def _complete_graph(store: FalkorStore, name: str = "k") -> None:
    """``SIZE`` nodes, one ``r`` edge between every two, loaded (and saved) as a load writes them."""
    vector = np.ones(4, dtype=np.float32) / 2
    rows = [NodeRow(f"n{i}", f"node {i}", "", vector, vector) for i in range(SIZE)]
    pairs = [(f"n{i}", f"n{j}") for i in range(SIZE) for j in range(i + 1, SIZE)]
    meta = SkbMeta(name, "test", "1", "test", 4, ("X",), SIZE, len(pairs), "fp", "2026-01-01")
    with store.writer(name, meta) as writer:
        writer.add_nodes("X", rows)
        writer.add_edges("X", "r", "X", pairs)


def test_a_start_removes_the_temporary_files_of_killed_saves(tmp_path: Path) -> None:
    directory = tmp_path / "db"
    with FalkorStore(directory) as store:
        _complete_graph(store)
    stale = [directory / "temp-4242.rdb", directory / "temp-1.rdb"]
    for path in stale:
        path.write_bytes(b"REDIS0011 half a save")
    keep = directory / "temp-notes.txt"
    keep.write_text("not redis's")
    with FalkorStore(directory) as store:
        assert not any(path.exists() for path in stale) and keep.exists()
        assert store.read("k", COUNT) == [[SIZE]]  # the saved graph is untouched
    assert (directory / RDB_NAME).exists()


def test_a_start_rotates_a_large_log_keeping_one(tmp_path: Path) -> None:
    directory = tmp_path / "db"
    directory.mkdir()
    log, kept = directory / LOG_NAME, directory / LOG_KEPT
    kept.write_text("the log before the previous one\n")
    log.write_text("a line of an old run\n" * (LOG_MAX_BYTES // 20))
    with FalkorStore(directory):
        pass
    assert kept.read_text().startswith("a line of an old run")
    size = log.stat().st_size
    assert 0 < size < LOG_MAX_BYTES and "a line of an old run" not in log.read_text()
    with FalkorStore(directory):  # small: appended to, not rotated
        pass
    assert log.stat().st_size > size and kept.read_text().startswith("a line of an old run")
