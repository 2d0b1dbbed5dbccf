"""The PRIME fixture loaded in-process for ``kgqa explain``, its worker, and what shows a write to its store."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import Config
from kgqa.runtime.app import Kgqa


@contextlib.contextmanager
def served(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """``env`` with the data directory's worker on, stopped on the way out (the store is then free for a Kgqa in
    this process again)."""
    worker_env = {**env, "KGQA_WORKER_IDLE_TIMEOUT": "60"}
    try:
        yield worker_env
    finally:
        stopped = CliRunner().invoke(main, ["server", "stop"], env=worker_env)
        assert stopped.exit_code == 0, stopped.output


def snapshot(env: dict[str, str]) -> str:
    result = CliRunner().invoke(main, ["schema", "--skb", "prime", "--json"], env=env)
    return json.dumps(json.loads(result.stdout)["schema"], sort_keys=True)


CONTENTS = (
    "MATCH (n) RETURN labels(n)[0], n.id, n.name, n.doc, size(keys(n)) ORDER BY n.id",
    "MATCH (a)-[r]->(b) RETURN a.id, type(r), b.id, size(keys(r)) ORDER BY a.id, type(r), b.id",
)


def contents(config: Config) -> list[list[list[object]]]:
    """Every node and edge with every property kgqa wrote, and the graph list: any write would show here."""
    with Kgqa(config) as kg:
        return [kg.store.graphs(), *(kg.store.read("prime", text) for text in CONTENTS)]


def load_prime(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    """``cli_env`` once the PRIME fixture is loaded into its data directory in-process: what the explain tests' own
    ``loaded`` fixtures give (not the worker tests' ``loaded`` of tests/integration/conftest.py)."""
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env
