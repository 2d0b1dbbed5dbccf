"""What a long operation reports progress to: a rich ``Progress`` in a terminal, or the worker's recorder that a
client polls and replays into its own bar."""

from __future__ import annotations

from typing import Any, Protocol


class ProgressSink(Protocol):
    def add_task(self, description: str, *, total: float | None = 100.0) -> Any: ...

    def advance(self, task_id: Any, advance: float = 1) -> None: ...

    def update(self, task_id: Any, *, total: float | None = None, completed: float | None = None) -> None: ...
