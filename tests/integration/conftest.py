"""Fixtures of the tests that run a warm worker (test_worker, test_worker_faults)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import servers_for, wait_for
from tests.integration.test_worker import _gone, _state, kgqa


@pytest.fixture
def env(cli_env: dict[str, str], home: Path) -> Iterator[dict[str, str]]:
    """A data directory served by a worker (60 s idle timeout); stopped at the end, leaving nothing behind."""
    worker_env = {**cli_env, "KGQA_WORKER_IDLE_TIMEOUT": "60"}
    yield worker_env
    state = _state(home)
    kgqa(worker_env, "server", "stop")
    if state is not None:
        wait_for(lambda: _gone(state.pid) and _gone(state.store_pid), 30, "the worker to stop")
    assert not servers_for(home)


@pytest.fixture
def loaded(env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    kgqa(env, "load", "stark", "--name", "prime", "--dir", str(prime_dir))
    return env
