"""Soak: N concurrent clients ask generated HPO questions of ONE warm worker for a fixed time (issue 34, item 1).

HPO is loaded once into ``--home`` as benchmarks/latency.py does (kept between runs: "up to date" the next time);
then the worker is restarted, so that its memory is that of serving only, warmed with a few asks, and each run of
``--clients`` has N clients ask the 100 questions latency.py generates (same generator, count and seed; through the
worker, no LLM), cycled, for ``--seconds``. A share ``--cli-share`` of the clients are analysts at a shell: a new
``kgqa ask QUESTION --skb hpo --llm none --json`` process per question; the others are Python users in this
process, a thread each holding what ``kgqa.connect()`` gives beside a running worker: that worker's client (should
it give a kgqa of its own, the worker being gone, that is closed, counted as a notice, and ``connect_worker`` used:
a Python user must not take the data directory from the analysts).

Per run: requests, answers per second, client-side wall latency of the answered requests (p50 / p95 / p99 / max),
errors by kind (the exit code and first error line of a process, the exception class and first line of a call;
digits as ``N``; a refusal as busy, exit 75 or WorkerBusyError, counts as ``busy``), hangs (a request still running
after ``--hang-after`` seconds: the process group is killed; a call, which cannot be killed, is abandoned and its
client replaced) and the RSS of the worker and its FalkorDB server every ``--sample-every`` seconds (the pids re-read
from ``kgqa server status --json`` at each sample, since the server may be replaced). RSS growth: the mean of the
last 20% of the samples against the mean of those in the 20% of the run right after the warm-up (``--warmup``,
default the first 20% of the run or 60 s, whichever is shorter), per process.

    python benchmarks/soak.py [--home /tmp/kgqa-soak] [--clients 1,4,16] [--seconds 120] [--cli-share 0.5]
    python benchmarks/soak.py --long                  # one run, N = 4, 1800 s -> results/soak_long.json
    python benchmarks/soak.py --fault kill            # N = 4, 180 s; the store server SIGKILLed at 30 s
    python benchmarks/soak.py --fault stop            # ... SIGSTOPped at 30 s for 90 s, then SIGCONT
    python benchmarks/soak.py --table [--out FILE]    # print the table of a results file
    python benchmarks/soak.py --render [--out FILE]   # only rewrite its docs table in docs/benchmarks.md

With ``--fault`` (issue 34's "store server SIGKILLed under 4 askers", then "SIGSTOP for 90 s"), the FalkorDB server
the worker holds is sent SIGKILL, or SIGSTOP and SIGCONT ``--stop-for`` seconds later, ``--fault-at`` seconds into the
run, with the worker's default settings (no shorter timeouts). Recorded beside the run: the pids before and after,
the failed requests, and the recovery: from the fault to the end of the first request started after it that was
answered, then whether every request started after that was answered.

Writes benchmarks/results/soak.json (soak_long.json with --long, soak_fault_kill/stop.json with --fault) after every
run. Nothing else may run meanwhile:
the machine's cores are what is measured.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

import kgqa
from kgqa.api import Api
from kgqa.config import Config, load_config
from kgqa.errors import KgqaError
from kgqa.provenance import (
    CODE_PATHS,
    allow_dirty_flag,
    config_settings,
    origin,
    provenance,
    replace_block,
    require_committed,
)
from kgqa.runtime.reader.questions import MAX_WORD_SHARE
from kgqa.runtime.worker.client import RemoteKgqa, connect_worker

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
OUT = RESULTS / "soak.json"
OUT_LONG = RESULTS / "soak_long.json"
DOC = ROOT / "docs" / "benchmarks.md"
TITLE = "## Soak: concurrent clients on one warm worker (`benchmarks/soak.py`)"
PATHS = (*CODE_PATHS, "benchmarks/soak.py")
KGQA = [sys.executable, "-m", "kgqa.cli"]
SKB = "hpo"
DIGITS = re.compile(r"\d+")
BUSY_EXIT = 75
"""``kgqa``'s exit code for a call the worker refused as busy (WorkerBusyError, EX_TEMPFAIL)."""
TIMELINE_PARTS = 10
"""The run is cut into this many equal parts for the timeline (answers and latency per part)."""


def _env(home: Path) -> dict[str, str]:
    """latency.py's environment: none of the caller's KGQA_ settings, the data directory, no model downloads."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGQA_")}
    env.update({"KGQA_HOME": str(home), "HF_HUB_OFFLINE": "1"})
    return env


def _kgqa(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KGQA, *args], env=env, check=True, capture_output=True, text=True, cwd=ROOT)


def _kind(text: str) -> str:
    """An error's kind: its first line, digits as N (pids, seconds), at most 160 characters; "busy" for a refusal
    that says so."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "no message")
    if "busy" in line.lower():
        return "busy"
    return DIGITS.sub("N", line)[:160]


def _cli_error(rc: int, stderr: str) -> str:
    """The kind of a failed ``kgqa ask``: its exit code and the error line (``error: ...``), else its last line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    line = next((ln for ln in lines if ln.startswith("error:")), lines[-1] if lines else "no output")
    kind = _kind(line)
    return "busy" if kind == "busy" or rc == BUSY_EXIT else f"exit {rc}: {kind}"


def _api_error(exc: BaseException) -> str:
    kind = _kind(str(exc))
    busy = "busy" in type(exc).__name__.lower()
    return "busy" if busy or kind == "busy" else f"{type(exc).__name__}: {kind}"


@dataclass
class Request:
    client: str
    """``cli`` or ``api``."""
    started: float
    """Seconds since the run's start."""
    seconds: float
    outcome: str
    """``ok``, ``hang``, ``busy`` or an error kind."""


@dataclass
class Run:
    """What the clients of one run share: the questions, the deadline and what they record."""

    questions: list[str]
    start: float
    deadline: float
    hang_after: float
    env: dict[str, str]
    config: Config
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: list[Request] = field(default_factory=list)
    notices: Counter[str] = field(default_factory=Counter)
    in_flight: dict[int, float] = field(default_factory=dict)
    """API client id -> when its call started (monotonic), for the hang watch."""
    abandoned: set[int] = field(default_factory=set)
    _next: Iterator[int] = field(default_factory=itertools.count)

    def question(self) -> str:
        with self.lock:
            return self.questions[next(self._next) % len(self.questions)]

    def record(self, client: str, started: float, seconds: float, outcome: str) -> None:
        with self.lock:
            self.requests.append(Request(client, round(started - self.start, 3), seconds, outcome))

    def notice(self, text: str) -> None:
        with self.lock:
            self.notices[_kind(text)] += 1


def cli_client(run: Run, ident: int) -> None:
    """An analyst: one ``kgqa ask ... --json`` process per question, killed (its group) after ``hang_after``."""
    while time.monotonic() < run.deadline:
        question = run.question()
        started = time.monotonic()
        process = subprocess.Popen(
            [*KGQA, "ask", question, "--skb", SKB, "--llm", "none", "--json"],
            env=run.env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = process.communicate(timeout=run.hang_after)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            run.record("cli", started, time.monotonic() - started, "hang")
            continue
        seconds = time.monotonic() - started
        for line in err.splitlines():
            if line.startswith("kgqa: "):  # the client replaced the worker, or found it dead
                run.notice(line)
        if process.returncode != 0:
            outcome = _cli_error(process.returncode, err)
        else:
            try:
                json.loads(out)
                outcome = "ok"
            except ValueError:
                outcome = "exit 0: output is not JSON"
        run.record("cli", started, seconds, outcome)


def api_connect(config: Config, notice: Callable[[str], None]) -> Api:
    """What ``kgqa.connect()`` gives a Python user beside the running worker: its client. Without a worker it would
    open the data directory in this process (and hold it): that kgqa is closed and the worker's client taken."""
    kg = kgqa.connect(config)
    if isinstance(kg, RemoteKgqa):
        return kg
    kg.close()
    notice("kgqa.connect() opened the data directory in process (no worker answered); took connect_worker's client")
    return connect_worker(config, notice)


def api_client(run: Run, ident: int) -> None:
    """A Python user: one client of the worker, kept across questions; a call that fails other than with a
    KgqaError drops it (the next question connects anew). Stops when the hang watch abandons it."""
    api = None
    try:
        while time.monotonic() < run.deadline and ident not in run.abandoned:
            if api is None:
                try:
                    api = api_connect(run.config, run.notice)
                except Exception as exc:
                    run.record("api", time.monotonic(), 0.0, f"connect: {_api_error(exc)}")
                    time.sleep(1.0)
                    continue
            question = run.question()
            started = time.monotonic()
            with run.lock:
                run.in_flight[ident] = started
            try:
                api.ask(question, SKB)
                outcome = "ok"
            except KgqaError as exc:
                outcome = _api_error(exc)
            except Exception as exc:
                outcome = _api_error(exc)
                api.close()
                api = None
            with run.lock:
                run.in_flight.pop(ident, None)
                if ident in run.abandoned:
                    return  # counted as a hang by the watch
            run.record("api", started, time.monotonic() - started, outcome)
    finally:
        if api is not None:
            api.close()


def _rss_mib(pid: Any) -> float | None:
    if not isinstance(pid, int):
        return None
    try:
        rss: int = psutil.Process(pid).memory_info().rss
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None
    return round(rss / 2**20, 1)


def sample(env: dict[str, str], start: float) -> dict[str, Any]:
    """The worker's and its store server's pids (``kgqa server status --json``, read anew) and RSS now."""
    t = round(time.monotonic() - start, 1)
    try:
        done = subprocess.run(
            [*KGQA, "server", "status", "--json"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        info = json.loads(done.stdout).get("info") or {}
    except (subprocess.TimeoutExpired, ValueError) as exc:
        return {"t": t, "error": type(exc).__name__}
    worker, store = info.get("pid"), info.get("store_pid")
    return {
        "t": t,
        "worker_pid": worker,
        "store_pid": store,
        "worker_mib": _rss_mib(worker),
        "store_mib": _rss_mib(store),
    }


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0-100) of sorted ``values``."""
    rank = max(1, -(-len(values) * q // 100))
    return values[int(rank) - 1]


def _latency(seconds: list[float]) -> dict[str, float] | None:
    if not seconds:
        return None
    values = sorted(seconds)
    points = {"p50": 50, "p95": 95, "p99": 99, "max": 100}
    return {name: round(_pct(values, q) * 1000, 1) for name, q in points.items()}


def growth(samples: list[dict[str, Any]], seconds: float, warmup: float) -> dict[str, Any]:
    """Per process: mean RSS of the last 20% of the samples against the mean of the samples in the window of 20% of
    the run right after ``warmup``; growth in percent (None without samples in either)."""
    out: dict[str, Any] = {}
    width = 0.2 * seconds
    ordered = [s for s in samples if "t" in s and s["t"] <= seconds + 1]
    last = ordered[len(ordered) - max(1, round(len(ordered) * 0.2)) :] if ordered else []
    for name in ("worker", "store"):
        early = [s[f"{name}_mib"] for s in ordered if warmup <= s["t"] < warmup + width and s.get(f"{name}_mib")]
        late = [s[f"{name}_mib"] for s in last if s.get(f"{name}_mib")]
        values = [s[f"{name}_mib"] for s in samples if s.get(f"{name}_mib")]
        pids = sorted({s[f"{name}_pid"] for s in samples if s.get(f"{name}_pid")})
        early_mean = statistics.fmean(early) if early else None
        late_mean = statistics.fmean(late) if late else None
        pct = round((late_mean - early_mean) / early_mean * 100, 1) if early_mean and late_mean else None
        out[name] = {
            "after_warmup_mib": None if early_mean is None else round(early_mean, 1),
            "last_mib": None if late_mean is None else round(late_mean, 1),
            "max_mib": max(values) if values else None,
            "growth_pct": pct,
            "pids": pids,
        }
    return out


def timeline(requests: list[Request], seconds: float) -> list[dict[str, Any]]:
    """Answers, errors and latency per tenth of the run (by when a request started): does it slow down?"""
    width = seconds / TIMELINE_PARTS
    parts = []
    for i in range(TIMELINE_PARTS):
        inside = [r for r in requests if i * width <= r.started < (i + 1) * width]
        ok = [r.seconds for r in inside if r.outcome == "ok"]
        parts.append(
            {
                "from_s": round(i * width, 1),
                "answers": len(ok),
                "failed": len(inside) - len(ok),
                "latency_ms": _latency(ok),
            }
        )
    return parts


def summary(requests: list[Request], duration: float) -> dict[str, Any]:
    ok = [r.seconds for r in requests if r.outcome == "ok"]
    errors = Counter(r.outcome for r in requests if r.outcome not in ("ok", "hang", "busy"))
    return {
        "requests": len(requests),
        "answers": len(ok),
        "throughput": round(len(ok) / duration, 3) if duration > 0 else None,
        "latency_ms": _latency(ok),
        "errors": dict(errors.most_common()),
        "busy": sum(r.outcome == "busy" for r in requests),
        "hangs": sum(r.outcome == "hang" for r in requests),
    }


def inject(kind: str, at: float, stop_for: float, env: dict[str, str], start: float) -> dict[str, Any]:
    """Wait until ``at`` seconds into the run, then SIGKILL the worker's store server, or SIGSTOP it and SIGCONT it
    ``stop_for`` seconds later (if the worker has not replaced it by then). Returns what was done, when."""
    time.sleep(max(0.0, start + at - time.monotonic()))
    before = sample(env, start)
    pid = before.get("store_pid")
    if not isinstance(pid, int):
        return {"kind": kind, "error": f"no store server pid to signal ({before})"}
    fault: dict[str, Any] = {"kind": kind, "at_s": round(time.monotonic() - start, 1), "pid": pid}
    os.kill(pid, signal.SIGKILL if kind == "kill" else signal.SIGSTOP)
    if kind == "stop":
        time.sleep(stop_for)
        try:
            os.kill(pid, signal.SIGCONT)
            fault["continued_s"] = round(time.monotonic() - start, 1)
        except ProcessLookupError:
            fault["continued_s"] = None  # the worker had killed it and started another
    return fault


def recovery(requests: list[Request], fault: dict[str, Any], samples: list[dict[str, Any]]) -> dict[str, Any]:
    """After the fault: the failed requests, the first answer from a request started after it (recovery), whether
    every request started after that answer was answered, and the store pids seen."""
    at = fault.get("at_s")
    if at is None:
        return fault
    after = sorted((r for r in requests if r.started >= at), key=lambda r: r.started)
    answered = [r for r in after if r.outcome == "ok"]
    first = min(answered, key=lambda r: r.started + r.seconds, default=None)
    back = None if first is None else first.started + first.seconds
    later = [r for r in requests if back is not None and r.started >= back]
    spanning = [r for r in requests if r.started < at < r.started + r.seconds]
    return {
        **fault,
        "in_flight_at_fault": dict(Counter(r.outcome for r in spanning)),
        "failed_after_fault": dict(Counter(r.outcome for r in after if r.outcome != "ok")),
        "recovered_s": None if back is None else round(back - at, 1),
        "after_recovery": {"requests": len(later), "answers": sum(r.outcome == "ok" for r in later)},
        "store_pids": sorted({s["store_pid"] for s in samples if s.get("store_pid")}),
    }


def soak(
    n: int,
    args: argparse.Namespace,
    questions: list[str],
    env: dict[str, str],
    config: Config,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """One run: ``n`` clients (a share ``cli_share`` of them processes) for ``args.seconds``."""
    n_cli = int(n * args.cli_share + 0.5)  # half up: N = 1 at the default share is one process
    warmup = args.warmup if args.warmup is not None else min(0.2 * args.seconds, 60.0)
    start = time.monotonic()
    run = Run(questions, start, start + args.seconds, args.hang_after, env, config)
    samples: list[dict[str, Any]] = []
    stop = threading.Event()

    def sampler() -> None:
        due = start
        while not stop.is_set():
            samples.append(sample(env, start))
            due += args.sample_every
            stop.wait(max(0.0, due - time.monotonic()))
        samples.append(sample(env, start))

    threads: dict[int, threading.Thread] = {}
    ids = itertools.count()

    def begin(target: Callable[[Run, int], None]) -> None:
        ident = next(ids)
        threads[ident] = threading.Thread(target=target, args=(run, ident), name=f"client-{ident}", daemon=True)
        threads[ident].start()

    watcher = threading.Thread(target=sampler, daemon=True)
    watcher.start()
    faults: list[dict[str, Any]] = []
    injector = threading.Thread(
        target=lambda: faults.append(inject(args.fault, args.fault_at, args.stop_for, env, start)), daemon=True
    )
    if args.fault:
        injector.start()
    for _ in range(n_cli):
        begin(cli_client)
    for _ in range(n - n_cli):
        begin(api_client)
    while True:  # the hang watch of the API clients (a process client kills its own)
        now = time.monotonic()
        with run.lock:
            hung = [i for i, since in run.in_flight.items() if now - since > args.hang_after and i not in run.abandoned]
            for ident in hung:
                run.abandoned.add(ident)
                run.requests.append(
                    Request("api", round(run.in_flight[ident] - start, 3), now - run.in_flight[ident], "hang")
                )
        for _ in hung:
            say(f"  an API call ran past {args.hang_after:.0f} s: abandoned, its client replaced")
            if now < run.deadline:
                begin(api_client)
        if all(not t.is_alive() or i in run.abandoned for i, t in threads.items()):
            break
        time.sleep(0.5)
    duration = time.monotonic() - start
    stop.set()
    watcher.join()
    if args.fault:
        injector.join()
    by_client = {
        kind: summary([r for r in run.requests if r.client == kind], duration)
        for kind in ("cli", "api")
        if any(r.client == kind for r in run.requests)
    }
    return {
        "clients": n,
        "cli_clients": n_cli,
        "api_clients": n - n_cli,
        "seconds": args.seconds,
        "duration_s": round(duration, 1),
        **summary(run.requests, duration),
        "by_client": by_client,
        "notices": dict(run.notices.most_common()),
        "rss": {"warmup_s": round(warmup, 1), **growth(samples, args.seconds, warmup)},
        "timeline": timeline(run.requests, args.seconds),
        **(
            {"fault": recovery(run.requests, faults[0], samples) if faults else {"error": "not injected"}}
            if args.fault
            else {}
        ),
        "rss_samples": samples,
    }


def prepare(
    home: Path, count: int, seed: int, config: Config, env: dict[str, str], say: Callable[[str], None]
) -> list[str]:
    """Load HPO as latency.py does ("up to date" when kept), restart the worker (its memory: serving only), take
    latency.py's questions from it and warm it with a few asks."""
    say(f"loading HPO into {home} (up to date when kept from a run)")
    subprocess.run([*KGQA, "load", SKB], env=env, check=True, cwd=ROOT)
    _kgqa(env, "server", "stop")
    _kgqa(env, "server", "start")
    with connect_worker(config, say) as kg:
        types = list(kg.meta(SKB).candidate_types)
        made, _ = kg.generate_questions(SKB, types, count, seed, MAX_WORD_SHARE)
        questions = [q.query for q in made]
        for question in questions[:5]:
            kg.ask(question, SKB)
    _kgqa(env, "ask", questions[0], "--skb", SKB, "--llm", "none", "--json")
    say(f"{len(questions)} questions (seed {seed}); the worker is warm")
    return questions


def _mib(process: dict[str, Any]) -> str:
    if process.get("last_mib") is None:
        return "n/a"
    pct = process.get("growth_pct")
    return f"{process['last_mib']:.0f} ({'n/a' if pct is None else f'{pct:+.1f}%'})"


def table(result: dict[str, Any], path: Path = OUT) -> str:
    """The markdown table of a results file (a row per run), under a sentence naming its commit and settings."""
    where = origin(result, path, ROOT, PATHS)
    s = result["settings"]
    lines = [
        "| clients (CLI / API) | wall s | requests | answers/s | latency p50 / p95 / p99 / max (ms) | errors | busy "
        "| hangs | worker RSS, MiB (growth) | FalkorDB RSS, MiB (growth) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["runs"]:
        lat = row["latency_ms"]
        latency = "n/a" if lat is None else " / ".join(f"{lat[k]:.0f}" for k in ("p50", "p95", "p99", "max"))
        errors = sum(row["errors"].values())
        rss = row["rss"]
        lines.append(
            f"| {row['clients']} ({row['cli_clients']} / {row['api_clients']}) | {row['duration_s']:.0f} | "
            f"{row['requests']:,} | {row['throughput']:.2f} | {latency} | {errors} | {row['busy']} | {row['hangs']} | "
            f"{_mib(rss['worker'])} | {_mib(rss['store'])} |"
        )
    faults = [_fault_line(row["fault"]) for row in result["runs"] if "fault" in row]
    kinds = Counter[str]()
    for row in result["runs"]:
        kinds.update(row["errors"])
    notes = [f"`{k}` x{v}" for k, v in kinds.most_common(5)]
    return "\n".join(
        [
            f"{s['questions']} generated HPO questions (seed {s['seed']}, no LLM) cycled by N clients for "
            f"{s['seconds']:.0f} s each, {s['cli_share']:.0%} of them `kgqa ask --json` processes, the others threads "
            f"with a client of the worker; {result['provenance']['cpus']} CPU(s). Latency: client-side wall time of "
            f"the answered requests. RSS: mean of the last 20% of the samples (every {s['sample_every']:.0f} s), "
            f"growth against the samples right after the warm-up; a hang is a request past {s['hang_after']:.0f} s. "
            f"{where.sentence()}",
            "",
            *lines,
            *(["", "Errors: " + ", ".join(notes) + "."] if notes else []),
            *(["", *faults] if faults else []),
        ]
    )


def _fault_line(fault: dict[str, Any]) -> str:
    if "at_s" not in fault:
        return f"Fault: {fault.get('error', 'not injected')}."
    what = "SIGKILL" if fault["kind"] == "kill" else "SIGSTOP"
    cont = fault.get("continued_s")
    stopped = (
        ""
        if fault["kind"] == "kill"
        else (f", SIGCONT at {cont:.0f} s" if cont is not None else ", replaced before its SIGCONT was due")
    )
    failed = sum(fault["failed_after_fault"].values())
    kinds = ", ".join(f"`{k}` x{v}" for k, v in fault["failed_after_fault"].items()) or "none"
    spanning = ", ".join(f"{k} x{v}" for k, v in fault["in_flight_at_fault"].items()) or "none"
    rec = fault["recovered_s"]
    after = fault["after_recovery"]
    return (
        f"Fault: {what} of the store server (pid {fault['pid']}) at {fault['at_s']:.0f} s{stopped}; "
        f"requests in flight then: {spanning}; {failed} started after it failed ({kinds}); "
        f"first answer {('n/a' if rec is None else f'{rec:.1f} s')} after the fault; after that "
        f"{after['answers']} of {after['requests']} requests answered; store pids seen {fault['store_pids']}."
    )


def _clients(values: list[str] | None) -> list[int]:
    counts = [int(v) for value in values or ["1,4,16"] for v in value.split(",") if v.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("--clients takes positive counts")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "kgqa-soak")
    parser.add_argument("--clients", action="append", help="N per run; repeatable or a comma list (default 1,4,16)")
    parser.add_argument("--seconds", type=float, default=None, help="per run (default 120)")
    parser.add_argument("--cli-share", type=float, default=0.5, help="the share of clients that are processes")
    parser.add_argument("--hang-after", type=float, default=300.0, help="seconds after which a request is a hang")
    parser.add_argument("--sample-every", type=float, default=5.0, help="seconds between RSS samples")
    parser.add_argument("--warmup", type=float, default=None, help="default: 20%% of the run or 60 s, the shorter")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--long", action="store_true", help="one run of N = 4 for 1800 s (into soak_long.json)")
    parser.add_argument("--fault", choices=("kill", "stop"), help="N = 4, 180 s, the store server signalled")
    parser.add_argument("--fault-at", type=float, default=30.0, help="seconds into the run (default 30)")
    parser.add_argument("--stop-for", type=float, default=90.0, help="SIGSTOP this long, then SIGCONT (default 90)")
    parser.add_argument("--out", type=Path, default=None, help="results file (default results/soak.json)")
    parser.add_argument("--table", action="store_true", help="only print the table of --out")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table of --out")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if args.long and (args.clients or args.seconds is not None):
        parser.error("--long is N = 4 for 1800 s: give neither --clients nor --seconds with it")
    if not 0 <= args.cli_share <= 1:
        parser.error("--cli-share is a fraction in [0, 1]")
    if args.fault and args.long:
        parser.error("--fault and --long are separate runs")
    out = args.out or (OUT_LONG if args.long else RESULTS / f"soak_fault_{args.fault}.json" if args.fault else OUT)
    if args.table or args.render:
        body = table(json.loads(out.read_text(encoding="utf-8")), out)
        print(body)
        if args.render:
            text = DOC.read_text(encoding="utf-8")
            block = out.name.removesuffix(".json")
            heading = TITLE if block == "soak" else f"### `{out.name}`"
            DOC.write_text(replace_block(text, block, body, heading), encoding="utf-8")
        return
    try:
        clients = [4] if args.long or (args.fault and not args.clients) else _clients(args.clients)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        parser.error(str(exc))
    args.seconds = 1800.0 if args.long else (args.seconds or (180.0 if args.fault else 120.0))

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    env = _env(args.home)
    config = load_config({"llm": "none"}, env=env, cwd=ROOT)  # what `kgqa ask --llm none` runs with in ROOT
    result: dict[str, Any] = {"provenance": provenance()}
    questions = prepare(args.home, args.questions, args.seed, config, env, say)
    result["settings"] = {
        "home": str(args.home),
        "skb": SKB,
        "clients": clients,
        "seconds": args.seconds,
        "cli_share": args.cli_share,
        "hang_after": args.hang_after,
        "sample_every": args.sample_every,
        "warmup": args.warmup,
        "fault": args.fault,
        "fault_at": args.fault_at,
        "stop_for": args.stop_for,
        "questions": len(questions),
        "seed": args.seed,
        "api_client": "kgqa.connect() beside the running worker (its client), one per thread, kept across questions",
    }
    result["config"] = config_settings(config)
    result["runs"] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    for n in clients:
        say(f"N = {n}: {args.seconds:.0f} s")
        row = soak(n, args, questions, env, config, say)
        result["runs"].append(row)
        out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        say(
            f"  {row['requests']} requests, {row['throughput']} answers/s, latency {row['latency_ms']}, "
            f"errors {row['errors']}, busy {row['busy']}, hangs {row['hangs']}"
        )
    print(table(result, out))


if __name__ == "__main__":
    main()
