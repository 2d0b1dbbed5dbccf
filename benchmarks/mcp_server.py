"""``kgqa mcp`` under an agent's load (issue 35): a warm ``ask`` round trip over stdio, and 8 agents at once over HTTP.

HPO is loaded into ``--home`` and the worker warmed as benchmarks/soak.py does (the same 100 generated questions,
seed 1, no LLM). Then:

1. **Latency.** One ``kgqa mcp`` process over stdio (as an MCP client starts it), spoken to by the SDK's own client
   session: a first ask (connects to the warm worker), then ``--calls`` asks (default 50) one after another, each
   timed from the client's ``call_tool`` to its result. Beside it, the same questions through ``kgqa.connect()``'s
   worker client in this process: what the MCP layer adds.
2. **Concurrency.** One ``kgqa mcp --http`` server on loopback (with a bearer token, as one would run it) and
   ``--clients`` agents (default 8), each a client session of its own in this process's event loop, asking the
   questions in turn for ``--seconds`` (default 120): answers per second, p50 / p95 / p99 of the answered calls, and
   the failed calls by their first line.

    python benchmarks/mcp_server.py [--home /tmp/kgqa-soak] [--calls 50] [--clients 8] [--seconds 120]
    python benchmarks/mcp_server.py --render      # only rewrite the docs table from results/mcp_server.json

Writes benchmarks/results/mcp_server.json. Nothing else may run meanwhile: the machine's cores are what is measured.
"""

from __future__ import annotations

import argparse
import json
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from soak import KGQA, ROOT, SKB, _env, _latency, prepare

from kgqa.config import load_config
from kgqa.provenance import (
    CODE_PATHS,
    allow_dirty_flag,
    config_settings,
    origin,
    provenance,
    replace_block,
    require_committed,
)
from kgqa.runtime.worker.client import connect_worker

RESULTS = ROOT / "benchmarks" / "results"
OUT = RESULTS / "mcp_server.json"
DOC = ROOT / "docs" / "benchmarks.md"
TITLE = "## MCP server: a warm ask over stdio, 8 agents over HTTP (`benchmarks/mcp_server.py`)"
PATHS = (*CODE_PATHS, "benchmarks/mcp_server.py", "benchmarks/soak.py")


def _kind(result: Any) -> str:
    text = result.content[0].text if result.content else "no content"
    return " ".join(text.split())[:160]


async def stdio_latency(env: dict[str, str], questions: list[str], calls: int) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "kgqa.cli", "mcp"], env=env, cwd=str(ROOT))
    seconds: list[float] = []
    errors: Counter[str] = Counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        started = time.perf_counter()
        await session.initialize()
        first = await session.call_tool("ask", {"question": questions[0], "skb": SKB})
        first_s = time.perf_counter() - started
        if first.is_error:
            raise SystemExit(f"the first ask failed: {_kind(first)}")
        for i in range(calls):
            t = time.perf_counter()
            result = await session.call_tool("ask", {"question": questions[i % len(questions)], "skb": SKB})
            if result.is_error:
                errors[_kind(result)] += 1
            else:
                seconds.append(time.perf_counter() - t)
    return {
        "calls": calls,
        "first_call_s": round(first_s, 2),
        "median_ms": round(statistics.median(seconds) * 1000, 1) if seconds else None,
        "latency_ms": _latency(seconds),
        "errors": dict(errors),
    }


def api_latency(env: dict[str, str], questions: list[str], calls: int) -> dict[str, Any]:
    config = load_config({"llm": "none"}, env=env, cwd=ROOT)
    seconds = []
    with connect_worker(config, lambda text: print(text, file=sys.stderr)) as kg:
        kg.ask(questions[0], SKB)
        for i in range(calls):
            t = time.perf_counter()
            kg.ask(questions[i % len(questions)], SKB)
            seconds.append(time.perf_counter() - t)
    return {"calls": calls, "median_ms": round(statistics.median(seconds) * 1000, 1), "latency_ms": _latency(seconds)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, server: subprocess.Popen[str], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"kgqa mcp --http exited with {server.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit("kgqa mcp --http did not listen")


async def http_agents(url: str, token: str, questions: list[str], clients: int, seconds: float) -> dict[str, Any]:
    answered: list[float] = []
    errors: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    turn = iter(range(10**9))

    async def agent() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=600) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            while time.monotonic() < deadline:
                question = questions[next(turn) % len(questions)]
                t = time.perf_counter()
                try:
                    result = await session.call_tool("ask", {"question": question, "skb": SKB})
                except Exception as exc:  # a transport failure is an error of the run, counted, not fatal
                    errors[f"{type(exc).__name__}: {exc}"[:160]] += 1
                    continue
                if result.is_error:
                    errors[_kind(result)] += 1
                else:
                    answered.append(time.perf_counter() - t)

    started = time.monotonic()
    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(agent)
    duration = time.monotonic() - started
    return {
        "clients": clients,
        "seconds": seconds,
        "duration_s": round(duration, 1),
        "answers": len(answered),
        "throughput": round(len(answered) / duration, 3),
        "latency_ms": _latency(answered),
        "errors": dict(errors),
    }


def concurrency(env: dict[str, str], questions: list[str], clients: int, seconds: float) -> dict[str, Any]:
    port, token = _free_port(), secrets.token_urlsafe(16)
    server_env = {**env, "KGQA_MCP_PORT": str(port), "KGQA_MCP_TOKEN": token}
    server = subprocess.Popen([*KGQA, "mcp", "--http"], env=server_env, cwd=ROOT, text=True)
    try:
        _wait_listening(port, server)
        return anyio.run(http_agents, f"http://127.0.0.1:{port}/mcp", token, questions, clients, seconds)
    finally:
        server.terminate()
        server.wait(60)


def table(result: dict[str, Any], path: Path = OUT) -> str:
    where = origin(result, path, ROOT, PATHS)
    stdio, api, http = result["stdio"], result["api"], result["http"]
    lat = http["latency_ms"]
    rows = [
        "| measure | value |",
        "|---|---|",
        f"| warm `ask` over stdio, median of {stdio['calls']} (target at most 300 ms) | {stdio['median_ms']:.0f} ms |",
        f"| the same, p95 / max | {stdio['latency_ms']['p95']:.0f} / {stdio['latency_ms']['max']:.0f} ms |",
        f"| the same questions through the worker's Python client (no MCP), median | {api['median_ms']:.0f} ms |",
        f"| first `ask` of a new stdio server (start, connect to the warm worker) | {stdio['first_call_s']:.1f} s |",
        f"| {http['clients']} agents over HTTP for {http['seconds']:.0f} s: answers, answers/s | {http['answers']:,}, "
        f"{http['throughput']:.2f} |",
        f"| the same: latency p50 / p95 / p99 / max | {lat['p50']:.0f} / {lat['p95']:.0f} / {lat['p99']:.0f} / "
        f"{lat['max']:.0f} ms |",
        f"| the same: errors | {sum(http['errors'].values())} |",
    ]
    return "\n".join(
        [
            f"{result['settings']['questions']} generated HPO questions (seed 1, no LLM), asked through `kgqa mcp` by "
            f"the SDK's client sessions, on a warm worker (`worker_max_calls` {result['config']['worker_max_calls']}); "
            f"{result['provenance']['cpus']} CPU(s). {where.sentence()}",
            "",
            *rows,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path("/tmp/kgqa-soak"))
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the results file")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if args.render:
        body = table(json.loads(OUT.read_text(encoding="utf-8")))
        print(body)
        DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), "mcp_server", body, TITLE), encoding="utf-8")
        return

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    env = _env(args.home)
    config = load_config({"llm": "none"}, env=env, cwd=ROOT)
    result: dict[str, Any] = {"provenance": provenance(), "config": config_settings(config)}
    questions = prepare(args.home, 100, 1, config, env, say)
    result["settings"] = {"home": str(args.home), "skb": SKB, "questions": len(questions), "calls": args.calls}
    say(f"stdio: {args.calls} asks")
    result["stdio"] = anyio.run(stdio_latency, env, questions, args.calls)
    say(f"  {result['stdio']}")
    result["api"] = api_latency(env, questions, args.calls)
    say(f"  api: {result['api']}")
    say(f"HTTP: {args.clients} agents for {args.seconds:.0f} s")
    result["http"] = concurrency(env, questions, args.clients, args.seconds)
    say(f"  {result['http']}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    print(table(result))


if __name__ == "__main__":
    main()
