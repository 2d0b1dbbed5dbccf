"""What a newcomer's first answers are worth: answer quality before the documents' vectors are in (issue 71).

A load publishes the graph once its names are in; the worker then trains the reader (seconds) and embeds the
documents (minutes) in the background. An ask meanwhile runs without the vector strand and step 6's document
similarity. This benchmark makes that state and measures it, with no LLM, row ``hybrid`` (steps 1-7), on
quality_hpo's 200 questions and the families' first 180 (as benchmarks/llm_axis.py's ``none`` level):

- ``no reader, no documents``: an ask right after ``kgqa load hpo`` returns;
- ``reader, no documents``: an ask once the reader is trained (the first seconds of the background), the documents
  not yet in;

beside ``none`` from llm_axis.py (everything in, the same code). The state is made in a fresh data directory:
``kgqa load hpo`` through a worker, which is stopped as soon as the load returns (its follow-up cancelled with the
documents not embedded); the questions are then answered in this process (no worker, so nothing resumes them). The
reader of the second state is copied from ``--reader-from`` (a data directory whose HPO reader was trained at this
load's fingerprint: benchmarks run in /tmp/kh).

    python benchmarks/before_documents.py --reader-from /tmp/kh      # ~6 min on 2 cores

It writes benchmarks/results/before_documents.json and the table between the ``before_documents`` markers in
docs/results.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from kgqa.config import load_config
from kgqa.lab.evaluate import eval_settings, results, run_eval
from kgqa.lab.qa import load_questions
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, provenance, replace_block, require_committed
from kgqa.runtime.app import Kgqa

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
OUT = RESULTS / "before_documents.json"
DOC = ROOT / "docs" / "results.md"
BLOCK = "before_documents"
TITLE = "## Answers before the documents are embedded (`benchmarks/before_documents.py`)"
SETS = {
    "quality": (RESULTS / "quality_hpo_questions.csv", None),
    "families": (RESULTS / "families_hpo_questions.csv", 180),
}
STATES = ("no reader, no documents", "reader, no documents")
ROWS = [("hybrid", "hybrid")]
PATHS = (*CODE_PATHS, "benchmarks/before_documents.py")


def kgqa(home: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGQA_")} | {"KGQA_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "kgqa.cli", *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"kgqa {' '.join(args)} failed: {done.stderr}")
    return done.stderr + done.stdout


def pending_home(home: Path) -> None:
    """HPO loaded in ``home`` with its documents' vectors not embedded (and no reader)."""
    said = kgqa(home, "load", "hpo")
    kgqa(home, "server", "stop")  # cancels the follow-up: the reader, then the documents
    print(said, flush=True)
    with Kgqa(load_config({"home": home, "worker_idle_timeout": 0})) as kg:
        ready = kg.readiness("hpo")
    if ready.documents:
        raise SystemExit("the documents were embedded before the worker stopped: nothing to measure")
    print(ready.line(), flush=True)


def measure_state(home: Path, state: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with Kgqa(load_config({"home": home, "worker_idle_timeout": 0, "llm": "none", "llm_cache": False})) as kg:
        if kg.readiness("hpo").documents:
            raise SystemExit("the documents are in: not the state to measure")
        for name, (path, limit) in SETS.items():
            questions = load_questions(path)[:limit]
            records_out = RESULTS / f"before_documents_{state.replace(', ', '_').replace(' ', '-')}_{name}.json"
            for stale in (records_out, records_out.with_suffix(".json.jsonl")):
                stale.unlink(missing_ok=True)
            settings = eval_settings(kg, "hpo", str(path.relative_to(ROOT)), "test", ROWS)
            records = run_eval(kg, "hpo", questions, ROWS, records_out, settings=settings)
            summary = results(records, ROWS, settings)["metrics"]
            out[name] = {key: summary[key] for key in ("hit@1", "recall@20", "mrr")}
            print(state, name, out[name], flush=True)
    return out


def complete(name: str) -> dict[str, float]:
    """llm_axis.py's ``none`` row hybrid on the set (everything in)."""
    path = RESULTS / ("llm_axis_none.json" if name == "quality" else f"llm_axis_none_{name}.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    section = doc["ablation"]["hybrid"] if doc.get("ablation") else doc["metrics"]
    return {key: section[key] for key in ("hit@1", "recall@20", "mrr")}


def render(doc: dict[str, Any]) -> str:
    commit = str(doc["provenance"].get("commit", "?"))[:7]
    lines = [
        f"No LLM, row hybrid (steps 1-7); commit {commit}. Everything in: llm_axis.py's `none` on the same sets.",
        "",
        "| state | quality hit@1 | quality recall@20 | families hit@1 | families recall@20 |",
        "|---|---|---|---|---|",
    ]
    for state, sets in [*doc["states"].items(), ("everything in", doc["complete"])]:
        cells = [f"{sets[s]['hit@1']:.3f} | {sets[s]['recall@20']:.3f}" for s in SETS]
        lines.append(f"| {state} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reader-from", type=Path, required=True, help="a data directory with a trained HPO reader")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        made_at = provenance()
        home = Path(tempfile.mkdtemp(prefix="kgqa-before-documents-")) / "home"
        try:
            pending_home(home)
            states = {STATES[0]: measure_state(home, STATES[0])}
            shutil.copytree(args.reader_from / "readers" / "hpo", home / "readers" / "hpo")
            states[STATES[1]] = measure_state(home, STATES[1])
        finally:
            shutil.rmtree(home.parent, ignore_errors=True)
        doc = {"provenance": made_at, "states": states, "complete": {name: complete(name) for name in SETS}}
        OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    doc = json.loads(OUT.read_text(encoding="utf-8"))
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, render(doc), TITLE), encoding="utf-8")


if __name__ == "__main__":
    main()
