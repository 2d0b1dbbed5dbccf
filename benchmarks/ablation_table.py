"""Render `kgqa eval --ablation` results (benchmarks/results/ablation_hpo_*.json) into docs/results.md.

    kgqa eval --skb hpo --qa benchmarks/results/hpo_generated.csv --ablation --llm none \\
        --out benchmarks/results/ablation_hpo_none.json
    python benchmarks/ablation_table.py

Each row names the commit its answers were made at (from the eval's records, kgqa.provenance) and is marked stale
when the answer-shaping code changed since (or the commit is unknown: files written before provenance was kept).
Rendering only reads files and asks git; re-run it after a code change to refresh the stale marks.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from kgqa.lab.evaluate import load_records
from kgqa.lab.metrics import METRICS, mean_metrics
from kgqa.provenance import CODE_PATHS, origin, replace_block

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "results.md"
PATHS = CODE_PATHS
"""What an ablation's answers depend on: kgqa eval runs the library, not a script of its own."""
PAPER = {  # AF-Retriever paper, STaRK synthetic test sets, GPT-OSS-120B + text-embedding-3-small: H@1 / H@5 / MRR
    "PRIME": (46.2, 63.7, 54.0),
    "MAG": (78.6, 91.4, 84.0),
    "AMAZON": (61.2, 75.2, 67.3),
}
PAPER_ABLATION = (
    ("vector strand (VSS only)", 15.1),
    ("steps 1-6 (graph strand)", 30.5),
    ("steps 1-7 (hybrid)", 33.8),
    ("with rerank", 46.2),
)  # PRIME hit@1 in %, same paper and models


def row_metrics(out: Path, ids: set[str]) -> dict[str, tuple[dict[str, float], Counter[str]]]:
    """Mean metrics and the commits per ablation row over the questions ``ids``, from the records of ``out``."""
    per_row: dict[str, list[dict[str, float]]] = {}
    made_at: dict[str, Counter[str]] = {}
    for record in load_records(out):
        if record.id in ids:
            per_row.setdefault(record.row, []).append(record.metrics)
            made_at.setdefault(record.row, Counter())[record.commit or "unknown"] += 1
    return {row: (mean_metrics(metrics), made_at[row]) for row, metrics in per_row.items()}


def same_questions(partial: Path, doc: dict[str, Any], others: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    """Rows of the complete runs on the questions of a partial one, so the comparison is like for like."""
    ids = {q["id"] for q in doc["questions"]}
    lines = []
    for path, other in others:
        if other["metrics"]["n"] <= len(ids):
            continue
        rows = row_metrics(path, ids)
        lines += [
            f"`{path.name}` on the same {len(ids)} questions as `{partial.name}`:",
            "",
            "| row | hit@1 | hit@5 | hit@20 | recall@20 | MRR | commit |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {row} | "
            + " | ".join(f"{m[k]:.3f}" for k in METRICS)
            + f" | {origin(other, path, ROOT, PATHS, commits=made_at).cell()} |"
            for row, (m, made_at) in rows.items()
        ]
        lines.append("")
    return lines


def render(docs: list[tuple[Path, dict[str, Any]]]) -> str:
    """The docs block for the ablation results ``docs`` (path, results.json document)."""
    lines = []
    for path, doc in docs:
        settings = doc["settings"]
        source = Path(settings["qa"]).name
        first = f" (the first {settings['limit']})" if settings.get("limit") else ""
        fallback = settings.get("plan_fallback", "not recorded")
        made_at = {row: made for row, (_, made) in row_metrics(path, {q["id"] for q in doc["questions"]}).items()}
        every = sum(made_at.values(), Counter())
        lines += [
            f"`{path.name}`: {settings['skb']}, {doc['metrics']['n']} questions from `{source}`{first}, "
            f"llm `{settings['llm']}`, k = {settings['top_k']}, "
            f"rerank budget {settings['rerank_budget_tokens']} tokens, plan_fallback {fallback}, "
            f"embedder {settings['embedder_model']}.",
            "",
            origin(doc, path, ROOT, PATHS, commits=every).sentence(),
            "",
            "| row | hit@1 | hit@5 | hit@20 | recall@20 | MRR | median s / q | LLM calls / q | commit |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row, metrics in doc["ablation"].items():
            section = doc["ablation_sections"][row]
            commit = origin(doc, path, ROOT, PATHS, commits=made_at.get(row, Counter())).cell()
            lines.append(
                f"| {row} | {metrics['hit@1']:.3f} | {metrics['hit@5']:.3f} | {metrics['hit@20']:.3f} | "
                f"{metrics['recall@20']:.3f} | {metrics['mrr']:.3f} | "
                f"{section['seconds_per_question'].get('median_s', 0):.2f} | "
                f"{section['llm']['calls_per_question']} | {commit} |"
            )
        lines.append("")
        lines += same_questions(path, doc, [(p, d) for p, d in docs if p != path])
    lines += [
        "For orientation only (different data and models): the paper's full pipeline on STaRK's synthetic test "
        "sets, hit@1 / hit@5 / MRR in %: "
        + "; ".join(f"{k} {v[0]} / {v[1]} / {v[2]}" for k, v in PAPER.items())
        + ". The paper's ablation on PRIME, hit@1 in %: "
        + "; ".join(f"{row} {value}" for row, value in PAPER_ABLATION)
        + "."
    ]
    return "\n".join(lines)


def main() -> None:
    docs = [
        (path, json.loads(path.read_text()))
        for path in sorted(RESULTS.glob("ablation_hpo_*.json"))
        if not path.name.endswith(".settings.json")
    ]  # the eval's settings file beside its records, not a result
    text = replace_block(
        DOC.read_text(encoding="utf-8"),
        "ablation_hpo",
        render(docs),
        "## Ablation on generated HPO questions (`kgqa eval --ablation`)",
    )
    DOC.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
