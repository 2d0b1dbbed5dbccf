"""The full pipeline on the real HPO graph, by mode: answer quality, LLM use, per-step latency, degraded steps.

Nothing here generates, answers, scores or resumes on its own: the questions are those of ``kgqa questions``
(kgqa.runtime.reader.questions.generate/write, no LLM, seed 5, 50 questions) in
benchmarks/results/pipeline_hpo_questions.csv
(+ .meta.json with the provenance), made once and reused; each mode is one ``kgqa eval`` run
(kgqa.lab.evaluate.run_eval/results) with its own results file benchmarks/results/pipeline_hpo_<mode>.json, whose
records (``.jsonl``) make a killed run resume and whose ``.settings.json`` refuses a resume with other settings:

- ``vss``: the vector strand alone (no LLM),
- ``none``: no LLM, steps 1-7 (linked entities + hybrid merge),
- ``hybrid``: ``--llm``, steps 1-7,
- ``full``: ``--llm``, steps 1-8 (listwise rerank),

run in this order, so the LLM's steps 1-2 are computed once (response cache). benchmarks/results/pipeline_hpo.json
gathers every mode's results file (with its provenance and the commits of its records) and the table between the
``pipeline_hpo`` markers in docs/results.md names each mode's commit and marks it stale once the code changed since.

    python benchmarks/pipeline_hpo.py                     # vss and none
    python benchmarks/pipeline_hpo.py --llm llama:~/.cache/kgqa/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    python benchmarks/pipeline_hpo.py --render            # only the docs table, from pipeline_hpo.json

After a change that alters answers, ``--redo hybrid,full`` deletes those modes' records so they are measured again.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kgqa.config import load_config
from kgqa.lab.evaluate import Record, eval_settings, records_path, results, run_eval, settings_path
from kgqa.lab.qa import load_questions
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader.questions import MAX_WORD_SHARE, generate, write

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QUESTIONS = RESULTS / "pipeline_hpo_questions.csv"
SUMMARY = RESULTS / "pipeline_hpo.json"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
MODES = {"vss": ("vss", False), "none": ("hybrid", False), "hybrid": ("hybrid", True), "full": ("full", True)}
"""mode -> (kgqa ``steps``, whether it uses ``--llm``)."""
PATHS = (*CODE_PATHS, "benchmarks/pipeline_hpo.py")
"""The code behind a row: a change there makes it stale."""


def out_path(mode: str) -> Path:
    return RESULTS / f"pipeline_hpo_{mode}.json"


def questions_file(n: int, seed: int) -> Path:
    """The question set: made by kgqa.runtime.reader.questions on first use, afterwards only checked to be the one
    asked for."""
    meta_path = QUESTIONS.with_name(QUESTIONS.stem + ".meta.json")
    if QUESTIONS.exists():
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        if (meta.get("seed"), meta.get("requested")) != (seed, n):
            raise SystemExit(
                f"{QUESTIONS.name} was made with seed {meta.get('seed')} and n {meta.get('requested')}, "
                f"not seed {seed} and n {n}; use those, or delete it, its .meta.json and "
                f"pipeline_hpo_*.json* to measure on a new set"
            )
        return QUESTIONS
    kept = [m for m in MODES if records_path(out_path(m)).exists()]
    if kept:
        raise SystemExit(
            f"records of modes {', '.join(kept)} exist but {QUESTIONS.name} does not: their questions "
            f"are unknown; delete pipeline_hpo_*.json* to start over"
        )
    with Kgqa(load_config({"llm": "none"})) as kg:
        meta = kg.meta(SKB)
        made = generate(kg.store, SKB, kg.schema(SKB), meta.candidate_types, n, seed)  # no LLM: deterministic
    write(
        made,
        QUESTIONS,
        {
            "skb": SKB,
            "seed": seed,
            "requested": n,
            "n": len(made),
            "types": list(meta.candidate_types),
            "llm": "none",
            "max_word_share": MAX_WORD_SHARE,
            "source": meta.source,
            "provenance": provenance(),
        },
    )
    print(f"wrote {len(made)} questions to {QUESTIONS}", flush=True)
    return QUESTIONS


def run_mode(mode: str, llm: str, rerank_budget: int, qa: Path) -> None:
    """One ``kgqa eval`` run of ``mode`` on the questions ``qa``, resumed from its records; writes its results."""
    steps, uses_llm = MODES[mode]
    config = load_config({"llm": llm if uses_llm else "none", "steps": steps, "rerank_budget_tokens": rerank_budget})
    rows = [(mode, steps)]
    out = out_path(mode)

    def show(record: Record, so_far: list[Record]) -> None:
        print(mode, len(so_far), record.id, f"{record.seconds:.2f} s", record.metrics, flush=True)

    with Kgqa(config) as kg:
        settings = eval_settings(kg, SKB, str(qa.relative_to(ROOT)), "test", rows)
        records = run_eval(kg, SKB, load_questions(qa), rows, out, settings=settings, on_answer=show)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def gather() -> dict[str, Any]:
    """pipeline_hpo.json: every mode's results file that exists, without its per-question lists."""
    modes = {}
    for mode in MODES:
        if out_path(mode).exists():
            doc = json.loads(out_path(mode).read_text())
            modes[mode] = {"file": out_path(mode).name, **{k: v for k, v in doc.items() if k != "questions"}}
    return {"provenance": provenance(), "questions": str(QUESTIONS.relative_to(ROOT)), "modes": modes}


def _row(section: dict[str, Any], path: Path) -> dict[str, Any]:
    """A table row from one mode's results (kgqa.lab.evaluate.results, less the per-question list)."""
    llm, steps = section["llm"], section["steps"]
    return {
        **section["metrics"],
        "calls": round(llm["calls_per_question"] - llm["cached_calls_per_question"], 2),
        "prompt": llm["prompt_tokens_per_question"],
        "completion": llm["completion_tokens_per_question"],
        "median_s": section["seconds_per_question"].get("median_s"),
        "step_s": {k.split()[0]: v["median_s"] for k, v in steps.items() if "median_s" in v},
        "degraded": {k: v["degraded"] for k, v in steps.items() if v["degraded"]},
        "commit": origin(section, path, ROOT, PATHS).label(),
    }


def _legacy_row(summary: dict[str, Any], path: Path) -> dict[str, Any]:
    """A table row from a pipeline_hpo.json written before provenance (its own summary format)."""
    return {
        **{m: summary[m] for m in ("hit@1", "hit@5", "recall@20", "mrr")},
        "n": summary["questions"],
        "calls": summary["llm_calls_per_question"],
        "prompt": summary["prompt_tokens_per_question"],
        "completion": summary["completion_tokens_per_question"],
        "median_s": summary["median_seconds_per_question"],
        "step_s": {k.split()[0]: v for k, v in summary["median_step_seconds"].items()},
        "degraded": summary["degraded_steps"],
        "commit": origin({}, path, ROOT, PATHS).cell(),
    }


def table(doc: dict[str, Any], path: Path = SUMMARY) -> str:
    """The docs block for pipeline_hpo.json: per mode metrics, LLM use, latency, degraded steps and commit."""
    if "summary" in doc:  # written by the script's earlier version, on its own question set
        meta = doc["meta"]
        rows = {mode: _legacy_row(s, path) for mode, s in doc["summary"].items()}
        head = (
            f"{meta['questions']} HPO questions of the earlier generator (benchmarks/results/hpo_questions.jsonl, "
            f"seed {meta['seed']}), k = 20, LLM of hybrid and full {meta['llm']}, rerank budget "
            f"{meta['rerank_budget_tokens']} tokens; 2 CPU cores; {meta['date']}. "
            f"{origin({}, path, ROOT, PATHS).sentence()}"
        )
    else:
        rows = {
            mode: _row(section, ROOT / "benchmarks" / "results" / section["file"])
            for mode, section in doc["modes"].items()
        }
        if not rows:
            return "No mode measured yet: run `python benchmarks/pipeline_hpo.py`."
        first = next(iter(doc["modes"].values()))["settings"]
        llms = sorted({s["settings"]["llm"] for s in doc["modes"].values() if s["settings"]["llm"] != "none"})
        meta_path = ROOT / Path(doc["questions"]).with_suffix(".meta.json")
        seed = json.loads(meta_path.read_text()).get("seed", "?") if meta_path.exists() else "?"
        cpus = sorted({str(s["provenance"].get("cpus") or "?") for s in doc["modes"].values()})
        head = (
            f"Questions: `{Path(doc['questions']).name}` (`kgqa questions`, seed {seed}), k = {first['top_k']}, "
            f"rerank budget {first['rerank_budget_tokens']} tokens, LLM of hybrid and full "
            f"{', '.join(llms) or '(not measured)'}; {'/'.join(cpus)} CPU "
            f"cores; measured {', '.join(sorted({s['provenance']['date'][:10] for s in doc['modes'].values()}))}."
        )
    lines = [
        head,
        "",
        "| mode | hit@1 | hit@5 | recall@20 | MRR | n | LLM calls / q (not cached) "
        "| prompt + completion tokens / q | median s / q | commit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, r in rows.items():
        lines.append(
            f"| {mode} | {r['hit@1']:.3f} | {r['hit@5']:.3f} | {r['recall@20']:.3f} | {r['mrr']:.3f} | "
            f"{int(r['n'])} | {r['calls']} | {r['prompt']} + {r['completion']} | {r['median_s']} | "
            f"{r['commit']} |"
        )
    missing = [m for m in MODES if m not in rows]
    if missing:
        lines += ["", f"Not measured: {', '.join(missing)}."]
    lines += [
        "",
        "Median seconds per step (steps that ran):",
        "",
        "| mode | " + " | ".join(f"step {i}" for i in range(1, 9)) + " |",
        "|---|" + "---|" * 8,
    ]
    for mode, r in rows.items():
        lines.append(f"| {mode} | " + " | ".join(str(r["step_s"].get(str(i), "-")) for i in range(1, 9)) + " |")
    lines += ["", "Steps that ran degraded (count of questions):", ""]
    lines += [f"- {mode}: {r['degraded'] or 'none'}" for mode, r in rows.items()]
    return "\n".join(lines)


def write_doc(doc: dict[str, Any]) -> None:
    text = replace_block(
        DOC.read_text(encoding="utf-8"),
        "pipeline_hpo",
        table(doc),
        "## HPO pipeline by mode (`benchmarks/pipeline_hpo.py`)",
    )
    DOC.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", default=None, help="the LLM of the hybrid and full modes (without it: vss, none)")
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--rerank-budget", type=int, default=1500)
    parser.add_argument(
        "--modes",
        default=None,
        help=f"comma-separated, of {', '.join(MODES)} (default: all that can run: hybrid and full need --llm)",
    )
    parser.add_argument(
        "--redo",
        default="",
        help="modes whose records are deleted and measured again "
        "(after a change that alters answers), e.g. hybrid,full",
    )
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from pipeline_hpo.json")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if args.render:
        write_doc(json.loads(SUMMARY.read_text()))
        return
    modes = args.modes.split(",") if args.modes else [m for m, (_, llm) in MODES.items() if args.llm or not llm]
    redo = [m for m in args.redo.split(",") if m]
    unknown = sorted(set(modes + redo) - set(MODES))
    if unknown:
        parser.error(f"unknown mode(s) {', '.join(unknown)}; modes are {', '.join(MODES)}")
    if not args.llm and any(MODES[m][1] for m in modes):
        parser.error("modes hybrid and full need --llm")
    for mode in redo:
        for path in (out_path(mode), records_path(out_path(mode)), settings_path(out_path(mode))):
            path.unlink(missing_ok=True)
    qa = questions_file(args.questions, args.seed)
    for mode in modes:
        run_mode(mode, args.llm or "none", args.rerank_budget, qa)
    summary = gather()
    SUMMARY.write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    write_doc(summary)
    print(table(summary))


if __name__ == "__main__":
    main()
