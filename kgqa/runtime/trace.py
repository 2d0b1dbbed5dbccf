"""The trace of one question through the 8 steps: what ran, what ran degraded and why, seconds and LLM use."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from kgqa.runtime.llm import Usage

Status = Literal["ran", "degraded", "skipped"]

STEP_NAMES = {
    1: "target type",
    2: "cypher",
    3: "plan",
    4: "constant candidates",
    5: "grounding",
    6: "graph strand ranking",
    7: "vector strand",
    8: "rerank",
}


@dataclass
class StepTrace:
    step: int
    name: str
    status: Status = "ran"
    detail: str = ""
    seconds: float = 0.0
    usage: Usage = field(default_factory=Usage)

    def degrade(self, why: str) -> None:
        """Record that this step fell back (an LLM error, a junk reply); the pipeline goes on."""
        self.status = "degraded"
        self.detail = why


@dataclass
class Trace:
    skb: str
    steps_mode: str
    llm: str
    reranker: str
    k: int
    alpha: float
    l_max: int
    embedder: str
    types: tuple[str, ...]
    target_type: str | None = None
    plan: dict[str, Any] | None = None
    """The first plan: the LLM's where it gave a usable one, else the linked entities' (every plan: ``plans``)."""
    query: str | None = None
    params: dict[str, Any] | None = None
    plans: list[dict[str, Any]] = field(default_factory=list)
    """Every plan steps 4-6 grounded, the LLM's first: source (``llm`` or ``linked``), weight of its vote, plan,
    compiled query and the parameters of its last round (what reproduces its answers in Neo4j Browser), its rounds
    and how many targets it grounded."""
    doc_question: str | None = None
    """Where the question's vector for the document index (steps 6-7) came from when it is not the embedder's:
    ``supplied`` (a precomputed query vector, e.g. STaRK's query_emb_dict.pt through kgqa eval)."""
    steps: list[StepTrace] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    """non-step parts (index wait, question embedding)"""
    documents: str | None = None
    """Set where the SKB's document vectors were still being embedded (a load publishes the graph before them): how
    far along, and which strands ran without them."""
    bounds: list[str] = field(default_factory=list)
    """Each bound that cut this question's work (a setting of kgqa's limits, e.g. ``max_link_ngrams``), with what it
    left out; the step it cut is degraded with the same words."""

    @contextmanager
    def step(self, number: int, *, skipped: str | None = None) -> Iterator[StepTrace]:
        """Time one step; ``skipped`` records a step that does not run in this mode, with the reason."""
        record = StepTrace(number, STEP_NAMES[number])
        self.steps.append(record)
        if skipped is not None:
            record.status, record.detail = "skipped", skipped
        start = time.perf_counter()
        try:
            yield record
        finally:
            record.seconds = round(time.perf_counter() - start, 4)

    def record(self, number: int) -> StepTrace:
        """The record of step ``number`` (the last one, if a step was recorded twice)."""
        return next(record for record in reversed(self.steps) if record.step == number)

    @property
    def usage(self) -> Usage:
        total = Usage()
        for record in self.steps:
            total.merge(record.usage)
        return total

    @property
    def degraded(self) -> list[StepTrace]:
        return [record for record in self.steps if record.status == "degraded"]
