"""Bounded log files (the store server's, the worker's): one over its limit is kept once, as ``NAME.1``."""

from __future__ import annotations

import os
from pathlib import Path


def kept(log: Path) -> Path:
    """Where :func:`rotate` keeps ``log``'s previous run."""
    return log.with_name(log.name + ".1")


def rotate(log: Path, max_bytes: int) -> None:
    """Before a writer starts: a ``log`` larger than ``max_bytes`` becomes :func:`kept` (replacing the one before), so
    the new run's log starts empty and the last run's (a crash's stacks) is still there."""
    try:
        if log.stat().st_size > max_bytes:
            os.replace(log, kept(log))
    except FileNotFoundError:
        pass
