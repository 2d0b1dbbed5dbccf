"""A deadline every store read of one part of an ask keeps (``ask_budget``): the part's reads get what is left of it
as their time limit instead of ``query_timeout`` where that is sooner, and none starts once nothing is left.

A context variable, not a parameter: the reads that step 5 makes go through a dozen store methods (rounds, degree
probes, exclusions, a relaxation's preselection), and each thread of the worker answers its own ask."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from kgqa.errors import StoreTimeoutError

__all__ = ["Deadline", "read_limit", "reads_within"]

LEAST = 0.001
"""Seconds a read needs at least (FalkorDB takes whole milliseconds, and its 0 means no limit): with less left, no
read starts."""


@dataclass(frozen=True)
class Deadline:
    at: float
    """``time.monotonic()`` when it passes"""
    bound: str
    """the setting that set it, named in what a read past it says (``ask_budget``)"""

    @property
    def left(self) -> float:
        return self.at - time.monotonic()


_CURRENT: ContextVar[Deadline | None] = ContextVar("kgqa_read_deadline", default=None)


@contextmanager
def reads_within(deadline: Deadline | None) -> Iterator[None]:
    """Every store read made in this block (in this thread) ends by ``deadline`` (None: by ``query_timeout``)."""
    token = _CURRENT.set(deadline)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def read_limit(query_timeout: float) -> tuple[float, str]:
    """The time limit of the next read, and how a timeout names it: ``query_timeout``, or what is left of the
    current deadline where that is sooner. Raises StoreTimeoutError when less than :data:`LEAST` is left."""
    deadline = _CURRENT.get()
    if deadline is None:
        return query_timeout, f"{query_timeout:g} s"
    remaining = deadline.left
    if remaining >= query_timeout:
        return query_timeout, f"{query_timeout:g} s"
    if remaining < LEAST:
        raise StoreTimeoutError(f"not run: nothing left of {deadline.bound}")
    return remaining, f"the {remaining:.3f} s left of {deadline.bound}"
