"""The full pipeline on the real HPO graph with a local LLM: per-step latency, LLM use and answer quality.

Questions are generated from the HPO graph itself (so every one has an exact answer set), seeded and saved to
benchmarks/results/hpo_questions.jsonl:

- "Which genes are associated with both A and B?" (genes linked to phenotypes A and B),
- "Which diseases present with both A and B?" (diseases with phenotypes A and B),
- "Which genes are associated with D?" (genes linked to disease D),

each with 1-20 answers. Modes, run in this order so the LLM steps 1-2 are computed once (response cache):
``vss`` (vector strand only), ``none`` (no LLM: linked entities + hybrid merge), ``hybrid`` (LLM steps 1-7) and
``full`` (1-8, listwise rerank). Results go to benchmarks/results/pipeline_hpo.json and the table in
docs/results.md. Resumable: answered questions are kept in benchmarks/results/pipeline_hpo.partial.jsonl.

    python benchmarks/pipeline_hpo.py --llm llama:~/.cache/kgqa/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

After a change that alters answers, ``--redo hybrid,full`` drops those modes' kept answers and measures them again.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from kgqa.app import Kgqa
from kgqa.config import load_config
from kgqa.metrics import evaluate
from loaders.hpo import read_hpo

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QUESTIONS = RESULTS / "hpo_questions.jsonl"
PARTIAL = RESULTS / "pipeline_hpo.partial.jsonl"
DOC = ROOT / "docs" / "results.md"
MODES = ("vss", "none", "hybrid", "full")


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    data = read_hpo()
    names = {node.id: node.name for node in data.nodes}
    kind = {node.id: node.type for node in data.nodes}
    genes_of: dict[str, set[str]] = defaultdict(set)  # phenotype or disease -> genes
    diseases_of: dict[str, set[str]] = defaultdict(set)  # phenotype -> diseases presenting it
    for edge in data.edges:
        if edge.type == "associated with":
            genes_of[edge.target].add(edge.source)
        elif edge.type == "phenotype present":
            diseases_of[edge.target].add(edge.source)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()

    def pair_question(index: dict[str, set[str]], template: str, kind_name: str, count: int) -> None:
        keys = sorted(k for k, v in index.items() if kind.get(k) == "effect/phenotype" and 3 <= len(v) <= 300)
        made = 0
        while made < count:
            a = rng.choice(keys)
            b = rng.choice(keys)
            answers = index[a] & index[b]
            if a == b or not 1 <= len(answers) <= 20:
                continue
            text = template.format(a=names[a], b=names[b])
            if text in seen:
                continue
            seen.add(text)
            out.append({"question": text, "answers": sorted(answers), "template": kind_name})
            made += 1

    pair_question(genes_of, "Which genes are associated with both {a} and {b}?", "genes of 2 phenotypes", n * 2 // 5)
    pair_question(diseases_of, "Which diseases present with both {a} and {b}?", "diseases of 2 phenotypes", n * 2 // 5)
    diseases = sorted(k for k, v in genes_of.items() if kind.get(k) == "disease" and 1 <= len(v) <= 20)
    for d in rng.sample(diseases, n - len(out)):
        out.append({"question": f"Which genes are associated with {names[d]}?", "answers": sorted(genes_of[d]),
                    "template": "genes of a disease"})  # fmt: skip
    return out


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_mode: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_mode[record["mode"]].append(record)
    summary = {}
    for mode, items in by_mode.items():
        steps: dict[str, list[float]] = defaultdict(list)
        for item in items:
            for step in item["trace"]["steps"]:
                if step["status"] != "skipped":
                    steps[f"{step['step']} {step['name']}"].append(step["seconds"])
        usage = [item["trace"]["usage"] for item in items]
        summary[mode] = {
            "questions": len(items),
            **{m: round(statistics.mean(i["metrics"][m] for i in items), 3) for m in ("hit@1", "hit@5", "recall@20",
                                                                                       "mrr")},
            "median_step_seconds": {k: round(statistics.median(v), 3) for k, v in sorted(steps.items())},
            "llm_calls_per_question": round(statistics.mean(u["calls"] - u["cached"] for u in usage), 2),
            "prompt_tokens_per_question": round(statistics.mean(u["prompt_tokens"] for u in usage)),
            "completion_tokens_per_question": round(statistics.mean(u["completion_tokens"] for u in usage)),
            "median_seconds_per_question": round(statistics.median(i["seconds"] for i in items), 2),
            "degraded_steps": dict(sorted(_count_degraded(items).items())),
        }  # fmt: skip
    return summary


def _count_degraded(items: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        for step in item["trace"]["steps"]:
            if step["status"] == "degraded":
                counts[f"{step['step']} {step['name']}"] += 1
    return counts


def table(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    lines = [
        f"{meta['questions']} generated HPO questions (seed {meta['seed']}), k = 20, LLM {meta['llm']}, "
        f"rerank budget {meta['rerank_budget_tokens']} tokens; 2 CPU cores; {meta['date']}.",
        "",
        "| mode | hit@1 | hit@5 | recall@20 | MRR | LLM calls / q | prompt + completion tokens / q | median s / q |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        if mode in summary:
            s = summary[mode]
            lines.append(f"| {mode} | {s['hit@1']} | {s['hit@5']} | {s['recall@20']} | {s['mrr']} | "
                         f"{s['llm_calls_per_question']} | {s['prompt_tokens_per_question']} + "
                         f"{s['completion_tokens_per_question']} | {s['median_seconds_per_question']} |")  # fmt: skip
    lines += ["", "Median seconds per step (steps that ran):", "", "| mode | " + " | ".join(
        f"step {i}" for i in range(1, 9)) + " |", "|---|" + "---|" * 8]  # fmt: skip
    for mode in MODES:
        if mode in summary:
            medians = {k.split()[0]: v for k, v in summary[mode]["median_step_seconds"].items()}
            lines.append(f"| {mode} | " + " | ".join(str(medians.get(str(i), "-")) for i in range(1, 9)) + " |")
    lines += ["", "Steps that ran degraded (count of questions):", ""]
    for mode in MODES:
        if mode in summary:
            lines.append(f"- {mode}: {summary[mode]['degraded_steps'] or 'none'}")
    return "\n".join(lines)


def write_doc(text: str) -> None:
    start, end = "<!-- pipeline_hpo:start -->", "<!-- pipeline_hpo:end -->"
    doc = DOC.read_text(encoding="utf-8")
    DOC.write_text(doc[: doc.index(start) + len(start)] + "\n" + text + "\n" + doc[doc.index(end) :], encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", required=True)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--rerank-budget", type=int, default=1500)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--redo", default="", help="modes whose kept answers are dropped and measured again "
                        "(after a change that alters answers), e.g. hybrid,full")  # fmt: skip
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if not QUESTIONS.exists():
        QUESTIONS.write_text("".join(json.dumps(q) + "\n" for q in generate(args.questions, args.seed)))
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines()][: args.questions]
    done = [json.loads(line) for line in PARTIAL.read_text().splitlines()] if PARTIAL.exists() else []
    redo = set(filter(None, args.redo.split(",")))
    if redo - set(MODES):
        parser.error(f"--redo: unknown mode(s) {', '.join(sorted(redo - set(MODES)))}; modes are {', '.join(MODES)}")
    if redo:
        done = [r for r in done if r["mode"] not in redo]
        PARTIAL.write_text("".join(json.dumps(r, default=str) + "\n" for r in done))
    finished = {(r["mode"], r["question"]) for r in done}
    for mode in args.modes.split(","):
        llm = "none" if mode in ("vss", "none") else args.llm
        steps = {"vss": "vss", "none": "hybrid", "hybrid": "hybrid", "full": "full"}[mode]
        config = load_config({"llm": llm, "steps": steps, "rerank_budget_tokens": args.rerank_budget})
        with Kgqa(config) as kg:
            for q in questions:
                if (mode, q["question"]) in finished:
                    continue
                start = time.perf_counter()
                answer = kg.ask(q["question"], "hpo")
                seconds = round(time.perf_counter() - start, 2)
                ranked = [c.id for c in answer.answers]
                scores = evaluate(ranked, q["answers"])
                record = {"mode": mode, "question": q["question"], "seconds": seconds, "ranked": ranked,
                          "metrics": scores, "trace": answer.to_json()["trace"]}  # fmt: skip
                with PARTIAL.open("a") as handle:
                    handle.write(json.dumps(record, default=str) + "\n")
                done.append(record)
                print(mode, seconds, "s", record["metrics"], q["question"][:70], flush=True)
    summary = summarize(done)
    meta = {"questions": len(questions), "seed": args.seed, "llm": args.llm, "date": time.strftime("%Y-%m-%d"),
            "rerank_budget_tokens": args.rerank_budget}  # fmt: skip
    (RESULTS / "pipeline_hpo.json").write_text(json.dumps({"meta": meta, "summary": summary}, indent=2) + "\n")
    write_doc(table(summary, meta))
    print(table(summary, meta))


if __name__ == "__main__":
    main()
