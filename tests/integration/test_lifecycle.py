"""Process lifecycle of the embedded server and interrupted loads, with real ``kgqa`` subprocesses."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from kgqa.errors import StoreError
from kgqa.runtime.app import Kgqa
from kgqa.runtime.skbs import read_source
from kgqa.runtime.store.falkordb import FalkorStore
from tests.helpers.processes import servers_for, wait_for

KGQA = [sys.executable, "-m", "kgqa.cli"]


def _default_sigint() -> None:
    """A runner started in the background (``cmd &``, nohup) passes SIGINT on as ignored, and Python then keeps it
    ignored; the test is about kgqa's handling of Ctrl-C, so the child starts with the default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _no_core_file() -> None:
    """A crash the test causes writes no core file (where core dumps are on)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


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
        assert proc.returncode == 130 and stderr.strip().endswith("interrupted"), stderr
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM, stderr  # a crash's stacks are in stderr (faulthandler)
    assert "Traceback" not in stderr


def test_a_crash_in_native_code_reports_where() -> None:
    """A segfault in a command (a native library's bug) prints every thread's Python stack before the process dies."""
    script = (
        "import ctypes\n"
        "from kgqa.cli import main\n"
        "@main.command()\n"
        "def crash_in_native_code():\n"
        "    ctypes.string_at(0)\n"  # reads address 0: SIGSEGV
        "main(['crash-in-native-code'])\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONFAULTHANDLER"}  # kgqa's doing
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, preexec_fn=_no_core_file
    )
    assert result.returncode == -signal.SIGSEGV, result.stderr
    assert "Fatal Python error: Segmentation fault" in result.stderr
    assert "in crash_in_native_code" in result.stderr


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


HELD_LOAD = """
import os, pathlib, sys, time
from kgqa.runtime.store import falkordb
held, written = pathlib.Path(sys.argv[1]), []
add_nodes = falkordb.FalkorWriter.add_nodes
def hold_after_the_first_label(self, label, rows):
    if written:  # the first label's nodes are in the staging graph: hold the writer here, to be killed
        (held.parent / "staged.tmp").write_text(str(sum(written)))
        os.replace(held.parent / "staged.tmp", held)
        time.sleep(3600)
    add_nodes(self, label, rows)
    written.append(len(rows))
falkordb.FalkorWriter.add_nodes = hold_after_the_first_label
from kgqa.cli import main
sys.argv = ["kgqa", *sys.argv[2:]]
main()
"""
"""A load whose writer holds after the first label's nodes, saying how many it staged: the test kills it there,
instead of waiting for a real load to reach that point."""


def test_a_load_killed_midway_then_rerun_gives_the_full_graph(
    cli_env: dict[str, str], home: Path, prime_dir: Path, tmp_path: Path
) -> None:
    """SIGKILL while the staging graph is being written (after the first label's nodes); the re-run must end with
    exactly the source's counts, and take the texts embedded before the kill from the cache."""
    expected = read_source("prime", prime_dir)
    held = tmp_path / "staged"
    load = ["load", "stark", "--name", "prime", "--dir", str(prime_dir)]
    proc = subprocess.Popen(
        [sys.executable, "-c", HELD_LOAD, str(held), *load], env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_for(lambda: held.exists() or proc.poll() is not None, 300, "the load to stage its first nodes")
        assert proc.poll() is None, proc.communicate()[1]
        staged = int(held.read_text())  # nodes handed to the staging graph's bulk insert before the hold
        assert staged > 0 and len(servers_for(home)) == 1
    finally:
        proc.kill()
        proc.wait(timeout=30)
    wait_for(lambda: not servers_for(home), 15, "the server to exit")

    rerun = subprocess.run([*KGQA, *load], env=cli_env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert f"loaded {len(expected.nodes)} nodes, {len(expected.edges)} edges" in rerun.stderr
    counts = re.search(r"\((\d+)\s+texts\s+embedded,\s+(\d+)\s+from\s+cache[,)]", rerun.stderr)
    assert counts, rerun.stderr
    # nodes stream through embed-then-write, so the texts of the nodes staged before the kill (name and document
    # each) come from the cache, and only the rest is embedded
    assert int(counts[2]) >= staged and int(counts[1]) > 0  # the rest: the kill came midway

    schema = subprocess.run([*KGQA, "schema", "--skb", "prime", "--json"], env=cli_env, capture_output=True, text=True)
    live = json.loads(schema.stdout)["schema"]
    assert sum(label["count"] for label in live["labels"]) == len(expected.nodes)
    assert sum(rel["count"] for rel in live["relationships"]) == len(expected.edges)

    again = subprocess.run([*KGQA, *load], env=cli_env, capture_output=True, text=True, timeout=600)
    assert f"already loaded and up to date ({len(expected.nodes)} nodes, {len(expected.edges)} edges)" in again.stderr
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
