"""Fixtures of the tests that run a warm worker (test_worker, test_worker_faults)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.processes import servers_for, wait_for
from tests.helpers.shared import copy_home
from tests.helpers.worker import gone, kgqa, state


@pytest.fixture
def env(cli_env: dict[str, str], home: Path, tiny_embedder: str) -> Iterator[dict[str, str]]:
    """A data directory served by a worker (60 s idle timeout; the tiny model through ONNX Runtime, as the default
    embedder runs); stopped at the end, leaving nothing behind."""
    worker_env = {**cli_env, "KGQA_WORKER_IDLE_TIMEOUT": "60", "KGQA_EMBEDDER": tiny_embedder}
    yield worker_env
    running = state(home)
    kgqa(worker_env, "server", "stop")
    if running is not None:
        wait_for(lambda: gone(running.pid) and gone(running.store_pid), 30, "the worker to stop")
    assert not servers_for(home)


@pytest.fixture
def loaded(env: dict[str, str], home: Path, prime_template: Path) -> dict[str, str]:
    """The PRIME fixture loaded (a copy of the run's loaded home, not a load) and its worker started."""
    copy_home(prime_template, home)
    kgqa(env, "server", "start")
    return env
