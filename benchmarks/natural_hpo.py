"""Answer quality on questions written by hand, the way people type them (issue 51): a dev half and a test half.

The questions (benchmarks/natural/hpo_{dev,test}.jsonl) were written one by one, not by template, in the voices of
clinicians, counsellors, students, researchers and relatives: typos, lay words, abbreviations, lead-ins, implicit
answer types, hierarchy in plain words, negation, intersections. Each carries a structured gold spec; the answers
are computed from the graph by benchmarks/natural_gold.py into benchmarks/results/natural_hpo_{dev,test}.csv.

The dev half's misses may be read; the test half is never read nor tuned on: only its aggregate figures are shown.
Each half is one ``kgqa eval`` run per point (resumable from its records) into
benchmarks/results/natural_hpo_<half>_<point>.json: ``rules`` (``reader = false``: the hand-written reading alone)
and ``reader`` (kgqa's default, with the reader ``kgqa train-reader`` trained; the run refuses to start without one),
no LLM at either, and ``junk`` (:data:`POINTS`).
The tables go between the ``natural_hpo`` markers in docs/results.md.

    python benchmarks/natural_gold.py          # the answer files, once
    python benchmarks/natural_hpo.py           # both halves, then the tables
    python benchmarks/natural_hpo.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from statistics import median
from typing import Any

from kgqa.config import load_config
from kgqa.lab.evaluate import Record, commits, eval_settings, load_records, results, run_eval
from kgqa.lab.metrics import mean_metrics
from kgqa.lab.qa import load_questions
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader import find_reader

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SOURCE = ROOT / "benchmarks" / "natural"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
HALVES = ("dev", "test")
BLOCK = "natural_hpo"
TITLE = "## Questions written by hand, the way people type them (`benchmarks/natural_hpo.py`)"
PATHS = (*CODE_PATHS, "benchmarks/natural_hpo.py", "benchmarks/natural_gold.py", "benchmarks/natural")


POINTS: dict[str, dict[str, Any]] = {"rules": {"reader": False}, "reader": {}, "junk": {}}
"""point -> configuration overrides; ``junk`` is ``reader`` with benchmarks/llm_axis.py's junk LLM (step 1 always
'disease', step 2 a pattern whose constant is three words of the question, step 8 a reply that names no
candidate): an LLM must not make answers worse (issue 51, item 8)."""


def qa_file(half: str) -> Path:
    return RESULTS / f"natural_hpo_{half}.csv"


def out_file(half: str, point: str) -> Path:
    return RESULTS / f"natural_hpo_{half}_{point}.json"


def kinds(half: str) -> dict[str, list[str]]:
    """Question id -> its kinds (the hand-written tags: typo, lay, lead-in, ...)."""
    lines = (SOURCE / f"hpo_{half}.jsonl").read_text(encoding="utf-8").splitlines()
    return {q["id"]: list(q["kinds"]) for q in map(json.loads, filter(None, lines))}


def junk_llm(kg: Kgqa) -> Any:
    """llm_axis's junk level: it reads no question's metadata, so every question is unknown to it."""
    from llm_axis import Schemaful, Scripted

    return Scripted("junk", {}, Schemaful(kg.schema(SKB)))


def run_half(half: str, point: str, limit: int | None) -> None:
    """One ``kgqa eval`` run of ``half`` at ``point``, resumed from its records; writes its results file."""
    qa = qa_file(half)
    if not qa.exists():
        raise SystemExit(f"{qa} is missing: run benchmarks/natural_gold.py first")
    config = load_config({"llm": "none", **POINTS[point]})
    reader = find_reader(config.home, SKB) if config.reader else None
    if config.reader and reader is None:
        raise SystemExit(f"point {point!r} needs the reader: kgqa train-reader --skb {SKB}")
    rows = [(point, config.steps)]
    out = out_file(half, point)

    def show(record: Record, so_far: list[Record]) -> None:
        shown = "" if half == "test" else f" {record.id} {record.metrics}"
        print(f"{half} {point} {len(so_far)}{shown} {record.seconds:.2f} s", flush=True)

    with Kgqa(config) as kg:
        if point == "junk":
            kg = kg.with_llm(junk_llm(kg))
        settings = eval_settings(kg, SKB, str(qa.relative_to(ROOT)), "test", rows)
        settings["reader_trained"] = None if reader is None else reader.info
        records = run_eval(kg, SKB, load_questions(qa)[:limit], rows, out, settings=settings, on_answer=show)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def table(half: str) -> list[str]:
    """hit@1 / recall@20 per kind (rows) and point (columns) of ``half``, with each point's commit."""
    found = {p: out_file(half, p) for p in POINTS if out_file(half, p).exists()}
    if not found:
        return [f"The {half} half has not been measured yet."]
    tags = kinds(half)
    columns: dict[str, dict[str, list[dict[str, float]]]] = {}
    labels = []
    for point, path in found.items():
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        records = load_records(path)
        labels.append(f"{point}: {origin(doc, path, ROOT, PATHS, commits=commits(records) or None).label()}")
        groups: dict[str, list[dict[str, float]]] = {"all": [r.metrics for r in records]}
        for record in records:
            for tag in tags.get(record.id, []):
                groups.setdefault(tag, []).append(record.metrics)
        columns[point] = groups
    every = sorted({t for groups in columns.values() for t in groups if t != "all"})
    out = [
        f"The {half} half, hit@1 / recall@20 (commits: {'; '.join(labels)}):",
        "",
        "| kind | n | " + " | ".join(found) + " |",
        "|---|---|" + "---|" * len(found),
    ]
    for tag in ["all", *every]:
        n = max(len(groups.get(tag, [])) for groups in columns.values())
        cells = []
        for groups in columns.values():
            m = mean_metrics(groups[tag]) if groups.get(tag) else None
            cells.append("-" if m is None else f"{m['hit@1']:.3f} / {m['recall@20']:.3f}")
        out.append(f"| {tag} | {n} | " + " | ".join(cells) + " |")
    return out


READING_STEPS = (1, 2, 3)
"""Steps 1-3 without an LLM: the answer type, and the linked entities' plan (the reader's work and the rules')."""


def reading_times() -> list[str]:
    """Median and largest seconds of steps 1-3 per point, both halves together, on this machine."""
    out = []
    for point in POINTS:
        spent = sorted(
            sum(s["seconds"] for s in r.steps if s["step"] in READING_STEPS)
            for half in HALVES
            if out_file(half, point).exists()
            for r in load_records(out_file(half, point))
        )
        if spent:
            out.append(f"`{point}` median {1000 * median(spent):.0f} ms, max {1000 * spent[-1]:.0f} ms")
    return [f"Steps 1-3 ({len(HALVES)} halves, 2 CPU cores): " + "; ".join(out) + "."] if out else []


def render() -> None:
    body = "\n".join(
        [
            "`rules`: no LLM, the hand-written reading alone (`reader = false`); `reader`: no LLM, with the reader "
            "`kgqa train-reader` trained (kgqa's default where one is trained); `junk`: `reader` with "
            "benchmarks/llm_axis.py's junk LLM (steps 1-8). The dev half's misses were read while the reader was "
            "worked on; the test half was never read. A question can have several kinds.",
            "",
            *table("dev"),
            "",
            *table("test"),
            "",
            *reading_times(),
        ]
    )
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, body, TITLE), encoding="utf-8")
    print(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--halves", default=",".join(HALVES), help="comma-separated: dev, test")
    parser.add_argument("--points", default=",".join(POINTS), help="comma-separated: " + ", ".join(POINTS))
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each half")
    parser.add_argument("--render", action="store_true", help="only rewrite the tables from the results files")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        for point in args.points.split(","):
            if point not in POINTS:
                raise SystemExit(f"--points: {point!r} is not one of {', '.join(POINTS)}")
            for half in args.halves.split(","):
                if half not in HALVES:
                    raise SystemExit(f"--halves: {half!r} is not one of {', '.join(HALVES)}")
                run_half(half, point, args.limit)
    render()


if __name__ == "__main__":
    main()
