"""The attack corpus's CLI subset (``cli`` = yes in tests/fixtures/attacks.csv) through ``kgqa explain`` in real
subprocesses against the embedded store, as a user would run them: a clean exit (0, or 2 with a JSON error), strict
JSON, no traceback, and the graph exactly as it was afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kgqa.config import Config
from tests.helpers.attacks import CASES, Case
from tests.helpers.explain import contents, load_prime, served, snapshot

KGQA = [sys.executable, "-m", "kgqa.cli"]
CLI_CASES = [case for case in CASES if case.cli]


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    return load_prime(cli_env, prime_dir)


def _strict(name: str) -> object:
    raise AssertionError(f"not JSON: {name}")


def test_cli_attacks_leave_the_graph_unchanged(loaded: dict[str, str], config: Config) -> None:
    before, schema_before = contents(config), snapshot(loaded)
    with served(loaded) as env:  # as a user runs them: thin clients of the data directory's worker
        for case in CLI_CASES:
            _check(case, env)
    assert contents(config) == before
    assert snapshot(loaded) == schema_before


def _check(case: Case, env: dict[str, str]) -> None:
    args = ["explain", "--skb", "prime", "--cypher", case.cypher, "--json"]
    done = subprocess.run([*KGQA, *args], env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, (case.case, done.stderr)
    out = json.loads(done.stdout, parse_constant=_strict)
    if case.outcome == "rejected":
        assert done.returncode == 2, (case.case, done.stdout, done.stderr)
        assert case.error in out["error"]["message"]
    else:
        assert done.returncode == 0, (case.case, done.stdout, done.stderr)
        assert not any(word in out["query"] for word in case.absent), case.case
        if case.dropped:
            assert any(case.dropped in d["reason"] for d in out["dropped"]), case.case
