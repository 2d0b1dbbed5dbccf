"""kgqa against the text-to-Cypher baseline users run today (langchain-neo4j's GraphCypherQAChain), same questions,
same LLM, same store: the rows of docs/results.md's ``baseline_hpo`` table.

The questions are quality_hpo.py's natural-phrasing HPO set (benchmarks/results/quality_hpo_questions.csv). Two
``kgqa eval`` runs, each resumable from its records:

- ``none`` (no LLM): the vector strand alone, and kgqa's defaults (hybrid, fusion; no reranker without an LLM);
- ``llm`` (``--llm``, e.g. the local Qwen2.5-Coder-1.5B): kgqa's hybrid with the LLM writing step 2's Cypher
  (the linked plan joins when the LLM's grounds too little, as by default), and ``--baseline text2cypher`` with
  and without CypherQueryCorrector (``text2cypher-unvalidated``: the chain's default).

    python benchmarks/baseline_hpo.py --llm llama:$HOME/.cache/kgqa/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    python benchmarks/baseline_hpo.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``) and the extra ``kgqa[langchain]``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from kgqa.config import load_config
from kgqa.lab.evaluate import BASELINE_ROWS, Record, Row, eval_settings, load_records, results, run_eval
from kgqa.lab.qa import load_questions
from kgqa.langchain.baseline import CORRECTOR_REJECTED, STORE_REFUSED
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, replace_block, require_committed
from kgqa.runtime.app import Kgqa

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QUESTIONS = RESULTS / "quality_hpo_questions.csv"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
RUNS: dict[str, list[Row]] = {
    "none": [("vector strand", "vss"), ("kgqa defaults, no LLM", "full")],
    "llm": [
        ("kgqa hybrid, LLM writes the Cypher", "hybrid"),
        BASELINE_ROWS["text2cypher"],
        BASELINE_ROWS["text2cypher-unvalidated"],
    ],
}
PATHS = (*CODE_PATHS, "benchmarks/baseline_hpo.py")


def out_path(run: str) -> Path:
    return RESULTS / f"baseline_hpo_{run}.json"


def measure(run: str, llm: str, limit: int | None) -> None:
    rows = RUNS[run]
    out = out_path(run)

    def show(record: Record, so_far: list[Record]) -> None:
        print(run, record.row, len(so_far), record.id, f"{record.seconds:.2f} s", record.metrics, flush=True)

    with Kgqa(load_config({"llm": llm})) as kg:
        settings = eval_settings(kg, SKB, str(QUESTIONS.relative_to(ROOT)), "test", rows)
        records = run_eval(kg, SKB, load_questions(QUESTIONS)[:limit], rows, out, settings=settings, on_answer=show)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def failures(records: Sequence[Record]) -> str:
    """For the baseline: the shares of questions whose query the corrector rejected, the store refused, and that
    ran but returned no rows."""
    runs = [next((s for s in r.steps if s["name"] == "execute"), {"detail": ""}) for r in records]
    shares = [
        sum(s["detail"].startswith(CORRECTOR_REJECTED) for s in runs),
        sum(s["detail"].startswith(STORE_REFUSED) for s in runs),
        sum(s["detail"] == "the query returned no rows" for s in runs),
    ]
    return " / ".join(f"{n / len(records):.2f}" for n in shares) if records else "-"


def table() -> str:
    lines = [
        f"Questions: `{QUESTIONS.name}` (quality_hpo.py's 200 natural-phrasing HPO questions), k = 20.",
        "",
        "| row | LLM | hit@1 | hit@5 | recall@20 | MRR | n | median s / q | LLM calls / q | rejected / refused / no "
        "rows | commit |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in RUNS:
        out = out_path(run)
        if not out.exists():
            continue
        doc = json.loads(out.read_text())
        records = load_records(out)
        llm = doc["settings"]["llm"]
        llm = "none" if llm == "none" else Path(llm.partition(":")[2]).name
        for row, section in doc["ablation_sections"].items() if "ablation_sections" in doc else []:
            m = doc["ablation"][row]
            mine = [r for r in records if r.row == row]
            baseline = row in {r[0] for r in BASELINE_ROWS.values()}
            lines.append(
                f"| {row} | {llm} | {m['hit@1']:.3f} | {m['hit@5']:.3f} | {m['recall@20']:.3f} | {m['mrr']:.3f} | "
                f"{m['n']} | {section['seconds_per_question'].get('median_s')} | "
                f"{section['llm'].get('calls_per_question', '-')} | {failures(mine) if baseline else '-'} | "
                f"{origin(doc, out, ROOT, PATHS).label()} |"
            )
    return "\n".join(lines)


def write_doc() -> None:
    title = "## kgqa against the text-to-Cypher baseline (`benchmarks/baseline_hpo.py`)"
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), "baseline_hpo", table(), title), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", help="the LLM of the 'llm' run: openai:MODEL or llama:PATH.gguf")
    parser.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated, of {', '.join(RUNS)}")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the results files")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        for run in [r for r in args.runs.split(",") if r]:
            if run not in RUNS:
                parser.error(f"unknown run {run!r}; runs are {', '.join(RUNS)}")
            if run == "llm" and not args.llm:
                parser.error("the 'llm' run needs --llm")
            measure(run, "none" if run == "none" else args.llm, args.limit)
    write_doc()
    print(table())


if __name__ == "__main__":
    main()
