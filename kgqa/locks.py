"""A readers-writer lock: many questions read a graph at once, a load's publish waits for them and holds them off.

The worker serves commands in threads; an answer reads the SKB's metadata, schema and graph in several queries, so
the atomic publish of a load must not fall between two of them (the answer would mix two graphs). Readers may nest
(a read inside a read of the same thread never waits for a writer that waits for it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReadWriteLock:
    """Reader-preferring: a publish is short and rare, questions are many."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            while self._writing or self._readers:
                self._cond.wait()
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
