"""What kgqa answers with: ranked candidates, each with the evidence that put it there."""

from __future__ import annotations

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
    """One ranked answer. ``score`` is what ranked it within its strand (before any rerank): the similarity, plus
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
    """graph strand: whose plan grounded it, ``llm`` (steps 2-3) or ``linked`` (the schema-guided plan of the
    entities linked in the question: without an LLM, instead of an unusable LLM plan, or beside one that grounded
    fewer than k targets at l = 1; see kgqa.pipeline)"""
