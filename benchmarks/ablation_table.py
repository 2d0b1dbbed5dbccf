"""Render `kgqa eval --ablation` results (benchmarks/results/ablation_hpo_*.json) into docs/results.md.

    kgqa eval --skb hpo --qa benchmarks/results/hpo_generated.csv --ablation --llm none \\
        --out benchmarks/results/ablation_hpo_none.json
    python benchmarks/ablation_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

from kgqa.evaluate import load_records
from kgqa.metrics import METRICS, mean_metrics

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "results.md"
PAPER = {  # AF-Retriever paper, STaRK synthetic test sets, GPT-OSS-120B + text-embedding-3-small: H@1 / H@5 / MRR
    "PRIME": (46.2, 63.7, 54.0), "MAG": (78.6, 91.4, 84.0), "AMAZON": (61.2, 75.2, 67.3),
}  # fmt: skip
PAPER_ABLATION = (("vector strand (VSS only)", 15.1), ("steps 1-6 (graph strand)", 30.5), ("steps 1-7 (hybrid)", 33.8),
                  ("with rerank", 46.2))  # PRIME hit@1 in %, same paper and models  # fmt: skip


def row_metrics(out: Path, ids: set[str]) -> dict[str, dict[str, float]]:
    """Mean metrics per ablation row over the questions ``ids``, from the records of the eval that wrote ``out``."""
    per_row: dict[str, list[dict[str, float]]] = {}
    for record in load_records(out):
        if record.id in ids:
            per_row.setdefault(record.row, []).append(record.metrics)
    return {row: mean_metrics(metrics) for row, metrics in per_row.items()}


def same_questions(partial: Path, doc: dict, others: list[tuple[Path, dict]]) -> list[str]:
    """Rows of the complete runs on the questions of a partial one, so the comparison is like for like."""
    ids = {q["id"] for q in doc["questions"]}
    lines = []
    for path, other in others:
        if other["metrics"]["n"] <= len(ids):
            continue
        rows = row_metrics(path, ids)
        lines += [f"`{path.name}` on the same {len(ids)} questions as `{partial.name}`:", "",
                  "| row | hit@1 | hit@5 | hit@20 | recall@20 | MRR |", "|---|---|---|---|---|---|"]  # fmt: skip
        lines += [f"| {row} | " + " | ".join(f"{m[k]:.3f}" for k in METRICS) + " |" for row, m in rows.items()]
        lines.append("")
    return lines


def main() -> None:
    lines = []
    docs = [(path, json.loads(path.read_text())) for path in sorted(RESULTS.glob("ablation_hpo_*.json"))
            if not path.name.endswith(".settings.json")]  # the eval's settings file beside its records, not a result
    for path, doc in docs:
        settings = doc["settings"]
        source = Path(settings["qa"]).name
        first = f" (the first {settings['limit']})" if settings.get("limit") else ""
        lines += [f"`{path.name}`: {settings['skb']}, {doc['metrics']['n']} questions from `{source}`{first}, "
                  f"llm `{settings['llm']}`, k = {settings['top_k']}, "
                  f"rerank budget {settings['rerank_budget_tokens']} tokens, "
                  f"embedder {settings['embedder_model']}.", "",
                  "| row | hit@1 | hit@5 | hit@20 | recall@20 | MRR | median s / q | LLM calls / q |",
                  "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for row, metrics in doc["ablation"].items():
            section = doc["ablation_sections"][row]
            lines.append(f"| {row} | {metrics['hit@1']:.3f} | {metrics['hit@5']:.3f} | {metrics['hit@20']:.3f} | "
                         f"{metrics['recall@20']:.3f} | {metrics['mrr']:.3f} | "
                         f"{section['seconds_per_question'].get('median_s', 0):.2f} | "
                         f"{section['llm']['calls_per_question']} |")  # fmt: skip
        lines.append("")
        lines += same_questions(path, doc, [(p, d) for p, d in docs if p != path])
    lines += ["For orientation only (different data and models): the paper's full pipeline on STaRK's synthetic test "
              "sets, hit@1 / hit@5 / MRR in %: " + "; ".join(f"{k} {v[0]} / {v[1]} / {v[2]}" for k, v in PAPER.items())
              + ". The paper's ablation on PRIME, hit@1 in %: "
              + "; ".join(f"{row} {value}" for row, value in PAPER_ABLATION) + "."]  # fmt: skip
    start, end = "<!-- ablation_hpo:start -->", "<!-- ablation_hpo:end -->"
    text = DOC.read_text(encoding="utf-8")
    if start not in text:
        text += f"\n## Ablation on generated HPO questions (`kgqa eval --ablation`)\n\n{start}\n{end}\n"
    DOC.write_text(text[: text.index(start) + len(start)] + "\n" + "\n".join(lines) + "\n" + text[text.index(end) :])


if __name__ == "__main__":
    main()
