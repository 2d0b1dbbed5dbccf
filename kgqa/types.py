"""kgqa's public result types, declared once: what the API (kgqa.api.Api) returns, in process and from the worker
alike. An answer is ranked candidates, each with the evidence that put it there, and the trace of the steps.

Types that are parts of the pipeline's own records (the trace, the LLM's usage, the store's schema and metadata) are
defined with the step or store that makes them and named here, so that a user imports every result type from
``kgqa`` (or ``kgqa.types``); they load on first use, so that a command that only prints an answer (the worker's
thin client) imports neither numpy nor the store's code."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgqa._lazy import lazy_getattr
from kgqa.choices import StoreKind

if TYPE_CHECKING:
    from kgqa.cypher.plan import QueryPlan
    from kgqa.cypher.sanitize import Repair
    from kgqa.runtime.llm import Usage
    from kgqa.runtime.store.base import RelationCount, Schema, SkbMeta
    from kgqa.runtime.trace import StepTrace, Trace

_NAMED = {
    "RelationCount": "kgqa.runtime.store.base",
    "Schema": "kgqa.runtime.store.base",
    "SkbMeta": "kgqa.runtime.store.base",
    "StepTrace": "kgqa.runtime.trace",
    "Trace": "kgqa.runtime.trace",
    "Usage": "kgqa.runtime.llm",
}
"""The result types defined with the code that makes them, read on first use (PEP 562)."""


__getattr__ = lazy_getattr(__name__, _NAMED, globals())


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
    entities linked in the question, grounded beside the LLM's; see kgqa.runtime.pipeline)"""
    plans: tuple[str, ...] = ()
    """graph strand: every plan that grounded it"""
    fused: float | None = None
    """The fused score the answers are ordered by (:func:`fused_score`), set by steps 6-7; falls with rank."""
    why: str = ""
    """How the fused score was made: the plans' vote and the relevance, or the fill's strands."""


def fused_score(tier: int, relevance: float, turn: int = 0) -> float:
    """``tier`` (how many evidence tiers the answer stands above step 7's fill, which is tier 0) plus a fraction in
    (0, 1) that falls with its ``turn`` within the tier (the plans take turns:
    kgqa.runtime.steps.s6_graph_ranking.turns; 0 in the fill) and rises with its relevance: 1 / (turn + 2 -
    logistic(relevance)). Ordering by it is ordering by tier, then turn, then relevance."""
    return tier + 1.0 / (turn + 2.0 - 1.0 / (1.0 + math.exp(-relevance)))


def shown_score(c: Candidate) -> float:
    """The score kgqa shows for an answer: the fused one, or its relevance where nothing fused it (a baseline)."""
    return c.score if c.fused is None else c.fused


def _answer_json(rank: int, c: Candidate) -> dict[str, Any]:
    return {
        "rank": rank,
        "id": c.id,
        "type": c.type,
        "name": c.name,
        "score": round(shown_score(c), 6),
        "relevance": round(c.score, 6),
        "why": c.why,
        "strands": list(c.strands),
        "round_l": c.round_l,
        "plan": c.plan,
        "plans": list(c.plans),
        "matches": [asdict(m) for m in c.matches],
    }


@dataclass(frozen=True)
class Answer:
    question: str
    answers: list[Candidate]
    trace: Trace

    def to_json(self) -> dict[str, Any]:
        trace = asdict(self.trace)
        trace["usage"] = asdict(self.trace.usage)
        return {
            "question": self.question,
            "answers": [_answer_json(rank, c) for rank, c in enumerate(self.answers, 1)],
            "trace": trace,
        }


Dialect = StoreKind
"""Whose Cypher to show: each store speaks its own dialect."""


@dataclass(frozen=True)
class GeneratedCypher:
    """QUESTION mode: steps 1-2 as ``kgqa ask`` runs them."""

    question: str
    target_type: str
    model: str
    prompt: str
    reply: str
    usage: Usage
    """LLM use of steps 1 and 2"""


@dataclass(frozen=True)
class Explanation:
    plan: QueryPlan
    repairs: tuple[Repair, ...]
    dialect: Dialect
    query: str
    params: dict[str, Any]
    browser: str | None = None
    """Neo4j only: ``:params {...}`` and the query, ready to paste into Neo4j Browser."""
    generated: GeneratedCypher | None = None
    """QUESTION mode: the LLM's reply the plan was built from (method step 2)."""
    beside: Explanation | None = None
    """QUESTION mode: the schema-guided plan of the entities linked in the question, which ``kgqa ask`` grounds
    beside the LLM's (``plan_fallback``); None when no linked entity is connected to the target type."""
    weak: tuple[str, ...] = ()
    """The constants whose best candidate is no close match (kgqa.runtime.steps.s4_grounding.weak_constants): ``kgqa
    ask`` counts this plan's rounds one later and its vote weighs nothing."""
    unnamed: bool = False
    """No constant names a node (kgqa.runtime.steps.s4_grounding.names_no_node): ``kgqa ask`` does not ground an
    LLM's plan so."""

    def to_json(self) -> dict[str, Any]:
        plan = asdict(self.plan)
        dropped = plan.pop("dropped")
        out = {
            "plan": plan,
            "dropped": dropped,
            "repairs": [asdict(r) for r in self.repairs],
            "dialect": self.dialect,
            "query": self.query,
            "params": self.params,
        }
        if self.browser is not None:
            out["browser"] = self.browser
        if self.generated is not None:
            out["generated"] = asdict(self.generated)
        if self.beside is not None:
            out["beside"] = self.beside.to_json()
        out["weak"] = list(self.weak)
        out["unnamed"] = self.unnamed
        return out


@dataclass(frozen=True)
class LoadReport:
    skb: str
    up_to_date: bool
    """True when the store already held this exact graph and nothing was written."""
    nodes: int
    edges: int
    embedded: int
    """Texts the model had to embed (0 when everything came from the cache)."""
    from_cache: int
    seconds: float
    skipped_rows: dict[str, int]
    phases: dict[str, float] = field(default_factory=dict)
    """Seconds per phase: nodes (render, embed, write), edges, publish (vector indexes, atomic rename, save)."""
    imported: int = 0
    """Document vectors taken from precomputed embeddings (STaRK's candidate_emb_dict.pt) instead of embedded."""
    reader: str = ""
    """What became of the SKB's question reader (``reader_on_load``): trained, up to date, or why not; '' when the
    load trains none."""
    documents: str = ""
    """What became of the documents' vectors, embedded after the graph is published: how many were embedded, or
    that the worker embeds them in the background."""


@dataclass(frozen=True)
class Readiness:
    """Whether a loaded SKB's document vectors are in: a load publishes the graph before them, and until they are
    the vector strand and step 6's similarity run without them (full-text and the graph answer meanwhile)."""

    skb: str
    documents: bool
    embedded: int
    """Texts embedded so far (one per node; two where the index holds STaRK's document with relations)."""
    total: int
    running: bool
    """Whether the worker is on them now (else they wait for its next start, or for ``kgqa load``)."""
    error: str | None = None
    """Why the last run in this worker stopped, if it failed."""
    stage: str | None = None
    """What the worker is doing for the SKB now, while it runs: the reader's training comes first."""

    def line(self) -> str:
        """One line for a person: how far along, and what answers lack meanwhile."""
        share = f"{self.embedded:,} of {self.total:,} texts ({self.embedded / max(1, self.total):.0%})"
        if not self.running:
            how = "not running (a worker resumes them as it starts, as does kgqa load)"
        else:
            how = "in the background" + (f" (now: {self.stage})" if self.stage else "")
        failed = f"; last run failed: {self.error}" if self.error else ""
        return (
            f"'{self.skb}': document vectors {share}, {how}{failed}; until they are in, answers rank without them "
            "(names, graph and full-text only)"
        )


@dataclass(frozen=True)
class NodeView:
    skb: str
    id: str
    type: str
    name: str
    document: str
    """Without relations: what step 6 ranks by and rerankers read."""
    document_with_relations: str
    """``document`` + the stored relation text: what the vector strand (step 7) embeds (STaRK SKBs compact it
    first, as STaRK did for its published embeddings)."""
    relations: tuple[RelationCount, ...]
    aliases: tuple[str, ...] = ()
    """Other names the node is linked by (entity linking, step 4)."""


@dataclass(frozen=True)
class Export:
    directory: Path
    node_files: list[tuple[Path, Path]]
    edge_files: list[tuple[Path, Path]]
    post_import: Path
    command: str
    nodes: int
    edges: int


__all__ = [
    "Answer",
    "Candidate",
    "Dialect",
    "Explanation",
    "Export",
    "GeneratedCypher",
    "LoadReport",
    "Match",
    "NodeView",
    "RelationCount",
    "Schema",
    "SkbMeta",
    "StepTrace",
    "Strand",
    "Trace",
    "Usage",
    "fused_score",
    "shown_score",
]
