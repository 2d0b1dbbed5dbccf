"""Method step 7: fill up with the vector strand (the hybrid merge), fused with the full-text index.

The kept graph answers of step 6 come first; the remaining slots up to k go to the fill: the vector strand over the
target type, or (``fusion``) the vector strand's and the full-text index's top answers for the question's residual
words merged into one order, skipping what is taken; an answer found by two strands is tagged with both.
``weighted`` ranks the pooled answers as step 6 ranks the grounded ones (similarity to the stored document vector
plus the weighted full-text score scaled by the best); ``rrf`` by reciprocal-rank fusion of the two lists.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kgqa.choices import Fusion
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.scoring import Lexical, lexical_scores, stored_similarities
from kgqa.runtime.steps.s6_graph_ranking import GraphRanking
from kgqa.runtime.steps.s7_vector import vector_strand
from kgqa.runtime.store.protocols import Searcher, TextSearcher
from kgqa.types import Candidate, fused_score

EXCLUDED_DEPTH = 2
"""Where the plans exclude answers, the fill reads up to this many times k deeper: those it finds are skipped
(kgqa.runtime.steps.s6_graph_ranking.GraphRanking.excluded), and k must still be filled."""
RRF_K = 60
"""Reciprocal-rank fusion's constant (Cormack et al. 2009; neo4j-graphrag and most hybrid retrievers use 60)."""


@dataclass(frozen=True)
class Fill:
    """What step 7 puts after the kept graph answers, best first, and how it was made."""

    candidates: list[Candidate]
    detail: str


def hybrid_merge(
    store: Searcher,
    skb: str,
    question_vectors: tuple[np.ndarray, np.ndarray],
    target: str,
    ranking: GraphRanking,
    k: int,
    *,
    lexical: Lexical | None = None,
    fusion: Fusion = "none",
    documents: bool = True,
) -> tuple[list[Candidate], str]:
    """Step 7: the fill over ``target`` (deep enough to fill k after the kept graph answers), merged; and a note on
    the fusion. ``question_vectors``: the embedder's (stored document vectors) and the document index's."""
    depth = k + len(ranking.kept) + min(len(ranking.excluded), EXCLUDED_DEPTH * k)
    fill = fill_candidates(store, skb, question_vectors, target, depth, lexical, fusion, ranking.grounded, documents)
    return merge(ranking, fill.candidates, k), fill.detail


def fill_candidates(
    store: Searcher,
    skb: str,
    question_vectors: tuple[np.ndarray, np.ndarray],
    target: str,
    depth: int,
    lexical: Lexical | None,
    fusion: Fusion,
    grounded: Collection[str],
    documents: bool = True,
) -> Fill:
    """The vector strand, fused with the full-text top ``depth`` for the residual words when ``fusion`` is on and
    there are any; a full-text timeout leaves the vector strand alone, with a note. ``grounded``: the ids step 6
    ranked, whose fill answers go first (:func:`as_fill`)."""
    question_vector, doc_question = question_vectors
    vector = vector_strand(store, skb, doc_question, (target,), depth, documents=documents)
    if fusion == "none" or lexical is None or not lexical.weight or not lexical.terms:
        return Fill(as_fill(vector, "similarity", grounded=grounded), "")
    try:
        text = text_strand(store, skb, lexical.terms, target, depth)
    except StoreTimeoutError as exc:
        return Fill(
            as_fill(vector, "similarity", grounded=grounded), f"; full-text {list(lexical.terms)} skipped: {exc}"
        )
    detail = f"; {fusion} fusion with {len(text)} full-text answers for {list(lexical.terms)}"
    if fusion == "rrf":
        return Fill(as_fill(rrf(vector, text, depth), "reciprocal rank", RRF_K + 1, grounded), detail)
    pooled = weighted(store, skb, question_vector, vector, text, lexical, depth, documents)
    return Fill(as_fill(pooled, "relevance", grounded=grounded), detail)


def as_fill(
    candidates: Sequence[Candidate], what: str, scale: float = 1.0, grounded: Collection[str] | None = None
) -> list[Candidate]:
    """The fill's answers with their fused score (:func:`kgqa.types.fused_score`), best first: tier 0 (below
    every kept graph answer), turn 0 for those in ``grounded`` (a plan grounded them, step 6 ranked them but did not
    keep them: two strands found them) and turn 1 for the rest, then their score in the fill times ``scale``
    (reciprocal-rank scores are small: times RRF_K + 1 the best of one list is 1). ``grounded`` None: there is no
    graph strand (steps=vss), every answer takes turn 0."""
    out = []
    for c in candidates:
        turn = 0 if grounded is None or c.id in grounded else 1
        fused = fused_score(0, scale * c.score, turn)
        why = f"tier 0, turn {turn}, fill ({'+'.join(c.strands)}): {what} {c.score:.4g}"
        out.append(replace(c, fused=fused, why=why))
    return sorted(out, key=lambda c: -(c.fused or 0.0))


def text_strand(store: TextSearcher, skb: str, terms: Sequence[str], target: str, depth: int) -> list[Candidate]:
    """The full-text index's top ``depth`` nodes of ``target`` for ``terms``, scored by the index."""
    hits = store.text_top_k(skb, target, terms, depth)
    return [Candidate(h.id, h.label, h.name, h.score, ("text",)) for h in hits]


def rrf(vector: Sequence[Candidate], text: Sequence[Candidate], depth: int) -> list[Candidate]:
    """Reciprocal-rank fusion: each answer scores the sum of 1 / (RRF_K + rank) over the lists it is in."""
    pooled = _pool(vector, text)
    score = dict.fromkeys(pooled, 0.0)
    for ranked in (vector, text):
        for rank, c in enumerate(ranked, start=1):
            score[c.id] += 1.0 / (RRF_K + rank)
    order = sorted(pooled, key=lambda i: (-score[i], i))[:depth]
    return [replace(pooled[i], score=score[i]) for i in order]


def weighted(
    store: Searcher,
    skb: str,
    question_vector: np.ndarray,
    vector: Sequence[Candidate],
    text: Sequence[Candidate],
    lexical: Lexical,
    depth: int,
    documents: bool = True,
) -> list[Candidate]:
    """Step 6's score over the pooled answers: similarity of the question to each one's stored document vector
    (without relations) plus the lexical weight times its full-text score divided by the best in the pool
    (:func:`kgqa.runtime.scoring.lexical_scores`: a quoted phrase adds its own)."""
    pooled = list(_pool(vector, text).values())
    keys = [(c.type, c.id) for c in pooled]
    scores = stored_similarities(store, skb, keys, question_vector, documents=documents)
    scores = scores + lexical.weight * lexical_scores(store, skb, keys, lexical.terms)
    order = sorted(zip(pooled, scores, strict=True), key=lambda pair: (-float(pair[1]), pair[0].id))
    return [replace(c, score=float(s)) for c, s in order[:depth]]


def _pool(vector: Sequence[Candidate], text: Sequence[Candidate]) -> dict[str, Candidate]:
    """id -> the answer, vector answers first; one in both lists is tagged with both strands."""
    text_ids = {c.id for c in text}
    pooled = {c.id: replace(c, strands=("vector", "text")) if c.id in text_ids else c for c in vector}
    for c in text:
        pooled.setdefault(c.id, c)
    return pooled


def merge(graph: GraphRanking, fill: Sequence[Candidate], k: int) -> list[Candidate]:
    """Step 7's merge: the kept graph answers, then fill answers not yet taken nor excluded (in the order of
    :func:`as_fill`: those a plan grounded first), up to ``k``; overlaps get both strands (a fill answer that was
    grounded keeps its graph evidence)."""
    fill_strands = {c.id: c.strands for c in fill}
    merged = [replace(c, strands=("graph", *fill_strands[c.id])) if c.id in fill_strands else c for c in graph.kept]
    taken = {c.id for c in merged}
    for c in fill:
        if len(merged) >= k:
            break
        if c.id in taken or c.id in graph.excluded:
            continue
        grounded = graph.grounded.get(c.id)
        if grounded is not None:
            c = replace(
                c,
                strands=(*c.strands, "graph"),
                round_l=grounded.round_l,
                matches=grounded.matches,
                plan=grounded.plan,
                plans=grounded.plans,
            )
        merged.append(c)
        taken.add(c.id)
    return merged
