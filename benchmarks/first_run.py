"""README command 1 from nothing, as a newcomer runs it: time to the first answer, install included (issue 31).

The command is read from README.md (the bash block under "**1."), so the figure is the one the README promises. It
runs in a fresh clone of this repository's HEAD (committed code only), with a fresh virtual environment, a fresh data
directory (``KGQA_HOME``) and, unless ``--pip-cache``, no pip cache: every wheel comes from the registry, as on a
fresh machine. Each ``&&`` part is timed apart; the load's own phases come from its report line. Then the same
command runs once more in the same clone: a repeated command 1 (the venv and the store are there).

    python benchmarks/first_run.py                 # ~15-30 min on 2 cores
    python benchmarks/first_run.py --pip-cache     # wheels from pip's cache (install time not a newcomer's)
    python benchmarks/first_run.py --render

After the first answer it polls ``kgqa server status`` until the worker's follow-up of the load (the reader, then
the documents' vectors, issue 71) has ended: the moment everything is in.

It writes benchmarks/results/first_run.json (install_seconds, first_answer_seconds, full_load_seconds,
documents_seconds, repeat_seconds, the parts and the provenance of the code measured) and the table between the
``first_run`` markers in docs/benchmarks.md. Nothing else may run meanwhile: the machine's two cores are what is
measured.
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

from kgqa.provenance import allow_dirty_flag, origin, provenance, replace_block, require_committed

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "first_run.json"
DOC = ROOT / "docs" / "benchmarks.md"
BLOCK = "first_run"
TITLE = "## README command 1 from nothing (`benchmarks/first_run.py`)"
PATHS = ("pyproject.toml", "kgqa", "cypher", "loaders", "benchmarks/first_run.py")
"""The code behind the figures; README's command is compared apart (its prose quotes the figures)."""
PHASES = re.compile(r"loaded (\d+) nodes, (\d+) edges in ([\d.]+) s \((\d+) texts embedded.*?\)")


def readme_command(readme: str, step: int) -> str:
    """The bash command of README's step ``step``: the first fenced bash block after the line starting ``**<step>.``
    (benchmarks/suite_time.py reads step 2 with it)."""
    after = readme.split(f"\n**{step}.", 1)
    if len(after) < 2:
        raise SystemExit(f"README.md has no '**{step}.' step")
    block = re.search(r"```bash\n(.*?)\n```", after[1], re.S)
    if block is None:
        raise SystemExit(f"README.md's step {step} has no bash block")
    return block.group(1).strip()


def part_kind(part: str) -> str:
    if " kgqa load " in f" {part.replace('.venv/bin/', '')} ":
        return "load"
    if " kgqa ask " in f" {part.replace('.venv/bin/', '')} ":
        return "ask"
    return "install"


def run_parts(command: str, cwd: Path, env: dict[str, str], log: Path) -> list[dict[str, Any]]:
    """Each ``&&`` part of ``command`` in order, timed; stops at the first that fails (as ``&&`` does)."""
    parts = []
    with log.open("a", encoding="utf-8") as sink:
        for part in command.split(" && "):
            sink.write(f"\n$ {part}\n")
            sink.flush()
            start = time.perf_counter()
            done = subprocess.run(
                ["bash", "-c", part], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
            seconds = time.perf_counter() - start
            sink.write(done.stdout)
            parts.append(
                {
                    "part": part,
                    "kind": part_kind(part),
                    "seconds": round(seconds, 1),
                    "rc": done.returncode,
                    "tail": done.stdout[-2000:],
                }
            )
            print(f"{seconds:8.1f} s  rc {done.returncode}  {part}", flush=True)
            if done.returncode:
                raise SystemExit(f"'{part}' failed (exit {done.returncode}); its output is in {log}")
    return parts


def load_phases(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The load's report line: nodes, edges, texts embedded, its own seconds and its phases (nodes, edges,
    publish)."""
    text = next(p["tail"] for p in parts if p["kind"] == "load")
    found = PHASES.search(text)
    if found is None:
        return {}
    phases = {name: float(s) for name, s in re.findall(r", (nodes|edges|publish) ([\d.]+) s", found.group(0))}
    return {"nodes": int(found.group(1)), "texts_embedded": int(found.group(4)), "seconds": float(found.group(3))} | {
        "phases": phases
    }


VECTOR_FLAGS = re.compile(r"^(avx\w*|amx\w*|fma|sse4_2)$")
"""The CPU flags the int8 encoder's speed hangs on (issue 71: the same command took 6 to 12 minutes by processor)."""


def vector_extensions() -> list[str]:
    """The vector instructions /proc/cpuinfo lists for this CPU (empty where it cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return sorted(flag for flag in set(flags) if VECTOR_FLAGS.match(flag))


DOCUMENTS_WAIT = 1800.0
"""Seconds to wait for the background documents after the first answer before giving up (a failed follow-up)."""


def documents_done(kgqa: Path, env: dict[str, str], log: Path) -> dict[str, Any]:
    """Poll ``kgqa server status --json`` until the worker's follow-up of the load (the documents' vectors, the
    reader) has ended; what it said then."""
    deadline = time.monotonic() + DOCUMENTS_WAIT
    while time.monotonic() < deadline:
        done = subprocess.run([str(kgqa), "server", "status", "--json"], env=env, capture_output=True, text=True)
        status = json.loads(done.stdout) if done.returncode == 0 else {}
        follow = (status.get("background") or {}).get("hpo")
        if follow is not None and not follow[0]:
            with log.open("a", encoding="utf-8") as sink:
                sink.write(f"\nfollow-up ended: {json.dumps(follow)}\n")
            if follow[1]:
                raise SystemExit(f"the documents' follow-up failed: {follow[1]}")
            return {"tasks": follow[2]}
        time.sleep(1.0)
    raise SystemExit(f"the documents were not embedded within {DOCUMENTS_WAIT:.0f} s of the first answer")


def measure(pip_cache: bool, keep: bool) -> dict[str, Any]:
    made_at = provenance()
    command = readme_command((ROOT / "README.md").read_text(encoding="utf-8"), 1)
    work = Path(tempfile.mkdtemp(prefix="kgqa-first-run-"))
    log = work / "first_run.log"
    clone, home = work / "kgqa", work / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGQA_", "VIRTUAL_ENV", "PYTHONPATH"))}
    env |= {"KGQA_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if not pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    print(f"working in {work}; log {log}", flush=True)
    try:
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        started = time.perf_counter()
        first = run_parts(command, clone, env, log)
        follow = documents_done(clone / ".venv/bin/kgqa", env, log)
        documents_seconds = round(time.perf_counter() - started, 1)
        print(f"{documents_seconds:8.1f} s  all documents embedded (from the start)", flush=True)
        again = run_parts(command, clone, env, log)
    finally:
        kgqa = clone / ".venv/bin/kgqa"
        if kgqa.exists():  # an install that failed has none, and nothing to stop
            subprocess.run([str(kgqa), "server", "stop"], env=env, capture_output=True, check=False)
        if not keep:
            shutil.rmtree(work, ignore_errors=True)

    def total(parts: list[dict[str, Any]], *kinds: str) -> float:
        return round(float(sum(p["seconds"] for p in parts if p["kind"] in kinds)), 1)

    return {
        "provenance": made_at,
        "command": command,
        "pip_cache": pip_cache,
        "vector_extensions": vector_extensions(),
        "install_seconds": total(first, "install"),
        "full_load_seconds": total(first, "load"),
        "ask_seconds": total(first, "ask"),
        "first_answer_seconds": total(first, "install", "load", "ask"),
        "documents_seconds": documents_seconds,
        "follow_up": follow,
        "repeat_seconds": total(again, "install", "load", "ask"),
        "load": load_phases(first),
        "parts": [{k: v for k, v in p.items() if k != "tail"} for p in first],
        "repeat_parts": [{k: v for k, v in p.items() if k != "tail"} for p in again],
        "answer": next(p["tail"] for p in first if p["kind"] == "ask")[-1500:],
    }


def render(doc: dict[str, Any]) -> str:
    load = doc.get("load") or {}
    phases = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in (load.get("phases") or {}).items())
    cache = "pip's cache" if doc["pip_cache"] else "no pip cache (every wheel from the registry)"
    prov = doc["provenance"]
    current = readme_command((ROOT / "README.md").read_text(encoding="utf-8"), 1)
    changed = "" if current == doc["command"] else " **Stale: README's command 1 has changed since.**"
    return "\n".join(
        [
            f"A fresh clone, venv and data directory, {prov['cpus']} CPU(s), {cache}; commit "
            f"{origin(doc, OUT, ROOT, PATHS).label()}. The load returns once the names are in; the worker then trains "
            f"the reader and embeds the documents in the background, and the first answer comes meanwhile.{changed}",
            "",
            "| measure | seconds | minutes |",
            "|---|---|---|",
            *(
                f"| {label} | {doc[key]:.1f} | {doc[key] / 60:.1f} |"
                for label, key in (
                    ("install (venv, the core, the model package)", "install_seconds"),
                    ("`kgqa load hpo` (nodes, names, aliases, edges)", "full_load_seconds"),
                    ("`kgqa ask` (the worker the load started)", "ask_seconds"),
                    ("**first answer, from nothing**", "first_answer_seconds"),
                    ("all documents embedded and the reader trained, from nothing", "documents_seconds"),
                    ("repeated command 1", "repeat_seconds"),
                )
            ),
            "",
            f"Load: {load.get('nodes', '?'):,} nodes, {load.get('texts_embedded', '?'):,} texts embedded; {phases}.",
            f"CPU vector extensions: {', '.join(doc.get('vector_extensions') or ['not recorded'])}.",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pip-cache", action="store_true", help="let pip use its cache (not a newcomer's install)")
    parser.add_argument("--keep", action="store_true", help="keep the clone, venv and data directory")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        doc = measure(args.pip_cache, args.keep)
        OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    doc = json.loads(OUT.read_text(encoding="utf-8"))
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, render(doc), TITLE), encoding="utf-8")


if __name__ == "__main__":
    main()
