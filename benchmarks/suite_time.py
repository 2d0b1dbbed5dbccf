"""README command 2 (lint, format check, type check, the whole pytest suite) timed from a fresh clone (issue 54).

The command is read from README.md (the bash block under "**2."), so the figure is the one the README promises. It
runs in a fresh clone of this repository's HEAD (committed code and tests only) after the ``dev`` install and the two
``npm ci`` the README names (not timed: pip's and npm's caches may serve them), with empty lint, type-check and pytest
caches, as CI's first run has. ``--durations=0`` is added through ``PYTEST_ADDOPTS`` (it changes only what pytest
prints): the slowest tests, and each test file's seconds, which ``--durations-file`` writes to tests/durations.json
(the order in which the suite hands files to its workers, tests/conftest.py). Each run starts from the committed state
of the clone. ``--slowdown F`` runs the command with every process capped to 1/F of a core (benchmarks/slow_cpu.py):
a machine whose cores are F times slower, such as one without AVX-512 (issue 71).

    python benchmarks/suite_time.py              # ~15 min on 2 cores: setup, then one run
    python benchmarks/suite_time.py --runs 2
    python benchmarks/suite_time.py --slowdown 1 --slowdown 2   # as on cores half as fast (benchmarks/slow_cpu.py)
    python benchmarks/suite_time.py --render

It writes benchmarks/results/suite_time.json (per run: seconds of the whole command and of pytest, passed, skipped,
failed, the slowest tests; the provenance of the commit measured) and the table between the ``suite_time`` markers
in docs/benchmarks.md. Nothing else may run meanwhile: the machine's two cores are what is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from first_run import readme_command
from slow_cpu import SlowCPU, cpu_controller, end_session, stop_on_sigterm

from kgqa.provenance import allow_dirty_flag, origin, provenance, replace_block, require_committed

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "suite_time.json"
DOC = ROOT / "docs" / "benchmarks.md"
DURATIONS = ROOT / "tests" / "durations.json"
BLOCK = "suite_time"
TITLE = "## The test suite's time (README command 2, 2 CPU cores)"
PATHS = ("pyproject.toml", "kgqa", "cypher", "loaders", "tests", "tools", "benchmarks/suite_time.py")
"""What the suite's time rests on: the code, the tests and the tools they drive."""
SETUP = (
    "python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 && .venv/bin/pip install -e '.[dev]' && "
    "npm ci --prefix tools/neo4j-lint --no-audit --no-fund && npm ci --prefix tools/mcp-clients --no-audit --no-fund"
)
"""The ``dev`` install (torch first) and the two npm installs that README's command 2 asks for."""
SUMMARY = re.compile(r"^=*\s*(\d+ \w+.*?) in ([\d.]+)s", re.M)
DURATION = re.compile(r"^([\d.]+)s (setup|call|teardown)\s+(\S+)$", re.M)
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)
CACHES = (".mypy_cache", ".ruff_cache", ".pytest_cache")


def counts(summary: str) -> dict[str, int]:
    """``2161 passed, 42 skipped, 1 warning`` -> {"passed": 2161, "skipped": 42, "warning": 1}."""
    return {word.rstrip("s"): int(n) for n, word in re.findall(r"(\d+) (\w+)", summary)}


def one_run(command: str, clone: Path, env: dict[str, str], log: Path, slowdown: float) -> dict[str, Any]:
    for cache in CACHES:
        shutil.rmtree(clone / cache, ignore_errors=True)
    # the committed state: a run appends to the Neo4j lint's digests
    subprocess.run(["git", "checkout", "--quiet", "--", "."], cwd=clone, check=True)
    argv = ["bash", "-c", command]
    pipes = {"cwd": clone, "env": env, "stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
    start = time.perf_counter()
    capping_error = None
    if slowdown > 1:
        with SlowCPU(slowdown) as slow:
            output, _ = (process := slow.start(argv, **pipes)).communicate()
        capping_error = slow.error
    else:
        process = subprocess.Popen(argv, text=True, start_new_session=True, **pipes)  # type: ignore[call-overload]
        try:
            output, _ = process.communicate()
        except BaseException:
            end_session(process)
            raise
    seconds = time.perf_counter() - start
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"\n$ {command}  (slowdown {slowdown})\n{output}")
    summaries = SUMMARY.findall(output)
    if not summaries:
        raise SystemExit(f"no pytest summary in the command's output (exit {process.returncode}); see {log}")
    summary, pytest_seconds = summaries[-1]
    timed = DURATION.findall(output)
    slowest = [{"seconds": float(s), "when": when, "test": test} for s, when, test in timed[:25]]
    files: dict[str, float] = {}
    for s, _, test in timed:
        files[test.split("::")[0]] = files.get(test.split("::")[0], 0.0) + float(s)
    run = {
        "seconds": round(seconds, 1),
        "pytest_seconds": float(pytest_seconds),
        "rc": process.returncode,
        "slowdown": slowdown,
        "capping_error": capping_error,
        "counts": counts(summary),
        "slowest": slowest,
        "failed_tests": FAILED.findall(output),
        "files": {name: round(seconds, 2) for name, seconds in sorted(files.items(), key=lambda kv: -kv[1])},
    }
    print(f"{seconds:8.1f} s (pytest {pytest_seconds} s)  rc {process.returncode}  {summary}", flush=True)
    return run


def measure(runs: int, keep: bool, slowdowns: list[float]) -> dict[str, Any]:
    made_at = provenance()
    if any(slowdown > 1 for slowdown in slowdowns):
        cpu_controller()  # before the setup and the first run: SystemExit here if cores cannot be capped
    command = readme_command((ROOT / "README.md").read_text(encoding="utf-8"), 2)
    work = Path(tempfile.mkdtemp(prefix="kgqa-suite-time-"))
    log, clone = work / "suite_time.log", work / "kgqa"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGQA_", "VIRTUAL_ENV", "PYTHONPATH", "PYTEST"))}
    questions = Path(os.environ.get("STARK_QA_DIR") or ROOT.parent / "shared" / "data" / "stark_qa")
    if questions.is_dir():  # as .ci/run finds them beside the clone
        env["STARK_QA_DIR"] = str(questions.resolve())
    env |= {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTEST_ADDOPTS": "--durations=0"}
    print(f"working in {work}; log {log}", flush=True)
    try:
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        start = time.perf_counter()
        setup = subprocess.run(["bash", "-c", SETUP], cwd=clone, env=env, capture_output=True, text=True)
        if setup.returncode:
            raise SystemExit(f"setup failed (exit {setup.returncode}): {setup.stderr[-2000:]}")
        setup_seconds = round(time.perf_counter() - start, 1)
        measured = [one_run(command, clone, env, log, slowdown) for slowdown in slowdowns for _ in range(runs)]
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return {
        "provenance": made_at,
        "command": command,
        "stark_qa": "STARK_QA_DIR" in env,
        "setup_seconds": setup_seconds,
        "runs": measured,
    }


def cpu(slowdown: float) -> str:
    return "uncapped" if slowdown <= 1 else f"each core capped to 1/{slowdown:g} (`slow_cpu.py`)"


def render(doc: dict[str, Any]) -> str:
    current = readme_command((ROOT / "README.md").read_text(encoding="utf-8"), 2)
    changed = "" if current == doc["command"] else " **Stale: README's command 2 has changed since.**"
    prov = doc["provenance"]
    rows = []
    for index, run in enumerate(doc["runs"], 1):
        c = run["counts"]
        rows.append(
            f"| {index} | {cpu(run.get('slowdown', 1.0))} | {run['seconds']:.0f} s ({run['seconds'] / 60:.1f} min) | "
            f"{run['pytest_seconds']:.0f} s | "
            f"{c.get('passed', 0):,} | {c.get('skipped', 0)} | {c.get('failed', 0) + c.get('error', 0)} | {run['rc']} |"
        )
    slowest = doc["runs"][-1]["slowest"][:10]
    return "\n".join(
        [
            f"A fresh clone, {prov['cpus']} CPU(s), empty lint, type-check and pytest caches, STaRK question files "
            f"{'present' if doc['stark_qa'] else 'absent'}; commit {origin(doc, OUT, ROOT, PATHS).label()}.{changed}",
            "",
            "| run | CPU | whole command 2 | pytest | passed | skipped | failed | exit |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Slowest (last run: {cpu(doc['runs'][-1].get('slowdown', 1.0))}): "
            + "; ".join(f"{s['test'].split('::')[-1]} ({s['when']}) {s['seconds']:.0f} s" for s in slowest)
            + ".",
        ]
    )


def write_durations(doc: dict[str, Any]) -> None:
    """Each test file's seconds (setup, calls, teardown), longest first, from the first run on uncapped cores."""
    run = next((r for r in doc["runs"] if r.get("slowdown", 1.0) <= 1 and r.get("files")), None)
    if run is None:
        raise SystemExit(f"{OUT} has no uncapped run with each file's seconds: measure one first")
    DURATIONS.write_text(json.dumps(run["files"], indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DURATIONS} ({len(run['files'])} files)")


def main() -> None:
    stop_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="timed runs of command 2 in the one clone (default 1)")
    parser.add_argument(
        "--slowdown",
        type=float,
        action="append",
        help="run with every process capped to 1/F of a core (benchmarks/slow_cpu.py), once per value given, in "
        "that order; 1 = uncapped; default: one uncapped run (--durations-file needs an uncapped run)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the clone and its log")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table")
    parser.add_argument(
        "--durations-file",
        action="store_true",
        help=f"write each test file's seconds of the first uncapped run to {DURATIONS.relative_to(ROOT)}",
    )
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        doc = measure(max(1, args.runs), args.keep, args.slowdown or [1.0])
        OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    doc = json.loads(OUT.read_text(encoding="utf-8"))
    if args.durations_file:
        write_durations(doc)
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, render(doc), TITLE), encoding="utf-8")


if __name__ == "__main__":
    main()
