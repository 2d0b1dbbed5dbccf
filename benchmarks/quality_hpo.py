"""Answer quality on natural-phrasing HPO questions, one row per variant: what each answer-quality change adds.

The questions are ``kgqa questions --skb hpo --phrasing natural`` (no LLM: deterministic for a seed), made once into
benchmarks/results/quality_hpo_questions.csv (+ .meta.json, which names each question's kind and how its anchor is
mentioned) and reused. Each variant is one ``kgqa eval`` run without an LLM over those questions, with configuration
overrides, into benchmarks/results/quality_hpo_<variant>.json; its records (``.jsonl``) make a killed run resume.
The table between the ``quality_hpo`` markers in docs/results.md gives hit@1, hit@5, recall@20 and MRR per variant,
hit@1 per question kind and per anchor mention, and each variant's commit (stale once the code changed since).

    python benchmarks/quality_hpo.py                       # every variant
    python benchmarks/quality_hpo.py --variants names,both --limit 50
    python benchmarks/quality_hpo.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
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
QUESTIONS = RESULTS / "quality_hpo_questions.csv"
META = QUESTIONS.with_name(QUESTIONS.stem + ".meta.json")
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
OFF = {"steps": "hybrid", "link_aliases": False, "relation_meaning": False, "lexical_weight": 0.0, "fusion": "none"}
ALL = {**OFF, "link_aliases": True, "relation_meaning": True, "lexical_weight": 1.0}
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "vector": ("the vector strand alone", {"steps": "vss"}),
    "names": ("hybrid: names only, hop types named verbatim, dense only", OFF),
    "aliases": ("+ aliases", {**OFF, "link_aliases": True}),
    "relations": ("+ relation types by meaning", {**OFF, "relation_meaning": True}),
    "both": ("+ aliases + relation types", {**OFF, "link_aliases": True, "relation_meaning": True}),
    **{
        f"lexical-{weight:g}": (
            f"+ both + full-text, weight {weight:g}",
            {**OFF, "link_aliases": True, "relation_meaning": True, "lexical_weight": weight},
        )
        for weight in (0.25, 0.5, 1.0, 2.0)
    },
    **{
        f"fusion-{fusion}": (f"+ step 7 fills by {fusion} fusion with the full-text top-k", {**ALL, "fusion": fusion})
        for fusion in ("rrf", "weighted")
    },
    "rerank-ce": (
        "+ fusion-rrf + step 8: the cross-encoder `kgqa train-reranker` made (needs it in the home)",
        {**ALL, "fusion": "rrf", "steps": "full", "reranker": "cross-encoder"},
    ),
}
"""variant -> (what it is, configuration overrides); every variant runs without an LLM."""
PATHS = (*CODE_PATHS, "benchmarks/quality_hpo.py")
"""The code behind a row: a change there makes it stale."""


def out_path(variant: str) -> Path:
    return RESULTS / f"quality_hpo_{variant}.json"


def questions_file(n: int, seed: int) -> Path:
    """The question set: made on first use, afterwards only checked to be the one asked for."""
    if QUESTIONS.exists():
        meta = json.loads(META.read_text()) if META.exists() else {}
        if (meta.get("seed"), meta.get("requested")) != (seed, n):
            raise SystemExit(
                f"{QUESTIONS.name} was made with seed {meta.get('seed')} and n {meta.get('requested')}, not seed "
                f"{seed} and n {n}; use those, or delete it, its .meta.json and quality_hpo_*.json* to start over"
            )
        return QUESTIONS
    with Kgqa(load_config({"llm": "none"})) as kg:
        meta = kg.meta(SKB)
        made = generate(kg.store, SKB, kg.schema(SKB), meta.candidate_types, n, seed, phrasing="natural")
    extra = {"skb": SKB, "seed": seed, "requested": n, "n": len(made), "phrasing": "natural"}
    write(
        made,
        QUESTIONS,
        {**extra, "max_word_share": MAX_WORD_SHARE, "source": meta.source, "provenance": provenance()},
    )
    print(f"wrote {len(made)} questions to {QUESTIONS}", flush=True)
    return QUESTIONS


def run_variant(variant: str, qa: Path, limit: int | None) -> None:
    """One ``kgqa eval`` run of ``variant``, resumed from its records; writes its results file."""
    _, overrides = VARIANTS[variant]
    config = load_config({"llm": "none", **overrides})
    rows = [(variant, overrides["steps"])]
    out = out_path(variant)

    def show(record: Record, so_far: list[Record]) -> None:
        print(variant, len(so_far), record.id, f"{record.seconds:.2f} s", record.metrics, flush=True)

    with Kgqa(config) as kg:
        settings = eval_settings(kg, SKB, str(qa.relative_to(ROOT)), "test", rows)
        records = run_eval(kg, SKB, load_questions(qa)[:limit], rows, out, settings=settings, on_answer=show)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def by_group(doc: dict[str, Any], key: str) -> dict[str, tuple[float, int]]:
    """hit@1 and count per value of ``key`` (``kind``, ``mention``) of the questions in the metadata."""
    meta = {str(q["id"]): q for q in json.loads(META.read_text())["questions"]}
    hits: dict[str, list[float]] = defaultdict(list)
    for question in doc["questions"]:
        hits[str(meta[str(question["id"])].get(key))].append(question["metrics"]["hit@1"])
    return {group: (sum(v) / len(v), len(v)) for group, v in sorted(hits.items())}


def table() -> str:
    done = {v: json.loads(out_path(v).read_text()) for v in VARIANTS if out_path(v).exists()}
    if not done:
        return "No variant measured yet: run `python benchmarks/quality_hpo.py`."
    meta = json.loads(META.read_text())
    kinds = sorted({k for doc in done.values() for k in by_group(doc, "kind")})
    mentions = sorted({m for doc in done.values() for m in by_group(doc, "mention")})
    head = [
        f"Questions: `{QUESTIONS.name}` (`kgqa questions --skb hpo --phrasing natural --n {meta['requested']} "
        f"--seed {meta['seed']}`), no LLM, k = 20; hit@1 per question kind and per anchor mention (n in brackets).",
        "",
        "| variant | hit@1 | hit@5 | recall@20 | MRR | n | "
        + " | ".join(f"{k}" for k in kinds)
        + " | "
        + " | ".join(f"mention: {m}" for m in mentions)
        + " | median s / q | commit |",
        "|---|" + "---|" * (7 + len(kinds) + len(mentions)),
    ]
    for variant, doc in done.items():
        m = doc["metrics"]
        groups = {**by_group(doc, "kind"), **{f"m:{k}": v for k, v in by_group(doc, "mention").items()}}

        def cell(key: str, groups: dict[str, tuple[float, int]] = groups) -> str:
            return f"{groups[key][0]:.2f} ({groups[key][1]})" if key in groups else "-"

        head.append(
            f"| {variant}: {VARIANTS[variant][0]} | {m['hit@1']:.3f} | {m['hit@5']:.3f} | {m['recall@20']:.3f} | "
            f"{m['mrr']:.3f} | {len(doc['questions'])} | "
            + " | ".join(cell(k) for k in kinds)
            + " | "
            + " | ".join(cell(f"m:{k}") for k in mentions)
            + f" | {doc['seconds_per_question'].get('median_s')} | "
            f"{origin(doc, out_path(variant), ROOT, PATHS).label()} |"
        )
    return "\n".join(head)


def write_doc() -> None:
    title = "## Answer quality on natural-phrasing HPO questions (`benchmarks/quality_hpo.py`)"
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), "quality_hpo", table(), title), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (quick looks)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--redo", default="", help="variants whose records are deleted and measured again")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the results files")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        variants = [v for v in args.variants.split(",") if v]
        redo = [v for v in args.redo.split(",") if v]
        unknown = sorted(set(variants + redo) - set(VARIANTS))
        if unknown:
            parser.error(f"unknown variant(s) {', '.join(unknown)}; variants are {', '.join(VARIANTS)}")
        for variant in redo:
            for path in (out_path(variant), records_path(out_path(variant)), settings_path(out_path(variant))):
                path.unlink(missing_ok=True)
        qa = questions_file(args.questions, args.seed)
        for variant in variants:
            run_variant(variant, qa, args.limit)
    write_doc()
    print(table())


if __name__ == "__main__":
    main()
