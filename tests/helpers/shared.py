"""Things built once per test run and shared by every xdist worker: a directory is built under a file lock by the
first worker that needs it, and the others wait for it and reuse it. Shared directories are read, never written:
a test that writes takes a copy (:func:`copy_home`)."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".built"


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """``<run's temp root>/shared-<name>/<name>``, made by ``build(path)`` once per test run, by whichever worker asks
    first (a build that failed is started again by the next worker that asks); what ``build`` returns is ignored."""
    base = factory.getbasetemp()
    root = (base.parent if "PYTEST_XDIST_WORKER" in os.environ else base) / f"shared-{name}"
    root.mkdir(parents=True, exist_ok=True)
    target = root / name
    with (root / "lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / DONE).exists():
            shutil.rmtree(target, ignore_errors=True)
            build(target)
            (root / DONE).touch()
    return target


def copy_home(template: Path, target: Path) -> Path:
    """A data directory of one's own: a file copy of ``template`` (its store's RDB, vector files and caches), not a
    load; no worker or server may hold ``template`` (a built one is closed)."""
    shutil.copytree(template, target, ignore=shutil.ignore_patterns("*.sock", "worker"))
    return target
