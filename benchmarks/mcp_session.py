"""The worked session of docs/mcp.md, recorded: an agent's calls to ``kgqa mcp`` over stdio (the SDK's client session)
on the HPO graph, and what came back, long texts cut to fit a page.

    python benchmarks/mcp_session.py [--home /tmp/kgqa-soak]    # HPO loaded there (benchmarks/soak.py loads it)

Rewrites the ``mcp_session`` block of docs/mcp.md, under a line naming the commit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from soak import ROOT, _env

from kgqa.provenance import allow_dirty_flag, provenance, replace_block, require_committed

DOC = ROOT / "docs" / "mcp.md"
QUESTION = "Which genes are associated with Marfan syndrome?"
CUT = 160
"""Characters of a long text shown."""


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > CUT:
        return value[:CUT] + f"... ({len(value)} characters)"
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    if isinstance(value, list):
        shown = [_cut(item) for item in value[:5]]
        return shown + ([f"... ({len(value) - 5} more)"] if len(value) > 5 else [])
    return value


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_skbs", {}),
    ("ask", {"question": QUESTION, "skb": "hpo", "types": ["gene/protein"], "k": 3}),
    ("explain", {"skb": "hpo", "question": QUESTION}),
    ("ask", {"question": QUESTION, "skb": "prime"}),
]


async def session(env: dict[str, str]) -> list[tuple[str, dict[str, Any], Any]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "kgqa.cli", "mcp"], env=env, cwd=str(ROOT))
    out = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            shown = result.content[0].text if result.is_error else result.structured_content
            out.append((name, arguments, {"isError": True, "text": shown} if result.is_error else shown))
            if name == "ask" and not result.is_error:
                where = {"skb": arguments["skb"], "node_id": result.structured_content["answers"][0]["id"]}
                node = await client.call_tool("node", where)
                out.append(("node", where, node.structured_content))
    return out


def render(calls: list[tuple[str, dict[str, Any], Any]]) -> str:
    commit = (provenance().get("commit") or "unknown")[:7]
    parts = [
        f"Recorded by `benchmarks/mcp_session.py` at {commit} on the HPO graph, no LLM (texts cut at {CUT} "
        "characters, lists at 5 items):",
        "",
    ]
    for name, arguments, result in calls:
        parts += [
            f"`{name}` {json.dumps(arguments, ensure_ascii=False)}",
            "",
            "```json",
            json.dumps(_cut(result), indent=2, ensure_ascii=False),
            "```",
            "",
        ]
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path("/tmp/kgqa-soak"))
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    calls = anyio.run(session, _env(args.home))
    body = render(calls)
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), "mcp_session", body), encoding="utf-8")
    print(body)


if __name__ == "__main__":
    main()
