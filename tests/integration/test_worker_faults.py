"""Faults under a warm worker, with real ``kgqa`` subprocesses as clients: its store server killed (as the
out-of-memory killer does) or stopped while clients ask, and the worker itself killed in the middle of a batch. A
client sees answers, a notice or a one-line error, never a traceback or a hang, and the graph survives. Loads: the
worker killed during one, and a second load while one runs."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import psutil
import pytest

from kgqa.runtime.worker.client import LOAD_LOST
from kgqa.runtime.worker.common import WorkerPaths
from tests.helpers.processes import wait_for
from tests.helpers.worker import KGQA, gone, kgqa, state, version_2

pytestmark = pytest.mark.slow
QUESTION = "Which drugs treat strongyloidiasis?"
RECOVERY = 60.0
"""The issue's bound on recovery for a small graph: a correctness bound, not a benchmark."""


def _one_line_or_none(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) <= 1, stderr


Result = tuple[float, int, str, str]
"""An ask's end time, exit code, stdout and stderr."""


def _askers(env: dict[str, str], stop: threading.Event, results: list[Result]) -> list[threading.Thread]:
    """Four clients asking one after another until ``stop``."""

    def ask() -> None:
        while not stop.is_set():
            done = subprocess.run(
                [*KGQA, "ask", QUESTION, "--skb", "prime", "--json"],
                env=env,
                capture_output=True,
                text=True,
                timeout=RECOVERY * 3,
            )
            results.append((time.monotonic(), done.returncode, done.stdout, done.stderr))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    return threads


def _store_pid(env: dict[str, str]) -> int | None:
    status = json.loads(kgqa(env, "server", "status", "--json").stdout)
    pid: int | None = status["info"]["store_pid"]
    return pid


def _faulted_under_askers(env: dict[str, str], home: Path, fault: signal.Signals) -> None:
    """Four askers; the store server gets ``fault`` once they run; asks go on until the worker has a new server and
    a few more asks have answered. Every ask answers or fails with one line; those after recovery answer."""
    kgqa(env, "schema", "--skb", "prime")  # the worker for these settings
    running = state(home)
    assert running is not None and running.store_pid is not None
    stop, results = threading.Event(), list[Result]()
    threads = _askers(env, stop, results)
    try:
        wait_for(lambda: len(results) >= 4, RECOVERY, "the askers to start")
        os.kill(running.store_pid, fault)
        faulted = time.monotonic()
        wait_for(lambda: _store_pid(env) not in (running.store_pid, None), RECOVERY * 2, "a new store server")
        recovered = time.monotonic()
        wait_for(lambda: sum(r[0] > recovered + 1 for r in results) >= 8, RECOVERY, "asks after recovery")
    finally:
        stop.set()
        for thread in threads:
            thread.join(RECOVERY * 3)
    for _, code, _, stderr in results:
        _one_line_or_none(stderr)
        assert code in (0, 1), stderr
    after = [(code, out) for end, code, out, _ in results if end > recovered + 1]
    assert all(code == 0 and json.loads(out)["answers"] for code, out in after)
    assert recovered - faulted < RECOVERY
    assert state(home) == running  # the same worker: only its store server was replaced
    assert gone(running.store_pid) and not psutil.pid_exists(running.store_pid)  # reaped, not left a zombie


def test_a_killed_store_server_is_replaced_under_four_askers(loaded: dict[str, str], home: Path) -> None:
    _faulted_under_askers(loaded, home, signal.SIGKILL)


def test_a_stopped_store_server_is_replaced_under_four_askers(loaded: dict[str, str], home: Path) -> None:
    """SIGSTOP: reads end at query_timeout plus the watchdog's grace, and the server is restarted."""
    _faulted_under_askers({**loaded, "KGQA_QUERY_TIMEOUT": "2"}, home, signal.SIGSTOP)


def test_a_store_server_killed_between_commands_is_replaced_at_once(loaded: dict[str, str], home: Path) -> None:
    running = state(home)
    assert running is not None and running.store_pid is not None
    os.kill(running.store_pid, signal.SIGKILL)
    wait_for(lambda: _store_pid(loaded) not in (running.store_pid, None), RECOVERY, "the worker to replace it")
    done = kgqa(loaded, "ask", QUESTION, "--skb", "prime", "--json")
    assert json.loads(done.stdout)["answers"]
    assert "error" not in done.stderr and "died" not in done.stderr  # the degraded-step notes of a no-LLM ask only


def test_a_worker_killed_during_a_batch_is_replaced_and_the_batch_goes_on(loaded: dict[str, str], home: Path) -> None:
    running = state(home)
    assert running is not None
    batch = subprocess.Popen(
        [*KGQA, "ask", "-", "--skb", "prime", "--json"],
        env=loaded,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert batch.stdin is not None and batch.stdout is not None
    batch.stdin.write(f"{QUESTION}\n")
    batch.stdin.flush()
    first = json.loads(batch.stdout.readline())
    os.kill(running.pid, signal.SIGKILL)  # between two questions or during the next one: either is survived
    batch.stdin.write(f"{QUESTION}\n" * 3)
    batch.stdin.close()
    batch.wait(RECOVERY * 3)  # the output of four questions fits the pipes
    out, err = batch.stdout.read(), batch.stderr.read()  # type: ignore[union-attr]
    assert batch.returncode == 0, err
    rest = [json.loads(line) for line in out.splitlines()]
    assert [d["line"] for d in [first, *rest]] == [1, 2, 3, 4]
    assert all(d["answers"] == first["answers"] for d in rest)
    assert f"the kgqa worker (pid {running.pid}) had died; starting a new one" in err
    _one_line_or_none(err)
    new = state(home)
    assert new is not None and new.pid != running.pid


def test_a_damaged_worker_state_file_is_not_trusted(loaded: dict[str, str], home: Path) -> None:
    """The state file (worker.json) only helps to name and stop a worker; torn or overwritten, it is ignored: a live
    worker is found by its socket, and a dead one is replaced."""
    running = state(home)
    assert running is not None
    paths = WorkerPaths(home / "worker")
    paths.state.write_text('{"pid": 12', encoding="utf-8")  # torn
    done = kgqa(loaded, "ask", QUESTION, "--skb", "prime", "--json")
    assert json.loads(done.stdout)["answers"] and "error" not in done.stderr
    os.kill(running.pid, signal.SIGKILL)
    wait_for(lambda: gone(running.pid) and gone(running.store_pid), RECOVERY, "the killed worker")
    paths.state.write_bytes(b"\x00\xff garbage")
    done = kgqa(loaded, "ask", QUESTION, "--skb", "prime", "--json")
    assert json.loads(done.stdout)["answers"]
    _one_line_or_none(done.stderr)
    new = state(home)
    assert new is not None and new.pid != running.pid


def _load_v2(env: dict[str, str], source: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*KGQA, "load", "stark", "--name", "prime", "--dir", str(source), "--force"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _names(env: dict[str, str]) -> set[str]:
    done = kgqa(env, "ask", QUESTION, "--skb", "prime", "--json")
    return {a["name"] for a in json.loads(done.stdout)["answers"]}


def _held_load(env: dict[str, str], home: Path, source: Path) -> tuple[subprocess.Popen[str], int]:
    """A load begun while the store server is stopped (SIGSTOP): it is surely still running when the test acts;
    returns it and the stopped server's pid (the caller sends SIGCONT)."""
    running = state(home)
    assert running is not None and running.store_pid is not None
    os.kill(running.store_pid, signal.SIGSTOP)
    load = _load_v2(env, source)

    def busy() -> bool:
        return bool(json.loads(kgqa(env, "server", "status", "--json").stdout)["in_flight"] >= 1)

    wait_for(busy, RECOVERY, "the load to start in the worker")
    return load, running.store_pid


def test_a_worker_killed_during_a_load_says_so_and_the_old_graph_answers(
    loaded: dict[str, str], home: Path, prime_dir: Path, tmp_path: Path
) -> None:
    before = _names(loaded)
    running = state(home)
    assert running is not None
    load, server = _held_load(loaded, home, version_2(prime_dir, tmp_path / "v2"))
    try:
        os.kill(running.pid, signal.SIGKILL)
        _, err = load.communicate(timeout=RECOVERY)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server, signal.SIGCONT)
    assert load.returncode == 1
    assert f"error: {LOAD_LOST}" in err
    _one_line_or_none(err)
    wait_for(lambda: gone(server), RECOVERY, "the stopped server to die with its worker")
    assert _names(loaded) == before  # a new worker, the graph saved before the load
    new = state(home)
    assert new is not None and new.pid != running.pid


def test_a_second_load_while_one_runs_is_refused_at_once_and_the_first_completes(
    loaded: dict[str, str], home: Path, prime_dir: Path, tmp_path: Path
) -> None:
    source = version_2(prime_dir, tmp_path / "v2")
    first, server = _held_load(loaded, home, source)
    try:
        second = kgqa(loaded, "load", "stark", "--name", "prime", "--dir", str(source), "--force", check=False)
    finally:
        with contextlib.suppress(ProcessLookupError):  # replaced meanwhile, had the load read long enough
            os.kill(server, signal.SIGCONT)
    assert second.returncode == 1
    assert "error: the kgqa worker is already running a load (job " in second.stderr
    _one_line_or_none(second.stderr)
    _, err = first.communicate(timeout=RECOVERY * 3)
    assert first.returncode == 0, err
    assert _names(loaded) and all(name.endswith(" v2") for name in _names(loaded))
