"""Process lifecycle of the embedded server and interrupted loads, with real ``kgqa`` subprocesses."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from falkordb import FalkorDB

from kgqa.errors import StoreError
from kgqa.loaders.hpo import read_hpo
from kgqa.runtime.app import Kgqa
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.server import SOCKET_NAME
from tests.conftest import servers_for, wait_for

KGQA = [sys.executable, "-m", "kgqa.cli"]


def _default_sigint() -> None:
    """A runner started in the background (``cmd &``, nohup) passes SIGINT on as ignored, and Python then keeps it
    ignored; the test is about kgqa's handling of Ctrl-C, so the child starts with the default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
def test_no_orphan_server_when_kgqa_is_signalled(cli_env, home: Path, sig: signal.Signals) -> None:
    """Signal ``kgqa load hpo`` while it embeds (the server is up for a minute then)."""
    proc = subprocess.Popen(
        [*KGQA, "load", "hpo"],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )

    def server_up() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"kgqa exited early ({proc.returncode}): {proc.stderr.read()!r}")  # type: ignore[union-attr]
        return bool(servers_for(home))

    try:
        wait_for(server_up, 120, "the server to start")
        server = servers_for(home)[0]
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    server.wait(timeout=15)
    assert servers_for(home) == []
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and stderr.strip().endswith("interrupted")
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in stderr


def test_no_orphan_server_after_an_exception(config, home: Path) -> None:
    with pytest.raises(RuntimeError, match="boom"), Kgqa(config):
        assert len(servers_for(home)) == 1
        raise RuntimeError("boom")
    assert servers_for(home) == []


def test_no_orphan_server_after_an_uncaught_exception_in_a_script(config, home: Path, cli_env) -> None:
    script = (
        "from kgqa.runtime.app import connect\n"
        "kg = connect()\n"  # never closed: the interpreter dies of the exception
        "raise SystemError('unhandled')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], env=cli_env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "unhandled" in result.stderr
    wait_for(lambda: not servers_for(home), 15, "the server to exit")


@pytest.mark.slow
def test_hpo_load_killed_midway_then_rerun_gives_the_full_graph(cli_env, home: Path) -> None:
    """SIGKILL while the staging graph is being written; the re-run must end with exactly the source's counts."""
    expected = read_hpo()
    proc = subprocess.Popen([*KGQA, "load", "hpo"], env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def staging_has_nodes() -> bool:
        socket = home / "falkordb" / SOCKET_NAME
        if proc.poll() is not None:
            raise AssertionError(f"load ended before it could be killed: {proc.stderr.read()!r}")  # type: ignore[union-attr]
        if not socket.exists():
            return False
        try:
            graph = FalkorDB(unix_socket_path=str(socket)).select_graph("hpo.staging")
            return graph.ro_query("MATCH (n) RETURN count(n)").result_set[0][0] > 10_000
        except Exception:  # the staging graph does not exist yet
            return False

    try:
        wait_for(staging_has_nodes, 900, "the load to be writing nodes")
    finally:
        proc.kill()
        proc.wait(timeout=30)
    wait_for(lambda: not servers_for(home), 15, "the server to exit")

    rerun = subprocess.run([*KGQA, "load", "hpo"], env=cli_env, capture_output=True, text=True, timeout=1800)
    assert rerun.returncode == 0, rerun.stderr
    assert f"loaded {len(expected.nodes)} nodes, {len(expected.edges)} edges" in rerun.stderr
    counts = re.search(r"\((\d+)\s+texts\s+embedded,\s+(\d+)\s+from\s+cache[,)]", rerun.stderr)
    assert counts, rerun.stderr
    # nodes stream through embed-then-write, so the > 10,000 nodes staged before the kill (name and document each)
    # come from the cache, and only the rest is embedded
    aliases = sum(len(node.aliases) for node in expected.nodes)
    assert int(counts[2]) >= 20_000 and int(counts[1]) <= 2 * len(expected.nodes) + aliases - 20_000

    schema = subprocess.run([*KGQA, "schema", "--skb", "hpo", "--json"], env=cli_env, capture_output=True, text=True)
    import json

    live = json.loads(schema.stdout)["schema"]
    assert sum(label["count"] for label in live["labels"]) == len(expected.nodes) == 36853
    assert sum(rel["count"] for rel in live["relationships"]) == len(expected.edges) == 565817

    again = subprocess.run([*KGQA, "load", "hpo"], env=cli_env, capture_output=True, text=True, timeout=600)
    assert "already loaded and up to date (36853 nodes, 565817 edges)" in again.stderr
    # `load --force` rebuilding from the cache alone: tests/integration/test_cli.py (on the small fixture: here it
    # wrote all 565,817 edges a third time, about 100 s of CI)
    assert servers_for(home) == []


def test_a_server_too_busy_to_answer_is_waited_for_while_it_computes(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading a MAG-size RDB file blocks the server's event loop for minutes (FalkorDB rebuilds its indexes inside
    the load): the probe's ping times out instead of answering LOADING, and once the listen backlog is full even the
    connection fails. A server that computes meanwhile is waited for beyond ``start_timeout``; one that uses no CPU
    is the hang of the test below."""
    from redis import Redis
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    from kgqa.runtime.store import server

    start = time.monotonic()
    busy_until = start + 3.0
    real_ping = Redis.ping

    def ping(self: Redis, **kwargs: Any) -> Any:
        if time.monotonic() < start + 1.5:
            raise RedisTimeoutError("Timeout reading from socket")
        if time.monotonic() < busy_until:
            raise RedisConnectionError("Error 11 connecting to unix socket. Resource temporarily unavailable.")
        return real_ping(self, **kwargs)

    monkeypatch.setattr(Redis, "ping", ping)
    monkeypatch.setattr(server.IdleWatch, "idle_for", lambda self: 0.0)  # it computes all along
    with FalkorStore(home / "falkordb", start_timeout=1.0) as store:
        assert store.graphs() == [] and time.monotonic() >= busy_until


def test_a_hung_server_start_is_killed_and_retried(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FalkorDB sometimes deadlocks while rebuilding indexes on start (no answer, no CPU): kgqa restarts it."""
    from kgqa.runtime.store import server

    real_popen = subprocess.Popen
    started: list[int] = []

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        process = real_popen(*args, **kwargs)
        if not started:
            time.sleep(0.3)
            os.kill(process.pid, signal.SIGSTOP)  # the first server freezes, like the deadlock
        started.append(process.pid)
        return process

    monkeypatch.setattr(server, "HANG_AFTER", 1.0)
    monkeypatch.setattr(server.subprocess, "Popen", popen)
    with FalkorStore(home / "falkordb") as store:
        assert store.graphs() == []
    assert len(started) == 2
    assert not psutil.pid_exists(started[0]) or psutil.Process(started[0]).status() == psutil.STATUS_ZOMBIE

    started.clear()
    monkeypatch.setattr(server, "START_ATTEMPTS", 1)
    with pytest.raises(StoreError, match=r"FalkorDB server hung while starting \(1 attempts\)"):
        FalkorStore(home / "falkordb")
    assert servers_for(home) == []
