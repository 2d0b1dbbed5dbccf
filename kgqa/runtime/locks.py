"""A readers-writer lock: many questions read a graph at once, a load's publish waits for them and holds them off.

The worker serves commands in threads; an answer reads the SKB's metadata, schema and graph in several queries, so
the atomic publish of a load must not fall between two of them (the answer would mix two graphs).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReadWriteLock:
    """Writer-preferring: once a publish waits, new answers wait behind it, so a steady stream of questions never
    starves a load. A thread that already reads may read again without waiting (a nested read would otherwise wait
    for a writer that waits for the outer read)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self._depth = threading.local()

    @contextmanager
    def read(self) -> Iterator[None]:
        depth: int = getattr(self._depth, "value", 0)
        with self._cond:
            while depth == 0 and (self._writing or self._writers_waiting):
                self._cond.wait()
            self._readers += 1
        self._depth.value = depth + 1
        try:
            yield
        finally:
            self._depth.value = depth
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writing or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
