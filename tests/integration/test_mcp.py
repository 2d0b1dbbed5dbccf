"""``kgqa mcp`` as an agent meets it: a subprocess spoken to by the SDK's own client session, over stdio (every tool,
a bad argument, the attack corpus, a call past its time bound) and over streamable HTTP with a bearer token. It
answers through the data directory's warm worker, and nothing it is asked writes to the store."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import redis
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from kgqa.mcp.server import ERROR_META
from kgqa.runtime.store.server import LOG_NAME, SOCKET_NAME
from tests.helpers.attacks import CASES
from tests.helpers.processes import servers_for, wait_for
from tests.helpers.shared import copy_home
from tests.helpers.worker import KGQA, state

pytestmark = pytest.mark.slow
QUESTION = "Which drugs treat strongyloidiasis?"
TOOLS = {"ask", "explain", "schema", "node", "list_skbs"}
CALL_TIMEOUT = 10.0
"""The server's mcp_call_timeout here: far above a warm call, short enough to wait for in a test."""


IDLE_THREAD = 1
"""The seconds after which anyio ends an idle worker thread in the server of
:func:`test_without_a_worker_the_server_keeps_its_own_store_open` (anyio's own is 10)."""
SHORT_IDLE = (
    "from anyio._backends._asyncio import WorkerThread; "
    "assert WorkerThread.MAX_IDLE_TIME == 10, 'anyio no longer ends idle threads as this test expects'; "
    f"WorkerThread.MAX_IDLE_TIME = {IDLE_THREAD}; "
    "from kgqa.cli import main; main()"
)


def _stdio(env: dict[str, str], *, short_idle: bool = False) -> StdioServerParameters:
    start = ["-c", SHORT_IDLE] if short_idle else ["-m", "kgqa.cli"]
    return StdioServerParameters(command=sys.executable, args=[*start, "mcp"], env=env)


def _session(env: dict[str, str], work: Callable[[ClientSession], Awaitable[Any]], *, short_idle: bool = False) -> Any:
    async def go() -> Any:
        async with (
            stdio_client(_stdio(env, short_idle=short_idle)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(go)


def _changes(home: Path) -> int:
    """Writes the store server has taken since its last save (a load ends with one): any write counts."""
    client = redis.Redis(unix_socket_path=str(home / "falkordb" / SOCKET_NAME))
    try:
        return int(client.info("persistence")["rdb_changes_since_last_save"])
    finally:
        client.close()


def _one_line(result: Any) -> str:
    (content,) = result.content
    assert "\n" not in content.text and "Traceback" not in content.text
    return str(content.text)


def test_every_tool_over_stdio_through_the_warm_worker(loaded: dict[str, str], home: Path) -> None:
    env = {**loaded, "KGQA_MCP_CALL_TIMEOUT": str(CALL_TIMEOUT)}
    worker = state(home)
    assert worker is not None
    before = _changes(home)

    async def work(session: ClientSession) -> dict[str, Any]:
        tools = await session.list_tools()
        asked = await session.call_tool("ask", {"question": QUESTION, "skb": "prime", "k": 5})
        out = {
            "tools": {tool.name for tool in tools.tools},
            "ask": asked,
            "explain_question": await session.call_tool("explain", {"skb": "prime", "question": QUESTION}),
            "explain_cypher": await session.call_tool(
                "explain",
                {
                    "skb": "prime",
                    "cypher": "MATCH (d:drug)-[:indication]->(x:disease {name: 'strongyloidiasis'}) RETURN d",
                },
            ),
            "schema": await session.call_tool("schema", {"skb": "prime"}),
            "node": await session.call_tool(
                "node", {"skb": "prime", "node_id": asked.structured_content["answers"][0]["id"]}
            ),
            "list_skbs": await session.call_tool("list_skbs", {}),
            "bad_k": await session.call_tool("ask", {"question": QUESTION, "skb": "prime", "k": 1000}),
            "unknown_skb": await session.call_tool("ask", {"question": QUESTION, "skb": "wiki"}),
        }
        return out

    out = _session(env, work)
    assert out["tools"] == TOOLS
    asked = out["ask"].structured_content
    assert not out["ask"].is_error and 1 <= len(asked["answers"]) <= 5
    top = asked["answers"][0]
    assert top["type"] == "drug" and top["strands"] and asked["trace"]["skb"] == "prime"
    assert json.loads(out["ask"].content[0].text) == asked  # the text fallback
    for name in ("explain_question", "explain_cypher"):
        explained = out[name].structured_content
        assert not out[name].is_error, out[name].content
        assert explained["dialect"] == "neo4j" and "$" in explained["query"] and explained["params"]
        assert explained["browser"].startswith(":params")
    assert out["schema"].structured_content["meta"]["name"] == "prime"
    assert out["node"].structured_content["id"] == top["id"]
    loaded_skbs = {s["name"]: s["loaded"] for s in out["list_skbs"].structured_content["skbs"]}
    assert loaded_skbs == {"hpo": False, "prime": True, "mag": False, "amazon": False}
    assert _one_line(out["bad_k"]).startswith("error: invalid arguments for ask: k: Input should be less than")
    assert _one_line(out["unknown_skb"]) == "error: unknown SKB 'wiki' (known: hpo, prime, mag, amazon)"
    assert state(home) == worker  # the command line's worker served it: no second one, no restart
    assert _changes(home) == before


def test_the_attack_corpus_through_the_tools_writes_nothing_and_breaks_nothing(
    loaded: dict[str, str], home: Path
) -> None:
    before = _changes(home)

    async def work(session: ClientSession) -> list[tuple[str, Any, Any]]:
        results = []
        for case in CASES:
            explained = await session.call_tool("explain", {"skb": "prime", "cypher": case.cypher})
            asked = await session.call_tool("ask", {"question": case.cypher, "skb": "prime", "k": 3})
            results.append((case.case, explained, asked))
        return results

    results = _session(loaded, work)
    assert len(results) == len(CASES)
    for case, explained, asked in results:
        for result in (explained, asked):
            if result.is_error:
                line = _one_line(result)
                assert "internal error" not in line, (case, line)
            else:
                assert result.structured_content, case
        if asked.is_error:  # any text is a question to answer, unless it is too long or holds a NUL
            assert asked.meta[ERROR_META]["type"] in ("InvalidArguments", "QuestionError"), case
    assert _changes(home) == before


def test_a_call_past_its_time_bound_is_a_tool_error_and_the_server_goes_on(loaded: dict[str, str], home: Path) -> None:
    env = {**loaded, "KGQA_MCP_CALL_TIMEOUT": "3"}
    worker = state(home)
    assert worker is not None and worker.store_pid is not None

    async def work(session: ClientSession) -> tuple[Any, Any]:
        await session.call_tool("list_skbs", {})  # connected to the worker
        os.kill(worker.store_pid, signal.SIGSTOP)  # type: ignore[arg-type]
        try:
            late = await session.call_tool("ask", {"question": QUESTION, "skb": "prime"})
        finally:
            os.kill(worker.store_pid, signal.SIGCONT)  # type: ignore[arg-type]
        return late, await session.call_tool("ask", {"question": QUESTION, "skb": "prime"})

    late, after = _session(env, work)
    assert _one_line(late).startswith("error: kgqa did not answer within 3 s (mcp_call_timeout)")
    assert not after.is_error and after.structured_content["answers"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_http_on_loopback_with_a_bearer_token(loaded: dict[str, str]) -> None:
    port = _free_port()
    env = {**loaded, "KGQA_MCP_TOKEN": "s3cret-token", "KGQA_MCP_PORT": str(port)}
    server = subprocess.Popen([*KGQA, "mcp", "--http"], env=env, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for(lambda: _listening(port), 60, "the HTTP server")

        async def call(token: str) -> Any:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await session.call_tool("ask", {"question": QUESTION, "skb": "prime", "k": 3})

        result = anyio.run(call, "s3cret-token")
        assert not result.is_error and result.structured_content["answers"]
        refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10)
        assert refused.status_code == 401
        wrong = httpx2.post(url, json={}, headers={"Authorization": "Bearer wrong"}, timeout=10)
        assert wrong.status_code == 401
        # issue 73: an id no answer can carry is refused (the SDK took it for a notification and never answered),
        # and a client that hangs up mid-body is one log line (below: no traceback), the server answering on
        odd = {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}
        refused_id = httpx2.post(url, json=odd, headers={"Authorization": "Bearer s3cret-token"}, timeout=10)
        assert refused_id.status_code == 400 and refused_id.json()["error"]["code"] == -32600
        with socket.create_connection(("127.0.0.1", port)) as raw:
            head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            raw.sendall(f'{head}Content-Length: 100\r\n\r\n{{"jsonrpc": "2.0", '.encode())
        again = anyio.run(call, "s3cret-token")
        assert not again.is_error
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert "Traceback" not in err, err


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_without_a_worker_the_server_keeps_its_own_store_open(
    cli_env: dict[str, str], home: Path, prime_template: Path, tiny_embedder: str
) -> None:
    """``worker_idle_timeout = 0``: the server opens kgqa itself, once, and its store server lives as long as it does,
    beyond the threads that ran the calls (anyio ends them when idle, here after 1 s, not its 10; the store dies with
    the thread that opened it)."""
    copy_home(prime_template, home)  # the PRIME fixture loaded (the load's own server start is in its log)
    cli_env = {**cli_env, "KGQA_EMBEDDER": tiny_embedder}  # the template's embedder

    def starts() -> int:  # the store server's log gains this line at each start
        return (home / "falkordb" / LOG_NAME).read_text().count("Ready to accept connections")

    before = starts()  # the load's

    async def work(session: ClientSession) -> tuple[Any, Any]:
        first = await session.call_tool("ask", {"question": QUESTION, "skb": "prime"})
        await anyio.sleep(2 * IDLE_THREAD)
        return first, await session.call_tool("ask", {"question": QUESTION, "skb": "prime"})

    first, again = _session(cli_env, work, short_idle=True)
    assert not first.is_error and not again.is_error and again.structured_content["answers"]
    assert starts() == before + 1  # one start for the MCP server, never killed and started again
    wait_for(lambda: not servers_for(home), 30, "the store server to stop with the MCP server")
