"""The embedded store's time limit without a server: how a read's failure is reported, and the restart machinery
(:class:`kgqa.runtime.store.server.Restarts`) with a fake server. Against the real server:
tests/integration/test_store_bounds.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from kgqa.config import load_config
from kgqa.errors import StoreError, StoreTimeoutError
from kgqa.runtime.app import open_store
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.server import RUNAWAY_PROBE_TIMEOUT, Restarts, Stalls
from tests.helpers.environment import QUIET

WAIT = 30.0
"""Seconds a test waits for another thread at most (a correctness bound)."""


class FakeServer:
    """Restarts return numbered clients; each records the thread it ran in, and may be held until released."""

    def __init__(self, fail: bool = False) -> None:
        self.restarts: list[str] = []
        self.fail = fail
        self.hold = threading.Event()
        self.hold.set()
        self.entered = threading.Event()
        self.stopped = False
        self.dead: str | None = None
        """How the server ended (``exit_status``), until a restart starts a new one."""
        self.process = None  # no child: the stall watches below find nothing to measure
        self.stalls, self.read_stalls = Stalls(self, 120.0, "a write"), Stalls(self, 15.0, "a read")  # type: ignore[arg-type]

    def exit_status(self, wait: float = 0.0) -> str | None:
        return self.dead

    def restart(self) -> str:
        self.dead = None
        self.entered.set()
        assert self.hold.wait(WAIT)
        self.restarts.append(threading.current_thread().name)
        if self.fail:
            raise StoreError("FalkorDB server exited with code 1: bad module argument")
        return f"client {len(self.restarts)}"

    def stop(self) -> None:
        self.stopped = True


def _restarts(
    server: FakeServer,
    clients: list[Any] | None = None,
    runaway: bool | Callable[[], bool] = True,
    wait: float = WAIT,
) -> Restarts:
    taken = clients if clients is not None else []
    probe = runaway if callable(runaway) else lambda: runaway
    return Restarts(server, taken.append, probe, wait=wait)  # type: ignore[arg-type]


def test_closing_a_stall_watch_ends_its_thread() -> None:
    """No watcher thread outlives its store (Python before 3.14 ends a daemon thread that runs during interpreter
    shutdown with pthread_exit, which can crash the exiting process)."""
    stalls = FakeServer().stalls
    with stalls.watching():
        pass
    thread = stalls._thread
    assert thread is not None and thread.is_alive()  # it waits for the next call
    stalls.close()
    stalls.join()
    assert not thread.is_alive()


def test_a_restart_runs_in_the_keeper_thread_and_reads_wait_for_it() -> None:
    """Not in the reading thread: the server dies with the thread that started it, and a worker's job thread ends."""
    server, clients = FakeServer(), []
    restarts = _restarts(server, clients)
    assert restarts.ready() == 0
    server.hold.clear()
    assert restarts.after_timeout() == "the server is restarting (reads wait for it)"
    assert server.entered.wait(WAIT)
    assert restarts.after_timeout() == "the server is restarting"  # a second timeout meanwhile: no second restart
    server.hold.set()
    assert restarts.ready() == 1
    assert server.restarts == ["falkordb-restarts"] and clients == ["client 1"]
    restarts.close(server.stop)
    assert server.stopped and restarts.after_timeout() == "the store is closing"
    assert server.restarts == ["falkordb-restarts"]


@pytest.mark.parametrize("runaway", [True, False])
def test_no_restart_while_a_load_writes_then_one_when_the_last_is_done(runaway: bool) -> None:
    """Then only if a read still runs past the limit: one that timed out may only have waited for the load's SAVE."""
    server = FakeServer()
    restarts = _restarts(server, runaway=runaway)
    with restarts.writing(), restarts.writing():
        message = restarts.after_timeout()
        assert message == "the server restarts after the load writing to this store if the query still runs"
        assert restarts.ready() == 0 and server.restarts == []
    assert restarts.ready() == int(runaway) and len(server.restarts) == int(runaway)
    with restarts.writing():  # nothing pending any more
        pass
    assert restarts.ready() == int(runaway)
    restarts.close(server.stop)


def test_a_writer_waits_for_a_restart_under_way() -> None:
    server = FakeServer()
    restarts = _restarts(server)
    server.hold.clear()
    restarts.after_timeout()
    assert server.entered.wait(WAIT)
    entered = threading.Event()

    def load() -> None:
        with restarts.writing():
            entered.set()
            assert server.restarts  # the restart was done before the load began

    thread = threading.Thread(target=load)
    thread.start()
    assert not entered.wait(0.2)
    server.hold.set()
    thread.join(WAIT)
    assert entered.is_set()
    restarts.close(server.stop)


class BlockingProbe:
    """A runaway probe that does not answer until released (a wedged server), then says ``answer``."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.calls = 0
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> bool:
        self.calls += 1
        self.entered.set()
        assert self.release.wait(WAIT)
        return self.answer


def _load_ending_with_a_pending_restart(restarts: Restarts) -> threading.Thread:
    """A load, in its own thread, during which a read timed out: its end asks the probe."""

    def load() -> None:
        with restarts.writing():
            restarts.after_timeout()

    thread = threading.Thread(target=load)
    thread.start()
    return thread


def test_a_probe_the_server_does_not_answer_blocks_no_read_and_no_load() -> None:
    """The probe runs without the lock: reads and other loads go on while it waits; its answer then restarts."""
    server, probe = FakeServer(), BlockingProbe()
    restarts = _restarts(server, runaway=probe)
    load = _load_ending_with_a_pending_restart(restarts)
    assert probe.entered.wait(WAIT)
    started = time.monotonic()
    assert restarts.ready() == 0
    with restarts.writing():  # another load begins and ends: nothing pending any more, no second probe
        pass
    assert time.monotonic() - started < WAIT / 2 and load.is_alive() and server.restarts == []
    probe.release.set()
    load.join(WAIT)
    assert restarts.ready() == 1 and len(server.restarts) == 1 and probe.calls == 1
    restarts.close(server.stop)


def test_a_load_begun_while_the_probe_waits_defers_the_restart_again() -> None:
    server, probe = FakeServer(), BlockingProbe()
    restarts = _restarts(server, runaway=probe)
    load = _load_ending_with_a_pending_restart(restarts)
    assert probe.entered.wait(WAIT)
    with restarts.writing():
        probe.release.set()
        load.join(WAIT)
        assert restarts.ready() == 0 and server.restarts == []  # not while this load writes
    assert restarts.ready() == 1 and len(server.restarts) == 1 and probe.calls == 2
    restarts.close(server.stop)


def test_a_restart_begun_while_the_probe_waits_is_the_only_one() -> None:
    server, probe = FakeServer(), BlockingProbe()
    restarts = _restarts(server, runaway=probe)
    load = _load_ending_with_a_pending_restart(restarts)
    assert probe.entered.wait(WAIT)
    assert restarts.after_timeout() == "the server is restarting (reads wait for it)"  # no writer now
    assert restarts.ready() == 1
    probe.release.set()
    load.join(WAIT)
    assert restarts.ready() == 1 and len(server.restarts) == 1
    restarts.close(server.stop)


def test_a_read_waits_for_a_slow_restart_only_so_long() -> None:
    """Then a clean timeout that says so; the next read after the restart goes on."""
    server = FakeServer()
    restarts = _restarts(server, wait=0.2)
    server.hold.clear()
    restarts.after_timeout()
    assert server.entered.wait(WAIT)
    started = time.monotonic()
    with pytest.raises(StoreTimeoutError) as raised:
        restarts.ready()
    assert 0.2 <= time.monotonic() - started < WAIT / 2
    assert str(raised.value) == "the server is restarting after a runaway read (0 s so far); try again shortly"
    server.hold.set()
    assert _ready(restarts) == 1 and len(server.restarts) == 1
    restarts.close(server.stop)


def _ready(restarts: Restarts) -> int:
    """``ready()``, asked again while it says the server is still restarting (for at most ``WAIT`` seconds)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            return restarts.ready()
        except StoreTimeoutError:
            if time.monotonic() > deadline:
                raise


def test_a_failed_restart_is_reported_by_every_later_read() -> None:
    server = FakeServer(fail=True)
    restarts = _restarts(server)
    restarts.after_timeout()
    for _ in range(2):
        with pytest.raises(StoreError, match="could not be restarted: FalkorDB server exited with code 1"):
            restarts.ready()
    with pytest.raises(StoreError, match="could not be restarted"), restarts.writing():
        pass
    restarts.close(server.stop)


class _Graph:
    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers

    def ro_query(self, *args: object, **kwargs: object) -> Any:
        answer = self.answers.pop(0)
        if callable(answer):
            answer = answer()
        if isinstance(answer, Exception):
            raise answer
        return answer


class _Client:
    def __init__(self, *answers: Any) -> None:
        self.graph = _Graph(list(answers))

    def select_graph(self, graph: str) -> _Graph:
        return self.graph


class _Rows:
    def __init__(self, rows: list[list[Any]]) -> None:
        self.result_set = rows


def _store(*answers: Any, wait: float = WAIT) -> tuple[FalkorStore, FakeServer]:
    """A store without a server whose reads answer ``answers`` in turn (an exception is raised)."""
    store = object.__new__(FalkorStore)
    server = FakeServer()
    store._reader = _Client(*answers)  # type: ignore[assignment]
    store._server = server  # type: ignore[assignment]
    store.query_timeout = 60.0
    store._restarts = Restarts(server, lambda client: None, lambda: True, wait=wait)  # type: ignore[arg-type]
    return store, server


def test_a_timeout_the_server_reports_is_a_store_timeout_and_other_refusals_are_not() -> None:
    store, server = _store(ResponseError("Query timed out"), ResponseError("errMsg: Invalid input"))
    with pytest.raises(StoreTimeoutError, match=r"^query ran past 60 s: Query timed out$"):
        store.read("g", "MATCH (n) RETURN n")
    with pytest.raises(StoreError, match="query refused by FalkorDB: errMsg: Invalid input") as refused:
        store.read("g", "MATCH (n) RETURN n")
    assert not isinstance(refused.value, StoreTimeoutError) and server.restarts == []


def test_a_read_the_server_does_not_answer_is_a_store_timeout_and_restarts_it() -> None:
    store, server = _store(RedisTimeoutError("Timeout reading from socket"), _Rows([[1]]))
    message = "query ran past 60 s and the server did not stop it; the server is restarting (reads wait for it)"
    with pytest.raises(StoreTimeoutError) as raised:
        store.read("g", "MATCH (n) RETURN n")
    assert str(raised.value) == message
    assert store.read("g", "RETURN 1") == [[1]] and len(server.restarts) == 1
    store._restarts.close(server.stop)


def test_a_read_whose_connection_a_restart_closed_reads_again_once() -> None:
    """Another read's timeout restarted the server under this one: read again; a lost connection without a restart
    is an error."""
    store, server = _store(lambda: (store._restarts.after_timeout(), RedisConnectionError("closed"))[1], _Rows([[2]]))
    assert store.read("g", "RETURN 2") == [[2]] and len(server.restarts) == 1
    store._reader = _Client(RedisConnectionError("Connection refused"))  # type: ignore[assignment]
    with pytest.raises(StoreError, match=r"^FalkorDB read failed: Connection refused$"):
        store.read("g", "RETURN 3")
    store._restarts.close(server.stop)


def test_a_restart_that_ends_before_the_read_looks_again_still_reads_again() -> None:
    """The restart a read began may end before that read looks (a fast restart, a busy machine): it reads again."""
    store, server = _store(RedisConnectionError("Connection refused"), _Rows([[6]]))
    server.dead = "was killed by SIGKILL"
    begin = store._restarts.after_exit

    def begun_and_done(how: str) -> str:
        said = begin(how)
        store._restarts.ready()  # the keeper thread has restarted the server before the read goes on
        return said

    store._restarts.after_exit = begun_and_done  # type: ignore[method-assign]
    assert store.read("g", "RETURN 6") == [[6]] and len(server.restarts) == 1
    store._restarts.close(server.stop)


def test_a_read_that_finds_the_server_dead_restarts_it_and_reads_again() -> None:
    """Killed from outside (the out-of-memory killer): the read that meets the dead server restarts it, waits for
    the restart and reads again, once."""
    store, server = _store(RedisConnectionError("Connection refused"), _Rows([[4]]))
    server.dead = "was killed by SIGKILL"
    assert store.read("g", "RETURN 4") == [[4]] and len(server.restarts) == 1
    refused = RedisConnectionError("Connection refused")
    store._reader = _Client(refused, refused)  # type: ignore[assignment]
    server.dead = "was killed by SIGKILL"
    with pytest.raises(StoreError, match=r"^FalkorDB read failed: Connection refused$"):
        store.read("g", "RETURN 5")  # the restarted server refuses too: no third try
    assert len(server.restarts) == 2
    store._restarts.close(server.stop)


def test_a_read_during_a_slow_restart_is_a_store_timeout() -> None:
    store, server = _store(RedisTimeoutError("Timeout reading from socket"), _Rows([[1]]), wait=0.2)
    server.hold.clear()
    with pytest.raises(StoreTimeoutError, match="did not stop it; the server is restarting"):
        store.read("g", "MATCH (n) RETURN n")
    started = time.monotonic()
    with pytest.raises(StoreTimeoutError, match=r"^the server is restarting after a runaway read \(\d+ s so far\)"):
        store.read("g", "RETURN 1")
    assert time.monotonic() - started < WAIT / 2
    server.hold.set()
    store._restarts.close(server.stop)
    assert store.read("g", "RETURN 1") == [[1]]


class _ProbeClient:
    """What the runaway probe's client answers to ``GRAPH.INFO RunningQueries`` (an exception is raised)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.closed = False

    def execute_command(self, *args: object) -> Any:
        assert args == ("GRAPH.INFO", "RunningQueries")
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def close(self) -> None:
        self.closed = True


class _ProbeServer:
    def __init__(self, answer: Any) -> None:
        self.client = _ProbeClient(answer)
        self.timeouts: list[float] = []

    def probe(self, timeout: float) -> _ProbeClient:
        self.timeouts.append(timeout)
        return self.client

    def exit_status(self, wait: float = 0.0) -> str | None:
        return None  # alive: the probe decides


def _running(*milliseconds: float) -> list[Any]:
    return ["Current timestamp", [["Query", "MATCH", "Execution duration", ms] for ms in milliseconds]]


@pytest.mark.parametrize(
    ("answer", "runaway"),
    [
        (_running(), False),
        (_running(59_000.0), False),
        (_running(12.0, 61_000.0), True),
        (RedisTimeoutError("Timeout reading from socket"), True),  # a wedged server: restart it
        (RedisConnectionError("Connection refused"), True),
        (["an unexpected reply"], True),
    ],
)
def test_the_runaway_probe_asks_with_a_short_timeout(answer: Any, runaway: bool) -> None:
    store = object.__new__(FalkorStore)
    store.query_timeout = 60.0
    server = _ProbeServer(answer)
    store._server = server  # type: ignore[assignment]
    assert store._runaway() is runaway
    assert server.timeouts == [RUNAWAY_PROBE_TIMEOUT] and RUNAWAY_PROBE_TIMEOUT <= 10 and server.client.closed


def test_the_configured_limit_reaches_the_embedded_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: dict[str, Any] = {}
    monkeypatch.setattr(
        "kgqa.runtime.store.falkordb.FalkorStore", lambda directory, **settings: opened.update(settings)
    )
    open_store(load_config({"home": tmp_path, "query_timeout": 7.5}, env=QUIET, cwd=tmp_path))
    assert opened["query_timeout"] == 7.5
