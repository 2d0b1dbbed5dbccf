"""What kgqa answers with: ranked candidates, each with the evidence that put it there."""

from __future__ import annotations

import math
from dataclasses import dataclass

Strand = str
"""``graph`` (grounded by the plan, method steps 4-6), ``vector`` (document similarity, step 7) or ``text`` (the
full-text index's match of the question's residual words, fused in step 7)."""


@dataclass(frozen=True)
class Match:
    """Evidence of the graph strand: a constant of the plan and a node it was grounded to for this answer."""

    symbol: str
    search: str
    """the constant's search string, as the LLM (or the entity linker) wrote it"""
    id: str
    name: str
    alias: str = ""
    """the node's alias that matched the search string ('' when its name did)"""


@dataclass(frozen=True)
class Candidate:
    """One ranked answer. ``score`` is its relevance within its strand (before any rerank): the similarity, plus
    the weighted full-text score in the graph strand (step 6) and the weighted fusion (step 7); the fused
    reciprocal-rank score under ``fusion = rrf``."""

    id: str
    type: str
    name: str
    score: float
    strands: tuple[Strand, ...]
    round_l: int | None = None
    """graph strand: the scope l at which it first satisfied the pattern"""
    matches: tuple[Match, ...] = ()
    plan: str | None = None
    """graph strand: the plan whose evidence leads, ``llm`` (steps 2-3) or ``linked`` (the schema-guided plan of the
    entities linked in the question, grounded beside the LLM's; see kgqa.pipeline)"""
    plans: tuple[str, ...] = ()
    """graph strand: every plan that grounded it"""
    fused: float | None = None
    """The fused score the answers are ordered by (:func:`fused_score`), set by steps 6-7; falls with rank."""
    why: str = ""
    """How the fused score was made: the plans' vote and the relevance, or the fill's strands."""


def fused_score(tier: int, relevance: float, turn: int = 0) -> float:
    """``tier`` (how many evidence tiers the answer stands above step 7's fill, which is tier 0) plus a fraction in
    (0, 1) that falls with its ``turn`` within the tier (the plans take turns: kgqa.graph_ranking.turns; 0 in the
    fill) and rises with its relevance: 1 / (turn + 2 - logistic(relevance)). Ordering by it is ordering by tier,
    then turn, then relevance."""
    return tier + 1.0 / (turn + 2.0 - 1.0 / (1.0 + math.exp(-relevance)))


def shown_score(c: Candidate) -> float:
    """The score kgqa shows for an answer: the fused one, or its relevance where nothing fused it (a baseline)."""
    return c.score if c.fused is None else c.fused
