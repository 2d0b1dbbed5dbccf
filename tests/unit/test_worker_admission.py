"""The worker's admission bound: calls beyond ``worker_max_calls`` wait their turn, at most ``worker_max_waiting``
of them and no longer than ``worker_queue_timeout``; beyond that a call is refused as busy at once (exit 75)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from kgqa.errors import WorkerBusyError, WorkerStoppingError
from kgqa.runtime.worker.service import Admission


def _hold(admission: Admission, entered: threading.Event, release: threading.Event) -> threading.Thread:
    def run() -> None:
        with admission.turn():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=run)
    thread.start()
    assert entered.wait(10)
    return thread


@contextmanager
def _held(admission: Admission) -> Iterator[None]:
    """A call holding a turn for the block; it ends with the block."""
    release = threading.Event()
    holder = _hold(admission, threading.Event(), release)
    try:
        yield
    finally:
        release.set()
        holder.join()


def test_a_call_beyond_the_running_bound_waits_for_a_turn() -> None:
    admission = Admission(running=1, waiting=1, wait=10.0)
    second_in, second_out = threading.Event(), threading.Event()
    second = threading.Thread(target=lambda: _hold(admission, second_in, second_out).join())
    with _held(admission):
        second.start()
        time.sleep(0.2)
        assert not second_in.is_set() and admission.counts() == (1, 1)
    assert second_in.wait(10)
    second_out.set()
    second.join(10)
    assert admission.counts() == (0, 0)


def test_a_call_beyond_the_waiting_bound_is_refused_at_once() -> None:
    admission = Admission(running=1, waiting=0, wait=10.0)
    with _held(admission):
        started = time.monotonic()
        with pytest.raises(WorkerBusyError) as raised, admission.turn():
            pass
        assert time.monotonic() - started < 1.0
    assert str(raised.value).startswith("the kgqa worker is busy: 1 calls running and 0 waiting (worker_max_calls 1")
    assert raised.value.exit_code == 75
    with admission.turn():  # the bound frees with the call that held it
        assert admission.counts() == (1, 0)


def test_a_call_that_waits_past_the_queue_timeout_is_refused() -> None:
    admission = Admission(running=1, waiting=4, wait=0.3)
    with _held(admission):
        started = time.monotonic()
        with pytest.raises(WorkerBusyError, match=r"no turn within 0\.3 s"), admission.turn():
            pass
        assert 0.3 <= time.monotonic() - started < 5.0
        assert admission.counts() == (1, 0)  # it no longer counts as waiting


def test_a_call_arriving_as_a_turn_frees_does_not_pass_those_waiting() -> None:
    """First come, first served: with a call waiting, a new one queues behind it even where a turn is free."""
    admission = Admission(running=2, waiting=4, wait=0.3)
    with _held(admission):
        waiting = object()
        admission._queue.append(waiting)  # one in line before the next arrival, its turn not yet taken
        with pytest.raises(WorkerBusyError, match="no turn within"), admission.turn():
            pass
        admission._queue.remove(waiting)
        with admission.turn():  # nobody in line: the free turn is taken at once
            assert admission.counts() == (2, 0)


def test_a_stopping_worker_sends_its_waiting_calls_elsewhere() -> None:
    admission = Admission(running=1, waiting=4, wait=10.0)
    refused: list[BaseException] = []

    def wait_for_a_turn() -> None:
        try:
            with admission.turn():
                pass
        except WorkerStoppingError as exc:
            refused.append(exc)

    with _held(admission):  # the call running when it stops finishes
        waiter = threading.Thread(target=wait_for_a_turn)
        waiter.start()
        deadline = time.monotonic() + 5
        while admission.counts() != (1, 1) and time.monotonic() < deadline:
            time.sleep(0.01)
        admission.close()
        waiter.join(5)
        assert len(refused) == 1 and admission.counts() == (1, 0)
        with pytest.raises(WorkerStoppingError), admission.turn():
            pass
