"""Method step 6: rank the grounded targets of the graph strand.

Targets are ordered by (round l in which they appeared, whose plan: the LLM's before the linked entities' fallback
plan, similarity of the question to the node's document WITHOUT relations) and ``round(alpha * k)`` are kept.
Those documents are embedded on demand (through the embedding cache, so each only once): only the targets of the
rounds that can reach the kept slots, at most ``cap`` of them. When a round grounds more than ``cap`` targets (a
2-hop pattern through a hub: thousands of diseases), the ``cap`` embedded are those the stored document vectors
already rank closest to the question (one vector-index lookup per label), not an arbitrary first ``cap``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from kgqa.answers import Candidate, Match
from kgqa.embed import Embedder
from kgqa.grounding import Grounded, GroundingResult
from kgqa.store.base import GraphStore


@dataclass(frozen=True)
class GraphRanking:
    kept: list[Candidate]
    grounded: dict[str, Candidate]
    """every grounded target that was ranked, by id (so the vector strand can tag overlaps)"""
    detail: str


def node_documents(store: GraphStore, skb: str, by_label: dict[str, list[str]]) -> dict[str, str]:
    """id -> document WITHOUT relations (the name when a node has none), one query per label (steps 6 and 8)."""
    docs = (node for label, ids in by_label.items() for node in store.documents(skb, label, ids))
    return {node.id: node.doc or node.name for node in docs}


PLAN_ORDER = {"llm": 0, "linked": 1}
"""Within a round, the LLM's plan's targets before the linked entities' plan's (pipeline: plan_fallback)."""


def _round(g: Grounded) -> tuple[int, int]:
    return g.round_l, PLAN_ORDER.get(g.plan, len(PLAN_ORDER))


def rank_graph_strand(
    grounding: GroundingResult,
    store: GraphStore,
    skb: str,
    embedder: Embedder,
    question_vector: np.ndarray,
    *,
    keep: int,
    cap: int,
    doc_vector: np.ndarray | None = None,
) -> GraphRanking:
    """Step 6, over one plan's targets or two plans' merged (grounding.merge_groundings): a round is (l, plan).

    ``question_vector`` is the embedder's (the documents are embedded by it here); ``doc_vector``, the question's
    vector for the stored document index that preselects over-cap targets (None: ``question_vector``; they differ
    when the SKB's document vectors come from another model)."""
    targets = sorted(grounding.targets, key=_round)
    chosen, count = [], 0
    for scope in dict.fromkeys(map(_round, targets)):
        if count >= keep:
            break
        in_round = [g for g in targets if _round(g) == scope]
        chosen.extend(in_round)
        count += len(in_round)
    note = ""
    if len(chosen) > cap:
        note = f"; ranked {cap} of {len(chosen)} targets (graph_rank_cap; preselected by document vectors)"
        chosen = _preselect(chosen, store, skb, question_vector if doc_vector is None else doc_vector, cap)
    by_label: dict[str, list[str]] = defaultdict(list)
    for g in chosen:
        by_label[g.label].append(g.id)
    docs = node_documents(store, skb, by_label)
    vectors = embedder.embed([docs.get(g.id, g.name) for g in chosen]) if chosen else np.zeros((0, 1))
    scores = vectors @ question_vector if chosen else np.zeros(0)
    ranked = sorted(zip(chosen, scores, strict=True), key=lambda pair: (*_round(pair[0]), -float(pair[1])))
    candidates = [
        Candidate(
            g.id,
            g.label,
            g.name,
            float(score),
            ("graph",),
            g.round_l,
            tuple(
                Match(symbol, grounding.searches.get(symbol, ""), node, grounding.names.get(node, ""))
                for symbol, nodes in g.matches
                for node in nodes[:3]
            ),
            g.plan,
        )
        for g, score in ranked
    ]
    detail = f"{len(grounding.targets)} grounded, {len(chosen)} ranked, {min(keep, len(candidates))} kept{note}"
    return GraphRanking(candidates[:keep], {c.id: c for c in candidates}, detail)


PRESELECT_FACTOR = 10
"""The vector-index lookup that preselects over-cap targets fetches this many times ``cap`` nearest documents."""


def _preselect(
    chosen: list[Grounded], store: GraphStore, skb: str, question_vector: np.ndarray, cap: int
) -> list[Grounded]:
    """The ``cap`` targets to rank: earlier rounds first, within a round those whose stored document vector is
    nearest the question (targets beyond the lookup's reach come last, in grounding order)."""
    nearness: dict[str, int] = {}
    for label in dict.fromkeys(g.label for g in chosen):
        hits = store.vector_top_k(skb, label, "doc", question_vector, cap * PRESELECT_FACTOR)
        nearness.update((str(hit.id), rank) for rank, hit in enumerate(hits))
    far = len(nearness) + 1
    return sorted(chosen, key=lambda g: (*_round(g), nearness.get(g.id, far)))[:cap]
