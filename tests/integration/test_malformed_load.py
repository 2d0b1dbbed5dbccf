"""The ``render`` cases of tests/fixtures/malformed/load_stark.csv through ``kgqa load stark`` on the embedded store:
refused when the node is rendered, mid-load, with the one-line error as the last line (the progress bar may precede
it) and exit 1, never 70; the graph loaded before from the good fixture is still there, unchanged.

(The ``read`` cases are refused before the store starts: tests/unit/test_malformed_load.py.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import run
from tests.helpers.malformed import CASES, WRITERS, Case, assert_clean_refusal, spoiled
from tests.helpers.processes import servers_for

RENDER = [c for c in CASES if c.stage == "render"]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str) -> Iterator[dict[str, str]]:
    """A home with the good fixture of every SKB a render case spoils, loaded once."""
    base = tmp_path_factory.mktemp("malformed-load")
    env = {"KGQA_HOME": str(base / "kgqa-home"), "KGQA_EMBEDDER": tiny_embedder, "HF_HUB_OFFLINE": "1"}
    for name in sorted({c.skb for c in RENDER}):
        root = WRITERS[name][0](base / "good" / name)
        result = run(env, "load", "stark", "--name", name, "--dir", str(root))
        assert result.exit_code == 0, result.output + result.stderr
    yield env
    assert servers_for(base / "kgqa-home") == []


def _state(env: dict[str, str], skb: str) -> tuple[Any, Any]:
    """What must not change: the SKB's metadata (fingerprint, counts, load time) and node 0 as stored."""
    schema = run(env, "schema", "--skb", skb, "--json")
    node = run(env, "node", "0", "--skb", skb, "--json")
    assert schema.exit_code == 0 and node.exit_code == 0, schema.stderr + node.stderr
    return json.loads(schema.stdout)["meta"], json.loads(node.stdout)


@pytest.mark.parametrize("case", RENDER, ids=lambda c: c.case)
def test_a_node_refused_mid_load_leaves_the_loaded_graph_intact(
    case: Case, home: dict[str, str], tmp_path: Path
) -> None:
    before = _state(home, case.skb)
    root = spoiled(case, tmp_path)
    result = run(home, "load", "stark", "--name", case.skb, "--dir", str(root))
    assert_clean_refusal(result, case, one_line=False)
    assert _state(home, case.skb) == before
