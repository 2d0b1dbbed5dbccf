"""The AF-Retriever pipeline (../shared/docs/method.md), steps 1-8, with whatever LLM is configured, or none.

Each step is one function in its own module; this module only wires them and records the trace. Modes
(``steps``): ``vss`` = the vector strand alone (step 7 over the candidate types); ``graph`` = steps 1-6;
``hybrid`` = 1-7; ``full`` = 1-8. A failing LLM never loses the question: step 1 falls back to embeddings, a
step-2/3 failure falls back to the schema-guided plan of the entities linked in the question (what runs without an
LLM; with ``plan_fallback`` off the graph strand stays empty and the vector strand fills all k), a step-8 failure
keeps the merged order; each such step is marked ``degraded`` with the reason. Errors of the store or the embedder
still raise.

The same plan joins the graph strand when the LLM's plan grounds fewer than k targets at l = 1, i.e. does not
match the graph as written: a small local model often invents a relation or turns the question's free-text
condition into a node constant, and its pattern then matches nothing until the scope is widened far. The two
plans' targets are ranked by round (the scope l that grounded them: the method's measure of how well a plan
fits), the LLM's first within a round (measured in docs/results.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import cached_property

import numpy as np

from cypher.errors import CypherSyntaxError
from cypher.plan import QueryPlan
from cypher.sanitize import GraphSchema
from kgqa.answers import Candidate
from kgqa.config import Config, hidden_labels
from kgqa.embed import Embedder
from kgqa.errors import ConfigError, LlmError
from kgqa.grounding import (
    GroundingResult,
    constant_vectors,
    graph_schema,
    ground,
    merge_groundings,
    plan_candidates,
)
from kgqa.hybrid import GraphRanking, merge, rank_graph_strand
from kgqa.linking import link_entities, schema_guided_plan
from kgqa.llm import ChatModel
from kgqa.rerank import (
    rerank_cross_encoder,
    rerank_documents,
    rerank_listwise,
    rerank_pairwise,
    rerank_pointwise,
)
from kgqa.store.base import GraphStore, Schema
from kgqa.target_type import fallback_type, predict_target_type
from kgqa.text2cypher import generate_cypher, plan_from_reply, schema_view
from kgqa.trace import StepTrace, Trace
from kgqa.vector import vector_strand


@dataclass(frozen=True)
class Options:
    """Per-question settings; defaults come from the configuration (file, environment, flags)."""

    steps: str
    reranker: str
    k: int
    alpha: float
    l_max: int
    types: tuple[str, ...]

    @classmethod
    def from_config(cls, config: Config, types: Sequence[str], has_llm: bool) -> Options:
        reranker = config.reranker if config.steps == "full" else "none"  # only step 8 reranks
        if reranker == "auto":
            reranker = "listwise" if has_llm else ("cross-encoder" if config.cross_encoder else "none")
        if reranker in ("listwise", "pairwise", "pointwise") and not has_llm:
            raise ConfigError(f"reranker '{reranker}' needs an LLM: set 'llm', or use cross-encoder or none")
        if reranker == "cross-encoder" and not config.cross_encoder:
            raise ConfigError("reranker 'cross-encoder' needs 'cross_encoder' (a local CrossEncoder path)")
        return cls(config.steps, reranker, config.top_k, config.alpha, config.l_max, tuple(types))


@dataclass(frozen=True)
class Context:
    """What the steps share: the store, the embedder, the optional LLM and cross-encoder, the configuration."""

    store: GraphStore
    skb: str
    schema: Schema
    embedder: Embedder
    llm: ChatModel | None
    config: Config
    cross_encoder: Callable[[list[tuple[str, str]]], Sequence[float]] | None = None

    @cached_property
    def graph(self) -> GraphSchema:
        """The schema as the Cypher package sees it (labels, relationship triples), computed once per context."""
        return graph_schema(self.schema)


def run(ctx: Context, question: str, options: Options) -> tuple[list[Candidate], Trace]:
    """Answer ``question``: the ranked candidates and the trace of all 8 steps."""
    trace = Trace(ctx.skb, options.steps, ctx.llm.name if ctx.llm else "none", options.reranker, options.k,
                  options.alpha, options.l_max, ctx.embedder.name, options.types)  # fmt: skip
    start = time.perf_counter()
    ctx.store.await_indexes(ctx.skb)
    trace.seconds["await_indexes"] = round(time.perf_counter() - start, 4)
    start = time.perf_counter()
    question_vector = ctx.embedder.embed_one(question)
    trace.seconds["embed_question"] = round(time.perf_counter() - start, 4)

    if options.steps == "vss":
        for number in range(1, 7):
            with trace.step(number, skipped="steps=vss"):
                pass
        with trace.step(7) as record:
            answers = vector_strand(ctx.store, ctx.skb, question_vector, options.types, options.k)
            record.detail = f"{len(answers)} answers over {', '.join(options.types)}"
        with trace.step(8, skipped="steps=vss"):
            pass
        return answers, trace

    with trace.step(1) as record:
        target = _target_type(ctx, question, options, question_vector, record)
    trace.target_type = target
    plan = _plan(ctx, question, target, trace)
    source, fallback = ("llm", ctx.config.plan_fallback) if ctx.llm is not None else ("linked", False)
    if plan is None and fallback:
        plan = _linked_plan_instead(ctx, question, target, trace)
        source, fallback = "linked", False  # the graph strand already runs on the linked plan
    keep = options.k if options.steps == "graph" else round(options.alpha * options.k)
    linked = (question, target) if fallback else None
    ranking = _graph_strand(ctx, plan, source, linked, question_vector, options, keep, trace)
    if options.steps == "graph":
        with trace.step(7, skipped="steps=graph"):
            pass
        answers = ranking.kept
    else:
        with trace.step(7) as record:
            vector = vector_strand(ctx.store, ctx.skb, question_vector, (target,), options.k + len(ranking.kept))
            answers = merge(ranking, vector, options.k)
            from_vector = sum(c.strands[0] == "vector" for c in answers)
            record.detail = f"{from_vector} of {len(answers)} answers from the vector strand over {target}"
    if options.steps != "full" or options.reranker == "none":
        with trace.step(8, skipped=f"steps={options.steps}" if options.steps != "full" else "reranker=none"):
            pass
        return answers, trace
    with trace.step(8) as record:
        answers = _rerank(ctx, question, answers, options, record)
    return answers, trace


def _target_type(
    ctx: Context, question: str, options: Options, question_vector: np.ndarray, record: StepTrace
) -> str:
    if len(options.types) == 1:
        record.detail = f"{options.types[0]} (the only candidate type)"
        return options.types[0]
    temperature = ctx.config.llm_temperature
    try:
        choice = predict_target_type(question, options.types, llm=ctx.llm, embedder=ctx.embedder,
                                     question_vector=question_vector, temperature=temperature)  # fmt: skip
    except LlmError as exc:
        choice = fallback_type(question, options.types, ctx.embedder, question_vector, str(exc))
        record.degrade(f"{choice.detail}: {choice.label}")
        return choice.label
    if choice.completion is not None:
        record.usage.add(choice.completion)
    if choice.method in ("named", "embedding"):  # no LLM, or its reply named no type
        record.degrade(f"{choice.detail}: {choice.label}")
    else:
        record.detail = f"{choice.label} ({choice.method})"
    return choice.label


def _plan(ctx: Context, question: str, target: str, trace: Trace) -> QueryPlan | None:
    """Steps 2-3 with an LLM; without one, the schema-guided plan from linked entities (recorded as degraded)."""
    if ctx.llm is None:
        with trace.step(2) as record:
            plan, links = _linked_plan(ctx, question, target)
            record.degrade(f"no LLM: entities linked by the name index: {links}")
        with trace.step(3) as record:
            if plan is None:
                record.degrade("no LLM: no linked entity is connected to the target type by the schema")
            else:
                record.degrade(f"no LLM: schema-guided plan with {len(plan.triplets)} triplet(s)")
                trace.plan = asdict(plan)
        return plan
    with trace.step(2) as record:
        try:
            view = schema_view(ctx.store, ctx.skb, ctx.schema, hidden=hidden_labels(ctx.config, ctx.skb))
            completion = generate_cypher(ctx.llm, question, view, target_type=target,
                                         temperature=ctx.config.llm_temperature)  # fmt: skip
        except LlmError as exc:
            record.degrade(str(exc))
            with trace.step(3, skipped="no Cypher from step 2"):
                pass
            return None
        record.usage.add(completion)
        record.detail = completion.text
    with trace.step(3) as record:
        try:
            sanitized = plan_from_reply(completion.text, ctx.graph, target, ctx.config.cypher_mode)  # type: ignore[arg-type]
        except CypherSyntaxError as exc:
            record.degrade(f"unusable Cypher: {exc}")
            return None
        trace.plan = asdict(sanitized.plan)
        parts = [f"{r.kind} {r.original!r} -> {r.replacement!r}" for r in sanitized.repairs]
        parts += [f"dropped {d.text!r}: {d.reason}" for d in sanitized.plan.dropped]
        record.detail = "; ".join(parts)
        if not sanitized.plan.triplets and not sanitized.plan.constants:
            record.degrade("the plan has no triplet and no constant: nothing to ground")
            return None
        if sanitized.plan.target is None:
            record.degrade("the query returns no node variable to answer with")
            return None
        return sanitized.plan


def _linked_plan(ctx: Context, question: str, target: str) -> tuple[QueryPlan | None, str]:
    """The schema-guided plan of the entities the name index links in the question (kgqa.linking), and what was
    linked, for the trace: the plan without an LLM, and the fallback when the LLM's plan fails."""
    links = link_entities(question, ctx.store, ctx.skb, ctx.graph.labels, ctx.embedder,
                          threshold=ctx.config.link_threshold)  # fmt: skip
    found = ", ".join(f"'{link.span}' -> {link.label} '{link.name}' ({link.similarity:.2f})" for link in links)
    return schema_guided_plan(links, target, ctx.graph, question), found or "none"


def _unconnected(links: str, target: str) -> str:
    return f"no linked entity ({links}) is connected to {target}"


def _linked_plan_instead(ctx: Context, question: str, target: str, trace: Trace) -> QueryPlan | None:
    """Steps 2-3 gave no usable plan: take the linked entities' plan, noted on step 3 (which stays degraded)."""
    record = trace.record(3)
    start = time.perf_counter()
    plan, links = _linked_plan(ctx, question, target)
    record.seconds = round(record.seconds + time.perf_counter() - start, 4)
    if plan is None:
        record.degrade(f"{record.detail}; no fallback: {_unconnected(links, target)}")
        return None
    record.degrade(f"{record.detail}; fell back to the schema-guided plan of the linked entities ({links}) with "
                   f"{len(plan.triplets)} triplet(s)")  # fmt: skip
    trace.plan = asdict(plan)
    return plan


def _ground_linked_too(
    ctx: Context, question: str, target: str, options: Options, result: GroundingResult, trace: Trace
) -> tuple[GroundingResult, str]:
    """The LLM's plan grounded fewer than k targets at l = 1 (it did not match the graph as written): ground the
    linked entities' plan too and merge its targets by round (grounding.merge_groundings). Returns the merged
    result and what happened, for step 5's trace."""
    plan, links = _linked_plan(ctx, question, target)
    why = f"the LLM's plan grounded {result.at_first_scope} (< k={options.k}) at l=1"
    if plan is None:
        return result, f"{why}; no fallback plan: {_unconnected(links, target)}"
    linked = ground(ctx.store, ctx.skb, plan, constant_vectors(ctx.embedder, plan), ctx.graph.labels, k=options.k,
                    l_max=options.l_max, source="linked")  # fmt: skip
    trace.fallback = {"plan": asdict(plan), "query": linked.query.text, "params": linked.query.params}
    rounds = ", ".join(f"l={r.scope}: {r.targets}" for r in linked.rounds)
    merged = merge_groundings(result, linked, LINKED_PREFIX)
    return merged, f"{why}; merged by round with the schema-guided plan of the linked entities ({links}): {rounds}"


LINKED_PREFIX = "linked."
"""Prefix of the linked plan's constant symbols in merged evidence (both plans may name a constant e0)."""


def _graph_strand(
    ctx: Context, plan: QueryPlan | None, source: str, linked: tuple[str, str] | None, question_vector: np.ndarray,
    options: Options, keep: int, trace: Trace,
) -> GraphRanking:  # fmt: skip
    """Steps 4-6. ``source``: whose plan (Candidate.plan); ``linked``: (question, target type) when the linked
    entities' plan may join an LLM plan that grounds fewer than k targets at l = 1 (plan_fallback)."""
    empty = GraphRanking([], {}, "no plan")
    if plan is None:
        for number in (4, 5, 6):
            with trace.step(number, skipped="no plan"):
                pass
        return empty
    labels = ctx.graph.labels
    with trace.step(4) as record:
        vectors = constant_vectors(ctx.embedder, plan)
        found = plan_candidates(ctx.store, ctx.skb, plan, vectors, labels, options.l_max)
        record.detail = "; ".join(f"{symbol}: {len(pairs)} candidates" for symbol, pairs in found.items())
    with trace.step(5) as record:
        result = ground(ctx.store, ctx.skb, plan, vectors, labels, k=options.k, l_max=options.l_max, found=found,
                        source=source)  # a plan without a target never gets here (_plan)  # fmt: skip
        trace.query, trace.params = result.query.text, result.query.params
        record.detail = ", ".join(f"l={r.scope}: {r.targets}" for r in result.rounds)
        if linked is not None and result.at_first_scope < options.k:
            result, note = _ground_linked_too(ctx, *linked, options, result, trace)
            record.detail = f"{record.detail}; {note}"
    with trace.step(6) as record:
        ranking = rank_graph_strand(result, ctx.store, ctx.skb, ctx.embedder, question_vector,
                                    keep=keep, cap=ctx.config.graph_rank_cap)  # fmt: skip
        record.detail = ranking.detail
        from_linked = sum(c.plan == "linked" for c in ranking.kept)
        if source == "llm" and from_linked:  # answers the LLM's plan did not put there: shown as degraded
            record.degrade(f"{ranking.detail}; {from_linked} of them from the linked entities' plan")
    return ranking


def _rerank(
    ctx: Context, question: str, answers: list[Candidate], options: Options, record: StepTrace
) -> list[Candidate]:
    docs = rerank_documents(ctx.store, ctx.skb, answers)
    budget, temperature = ctx.config.rerank_budget_tokens, ctx.config.llm_temperature
    try:
        if options.reranker == "cross-encoder":
            assert ctx.cross_encoder is not None
            outcome = rerank_cross_encoder(ctx.cross_encoder, question, docs, budget=budget)
        else:
            assert ctx.llm is not None
            if options.reranker == "listwise":
                outcome = rerank_listwise(ctx.llm, question, docs, budget=budget, temperature=temperature)
            elif options.reranker == "pairwise":
                outcome = rerank_pairwise(ctx.llm, question, docs, budget=budget, temperature=temperature)
            else:
                outcome = rerank_pointwise(ctx.llm, question, docs, budget=budget, temperature=temperature,
                                           concurrency=ctx.config.rerank_concurrency)  # fmt: skip
    except LlmError as exc:
        record.degrade(f"{exc}; kept the merged order")
        return answers
    record.usage = outcome.usage
    record.detail = f"{options.reranker}: {outcome.detail}"
    if outcome.repaired:
        record.degrade(f"{options.reranker}: {outcome.detail}")
    return outcome.order
