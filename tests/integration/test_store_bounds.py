"""The embedded store's bounds against the real server: the time limit on every read (FalkorDB's own, then kgqa's
watchdog and a restart), no temporary file of a killed save left behind, a bounded log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psutil
import pytest

from kgqa.errors import StoreTimeoutError
from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.server import (
    LOG_KEPT,
    LOG_MAX_BYTES,
    LOG_NAME,
    RDB_NAME,
    RUNAWAY_PROBE_TIMEOUT,
    WATCHDOG_GRACE,
    WRITE_TIMEOUT_MS,
)
from tests.helpers.processes import wait_for
from tests.helpers.store_bounds import BOUND, CHAIN, COUNT, LIMIT, SIZE, after_restart, complete_graph

PATHS = "MATCH p = (a:X)-[:r*1..20]-(b:X) RETURN count(p)"
"""Billions of paths, which FalkorDB itself stops at its time limit."""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FalkorStore]:
    with FalkorStore(tmp_path / "db", query_timeout=LIMIT) as s:
        complete_graph(s)
        yield s


def _timed_out(store: FalkorStore, query: str) -> tuple[str, float]:
    """The message of the read's StoreTimeoutError and when it came."""
    started = time.monotonic()
    with pytest.raises(StoreTimeoutError) as raised:
        store.read("k", query)
    return str(raised.value), time.monotonic() - started


def test_every_query_has_the_limit_and_none_more_than_the_ceiling(store: FalkorStore) -> None:
    settings = dict(store.client.connection.execute_command("GRAPH.CONFIG", "GET", "*"))
    assert (settings["TIMEOUT_DEFAULT"], settings["TIMEOUT_MAX"]) == (1000, WRITE_TIMEOUT_MS)


def test_a_read_the_server_stops_is_a_timeout_and_the_server_stays(store: FalkorStore) -> None:
    pid = store.server_pid
    message, seconds = _timed_out(store, PATHS)
    assert message == "query ran past 1 s: Query timed out" and seconds < BOUND
    assert store.read("k", COUNT) == [[SIZE]] and store.server_pid == pid


def test_a_read_the_server_does_not_stop_ends_and_the_server_is_restarted(store: FalkorStore) -> None:
    """The watchdog stops waiting; the server, still computing, is restarted from its RDB file, and answers. The
    read runs in a thread that ends (as a worker's job does): the new server must outlive it."""
    pid = store.server_pid
    outcome: list[tuple[str, float]] = []
    reader = threading.Thread(target=lambda: outcome.append(_timed_out(store, CHAIN)))
    reader.start()
    reader.join(BOUND)
    message, seconds = outcome[0]
    assert message == "query ran past 1 s and the server did not stop it; the server is restarting (reads wait for it)"
    assert LIMIT + WATCHDOG_GRACE <= seconds < BOUND
    assert after_restart(lambda: store.read("k", COUNT)) == [[SIZE]]  # the restarted server, from the saved graph
    assert store.server_pid != pid and store.graphs() == ["k"]
    assert all(index.status == "OPERATIONAL" for index in store.schema("k").indexes)


def test_a_restarted_server_dies_with_kgqa(tmp_path: Path) -> None:
    """Killed kgqa (SIGKILL: nothing runs) takes the server it restarted with it, as it does the first one."""
    script = f"""
import sys
from pathlib import Path
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.store.falkordb import FalkorStore
from tests.helpers.store_bounds import CHAIN, COUNT, after_restart, complete_graph
store = FalkorStore(Path({str(tmp_path / "db")!r}), query_timeout={LIMIT})
complete_graph(store)
first = store.server_pid
try:
    store.read("k", CHAIN)
except StoreTimeoutError:
    pass
after_restart(lambda: store.read("k", COUNT))
print(first, store.server_pid, flush=True)
sys.stdin.read()
"""
    root = Path(__file__).resolve().parents[2]
    kgqa = subprocess.Popen(
        [sys.executable, "-c", script], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        first, second = map(int, kgqa.stdout.readline().split())  # type: ignore[union-attr]
        assert first != second and psutil.pid_exists(second)
        kgqa.kill()
        kgqa.wait(BOUND)
        wait_for(lambda: not _alive(second), BOUND, "the restarted server to die with kgqa")
    finally:
        kgqa.kill()
        kgqa.wait(BOUND)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_no_restart_while_a_load_writes_then_once_it_is_done(store: FalkorStore) -> None:
    """What a load has written is in memory only until its SAVE: the restart waits for the writer, and then happens
    only if the server still runs a query past the limit (GRAPH.INFO)."""
    pid = store.server_pid
    assert not store._runaway()
    vector = np.ones(4, dtype=np.float32) / 2
    meta = SkbMeta("other", "test", "1", "test", 4, ("Y",), 1, 0, "fp", "2026-01-01")
    with store.writer("other", meta) as writer:
        writer.add_nodes("Y", [NodeRow("y", "y", "", vector, vector)])
        message, seconds = _timed_out(store, CHAIN)
        assert message.endswith("the server restarts after the load writing to this store if the query still runs")
        assert seconds < BOUND and store.server_pid == pid and store._runaway()
    wait_for(lambda: store.server_pid not in (pid, None), BOUND, "the pending restart")
    assert after_restart(store.graphs) == ["k", "other"]  # the load was published and saved before the restart
    assert store.read("other", "MATCH (n:Y) RETURN n.id") == [["y"]]


def test_a_server_that_does_not_answer_counts_as_running_a_read_past_the_limit(store: FalkorStore) -> None:
    """The probe before a deferred restart gives up after RUNAWAY_PROBE_TIMEOUT (a stopped process stands for a
    wedged server): restarting is then the way back."""
    pid = store.server_pid
    assert pid is not None and not store._runaway()
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        assert store._runaway()
        assert time.monotonic() - started < RUNAWAY_PROBE_TIMEOUT + 5.0
    finally:
        os.kill(pid, signal.SIGCONT)
    assert not store._runaway() and store.read("k", COUNT) == [[SIZE]]


def test_a_start_removes_the_temporary_files_of_killed_saves(tmp_path: Path) -> None:
    directory = tmp_path / "db"
    with FalkorStore(directory) as store:
        complete_graph(store)
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
