"""What follows a load in the worker: the documents' vectors (kgqa.runtime.documents) and the question reader, in a
thread per SKB, while the graph already answers.

Only the worker runs them so: a command that loads in its own process waits for them, as it would exit under them.
The worker starts one after each load, and at its start for every graph still without its document vectors (a load
or worker that was killed), so the work resumes where the embedding cache left it. Its progress is recorded for
``kgqa server status``, the shell's first line and the trace of an answer given meanwhile.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from kgqa.errors import Cancelled, KgqaError
from kgqa.runtime.progress import JobProgress, ProgressSink

log = logging.getLogger("kgqa.worker")

Work = Callable[[ProgressSink], str]
"""A follow-up: given where to record its progress, it says what it did (the worker's log keeps that)."""


@dataclass(frozen=True)
class TaskState:
    """One task of a follow-up as last recorded: what, how much of how much (total None: not known)."""

    description: str
    total: float | None
    completed: float


@dataclass
class _Run:
    thread: threading.Thread
    progress: JobProgress
    active: bool = True
    """Until its thread takes no more work (read and set under the lock: a start meanwhile queues behind it)."""
    error: str | None = None
    again: Work | None = None
    """Work asked for while this ran (a new load of the SKB): this thread runs it next."""


class Background:
    """The follow-ups of loads, one thread per SKB at most; cancelled (to resume at the next start) when the worker
    stops."""

    def __init__(self) -> None:
        self._runs: dict[str, _Run] = {}
        self._cancelled = threading.Event()
        self._lock = threading.Lock()

    def start(self, skb: str, work: Work) -> None:
        """Run ``work`` for ``skb`` in a thread; where one runs for it already, next in that thread."""
        with self._lock:
            if self._cancelled.is_set():
                return
            running = self._runs.get(skb)
            if running is not None and running.active:
                running.again = work
                return
            progress = JobProgress(self._cancelled)
            thread = threading.Thread(target=self._run, args=(skb, work), name=f"follow-up-{skb}", daemon=True)
            self._runs[skb] = _Run(thread, progress)
        thread.start()

    def _run(self, skb: str, work: Work) -> None:
        with self._lock:
            run = self._runs[skb]
        next_work: Work | None = work
        while next_work is not None:
            self._once(skb, run, next_work)
            with self._lock:
                next_work, run.again = run.again, None
                if next_work is None or self._cancelled.is_set():
                    run.active = False
                    return
                run.progress, run.error = JobProgress(self._cancelled), None

    def _once(self, skb: str, run: _Run, work: Work) -> None:
        try:
            outcome = work(run.progress)
        except Cancelled:
            log.info("follow-up of %s cancelled; it resumes at the next start", skb)
        except KgqaError as exc:
            run.error = str(exc)
            log.error("follow-up of %s failed: %s", skb, exc)
        except Exception:
            run.error = "internal error (see the worker's log)"
            log.exception("follow-up of %s failed", skb)
        else:
            log.info("follow-up of %s done: %s", skb, outcome)

    def busy(self) -> bool:
        """Whether any follow-up is running (the worker is not idle meanwhile)."""
        with self._lock:
            return any(run.active for run in self._runs.values())

    def tasks(self, skb: str) -> tuple[TaskState, ...]:
        """The tasks of ``skb``'s follow-up as last recorded (none if it never ran in this worker)."""
        with self._lock:
            run = self._runs.get(skb)
        if run is None:
            return ()
        return tuple(TaskState(*task) for task in run.progress.snapshot())

    def states(self) -> dict[str, tuple[bool, str | None, tuple[TaskState, ...]]]:
        """skb -> (still running, its error if it failed, its tasks)."""
        with self._lock:
            runs = dict(self._runs)
        return {skb: (run.active, run.error, self.tasks(skb)) for skb, run in sorted(runs.items())}

    def cancel(self, wait: float = 10.0) -> None:
        """Stop every follow-up at its next step (a store write in flight ends first), waiting up to ``wait``
        seconds for each."""
        self._cancelled.set()
        with self._lock:
            threads = [run.thread for run in self._runs.values()]
        for thread in threads:
            thread.join(wait)
