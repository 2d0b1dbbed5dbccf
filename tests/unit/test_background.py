"""The worker's follow-ups of loads (kgqa.runtime.background): one thread per SKB, work asked for meanwhile runs next
in that thread (a load while its SKB's documents are embedded), and a stop cancels at the next step."""

from __future__ import annotations

import threading
import time

from kgqa.errors import StoreError
from kgqa.runtime.background import Background
from kgqa.runtime.progress import ProgressSink


def _until(predicate: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_work_asked_for_meanwhile_runs_next_in_the_same_thread_and_failures_are_kept() -> None:
    background = Background()
    release = threading.Event()
    done: list[str] = []

    def first(progress: ProgressSink) -> str:
        task = progress.add_task("embedding documents", total=2)
        progress.advance(task, 1)
        release.wait(10)
        done.append("first")
        return "first"

    def second(progress: ProgressSink) -> str:
        done.append("second")
        raise StoreError("graph 'hpo' was loaded again meanwhile")

    background.start("hpo", first)
    _until(lambda: background.tasks("hpo"))
    background.start("hpo", second)  # queued: one thread per SKB
    running, error, tasks = background.states()["hpo"]
    assert running and error is None and tasks[0].description == "embedding documents" and tasks[0].completed == 1
    assert background.busy()
    release.set()
    _until(lambda: not background.busy())
    assert done == ["first", "second"]
    running, error, _ = background.states()["hpo"]
    assert not running and error == "graph 'hpo' was loaded again meanwhile"


def test_a_cancel_stops_the_work_at_its_next_step_and_nothing_starts_after_it() -> None:
    background = Background()
    steps: list[int] = []

    def endless(progress: ProgressSink) -> str:
        task = progress.add_task("embedding documents", total=None)
        while True:
            progress.advance(task, 1)  # raises Cancelled once cancelled
            steps.append(1)
            time.sleep(0.01)

    background.start("hpo", endless)
    _until(lambda: steps)
    background.cancel()
    assert not background.busy() and background.states()["hpo"][1] is None  # cancelled is no failure
    background.start("prime", endless)
    assert "prime" not in background.states()
