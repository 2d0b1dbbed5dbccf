"""kgqa for LLM agents: a Model Context Protocol server (``kgqa mcp``, extra ``kgqa[mcp]``; docs/mcp.md).

An agent asks in plain words, or hands over a Cypher draft, and kgqa plans, grounds and ranks it as ``kgqa ask`` and
``kgqa explain`` do: no tool runs the agent's text, and none loads, deletes or writes anything. The tools call only
the read calls of :class:`kgqa.api.Api`, through the data directory's warm worker (the one the command line uses).
"""

from __future__ import annotations

from kgqa.mcp.server import build_server, serve

__all__ = ["build_server", "serve"]
