"""What each kind of text an HPO load embeds costs, and what answers lose without it (issue 31, item 2).

Until store format 7 a load embedded four kinds of text per SKB: each node's name (the name index, step 4's
linking), each alias (the alias index, step 4), each document with its relation summary at ``doc_max_tokens`` (the
document index: step 6's preselection and step 7's fill) and each plain document at the model's default length
(``plain_emb``, step 6's dense similarity). What this measured made format 7 drop the document with relations outside
STaRK (the plain document's vector serves the index too): the ``document`` cost row is that former kind, and the
``one-doc`` and ``plain-index`` variants refuse a store of format 7 or later. For each kind this measures:

- **cost**: how many texts, and the seconds the configured embedder takes for them, estimated from a fixed random
  sample embedded in one call, as a load makes them;
- **worth**: quality_hpo's 200 questions (``--set families``: the 560 family questions) without an LLM, answered
  with that kind of vector taken away, against the graph as loaded. Nothing is reloaded: the store is wrapped so the
  strand that read the missing vector reads what would replace it (step 6 the document vector instead of
  ``plain_emb``; the document index the plain vectors, by exact search; no alias or name vector: that lookup finds
  nothing).

    python benchmarks/text_kinds.py                        # every variant, then the table
    python benchmarks/text_kinds.py --variants full,one-doc --limit 50
    python benchmarks/text_kinds.py --set families --variants full,one-doc,plain-index --no-costs
    python benchmarks/text_kinds.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``) and no worker holding it (``kgqa server stop``). It
writes benchmarks/results/text_kinds.json (costs) and text_kinds_<variant>.json (+ .jsonl records, which make a
killed run resume), and the table between the ``text_kinds`` markers in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.config import load_config
from kgqa.lab.evaluate import Record, eval_settings, results, run_eval
from kgqa.lab.qa import load_questions
from kgqa.loaders.documents import relation_texts
from kgqa.loaders.hpo import read_hpo
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.app import Kgqa, open_store
from kgqa.runtime.embed import make_encoder
from kgqa.runtime.load import embedding_text, plain_text
from kgqa.runtime.store.base import AliasHit, VectorHit, VectorIndex
from kgqa.runtime.store.protocols import GraphStore

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SETS = {"quality": RESULTS / "quality_hpo_questions.csv", "families": RESULTS / "families_hpo_questions.csv"}
"""The question sets a variant is answered on: quality_hpo's 200 (issue 31's bound) and the 560 family questions
(every phrasing register, the blind ones included)."""
COSTS = RESULTS / "text_kinds.json"
DOC = ROOT / "docs" / "benchmarks.md"
BLOCK = "text_kinds"
TITLE = "## What each embedded text kind costs and earns (`benchmarks/text_kinds.py`)"
SKB = "hpo"
PATHS = (*CODE_PATHS, "benchmarks/text_kinds.py")
VARIANTS = {
    "full": "as loaded: every kind",
    "one-doc": "no `plain_emb`: step 6 scores by the document vector (with relations)",
    "plain-index": "no document vector: the document index and step 6 both use `plain_emb`",
    "no-alias-vectors": "no alias vectors: aliases found by exact match only",
    "no-name-vectors": "no name vectors: names found by exact match only",
}
KIND_VARIANT = {"plain": "one-doc", "document": "plain-index", "alias": "no-alias-vectors", "name": "no-name-vectors"}


class Ablated:
    """A store that answers as if one kind of vector had not been stored (see the module's text); every other call
    goes to the store it wraps."""

    def __init__(self, inner: GraphStore, variant: str) -> None:
        self._inner = inner
        self._variant = variant
        self._plain: dict[str, tuple[list[str], list[str], np.ndarray]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _rows(self, graph: str, label: str, ids: Sequence[str]) -> list[list[Any]]:
        return self._inner.node_rows(graph, label, list(ids))

    def plain_similarities(self, graph: str, label: str, ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        if self._variant != "one-doc":
            return self._inner.plain_similarities(graph, label, ids, vector)
        rows = self._rows(graph, label, ids)
        query = vector / np.linalg.norm(vector)
        out = {}
        for row in rows:
            doc = np.asarray(row[5], dtype=np.float64)
            out[str(row[0])] = float(doc @ query / np.linalg.norm(doc))
        return out

    def _plain_matrix(self, graph: str, label: str) -> tuple[list[str], list[str], np.ndarray]:
        if label not in self._plain:
            ids = self._inner.label_ids(graph, label)
            rows = self._rows(graph, label, ids)
            matrix = np.stack([np.asarray(row[6], dtype=np.float32) for row in rows])
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            self._plain[label] = ([str(row[0]) for row in rows], [str(row[1]) for row in rows], matrix)
        return self._plain[label]

    def vector_top_k(self, graph: str, label: str, index: VectorIndex, vector: np.ndarray, k: int) -> list[VectorHit]:
        if self._variant == "no-name-vectors" and index == "name":
            return []
        if self._variant != "plain-index" or index != "doc":
            return self._inner.vector_top_k(graph, label, index, vector, k)
        ids, names, matrix = self._plain_matrix(graph, label)
        scores = matrix @ (vector / np.linalg.norm(vector)).astype(np.float32)
        best = np.argsort(-scores, kind="stable")[:k]
        return [VectorHit(ids[i], names[i], label, float(scores[i])) for i in best.tolist()]

    def alias_top_k(self, graph: str, vector: np.ndarray, k: int) -> list[AliasHit]:
        if self._variant == "no-alias-vectors":
            return []
        return self._inner.alias_top_k(graph, vector, k)


def costs(per_kind: int, seed: int) -> dict[str, Any]:
    """kind -> texts, unique texts and the estimated seconds the configured embedder takes for them."""
    data = read_hpo()
    config = load_config({})
    generic = dict(relation_texts(data.nodes, data.edges, config.relation_names_per_type))
    nodes = list(data.nodes)
    kinds: dict[str, tuple[list[str], int | None]] = {
        "name": ([node.name for node in nodes], None),
        "alias": ([alias for node in nodes for alias in node.aliases], None),
        "document": ([embedding_text(data, node, generic[node.id]) for node in nodes], config.doc_max_tokens),
        "plain": ([plain_text(node) for node in nodes], None),
    }
    encoder = make_encoder(
        config.embedder,
        device="cpu",
        batch_size=config.embed_batch_size,
        base_url=None,
        api_key=None,
        models_dir=config.home / "models",
    )
    encoder.encode(["warm-up"], None)
    rng = random.Random(seed)
    rows = {}
    for kind, (texts, budget) in kinds.items():
        sample = rng.sample(texts, min(per_kind, len(texts)))
        start = time.perf_counter()
        encoder.encode(sample, budget)
        per_text = (time.perf_counter() - start) / len(sample)
        rows[kind] = {
            "texts": len(texts),
            "unique": len(set(texts)),
            "mean_chars": round(float(np.mean([len(t) for t in texts])), 1),
            "max_tokens": budget,
            "seconds": round(per_text * len(texts), 1),
        }
    return {"provenance": provenance(), "embedder": config.embedder, "per_kind": per_kind, "seed": seed, "kinds": rows}


def out_path(variant: str, qa_set: str = "quality") -> Path:
    return RESULTS / (f"text_kinds_{variant}.json" if qa_set == "quality" else f"text_kinds_{qa_set}_{variant}.json")


TWO_DOCUMENTS = ("one-doc", "plain-index")
"""The variants that take one of two document vectors away: they need a store that holds both (kgqa's store format
6; since format 7 a load outside STaRK stores the plain document's alone, the choice these variants measured)."""


def holds_two_documents(store: GraphStore) -> bool:
    """Whether the HPO graph's nodes carry ``plain_emb`` beside ``doc_emb`` (one node of the first label is read)."""
    label = store.schema(SKB).labels[0].name
    rows = store.node_rows(SKB, label, store.label_ids(SKB, label)[:1])
    return bool(rows) and rows[0][6] is not None


def run_variant(variant: str, qa_set: str, limit: int | None) -> None:
    config = load_config({"llm": "none"})
    rows = [(variant, config.steps)]
    out = out_path(variant, qa_set)
    questions = SETS[qa_set]
    store = open_store(config)
    if variant in TWO_DOCUMENTS and not holds_two_documents(store):
        store.close()
        raise SystemExit(
            f"variant '{variant}' takes one of two document vectors away, and this HPO store holds one (store format "
            "7 and later); its rows in docs/benchmarks.md were measured on format 6 (commit cac3988)"
        )

    def show(record: Record, so_far: list[Record]) -> None:
        print(variant, len(so_far), record.id, f"{record.seconds:.2f} s", record.metrics, flush=True)

    with Kgqa(config, store=Ablated(store, variant)) as kg:
        settings = {**eval_settings(kg, SKB, str(questions.relative_to(ROOT)), "test", rows), "ablation": variant}
        records = run_eval(kg, SKB, load_questions(questions)[:limit], rows, out, settings=settings, on_answer=show)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def _metric(doc: Mapping[str, Any], name: str) -> float:
    return float(doc["metrics"][name])


def table() -> str:
    cost = json.loads(COSTS.read_text()) if COSTS.exists() else None
    lines = []
    if cost is not None:
        kinds = cost["kinds"]
        total = sum(row["seconds"] for row in kinds.values())
        lines += [
            f"Cost: `{cost['embedder']}`, seconds estimated from {cost['per_kind']} texts per kind "
            f"(commit {origin(cost, COSTS, ROOT, PATHS).label()}).",
            "",
            "| kind | texts | unique | mean chars | max tokens | embed s (est.) | share | variant without it |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for kind, row in kinds.items():
            lines.append(
                f"| {kind} | {row['texts']:,} | {row['unique']:,} | {row['mean_chars']:.0f} | "
                f"{row['max_tokens'] or 'default'} | {row['seconds']:.0f} | {row['seconds'] / total:.0%} | "
                f"{KIND_VARIANT[kind]} |"
            )
        lines.append("")
    lines += [
        "Worth: no LLM, default settings; quality_hpo's 200 questions and the 560 family questions (hit@1 / "
        "recall@20 / MRR).",
        "",
        "| variant | what | quality_hpo | families | commit |",
        "|---|---|---|---|---|",
    ]
    for variant, what in VARIANTS.items():
        cells, commits = [], []
        for qa_set in SETS:
            path = out_path(variant, qa_set)
            if not path.exists():
                cells.append("not run")
                continue
            doc = json.loads(path.read_text())
            cells.append(" / ".join(f"{_metric(doc, m):.3f}" for m in ("hit@1", "recall@20", "mrr")))
            commits.append(origin(doc, path, ROOT, PATHS).label())
        if commits:
            lines.append(f"| {variant} | {what} | {' | '.join(cells)} | {', '.join(dict.fromkeys(commits))} |")
    return "\n".join(lines)


def write_doc() -> None:
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, table(), TITLE), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--set", dest="qa_set", choices=SETS, default="quality", help="the questions answered")
    parser.add_argument("--limit", type=int, default=None, help="first N questions only (a quick look)")
    parser.add_argument("--per-kind", type=int, default=500, help="texts per kind timed for the cost estimate")
    parser.add_argument("--no-costs", action="store_true", help="keep the cost file as it is")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        if not args.no_costs:
            COSTS.write_text(json.dumps(costs(args.per_kind, 0), indent=2) + "\n", encoding="utf-8")
        for variant in args.variants.split(","):
            if variant not in VARIANTS:
                raise SystemExit(f"unknown variant '{variant}' (of {', '.join(VARIANTS)})")
            run_variant(variant, args.qa_set, args.limit)
    write_doc()


if __name__ == "__main__":
    main()
