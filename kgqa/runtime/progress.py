"""What a long operation reports progress to: a rich ``Progress`` in a terminal, or the worker's recorder that a
client polls and replays into its own bar."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from kgqa.errors import Cancelled


class ProgressSink(Protocol):
    def add_task(self, description: str, *, total: float | None = 100.0) -> Any: ...

    def advance(self, task_id: Any, advance: float = 1) -> None: ...

    def update(self, task_id: Any, *, total: float | None = None, completed: float | None = None) -> None: ...


@contextmanager
def task(progress: ProgressSink | None, description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A task on ``progress`` (none without one); yields the function that advances it by n."""
    if progress is None:
        yield lambda n: None
        return
    number = progress.add_task(description, total=total)
    yield lambda n: progress.advance(number, n)


EVERY_SECONDS = 30.0
"""How often :class:`LineProgress` writes a line per running task."""


@dataclass
class _Task:
    description: str
    total: float | None
    completed: float
    started: float
    start_completed: float
    fields: dict[str, Any] = field(default_factory=dict)
    done: bool = False


class LineProgress:
    """Progress for output that is no terminal (nohup, CI, a pipe), where rich's live bar shows nothing until the
    end: one plain line per running task every ``every`` seconds ("embedding 12,345/36,853 (33%), 150.2/s, ETA
    2m 03s"), and one when a task completes. A :class:`ProgressSink`, and a context manager as rich's bar is."""

    def __init__(
        self, write: Callable[[str], None], every: float = EVERY_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._write, self._every, self._clock = write, every, clock
        self._tasks: dict[int, _Task] = {}
        self._last = clock()

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for task in self._tasks.values():
            if not task.done and task.completed > task.start_completed:
                self._write(self._line(task))

    def add_task(self, description: str, *, total: float | None = 100.0, completed: float = 0, **fields: Any) -> int:
        number = len(self._tasks)
        self._tasks[number] = _Task(description, total, completed, self._clock(), completed, dict(fields))
        return number

    def advance(self, task_id: Any, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def update(
        self,
        task_id: Any,
        *,
        total: float | None = None,
        completed: float | None = None,
        advance: float | None = None,
        **fields: Any,
    ) -> None:
        task = self._tasks[task_id]
        task.total = task.total if total is None else total
        task.completed = task.completed if completed is None else completed
        task.completed += advance or 0
        task.fields.update(fields)
        if task.total is not None and task.completed >= task.total and not task.done:
            task.done = True
            self._write(self._line(task))
        elif self._clock() - self._last >= self._every:
            self._last = self._clock()
            for other in self._tasks.values():
                if not other.done and other.completed > other.start_completed:
                    self._write(self._line(other))

    def _line(self, task: _Task) -> str:
        elapsed = max(self._clock() - task.started, 1e-9)
        rate = (task.completed - task.start_completed) / elapsed
        parts = [f"{task.description}: {task.completed:,.0f}"]
        if task.total:
            parts[0] += f"/{task.total:,.0f} ({100 * task.completed / task.total:.0f}%)"
        parts.append(f"{rate:,.1f}/s")
        if task.total and not task.done and rate > 0:
            parts.append(f"ETA {_duration((task.total - task.completed) / rate)}")
        if task.done:
            parts.append(f"done in {_duration(elapsed)}")
        parts += [str(value) for value in task.fields.values() if str(value)]
        return ", ".join(parts)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{rest}s"


class JobProgress:
    """Records a job's progress for its client to poll; raises :class:`Cancelled` at the next step once the job is
    cancelled (the load then ends as an interrupted load does)."""

    def __init__(self, cancelled: threading.Event) -> None:
        self._cancelled = cancelled
        self._tasks: list[list[Any]] = []
        self._lock = threading.Lock()

    def _check(self) -> None:
        if self._cancelled.is_set():
            raise Cancelled("cancelled; the graph that was loaded before is unchanged")

    def add_task(self, description: str, *, total: float | None = 100.0) -> int:
        self._check()
        with self._lock:
            self._tasks.append([description, total, 0.0])
            return len(self._tasks) - 1

    def advance(self, task_id: Any, advance: float = 1) -> None:
        self._check()
        with self._lock:
            self._tasks[task_id][2] += advance

    def update(self, task_id: Any, *, total: float | None = None, completed: float | None = None) -> None:
        self._check()
        with self._lock:
            if total is not None:
                self._tasks[task_id][1] = total
            if completed is not None:
                self._tasks[task_id][2] = completed

    def snapshot(self) -> tuple[tuple[str, float | None, float], ...]:
        with self._lock:
            return tuple((str(d), t, float(c)) for d, t, c in self._tasks)
