"""The embedded store when its server dies or stops answering: a server killed from outside (as the out-of-memory
killer does) is replaced, before a read or by :meth:`FalkorStore.supervise`, and the read goes on; a load whose
server dies or stops fails with a one-line error naming why, the graph saved before stays, and no half-written graph
or orphaned vector directory is left; a stopped server never hangs a call past its bound."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psutil
import pytest

from kgqa.errors import StoreError, StoreTimeoutError
from kgqa.runtime.store import server
from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import VECTORS_DIR, FalkorStore
from kgqa.runtime.store.server import RDB_NAME, WATCHDOG_GRACE
from tests.helpers.processes import wait_for
from tests.helpers.store_bounds import COUNT, SIZE, complete_graph

LIMIT = 1.0
HANG = 2.0
"""The stores' server_hang_timeout here, in seconds."""
BOUND = 45.0
"""When a faulted call must have ended at the latest, a restart included: a correctness bound, not a benchmark."""
VECTOR = np.ones(4, dtype=np.float32) / 2
META = SkbMeta("k", "test", "2", "test", 4, ("Y",), 2, 0, "fp2", "2026-01-02")


@contextmanager
def _complete_store(directory: Path, query_timeout: float = LIMIT) -> Iterator[FalkorStore]:
    """A store in ``directory`` holding the complete graph "k", its server's hang timeout ``HANG``."""
    with FalkorStore(directory, query_timeout=query_timeout, hang_timeout=HANG) as store:
        complete_graph(store)
        yield store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FalkorStore]:
    with _complete_store(tmp_path / "db") as s:
        yield s


def _zombie_or_gone(pid: int) -> str:
    try:
        return str(psutil.Process(pid).status())
    except psutil.NoSuchProcess:
        return "gone"


def _kill(store: FalkorStore, sig: signal.Signals = signal.SIGKILL) -> int:
    pid = store.server_pid
    assert pid is not None
    os.kill(pid, sig)
    if sig == signal.SIGKILL:
        wait_for(lambda: _zombie_or_gone(pid) in ("zombie", "gone"), BOUND, "the server to die")
    return pid


def _vector_dirs(store: FalkorStore) -> set[str]:
    return {p.name for p in (store._server.directory / VECTORS_DIR).iterdir()}


def _intact(store: FalkorStore, old_pid: int) -> None:
    """The graph saved before answers, on a new server, and nothing of the failed load is left."""
    wait_for(lambda: store.server_pid not in (old_pid, None), BOUND, "the restart")
    assert store.graphs() == ["k"]
    assert store.read("k", COUNT) == [[SIZE]]
    assert store.read("k", "MATCH (n:Y) RETURN count(n)") == [[0]]
    assert store.meta("k") is not None and store.meta("k").version == "1"  # type: ignore[union-attr]
    assert len(_vector_dirs(store)) == 1
    assert _zombie_or_gone(old_pid) == "gone"  # reaped, not a zombie


def test_a_read_after_the_server_was_killed_restarts_it_and_answers(tmp_path: Path) -> None:
    """A read waits for a restart at most its ``query_timeout`` (then it says to try again): 10 s here, not LIMIT's
    1 s, which a restart beside a busy suite exceeded once."""
    with _complete_store(tmp_path / "db", query_timeout=10.0) as store:
        pid = _kill(store)
        started = time.monotonic()
        assert store.read("k", COUNT) == [[SIZE]]  # transparent: the read waits for the restart and goes again
        assert time.monotonic() - started < BOUND
        assert store.server_pid != pid and _zombie_or_gone(pid) == "gone"
        assert store.graphs() == ["k"] and store.failure is None


def _supervised(store: FalkorStore, pid: int) -> bool:
    """One turn of the worker's watch loop: whether the server ``pid`` has been replaced."""
    store.supervise()
    return store.server_pid not in (pid, None)


def test_supervise_replaces_a_dead_server_before_any_read(store: FalkorStore) -> None:
    pid = _kill(store)
    wait_for(lambda: _supervised(store, pid), BOUND, "the restart")
    assert _zombie_or_gone(pid) == "gone"
    assert store.read("k", COUNT) == [[SIZE]]


def test_a_server_killed_during_a_load_fails_it_and_keeps_the_saved_graph(store: FalkorStore) -> None:
    with pytest.raises(StoreError) as raised, store.writer("k", META) as writer:
        writer.add_nodes("Y", [NodeRow("y1", "y", "", VECTOR, VECTOR)])
        pid = _kill(store)
        writer.add_nodes("Y", [NodeRow("y2", "y", "", VECTOR, VECTOR)])
    message = str(raised.value)
    assert message.startswith("FalkorDB bulk write failed: the FalkorDB server was killed by SIGKILL")
    assert message.endswith("the server restarts once the load writing to this store ends")
    _intact(store, pid)


def test_a_server_killed_between_publish_and_save_keeps_the_saved_graph(
    store: FalkorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    killed: list[int] = []
    monkeypatch.setattr(store, "_published", lambda graph: killed.append(_kill(store)))
    died = r"^FalkorDB save failed: the FalkorDB server was killed by SIGKILL"
    with pytest.raises(StoreError, match=died), store.writer("k", META) as writer:
        writer.add_nodes("Y", [NodeRow("y1", "y", "", VECTOR, VECTOR), NodeRow("y2", "y", "", VECTOR, VECTOR)])
    _intact(store, killed[0])  # the published graph lived in memory only; its vector directory is removed


def test_a_stopped_server_fails_a_load_within_the_hang_timeout(store: FalkorStore) -> None:
    """SIGSTOP stands for a deadlocked server: no answer, no CPU. The write does not hang; the server is killed
    and restarted once the load has failed."""
    with pytest.raises(StoreError) as raised, store.writer("k", META) as writer:
        writer.add_nodes("Y", [NodeRow("y1", "y", "", VECTOR, VECTOR)])
        pid = _kill(store, signal.SIGSTOP)
        started = time.monotonic()  # the bulk insert is sent when the load ends its writes
    assert HANG <= time.monotonic() - started < BOUND
    assert str(raised.value).startswith(
        f"FalkorDB bulk write failed: the FalkorDB server stopped answering (no CPU or disk use for {HANG:g} s while "
        "a write waited on it) and was killed"
    )
    _intact(store, pid)


@pytest.mark.parametrize("what", ["query", "metadata"])
def test_a_stopped_server_times_reads_out_and_is_restarted(store: FalkorStore, what: str) -> None:
    """Queries and metadata reads alike end at the read bound; the restart that follows brings the graph back."""
    read = (lambda: store.read("k", COUNT)) if what == "query" else store.graphs
    pid = _kill(store, signal.SIGSTOP)
    started = time.monotonic()
    with pytest.raises(StoreTimeoutError, match="the server is restarting"):
        read()
    assert time.monotonic() - started < LIMIT + WATCHDOG_GRACE + 5.0
    wait_for(lambda: store.server_pid not in (pid, None), BOUND, "the restart")
    deadline = time.monotonic() + BOUND
    while True:  # reads wait for a restart only about LIMIT seconds
        try:
            assert store.read("k", COUNT) == [[SIZE]] and store.graphs() == ["k"]
            break
        except StoreTimeoutError:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    assert _zombie_or_gone(pid) == "gone"


@pytest.mark.parametrize("what", ["query", "metadata"])
def test_a_read_on_a_stopped_server_is_answered_by_a_restart_long_before_its_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """With the default minute of ``query_timeout``, a read does not wait it out on a server that uses no CPU: the
    read stall watch kills it after ``READ_HANG_AFTER`` (here 2 s), and the read is asked again of the new server,
    so the caller sees its answer, not an error."""
    monkeypatch.setattr(server, "READ_HANG_AFTER", 2.0)
    with _complete_store(tmp_path / "db", query_timeout=60.0) as store:
        read = (lambda: store.read("k", COUNT)) if what == "query" else store.graphs
        pid = _kill(store, signal.SIGSTOP)
        started = time.monotonic()
        assert read() == ([[SIZE]] if what == "query" else ["k"])
        assert time.monotonic() - started < BOUND
        assert store.server_pid not in (pid, None)
        assert _zombie_or_gone(pid) == "gone"


@pytest.mark.parametrize("damage", ["truncated", "overwritten"])
def test_a_damaged_saved_graphs_file_is_refused_saying_what_to_do(tmp_path: Path, damage: str) -> None:
    """Redis checks the file's format and checksum and refuses it whole: nothing wrong is served."""
    directory = tmp_path / "db"
    with FalkorStore(directory, query_timeout=LIMIT) as store:
        complete_graph(store)
    rdb = directory / RDB_NAME
    data = bytearray(rdb.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    else:
        middle = len(data) // 2
        data[middle : middle + 64] = bytes(64)
    rdb.write_bytes(bytes(data))
    with pytest.raises(StoreError) as raised:
        FalkorStore(directory, query_timeout=LIMIT)
    message = str(raised.value)
    assert message.startswith(f"the saved graphs in {rdb} cannot be read (") and "\n" not in message
    assert f"mv {rdb} {rdb}.damaged" in message


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs: a full disk that the test can fill (mounting needs root; elsewhere the test is skipped)."""
    mount = tmp_path / "small"
    mount.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a full disk needs a small tmpfs, and mount refused it: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False, capture_output=True)


def test_a_load_whose_save_fills_the_disk_fails_and_the_saved_graph_is_served_again(small_disk: Path) -> None:
    """The SAVE of a graph larger than the disk's free space fails; the half-written file is removed (redis writes a
    temporary file and renames it when complete), the published graph is dropped from memory by a restart from the
    file, and the graph saved before is what is served."""
    with FalkorStore(small_disk / "db", query_timeout=LIMIT) as store:
        complete_graph(store)
        pid = store.server_pid
        assert pid is not None
        documents = (os.urandom(4096).hex() for _ in range(3000))  # 24 MiB that no compression shrinks
        rows = [NodeRow(f"y{i}", f"y {i}", doc, VECTOR, VECTOR) for i, doc in enumerate(documents)]
        meta = SkbMeta("k", "test", "2", "test", 4, ("Y",), len(rows), 0, "fp2", "2026-01-02")
        with pytest.raises(StoreError) as raised, store.writer("k", meta) as writer:
            writer.add_nodes("Y", rows)
        message = str(raised.value)
        assert message.startswith("FalkorDB save failed: ") and "\n" not in message
        assert message.endswith("the graph loaded before is served again once the server restarts")
        _intact(store, pid)
        assert not list((small_disk / "db").glob("temp-*.rdb"))
