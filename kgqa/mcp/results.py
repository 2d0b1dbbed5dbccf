"""What the MCP tools return: kgqa's result types as JSON objects, typed so that the SDK publishes each tool's output
schema for the model to read. The same fields as ``kgqa ask --json`` and ``kgqa explain --json``; an answer's trace is
summed up (each step's status and why, the compiled query and its parameters), since an agent pays for every token."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from typing_extensions import TypedDict  # pydantic reads stdlib TypedDicts only from Python 3.12

from kgqa.types import Answer, Explanation, NodeView, Schema, SkbMeta


class Evidence(TypedDict):
    """A constant of the query plan and the node it was grounded to for this answer."""

    symbol: str
    search: str
    id: str
    name: str
    alias: str


class RankedAnswer(TypedDict):
    """One answer, as ``kgqa ask --json`` prints it: ``strands`` says which evidence found it (graph, vector, text),
    ``matches`` the plan's constants and the nodes they were grounded to, ``why`` how its score was made."""

    rank: int
    id: str
    type: str
    name: str
    score: float | None
    """What the answers are ordered by (None only where a score was not a finite number)."""
    relevance: float | None
    why: str
    strands: list[str]
    round_l: int | None
    plan: str | None
    plans: list[str]
    matches: list[Evidence]


class StepSummary(TypedDict):
    """One of the eight steps: ``ran``, ``degraded`` (with why in ``detail``) or ``skipped``."""

    step: int
    name: str
    status: str
    detail: str
    seconds: float


class TraceSummary(TypedDict):
    """How the answer was found: the settings, the compiled Cypher of the first plan with its parameters (what
    reproduces the graph strand in Neo4j Browser), each step, and each bound that cut the work."""

    skb: str
    steps_mode: str
    llm: str
    reranker: str
    k: int
    target_type: str | None
    query: str | None
    params: dict[str, Any] | None
    steps: list[StepSummary]
    bounds: list[str]
    documents: str | None
    """Set while the SKB's document vectors are still being embedded: how far, and what ran without them."""


class AskResult(TypedDict):
    """The ``ask`` tool's result."""

    question: str
    answers: list[RankedAnswer]
    trace: TraceSummary


class ExplainResult(TypedDict):
    """The ``explain`` tool's result, as ``kgqa explain --json`` prints it (``browser``: Neo4j only)."""

    dialect: str
    query: str
    params: dict[str, Any]
    browser: str | None
    plan: dict[str, Any]
    dropped: list[dict[str, Any]]
    repairs: list[dict[str, Any]]
    weak: list[Any]
    unnamed: bool


class SchemaResult(TypedDict):
    """The ``schema`` tool's result, as ``kgqa schema --json`` prints it."""

    meta: dict[str, Any]
    schema: dict[str, Any]


class SkbEntry(TypedDict):
    """One SKB kgqa knows, and what is loaded of it (None where it is not)."""

    name: str
    loaded: bool
    source: str | None
    nodes: int | None
    edges: int | None
    candidate_types: list[str]
    loaded_at: str | None


class SkbList(TypedDict):
    """The ``list_skbs`` tool's result."""

    skbs: list[SkbEntry]


def plain(value: Any) -> Any:
    """``value`` as JSON values only: tuples as lists, paths and other objects as text, and every non-finite float
    (a score of a degenerate vector) as None: strict JSON, which every client reads."""
    return json.loads(json.dumps(value, default=str), parse_constant=lambda _: None)


def ask_result(answer: Answer) -> AskResult:
    doc = answer.to_json()
    trace = answer.trace
    steps = [
        StepSummary(step=s.step, name=s.name, status=s.status, detail=s.detail, seconds=s.seconds) for s in trace.steps
    ]
    summary = TraceSummary(
        skb=trace.skb,
        steps_mode=trace.steps_mode,
        llm=trace.llm,
        reranker=trace.reranker,
        k=trace.k,
        target_type=trace.target_type,
        query=trace.query,
        params=trace.params,
        steps=steps,
        bounds=list(trace.bounds),
        documents=trace.documents,
    )
    return AskResult(question=answer.question, answers=plain(doc["answers"]), trace=plain(summary))


def explain_result(explanation: Explanation) -> ExplainResult:
    doc = plain(explanation.to_json())
    return ExplainResult(
        dialect=doc["dialect"],
        query=doc["query"],
        params=doc["params"],
        browser=doc.get("browser"),
        plan=doc["plan"],
        dropped=doc["dropped"],
        repairs=doc["repairs"],
        weak=doc["weak"],
        unnamed=doc["unnamed"],
    )


def schema_result(meta: SkbMeta, schema: Schema) -> SchemaResult:
    return SchemaResult(meta=plain(asdict(meta)), schema=plain(asdict(schema)))


def node_result(view: NodeView) -> dict[str, Any]:
    return plain(asdict(view))  # type: ignore[no-any-return]


def skb_entry(name: str, meta: SkbMeta | None) -> SkbEntry:
    if meta is None:
        return SkbEntry(
            name=name, loaded=False, source=None, nodes=None, edges=None, candidate_types=[], loaded_at=None
        )
    return SkbEntry(
        name=name,
        loaded=True,
        source=meta.source,
        nodes=meta.node_count,
        edges=meta.edge_count,
        candidate_types=list(meta.candidate_types),
        loaded_at=meta.loaded_at,
    )
