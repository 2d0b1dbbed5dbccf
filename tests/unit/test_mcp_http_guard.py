"""Issue 73: what kgqa checks of an MCP request over HTTP before the SDK sees it (kgqa.mcp.http.guarded), driven as
ASGI without a socket: an id that is no string or integer is refused with JSON-RPC's Invalid Request (the SDK took
it for a notification and never answered), a client that hangs up mid-body is one log line, and anything else
reaches the SDK's app unchanged."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import pytest

from kgqa.mcp.http import CHECKED_BYTES, INVALID_REQUEST, guarded, id_problem


class Inner:
    """The SDK's app, recording the request it was handed."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        self.bodies.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def serve(chunks: list[bytes], *, hang_up: bool = False, method: str = "POST") -> tuple[Inner, list[dict[str, Any]]]:
    inner, sent = Inner(), []
    queue = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1 or hang_up} for i, c in enumerate(chunks)
    ]
    if hang_up:
        queue.append({"type": "http.disconnect"})

    async def receive() -> dict[str, Any]:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": "/mcp", "client": ("127.0.0.1", 5000)}
    anyio.run(guarded(inner), scope, receive, send)
    return inner, sent


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], None, True, 1.5], ids=["object", "list", "null", "bool", "float"])
def test_a_request_whose_id_is_no_string_or_integer_is_answered_with_invalid_request(bad_id: object) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": bad_id, "method": "tools/list"}).encode()
    inner, sent = serve([body])
    assert inner.bodies == []  # the SDK never saw it
    assert sent[0]["status"] == 400
    reply = json.loads(sent[1]["body"])
    assert reply["id"] is None and reply["error"]["code"] == INVALID_REQUEST
    assert "'id' must be a string or an integer" in reply["error"]["message"]


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "a", "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ],
)
def test_a_good_request_reaches_the_sdk_unchanged_even_in_pieces(body: dict[str, Any]) -> None:
    raw = json.dumps(body).encode()
    inner, sent = serve([raw[:5], raw[5:]])
    assert inner.bodies == [raw] and sent[0]["status"] == 200
    assert id_problem(body) is None


def test_what_is_not_json_is_the_sdks_to_answer() -> None:
    inner, _ = serve([b"{not json"])
    assert inner.bodies == [b"{not json"]


def test_a_body_past_the_checked_size_is_handed_on_whole() -> None:
    """The guard stops reading past CHECKED_BYTES and hands on what it read, then the rest as it comes."""
    big = b"x" * (CHECKED_BYTES + 20)
    inner, _ = serve([big[: CHECKED_BYTES - 5], big[CHECKED_BYTES - 5 : CHECKED_BYTES + 10], big[CHECKED_BYTES + 10 :]])
    assert inner.bodies == [big]


def test_json_nested_past_the_parser_is_the_sdks_parse_error_not_a_crash() -> None:
    inner, _ = serve([b"[" * 5000])
    assert inner.bodies == [b"[" * 5000]


def test_a_client_that_hangs_up_mid_body_is_one_quiet_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="kgqa.mcp")  # the server's level (KgqaMcp's log_level)
    inner, sent = serve([b'{"jsonrpc": "2.0", "id": 1, "meth'], hang_up=True)
    assert inner.bodies == [] and sent == []
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert record.getMessage() == "client 127.0.0.1:5000 went away before its request was complete; nothing was done"


def test_other_requests_pass_untouched() -> None:
    inner, sent = serve([b""], method="GET")
    assert inner.bodies == [b""] and sent[0]["status"] == 200


def _app(token: str | None) -> Any:
    from dataclasses import replace
    from pathlib import Path

    from kgqa.config import load_config
    from kgqa.mcp.server import Clients, build_server, http_app
    from tests.helpers.environment import QUIET

    config = replace(load_config({}, env=QUIET, cwd=Path("/")), mcp_token=token)
    return http_app(build_server(config, Clients(lambda: None, shared=True)), config)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("token", [None, "s3cret"], ids=["no-token", "token"])
def test_the_guard_sits_inside_the_sdks_token_check(token: str | None) -> None:
    """Built as ``kgqa mcp --http`` builds it: without the token a client gets the SDK's 401 before kgqa reads its
    body; with it (or without a token set) a bad id gets Invalid Request."""
    from starlette.testclient import TestClient

    odd = {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    with TestClient(_app(token), base_url="http://127.0.0.1:8765") as client:
        if token is not None:
            assert client.post("/mcp", json=odd, headers=accept).status_code == 401
            accept["Authorization"] = f"Bearer {token}"
        refused = client.post("/mcp", json=odd, headers=accept)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == INVALID_REQUEST
        deep = client.post("/mcp", content=b"[" * 5000, headers={**accept, "Content-Type": "application/json"})
        assert deep.status_code == 400 and deep.json()["error"]["code"] == -32700  # the SDK's parse error
