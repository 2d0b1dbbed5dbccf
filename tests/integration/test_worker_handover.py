"""A worker handed over between clients of different settings, over its real socket, lock and state file (served
from a thread around a stand-in, :mod:`tests.helpers.threaded_worker`): a restart drains the calls in flight, the
commands that arrive meanwhile wait for it, a load's polls and its cancel never wait on the client's other calls."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kgqa.config import Config, load_config
from kgqa.errors import WorkerBusyError
from kgqa.runtime.worker import client
from kgqa.runtime.worker.client import RemoteKgqa, connect_worker, read_state, stop_worker
from tests.helpers.environment import QUIET
from tests.helpers.threaded_worker import GENEROUS, StandIn, ThreadedWorker, spawning


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)


@pytest.fixture
def workers(config: Config, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ThreadedWorker]]:
    """The first worker, serving ``config``; the workers the clients start after it are appended."""
    started = [ThreadedWorker(config, StandIn("first"))]
    monkeypatch.setattr(client, "_spawn", spawning(started, lambda n: f"worker {n}"))
    yield started
    for worker in reversed(started):
        worker.close()


class _Outcome:
    """A call run in a thread, its value or error kept for the test."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.value: Any = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.value = call()
            except BaseException as exc:  # kept for the test's assertion
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def result(self) -> Any:
        self.thread.join(GENEROUS)
        assert not self.thread.is_alive(), "the call did not end"
        if self.error is not None:
            raise self.error
        return self.value


def _until(predicate: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(int(GENEROUS / 0.01)):
        if predicate():
            return
        done.wait(0.01)
    raise AssertionError("timed out")


def _schema(config: Config, notice: Callable[[str], None] = lambda _: None, wait: float | None = None) -> str:
    """What a short command asks (``kgqa schema``), on a client of its own."""
    remote = connect_worker(config, notice, wait=wait)
    try:
        return str(remote.schema("hpo"))
    finally:
        remote.close()


def _draining(config: Config) -> bool:
    state = read_state(client.WorkerPaths.of(config))
    return state is not None and state.draining


def test_a_view_restarting_the_worker_lets_its_own_client_s_load_end(
    config: Config, workers: list[ThreadedWorker]
) -> None:
    """The load's polls go on while a view of the same client waits for the worker to drain that very load."""
    notices: list[str] = []
    remote = connect_worker(config, notices.append)
    load = _Outcome(lambda: remote.load_source("hpo"))
    _until(workers[0].kg.loading.is_set)
    other = cast_remote(remote).with_config(replace(config, ef_runtime=config.ef_runtime + 1))
    ask = _Outcome(lambda: other.schema("hpo"))
    _until(lambda: _draining(config))
    assert not workers[0].worker._jobs[1].cancelled.is_set()
    workers[0].kg.release.set()
    assert load.result() == "hpo loaded by first"
    assert ask.result() == "schema of hpo from worker 1"
    assert notices == [
        f"restarting the kgqa worker (pid {workers[0].process.pid}): it was started with other settings (ef_runtime); "
        "it ends the 1 call in flight first"
    ]
    remote.close()


def cast_remote(api: Any) -> RemoteKgqa:
    assert isinstance(api, RemoteKgqa)
    return api


def test_commands_arriving_during_a_drain_wait_for_it_even_when_its_restarter_is_gone(
    config: Config, workers: list[ThreadedWorker]
) -> None:
    """The restarter asked for the drain and went away (Ctrl-C): the state file says the worker drains, so the next
    command waits for it as long as the calls in flight take, says so, and is served by the next worker."""
    job = workers[0].worker.answer(client.Call("load_source", config, ("hpo",))).value
    assert stop_worker_answer(config)  # what a restarter sends before it waits (and here, is killed)
    assert _draining(config)
    _until(lambda: not client.WorkerPaths.of(config).socket.exists())  # it takes no new connection from now on
    notices: list[str] = []
    other = replace(config, ef_runtime=config.ef_runtime + 1)
    ask = _Outcome(lambda: _schema(other, notices.append))
    _until(lambda: bool(notices))
    assert notices == [
        f"the kgqa worker (pid {workers[0].process.pid}) restarts for another command's settings once it has ended "
        "the calls in flight; waiting for it"
    ]
    workers[0].kg.release.set()
    _until(lambda: workers[0].worker._jobs[job].done.is_set())
    assert workers[0].worker._poll(job).result == "hpo loaded by first"  # its client takes the result
    assert ask.result() == "schema of hpo from worker 1"


def stop_worker_answer(config: Config) -> bool:
    found = client._hello(client.WorkerPaths.of(config))
    assert found is not None
    conn, _ = found
    try:
        return bool(conn.call("stop", None, True))
    finally:
        conn.close()


def test_a_bounded_caller_is_told_the_worker_is_busy_restarting(config: Config, workers: list[ThreadedWorker]) -> None:
    """An MCP tool call has its own bound: a restart's drain longer than that is a busy error, not an endless wait,
    for the restarter and for the callers after it; the drain goes on and the next call is served."""
    remote = connect_worker(config, lambda _: None)
    load = _Outcome(lambda: remote.load_source("hpo"))
    _until(workers[0].kg.loading.is_set)
    other = replace(config, ef_runtime=config.ef_runtime + 1)
    with pytest.raises(WorkerBusyError, match=r"restarts for another command's settings .* within 0\.2 s"):
        _schema(other, wait=0.2)
    assert _draining(config)
    with pytest.raises(WorkerBusyError, match=r"within 0\.2 s; try again shortly"):
        _schema(other, wait=0.2)
    workers[0].kg.release.set()
    assert load.result() == "hpo loaded by first"
    assert _schema(other, wait=GENEROUS) == "schema of hpo from worker 1"
    remote.close()


def test_a_load_interrupted_during_a_drain_is_cancelled_on_its_second_connection(
    config: Config, workers: list[ThreadedWorker], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C may cut the poll connection mid-message, and a draining worker takes no new connection: the cancel
    goes on the connection the job opened as it started."""
    remote = connect_worker(config, lambda _: None)
    jobs: list[Any] = []

    def interrupted(conn: client._Connection, job: int, progress: Any) -> Any:
        assert not conn.call("job_poll", None, job).done
        jobs.append(workers[0].worker._jobs[job])
        assert stop_worker_answer(config)  # another client's restart begins: the socket closes
        _until(lambda: not client.WorkerPaths.of(config).socket.exists())
        conn.close()  # cut mid-message
        raise KeyboardInterrupt

    monkeypatch.setattr(client, "_follow", interrupted)
    with pytest.raises(KeyboardInterrupt):
        remote.load_source("hpo")
    [job] = jobs
    assert job.cancelled.is_set() and job.done.is_set() and type(job.error).__name__ == "Cancelled"
    assert job.id not in workers[0].worker._jobs  # its end was taken by the cancel's poll: nothing left to drain
    workers[0].thread.join(GENEROUS)
    assert not workers[0].thread.is_alive()
    remote.close()


def test_a_restart_whose_stop_is_not_answered_ends_the_worker_within_the_stop_timeout(
    config: Config, workers: list[ThreadedWorker], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that does not answer the stop is ended as a hung one is, while its answer is still due: the wait
    without a limit is only for a worker that said it drains."""
    hung, answered = threading.Event(), threading.Event()
    answer = workers[0].worker._dispatch

    def dispatch(call: client.Call) -> Any:
        if call.method == "stop":
            hung.wait(GENEROUS)
            answered.set()
        return answer(call)

    monkeypatch.setattr(workers[0].worker, "_dispatch", dispatch)
    monkeypatch.setattr(client, "ANSWER_TIMEOUT", 0.5)
    try:
        stop_worker(config, timeout=0.2, drain=True)
        assert not answered.is_set()  # it did not wait for the answer
    finally:
        hung.set()
    # killed (here: the sleep standing for its pid): SIGKILL past the timeout, SIGTERM had even hello gone unanswered
    assert workers[0].process.wait(GENEROUS) in (-signal.SIGKILL, -signal.SIGTERM)


def test_a_restart_waits_for_the_first_call_of_the_command_that_started_the_worker(
    config: Config, workers: list[ThreadedWorker]
) -> None:
    """Not for any first call: a third client's call does not end the wait, so the starter is answered before the
    next restart (no client starves another)."""
    other = replace(config, ef_runtime=config.ef_runtime + 1)
    starter = connect_worker(other, lambda _: None)  # restarts the first worker, starts the second
    started = workers[1].worker
    assert not started.served.is_set()
    third = connect_worker(other, lambda _: None)
    assert third.schema("hpo") == "schema of hpo from worker 1" and not started.served.is_set()
    assert starter.schema("hpo") == "schema of hpo from worker 1" and started.served.is_set()
    third.close()
    starter.close()


def test_a_starter_that_makes_no_call_ends_the_wait_as_it_closes(config: Config, workers: list[ThreadedWorker]) -> None:
    """``kgqa server start`` starts the worker and makes no call: a restart need not wait for one."""
    starter = connect_worker(replace(config, ef_runtime=config.ef_runtime + 1), lambda _: None)
    assert not workers[1].worker.served.is_set()
    starter.close()
    _until(workers[1].worker.served.is_set)


def test_a_restart_whose_stop_answer_is_late_waits_for_the_drain_the_worker_recorded(
    config: Config, workers: list[ThreadedWorker], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine the stop's answer may come after ``ANSWER_TIMEOUT``: the worker recorded the drain before
    it answered, so the restart waits for it as for an answered one, and another client's load runs to its end."""
    remote = connect_worker(config, lambda _: None)
    load = _Outcome(lambda: remote.load_source("hpo"))
    _until(workers[0].kg.loading.is_set)
    call = client._Connection.call

    def late(conn: client._Connection, method: str, settings: Config | None, *args: Any, **kwargs: Any) -> Any:
        if method != "stop":
            return call(conn, method, settings, *args, **kwargs)
        client.send(conn._file, client.Call(method, settings, args, kwargs))
        _until(lambda: _draining(config))  # it arrived and was recorded; its answer is late
        raise TimeoutError("timed out")

    monkeypatch.setattr(client._Connection, "call", late)
    stopping = _Outcome(lambda: stop_worker(config, timeout=0.2, drain=True))
    stopping.thread.join(1.0)
    assert stopping.thread.is_alive() and workers[0].process.poll() is None  # waiting, nothing killed
    workers[0].kg.release.set()
    assert load.result() == "hpo loaded by first"
    assert stopping.result() is not None and workers[0].worker.finished.is_set()
    remote.close()
