"""Issue 73: the same limits at every door. k, ids and vectors are checked by the API's one argument check
(kgqa.api.check_arguments), in process and at the worker's client, so the Python API, the command line and MCP refuse
the same things before any work: a k past 1,000, a NUL in an id, a vector that is not all finite numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest
from mcp import Client

import kgqa
from kgqa.config import MAX_TOP_K, load_config
from kgqa.errors import ArgumentError
from kgqa.mcp.server import Clients, build_server
from kgqa.runtime.app import Kgqa
from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.environment import QUIET
from tests.helpers.shared import copy_home

QUESTION = "Which drugs target the gene lotafafa?"


def refusals(api: Any) -> None:
    """What every door refuses, each before any work, with an ArgumentError naming the argument."""
    with pytest.raises(ArgumentError, match=f"ask: 'top_k' must be 1 to {MAX_TOP_K}, got a number of 101 digits"):
        api.ask(QUESTION, "prime", top_k=10**100)
    with pytest.raises(ArgumentError, match="ask: 'top_k' must be 1 to 1000, got a number of 401 digits"):
        api.ask(QUESTION, "prime", top_k=10**400)
    with pytest.raises(ArgumentError, match="ask: 'top_k' must be 1 to 1000, got 1000000"):
        api.ask(QUESTION, "prime", top_k=np.int64(10**6))
    with pytest.raises(ArgumentError, match="ask: 'top_k' must be 1 to 1000, got 0"):
        api.ask(QUESTION, "prime", top_k=0)
    with pytest.raises(ArgumentError, match="node: 'node_id' holds a NUL character"):
        api.node("prime", "1\x00")
    with pytest.raises(ArgumentError, match="ask: 'types' holds a NUL character"):
        api.ask(QUESTION, "prime", types=["drug\x00"])
    with pytest.raises(ArgumentError, match="ask: 'query_vector' must hold finite numbers, got nan at index 0"):
        api.ask(QUESTION, "prime", query_vector=np.full(8, np.nan, dtype=np.float32))
    assert len(api.ask(QUESTION, "prime", top_k=MAX_TOP_K).answers) <= MAX_TOP_K


def test_the_python_api_in_process(home: Path, prime_template: Path, tiny_embedder: str) -> None:
    copy_home(prime_template, home)
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        refusals(kg)


def test_the_python_api_through_the_worker(loaded: dict[str, str], home: Path, tiny_embedder: str) -> None:
    config = load_config(
        {"home": home, "embedder": tiny_embedder, "worker_idle_timeout": 60}, env=QUIET, cwd=home.parent
    )
    with kgqa.connect(config) as api:
        assert type(api).__name__ == "RemoteKgqa"
        refusals(api)


def test_mcp_refuses_a_nul_in_an_id_before_any_work(home: Path, prime_template: Path, tiny_embedder: str) -> None:
    copy_home(prime_template, home)
    config = load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)
    with Kgqa(config) as kg:
        server = build_server(config, Clients(lambda: kg, shared=True))

        async def go() -> tuple[Any, Any]:
            async with Client(server, mode="legacy") as client:
                bad = await client.call_tool("node", {"skb": "prime", "node_id": "1\x00"})
                good = await client.call_tool("node", {"skb": "prime", "node_id": "1"})
                return bad, good

        bad, good = anyio.run(go)
    assert bad.is_error
    assert bad.content[0].text == "error: node: 'node_id' holds a NUL character"
    assert not good.is_error


def test_the_command_line_takes_the_same_k(home: Path, prime_template: Path, tiny_embedder: str) -> None:
    copy_home(prime_template, home)
    env = {"KGQA_HOME": str(home), "KGQA_EMBEDDER": tiny_embedder, "KGQA_WORKER_IDLE_TIMEOUT": "0", **QUIET}
    result = run(env, "ask", "--skb", "prime", "--k", str(MAX_TOP_K + 1), QUESTION)
    assert result.exit_code == 2 and f"1<=x<={MAX_TOP_K}" in result.stderr
    result = run({**env, "KGQA_TOP_K": str(MAX_TOP_K + 1)}, "ask", "--skb", "prime", QUESTION)
    assert result.exit_code == 1
    assert_one_line_error(result, f"'top_k' must be at most {MAX_TOP_K}, got {MAX_TOP_K + 1}")
