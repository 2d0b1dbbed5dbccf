"""Method step 6: rank the grounded targets of the graph strand.

Targets are ordered by (round l in which they appeared, whose plan: the LLM's before the linked entities' plan,
similarity of the question to the node's document WITHOUT relations, plus ``lexical_weight`` times the full-text
score of the question's residual words, scaled to [0, 1] by the best among the ranked) and ``round(alpha * k)`` are
kept. That similarity uses the document vector each node got at load time (``plain_emb``, by the configured
embedder), read from the store by id: nothing but the question is embedded here. Only the targets of the rounds that
can reach the kept slots are read, at most ``cap`` of them: a round of a 2-hop pattern through a hub grounds
thousands, whose vectors would cost more to read than a lookup costs, so the ``cap`` read are those the document
index already ranks closest to the question or the full-text index best matches to its residual words (one lookup
of each per label), not an arbitrary first ``cap``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from kgqa.answers import Candidate, Match
from kgqa.errors import StoreError, StoreTimeoutError
from kgqa.grounding import Grounded, GroundingResult
from kgqa.store.base import GraphStore

T = TypeVar("T")


@dataclass(frozen=True)
class GraphRanking:
    kept: list[Candidate]
    grounded: dict[str, Candidate]
    """every grounded target that was ranked, by id (so the vector strand can tag overlaps)"""
    detail: str


def node_documents(store: GraphStore, skb: str, by_label: dict[str, list[str]]) -> dict[str, str]:
    """id -> document WITHOUT relations (the name when a node has none), one query per label (step 8's rerankers)."""
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
    question_vector: np.ndarray,
    *,
    keep: int,
    cap: int,
    doc_vector: np.ndarray | None = None,
    lexical: Lexical | None = None,
) -> GraphRanking:
    """Step 6, over one plan's targets or two plans' merged (grounding.merge_groundings): a round is (l, plan).

    ``question_vector`` is the configured embedder's (the stored ``plain_emb`` are by it); ``doc_vector``, the
    question's vector for the stored document index that preselects over-cap targets (None: ``question_vector``;
    they differ when the SKB's document vectors come from another model)."""
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
        terms = lexical.terms if lexical is not None and lexical.weight else ()
        by = "document vectors and full-text" if terms else "document vectors"
        note = f"; ranked {cap} of {len(chosen)} targets (graph_rank_cap; preselected by {by})"
        vector = question_vector if doc_vector is None else doc_vector
        try:
            chosen = _preselect(chosen, store, skb, vector, cap, terms)
        except StoreTimeoutError as exc:  # as below: the full-text side is a refinement
            note += f"; full-text preselection skipped: {exc}"
            chosen = _preselect(chosen, store, skb, vector, cap, ())
    keys = [(g.label, g.id) for g in chosen]
    scores = stored_vectors(store, skb, keys) @ question_vector if chosen else np.zeros(0)
    if lexical is not None and lexical.weight and lexical.terms and chosen:
        try:
            matched = lexical_scores(store, skb, keys, lexical.terms)
        except StoreTimeoutError as exc:  # the lexical side is a refinement: rank by the dense similarity alone
            note += f"; lexical {list(lexical.terms)} skipped: {exc}"
        else:
            scores = scores + lexical.weight * matched
            note += f"; lexical {list(lexical.terms)}: {int((matched > 0).sum())} of {len(chosen)} match"
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
                Match(
                    symbol,
                    grounding.searches.get(symbol, ""),
                    node,
                    grounding.names.get(node, ""),
                    grounding.via_alias.get((symbol, node), ""),
                )
                for symbol, nodes in g.matches
                for node in nodes[:3]
            ),
            g.plan,
        )
        for g, score in ranked
    ]
    detail = f"{len(grounding.targets)} grounded, {len(chosen)} ranked, {min(keep, len(candidates))} kept{note}"
    return GraphRanking(candidates[:keep], {c.id: c for c in candidates}, detail)


@dataclass(frozen=True)
class Lexical:
    """The lexical side of step 6: the question's residual words (kgqa.lexical) and their weight beside the dense
    similarity."""

    terms: tuple[str, ...]
    weight: float


Key = tuple[str, str]
"""A node as (label, id): ids are unique within a label."""


def per_label(keys: Sequence[Key], read: Callable[[str, list[str]], Mapping[str, T]]) -> dict[Key, T]:
    """(label, id) -> what ``read(label, ids)`` returns for the ids of ``keys`` of that label: one read per label."""
    by_label: dict[str, list[str]] = defaultdict(list)
    for label, i in keys:
        by_label[label].append(i)
    return {(label, i): value for label, ids in by_label.items() for i, value in read(label, ids).items()}


def lexical_scores(store: GraphStore, skb: str, keys: Sequence[Key], terms: Sequence[str]) -> np.ndarray:
    """Each node's full-text score for ``terms``, divided by the best among ``keys`` (0 where nothing matches):
    in [0, 1], as the dense similarity is, whatever the index's own scale."""
    found = per_label(keys, lambda label, ids: store.text_scores(skb, label, terms, ids))
    return scaled(np.array([found.get(key, 0.0) for key in keys], dtype=np.float64))


def scaled(raw: np.ndarray) -> np.ndarray:
    """``raw`` divided by its largest value (unchanged when that is not positive)."""
    best = raw.max() if len(raw) else 0.0
    return raw / best if best > 0 else raw


def stored_vectors(store: GraphStore, skb: str, keys: Sequence[Key]) -> np.ndarray:
    """The stored ``plain_emb`` of ``keys``, one row each in their order (one read per label); a graph loaded
    before they were stored has none, and is refused with the way out instead of ranked by nothing."""
    if not keys:
        return np.zeros((0, 1), dtype=np.float32)
    found = per_label(keys, lambda label, ids: store.plain_vectors(skb, label, ids))
    lacking = [key for key in keys if key not in found]
    if lacking:
        raise StoreError(
            f"SKB '{skb}' holds no stored document vector for {len(lacking)} of the {len(keys)} nodes steps 6-7 "
            f"rank (first: {lacking[0][0]} {lacking[0][1]}): it was loaded by an older kgqa; load it again "
            f"(kgqa load, which sees it as out of date)"
        )
    return np.stack([found[key] for key in keys])


PRESELECT_FACTOR = 10
"""The lookups that preselect over-cap targets fetch this many times ``cap`` nearest documents (best matches)."""


def _preselect(
    chosen: list[Grounded], store: GraphStore, skb: str, question_vector: np.ndarray, cap: int, terms: Sequence[str]
) -> list[Grounded]:
    """The ``cap`` targets to rank: earlier rounds first, within a round by their better rank in two lookups, the
    document vector index's nearest to the question and the full-text index's best matches for ``terms`` (a
    textual condition's rare word finds its few targets among thousands that dense similarity would pass over);
    targets beyond both lookups' reach come last, in grounding order."""
    depth = cap * PRESELECT_FACTOR
    reach: dict[str, int] = {}

    def reached(ids: Iterable[str]) -> None:
        for rank, i in enumerate(ids):
            reach[i] = min(reach.get(i, rank), rank)

    for label in dict.fromkeys(g.label for g in chosen):
        reached(str(hit.id) for hit in store.vector_top_k(skb, label, "doc", question_vector, depth))
        if terms:
            reached(hit.id for hit in store.text_top_k(skb, label, terms, depth))
    return sorted(chosen, key=lambda g: (*_round(g), reach.get(g.id, depth)))[:cap]
