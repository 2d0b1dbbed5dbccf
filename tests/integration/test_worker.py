"""The background worker's guarantees, with real ``kgqa`` subprocesses as thin clients: it is reused, stops by
itself when idle, leaves no orphan after ``kgqa server stop``, serves a load and asks at once without mixing two
graphs, survives clients killed with SIGKILL, is replaced (with a notice) when it died or runs other settings or
code, listens on no TCP port, and its clients import neither torch nor the store's client."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from kgqa.config import load_config
from kgqa.errors import WorkerError
from kgqa.runtime.worker import client
from kgqa.runtime.worker.client import connect_worker
from kgqa.runtime.worker.common import WorkerInfo, WorkerPaths
from tests.helpers.processes import servers_for, wait_for
from tests.helpers.shared import copy_home
from tests.helpers.worker import KGQA, gone, kgqa, state, version_2

pytestmark = pytest.mark.slow
HEAVY = ("torch", "sentence_transformers", "transformers", "falkordb", "redis", "neo4j", "numpy")
"""What a thin client never imports (numpy: 50 ms of each command's start)."""


def test_commands_reuse_one_worker_and_stop_leaves_no_orphan(loaded: dict[str, str], home: Path) -> None:
    first = state(home)
    assert first is not None and first.store_pid is not None
    schema = kgqa(loaded, "schema", "--skb", "prime", "--json")
    assert json.loads(schema.stdout)["meta"]["name"] == "prime"
    ask = kgqa(loaded, "ask", "Which drugs treat strongyloidiasis?", "--skb", "prime", "--json")
    assert json.loads(ask.stdout)["answers"]
    again = state(home)
    assert again is not None and (again.pid, again.store_pid) == (first.pid, first.store_pid)
    status = json.loads(kgqa(loaded, "server", "status", "--json").stdout)
    assert status["running"] and status["info"]["pid"] == first.pid and status["in_flight"] == 0
    stopped = kgqa(loaded, "server", "stop")
    assert f"pid {first.pid}" in stopped.stdout
    assert gone(first.pid) and gone(first.store_pid)
    assert not servers_for(home)
    assert not json.loads(kgqa(loaded, "server", "status", "--json").stdout)["running"]
    assert "no kgqa worker" in kgqa(loaded, "server", "stop").stdout


def test_worker_stops_by_itself_after_the_idle_timeout(env: dict[str, str], home: Path, prime_template: Path) -> None:
    env = {**env, "KGQA_WORKER_IDLE_TIMEOUT": "2"}
    copy_home(prime_template, home)
    kgqa(env, "schema", "--skb", "prime")  # starts the worker
    running = state(home)
    assert running is not None and not gone(running.pid)
    wait_for(lambda: gone(running.pid) and gone(running.store_pid), 30, "the idle worker to stop")
    assert not servers_for(home)
    assert state(home) is None  # a clean stop removes its state file: the next command says nothing
    again = kgqa(env, "schema", "--skb", "prime")
    assert "died" not in again.stderr
    new = state(home)
    assert new is not None and new.pid != running.pid
    wait_for(lambda: gone(new.pid), 30, "the second idle worker to stop")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV])
def test_a_dead_worker_is_replaced_and_the_command_says_so(
    loaded: dict[str, str], home: Path, sig: signal.Signals
) -> None:
    """Killed, or crashed in native code (a SIGSEGV): then its log holds every thread's Python stack."""
    dead = state(home)
    assert dead is not None
    psutil.Process(dead.pid).rlimit(psutil.RLIMIT_CORE, (0, 0))  # a crash the test causes writes no core file
    os.kill(dead.pid, sig)
    wait_for(lambda: gone(dead.pid) and gone(dead.store_pid), 30, "the killed worker and its store server")
    if sig == signal.SIGSEGV:
        log = WorkerPaths(home / "worker").log.read_text(errors="replace")
        assert "Fatal Python error: Segmentation fault" in log and "Thread 0x" in log
    result = kgqa(loaded, "schema", "--skb", "prime")
    assert f"the kgqa worker (pid {dead.pid}) had died; starting a new one" in result.stderr
    assert "prime" in result.stdout
    new = state(home)
    assert new is not None and new.pid != dead.pid


def test_other_settings_or_code_restart_the_worker_with_a_notice(
    loaded: dict[str, str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = state(home)
    assert old is not None
    result = kgqa({**loaded, "KGQA_EF_RUNTIME": "50"}, "schema", "--skb", "prime")
    assert f"restarting the kgqa worker (pid {old.pid}): it was started with other settings (ef_runtime)" in (
        result.stderr
    )
    assert gone(old.pid) and gone(old.store_pid)
    second = state(home)
    assert second is not None
    # a command of another kgqa build (here: the client pretends to be one) never reuses it either; the worker it
    # starts in its place runs this checkout's code, which the command then refuses too, saying why
    monkeypatch.setattr(client, "build_id", lambda: "0.0.1+older")
    config = load_config({"ef_runtime": 50}, env=loaded, cwd=home.parent)
    notices: list[str] = []
    with pytest.raises(WorkerError, match="the kgqa worker this command started cannot serve it: it runs kgqa"):
        connect_worker(config, notices.append)
    assert notices == [
        f"restarting the kgqa worker (pid {second.pid}): it runs kgqa {second.build}, this command is kgqa 0.0.1+older"
    ]
    assert gone(second.pid) and not servers_for(home)


FOREIGN_WORKER = """
import fcntl, os, socket, sys
root = sys.argv[1]
lock = open(os.path.join(root, "worker.lock"), "a+")
fcntl.flock(lock, fcntl.LOCK_EX)
listener = socket.socket(socket.AF_UNIX)
listener.bind(os.path.join(root, "worker.sock"))
listener.listen()
print("ready", flush=True)
while True:
    connection, _ = listener.accept()
    connection.close()  # as an older worker does with a call it cannot unpickle
"""


def test_a_worker_of_other_code_that_cannot_read_the_calls_is_replaced(loaded: dict[str, str], home: Path) -> None:
    """An upgrade under a running worker: the old worker drops every call of the new code (its classes moved), so it
    never answers hello; its state file says it runs other code, and it is stopped instead of waited for."""
    kgqa(loaded, "server", "stop")
    paths = WorkerPaths(home / "worker")
    foreign = subprocess.Popen(
        [sys.executable, "-c", FOREIGN_WORKER, str(paths.root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert foreign.stdout is not None and foreign.stdout.readline().strip() == "ready"
        info = WorkerInfo(foreign.pid, "0.0.1+older", {}, str(home), 60.0, "2026-01-01T00:00:00+00:00")
        paths.state.write_text(json.dumps(info.to_json()), encoding="utf-8")
        result = kgqa(loaded, "schema", "--skb", "prime")
        assert f"restarting the kgqa worker (pid {foreign.pid}): it runs kgqa 0.0.1+older" in result.stderr
        assert "prime" in result.stdout
        assert foreign.wait(timeout=30) == -signal.SIGTERM
        new = state(home)
        assert new is not None and new.pid != foreign.pid
    finally:
        foreign.kill()
        foreign.wait()


def test_no_tcp_and_a_private_socket(loaded: dict[str, str], home: Path) -> None:
    running = state(home)
    assert running is not None
    for pid in (running.pid, running.store_pid):
        assert pid is not None
        assert psutil.Process(pid).net_connections(kind="inet") == []
    paths = WorkerPaths(home / "worker")
    assert stat.S_IMODE(paths.root.stat().st_mode) == 0o700
    assert stat.S_IMODE(paths.socket.stat().st_mode) & 0o077 == 0


def test_a_load_and_asks_at_once_never_mix_two_graphs(loaded: dict[str, str], prime_dir: Path, tmp_path: Path) -> None:
    second = version_2(prime_dir, tmp_path / "v2")
    seen: list[set[bool]] = []
    spans: list[tuple[float, float]] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def ask_repeatedly() -> None:
        try:
            while not stop.is_set():
                started = time.monotonic()
                done = kgqa(loaded, "ask", "Which drugs treat strongyloidiasis?", "--skb", "prime", "--json")
                spans.append((started, time.monotonic()))
                names = [a["name"] for a in json.loads(done.stdout)["answers"]]
                seen.append({name.endswith(" v2") for name in names})
        except BaseException as exc:  # re-raised below: a failed ask fails the test
            errors.append(exc)

    askers = [threading.Thread(target=ask_repeatedly) for _ in range(4)]  # four at once, as issue 34 asks
    for asker in askers:
        asker.start()
    wait_for(lambda: len(spans) >= 4 or bool(errors), 120, "first answers")
    load_started = time.monotonic()
    try:
        kgqa(loaded, "load", "stark", "--name", "prime", "--dir", str(second))
    finally:
        load_ended = time.monotonic()
        stop.set()
        for asker in askers:
            asker.join()
    if errors:
        raise errors[0]
    assert any(start < load_ended and end > load_started for start, end in spans)  # asks ran during the load
    assert seen and all(len(versions) == 1 for versions in seen), seen
    final = kgqa(loaded, "ask", "Which drugs treat strongyloidiasis?", "--skb", "prime", "--json")
    assert all(a["name"].endswith(" v2") for a in json.loads(final.stdout)["answers"])


def test_commands_at_once_are_served_side_by_side(loaded: dict[str, str], home: Path) -> None:
    before = state(home)
    assert before is not None
    question = ["ask", "Which drugs treat strongyloidiasis?", "--skb", "prime", "--json"]
    commands = [
        question,
        ["schema", "--skb", "prime", "--json"],
        question,
        ["node", "5", "--skb", "prime"],
        question,
    ]
    procs = [
        subprocess.Popen([*KGQA, *args], env=loaded, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for args in commands
    ]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * len(procs), [err for _, err in outputs]
    answers = [json.loads(outputs[i][0])["answers"] for i in (0, 2, 4)]
    assert answers[0] and answers[0] == answers[1] == answers[2]
    assert json.loads(outputs[1][0])["meta"]["name"] == "prime"
    assert state(home) == before  # one worker served them all


def test_clients_killed_with_sigkill_leave_a_working_worker(loaded: dict[str, str], home: Path) -> None:
    running = state(home)
    assert running is not None
    commands = (["ask", "Which drugs treat strongyloidiasis?", "--skb", "prime"], ["schema", "--skb", "prime"])
    for args in commands:
        for delay in (0.2, 0.5, 1.0):  # connecting, sending, waiting for the answer: wherever it lands
            proc = subprocess.Popen([*KGQA, *args], env=loaded, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            proc.kill()
            proc.wait()
    result = kgqa(loaded, "ask", "Which drugs treat strongyloidiasis?", "--skb", "prime", "--json")
    assert json.loads(result.stdout)["answers"]
    assert state(home) == running  # the same worker served it
    status = lambda: json.loads(kgqa(loaded, "server", "status", "--json").stdout)  # noqa: E731
    wait_for(lambda: status()["in_flight"] == 0, 30, "the killed clients' calls to end")


def test_thin_clients_import_neither_torch_nor_the_store_client(loaded: dict[str, str]) -> None:
    probe = (
        "import sys\nfrom kgqa.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"print('HEAVY', sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    for args in (
        ["--help"],
        ["server", "status"],
        ["schema", "--skb", "prime"],
        ["node", "5", "--skb", "prime"],
        ["ask", "Which drugs treat strongyloidiasis?", "--skb", "prime"],
        ["explain", "--skb", "prime", "--cypher", "MATCH (d:drug) RETURN d"],
    ):
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], env=loaded, capture_output=True, text=True, timeout=300
        )
        assert "HEAVY []" in done.stderr, (args, done.stderr)


def test_ask_many_questions_in_one_process(loaded: dict[str, str], tmp_path: Path) -> None:
    questions = "Which drugs treat strongyloidiasis?\n\nWhich genes does ivermectin target?\n"
    piped = kgqa(loaded, "ask", "-", "--skb", "prime", "--json", input=questions)
    lines = [json.loads(line) for line in piped.stdout.splitlines()]
    assert [(d["line"], d["question"]) for d in lines] == [
        (1, "Which drugs treat strongyloidiasis?"),
        (3, "Which genes does ivermectin target?"),
    ]
    assert all(d["answers"] for d in lines)
    path = tmp_path / "questions.txt"
    path.write_text(questions, encoding="utf-8")
    from_file = kgqa(loaded, "ask", "--questions", str(path), "--skb", "prime", "--json")
    assert [json.loads(line)["answers"] for line in from_file.stdout.splitlines()] == [d["answers"] for d in lines]
    tables = kgqa(loaded, "ask", "--questions", str(path), "--skb", "prime")
    assert tables.stdout.count("Which drugs treat strongyloidiasis?") == 1 and "ivermectin" in tables.stdout


def test_a_failing_question_is_reported_with_its_line_and_the_rest_still_run(loaded: dict[str, str]) -> None:
    done = kgqa(loaded, "ask", "-", "--skb", "prime", "--json", "--type", "planet", input="one?\ntwo?\n", check=False)
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(d["line"], d["question"], d["error"]["type"]) for d in lines] == [
        (1, "one?", "InputError"),
        (2, "two?", "InputError"),
    ]
    assert "error: line 2: unknown type 'planet'" in done.stderr


def test_shell_answers_one_question_after_another(loaded: dict[str, str]) -> None:
    question = "Which drugs treat strongyloidiasis?"
    session = f":k 2\n{question}\n:json\n{question}\n:nonsense\n:quit\n"
    done = kgqa(loaded, "shell", "--skb", "prime", input=session)
    table, _, rest = done.stdout.partition("{")
    assert "Which drugs treat strongyloidiasis?" in table and "rank" in table
    answer = json.loads("{" + rest)
    assert len(answer["answers"]) == 2  # :k 2 applied to the questions after it
    assert "unknown command ':nonsense'" in done.stderr
