"""Method step 7: fill up with the vector strand (the hybrid merge).

The kept graph answers of step 6 come first; the remaining slots up to k go to the vector strand over the target
type, skipping what is taken; an answer found by both strands is tagged with both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from kgqa.answers import Candidate
from kgqa.graph_ranking import GraphRanking
from kgqa.store.base import GraphStore
from kgqa.vector import vector_strand


def hybrid_merge(
    store: GraphStore, skb: str, question_vector: np.ndarray, target: str, ranking: GraphRanking, k: int
) -> list[Candidate]:
    """Step 7: the vector strand over ``target`` (deep enough to fill k after the kept graph answers), merged."""
    vector = vector_strand(store, skb, question_vector, (target,), k + len(ranking.kept))
    return merge(ranking, vector, k)


def merge(graph: GraphRanking, vector: Sequence[Candidate], k: int) -> list[Candidate]:
    """Step 7's merge: the kept graph answers, then vector answers not yet taken, up to ``k``; overlaps get both
    strands (a vector answer that was grounded but not kept keeps its graph evidence)."""
    vector_ids = {c.id for c in vector}
    merged = [replace(c, strands=("graph", "vector")) if c.id in vector_ids else c for c in graph.kept]
    taken = {c.id for c in merged}
    for c in vector:
        if len(merged) >= k:
            break
        if c.id in taken:
            continue
        grounded = graph.grounded.get(c.id)
        if grounded is not None:
            c = replace(c, strands=("vector", "graph"), round_l=grounded.round_l, matches=grounded.matches)
        merged.append(c)
        taken.add(c.id)
    return merged
