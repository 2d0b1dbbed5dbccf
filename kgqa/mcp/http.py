"""What kgqa checks of an MCP request over HTTP before the SDK sees it.

Two things the SDK's streamable HTTP transport (mcp 2.x) gets wrong for a hostile or broken client:
- a JSON-RPC request whose ``id`` is neither a string nor an integer (an object, a list, null, a bool) is taken as a
  notification: HTTP 202, and the client waits for an answer that never comes. JSON-RPC's and MCP's ids are strings
  or integers; such a request is refused here with JSON-RPC's Invalid Request error (HTTP 400).
- a client that sends part of a body and hangs up leaves a traceback in the server's log. Here it is one line.

The check runs inside the SDK's bearer-token check (:func:`guard_endpoint`): a client without the token gets its 401
before kgqa reads a byte of its body.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

log = logging.getLogger("kgqa.mcp")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

INVALID_REQUEST = -32600
"""JSON-RPC 2.0's error code for a request object that is not one."""
CHECKED_BYTES = 4 * 1024 * 1024
"""The SDK's own message size limit: a longer body is passed on unread, for the SDK to refuse."""


def id_problem(message: object) -> str | None:
    """Why ``message`` (a parsed JSON-RPC body) has an id no answer can carry, or None: a request or response whose
    ``id`` is not a string or an integer. A body without an id (a notification) or that is no object is the SDK's to
    judge."""
    if not isinstance(message, dict) or "id" not in message:
        return None
    value = message["id"]
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return None
    kind = "null" if value is None else type(value).__name__.replace("dict", "an object").replace("list", "a list")
    return f"Invalid Request: 'id' must be a string or an integer, got {kind}"


def guarded(app: App) -> App:
    """``app`` (the SDK's streamable HTTP app) behind the checks above: a POST's body is read whole first (up to
    :data:`CHECKED_BYTES`), then handed on unchanged."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more and size <= CHECKED_BYTES:
            message = await receive()
            if message["type"] == "http.disconnect":
                client = scope.get("client") or ("?", 0)
                log.warning("client %s:%s went away before its request was complete; nothing was done", *client)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = None if more else _problem_of(body)
        if problem is not None:
            await _refuse(send, problem)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": more}
            return await receive()

        await app(scope, replay, send)

    return guard


def guard_endpoint(app: Any, path: str) -> None:
    """Put :func:`guarded` around the SDK's MCP endpoint at ``path`` in ``app`` (its Starlette app), inside its
    bearer-token check where there is one (``RequireAuthMiddleware.app``); a layout this does not know (another SDK)
    is refused, not guessed at."""
    routes = [route for route in getattr(app, "routes", ()) if getattr(route, "path", None) == path]
    if len(routes) != 1 or not callable(getattr(routes[0], "app", None)):
        raise RuntimeError(f"the MCP SDK's HTTP app has no single route {path}: kgqa cannot guard it")
    from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware

    (route,) = routes
    endpoint = route.app
    if isinstance(endpoint, RequireAuthMiddleware):
        endpoint.app = guarded(endpoint.app)
    else:
        route.app = guarded(endpoint)


def _problem_of(body: bytes) -> str | None:
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser: the SDK's parse error
        return None
    return id_problem(parsed)


async def _refuse(send: Send, problem: str) -> None:
    payload = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": problem}})
    data = payload.encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": data})
