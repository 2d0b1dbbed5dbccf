"""Retrieval metrics exactly as STaRK's evaluator computes them, on a ranked list of node ids.

STaRK ranks every candidate by score; kgqa returns the top k, so a gold answer outside the list counts as not
retrieved (it adds nothing to hit@k or recall@k, and MRR is 0 when no gold answer is in the list). Ids are compared
as strings (STaRK's CSVs hold ints, kgqa stores strings). Ties in scores keep the list's order (a stable sort), which
is what STaRK's ``torch.topk`` does on CPU for equal scores in practice; ``rank_by_scores`` makes that explicit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

METRICS = ("hit@1", "hit@5", "hit@20", "recall@20", "mrr")


def rank_by_scores(scores: Mapping[str, float]) -> list[str]:
    """Ids by descending score; equal scores keep their insertion order. A NaN score (it says nothing about
    relevance) ranks below every number, in insertion order, instead of leaving the order to chance (NaN compares
    false with everything, so sorting by it is undefined)."""
    return [node for node, _ in sorted(scores.items(), key=lambda item: (math.isnan(item[1]), -item[1]))]


def hit_at(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return float(any(node in gold for node in ranked[:k]))


def recall_at(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


def reciprocal_rank(ranked: Sequence[str], gold: set[str]) -> float:
    for position, node in enumerate(ranked, 1):
        if node in gold:
            return 1.0 / position
    return 0.0


def evaluate(ranked: Sequence[object], gold: Iterable[object]) -> dict[str, float]:
    """All metrics of one question; ids of any type are compared as strings."""
    ranked_ids = [str(node) for node in ranked]
    gold_ids = {str(node) for node in gold}
    return {
        "hit@1": hit_at(ranked_ids, gold_ids, 1),
        "hit@5": hit_at(ranked_ids, gold_ids, 5),
        "hit@20": hit_at(ranked_ids, gold_ids, 20),
        "recall@20": recall_at(ranked_ids, gold_ids, 20),
        "mrr": reciprocal_rank(ranked_ids, gold_ids),
    }


def mean_metrics(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Means over questions, plus ``n``."""
    out: dict[str, float] = {m: (sum(r[m] for r in rows) / len(rows) if rows else 0.0) for m in METRICS}
    out["n"] = len(rows)
    return out
