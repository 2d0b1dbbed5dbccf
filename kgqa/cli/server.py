"""``kgqa server`` and ``kgqa mcp``: the data directory's worker, and kgqa as an MCP server."""

from __future__ import annotations

from typing import cast

import click

from kgqa.cli import session
from kgqa.cli.output import json_text, say, spinning, stderr
from kgqa.cli.root import main
from kgqa.errors import (
    ConfigError,
    KgqaError,
)


@main.group()
def server() -> None:
    """The background worker that keeps the store open and the models loaded between commands (one per data
    directory; it stops after worker_idle_timeout seconds without a command; 0 turns it off)."""


@server.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def server_status(ctx: click.Context, as_json: bool) -> None:
    """Whether a worker runs for the data directory, since when, how busy and how big (starts nothing)."""
    from dataclasses import asdict

    from kgqa.runtime.worker.client import worker_status

    config = session.settings(ctx)
    status = worker_status(config)
    if as_json:
        click.echo(json_text({"running": status is not None, **(asdict(status) if status else {})}, indent=2))
        return
    if status is None:
        say(f"no kgqa worker runs for {config.home}")
        return
    info = status.info
    memory = ", ".join(f"{name} {mib:.0f} MiB" for name, mib in status.rss_mib.items())
    timeout = f"stops after {info.idle_timeout:.0f} s idle"
    state = f"{status.in_flight} commands in flight" if status.in_flight else f"idle for {status.idle_for:.0f} s"
    if status.waiting:
        state += f" ({status.waiting} waiting for a turn)"
    say(f"kgqa worker pid {info.pid} for {info.home} (kgqa {info.build}), started {info.started_at}")
    say(f"  {state}; {timeout}; store server pid {info.store_pid}; memory: {memory}")
    if info.own:
        say(f"  its own settings: {', '.join(f'{name} {value!r}' for name, value in info.own.items())}")
    for skb, (running, error, tasks) in status.background.items():
        steps = "; ".join(
            f"{t.description} {t.completed:,.0f}" + (f" of {t.total:,.0f}" if t.total else "") for t in tasks
        )
        state = "running" if running else ("failed: " + error if error else "done")
        say(f"  after the load of '{skb}' ({state}): {steps or 'starting'}")


@server.command("stop")
@click.pass_context
def server_stop(ctx: click.Context) -> None:
    """Stop the worker and its store server (a load in progress is cancelled; the graph loaded before stays)."""
    from kgqa.runtime.worker.client import stop_worker

    config = session.settings(ctx)
    with spinning(stderr(), "stopping the kgqa worker"):
        info = stop_worker(config)
    gone = f"no kgqa worker runs for {config.home}"
    say(gone if info is None else f"stopped the kgqa worker (pid {info.pid})")


@server.command("start")
@click.pass_context
def server_start(ctx: click.Context) -> None:
    """Start the worker now (or keep the one running), so that the next command finds the store open."""
    config = session.settings(ctx)
    if config.worker_idle_timeout <= 0:
        raise KgqaError("worker_idle_timeout is 0: kgqa runs without a worker")
    from kgqa.runtime.worker.client import RemoteKgqa

    with session.start(config) as kg:
        pid = cast(RemoteKgqa, kg).info.pid
    say(f"the kgqa worker (pid {pid}) serves {config.home}")


@main.command("mcp")
@click.option("--http", is_flag=True, help="Serve streamable HTTP on mcp_host:mcp_port (default 127.0.0.1:8765).")
@click.option("--host", default=None, help="Listen address for --http (mcp_host); not loopback needs mcp_token.")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port for --http (mcp_port).")
@click.pass_context
def mcp_command(ctx: click.Context, http: bool, host: str | None, port: int | None) -> None:
    """Serve kgqa to LLM agents over the Model Context Protocol: tools ask, explain, schema, node and list_skbs, all
    read-only, through the data directory's worker (docs/mcp.md). Over standard input and output by default (what an
    MCP client starts); with --http on a loopback address. Needs the extra: pip install 'kgqa[mcp]'."""
    if not http and (host is not None or port is not None):
        raise click.UsageError("--host and --port are for --http")
    config = session.settings(ctx, mcp_host=host, mcp_port=port)
    try:
        from kgqa.mcp import serve
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("mcp", "uvicorn", "anyio", "pydantic"):
            raise
        raise ConfigError(f"kgqa mcp needs the extra 'mcp' ({exc.name} is missing): pip install 'kgqa[mcp]'") from None
    if http:
        say(f"kgqa MCP server on http://{config.mcp_host}:{config.mcp_port}/mcp (Ctrl-C stops it)", err=True)
    serve(config, http=http)
