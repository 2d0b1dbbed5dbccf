"""The AF-Retriever pipeline (../shared/docs/method.md), steps 1-8, with whatever LLM is configured, or none.

Each step is one function in its own module; this module only wires them and records the trace. Modes
(``steps``): ``vss`` = the vector strand alone (step 7 over the candidate types); ``graph`` = steps 1-6;
``hybrid`` = 1-7; ``full`` = 1-8. A failing LLM never loses the question: step 1 falls back to embeddings, a
step-2/3 failure falls back to the schema-guided plan of the entities linked in the question (what runs without an
LLM; with ``plan_fallback`` off the graph strand stays empty and the vector strand fills all k), a step-8 failure
keeps the merged order; each such step is marked ``degraded`` with the reason. Errors of the store or the embedder
still raise.

The same fallback fills the graph strand when the LLM's plan grounds fewer than k targets even at l_max: a small
local model often invents a relation or turns the question's free-text condition into a node constant, and its
pattern then matches nothing; the linked entities' plan answers after the LLM's own (measured in docs/results.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from cypher.errors import CypherSyntaxError
from cypher.plan import QueryPlan
from kgqa.answers import Candidate
from kgqa.config import Config, hidden_labels
from kgqa.embed import Embedder
from kgqa.errors import ConfigError, LlmError
from kgqa.grounding import constant_vectors, graph_schema, ground, plan_candidates
from kgqa.hybrid import GraphRanking, fill_graph_strand, merge, rank_graph_strand
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
    ranking, grounded = _graph_strand(ctx, plan, source, question_vector, options, keep, trace)
    if fallback and grounded < options.k:
        ranking = _fill_from_linked_plan(ctx, question, target, question_vector, options, keep, ranking, trace)
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
    schema = graph_schema(ctx.schema)
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
            sanitized = plan_from_reply(completion.text, schema, target, ctx.config.cypher_mode)  # type: ignore[arg-type]
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
        return sanitized.plan


def _linked_plan(ctx: Context, question: str, target: str) -> tuple[QueryPlan | None, str]:
    """The schema-guided plan of the entities the name index links in the question (kgqa.linking), and what was
    linked, for the trace: the plan without an LLM, and the fallback when the LLM's plan fails."""
    schema = graph_schema(ctx.schema)
    links = link_entities(question, ctx.store, ctx.skb, schema.labels, ctx.embedder,
                          threshold=ctx.config.link_threshold)  # fmt: skip
    found = ", ".join(f"'{link.span}' -> {link.label} '{link.name}' ({link.similarity:.2f})" for link in links)
    return schema_guided_plan(links, target, schema, question), found or "none"


def _linked_plan_instead(ctx: Context, question: str, target: str, trace: Trace) -> QueryPlan | None:
    """Steps 2-3 gave no usable plan: take the linked entities' plan, noted on step 3 (which stays degraded)."""
    record = trace.record(3)
    start = time.perf_counter()
    plan, links = _linked_plan(ctx, question, target)
    record.seconds = round(record.seconds + time.perf_counter() - start, 4)
    if plan is None:
        record.degrade(f"{record.detail}; no fallback: no linked entity ({links}) is connected to {target}")
        return None
    record.degrade(f"{record.detail}; fell back to the schema-guided plan of the linked entities ({links}) with "
                   f"{len(plan.triplets)} triplet(s)")  # fmt: skip
    trace.plan = asdict(plan)
    return plan


def _fill_from_linked_plan(
    ctx: Context, question: str, target: str, question_vector: np.ndarray, options: Options, keep: int,
    ranking: GraphRanking, trace: Trace,
) -> GraphRanking:  # fmt: skip
    """The LLM's plan grounded fewer than k targets: ground the linked entities' plan too and let its targets fill
    the graph strand after the LLM's (steps 4-6 once more; noted and timed on step 6)."""
    record = trace.record(6)
    start = time.perf_counter()
    plan, links = _linked_plan(ctx, question, target)
    kept_before = len(ranking.kept)
    if plan is None:
        note = f"no fallback plan: no linked entity ({links}) is connected to {target}"
    else:
        labels = tuple(label.name for label in ctx.schema.labels)
        vectors = constant_vectors(ctx.embedder, plan)
        result = ground(ctx.store, ctx.skb, plan, vectors, labels, k=options.k, l_max=options.l_max)
        searches = {c.name: c.search_string or "" for c in plan.constants}
        extra = rank_graph_strand(result, searches, ctx.store, ctx.skb, ctx.embedder, question_vector,
                                  keep=keep, cap=ctx.config.graph_rank_cap, plan="linked")  # fmt: skip
        ranking = fill_graph_strand(ranking, extra, keep)
        rounds = ", ".join(f"l={r.scope}: {r.targets}" for r in result.rounds)
        note = (f"{len(ranking.kept) - kept_before} kept from the schema-guided plan of the linked entities ({links}; "
                f"{rounds})")  # fmt: skip
        trace.fallback = {"plan": asdict(plan), "query": result.query.text, "params": result.query.params}
    detail = f"{record.detail}; the LLM's plan grounded fewer than k={options.k}: {note}"
    if plan is not None and len(ranking.kept) > kept_before:
        record.degrade(detail)  # answers the LLM's plan did not find: say so where degraded steps are shown
    else:
        record.detail = detail
    record.seconds = round(record.seconds + time.perf_counter() - start, 4)
    return ranking


def _graph_strand(
    ctx: Context, plan: QueryPlan | None, source: str, question_vector: np.ndarray, options: Options, keep: int,
    trace: Trace,
) -> tuple[GraphRanking, int]:  # fmt: skip
    """Steps 4-6: the ranking, and how many targets the plan grounded. ``source``: whose plan (Candidate.plan)."""
    empty = GraphRanking([], {}, "no plan")
    if plan is None:
        for number in (4, 5, 6):
            with trace.step(number, skipped="no plan"):
                pass
        return empty, 0
    labels = tuple(label.name for label in ctx.schema.labels)
    with trace.step(4) as record:
        vectors = constant_vectors(ctx.embedder, plan)
        found = plan_candidates(ctx.store, ctx.skb, plan, vectors, labels, options.l_max)
        record.detail = "; ".join(f"{symbol}: {len(pairs)} candidates" for symbol, pairs in found.items())
    with trace.step(5) as record:
        try:
            result = ground(ctx.store, ctx.skb, plan, vectors, labels, k=options.k, l_max=options.l_max, found=found)
        except CypherSyntaxError as exc:  # e.g. the plan returns no node
            record.degrade(str(exc))
            with trace.step(6, skipped="nothing grounded"):
                pass
            return empty, 0
        trace.query, trace.params = result.query.text, result.query.params
        record.detail = ", ".join(f"l={r.scope}: {r.targets}" for r in result.rounds)
    with trace.step(6) as record:
        searches = {c.name: c.search_string or "" for c in plan.constants}
        ranking = rank_graph_strand(result, searches, ctx.store, ctx.skb, ctx.embedder, question_vector,
                                    keep=keep, cap=ctx.config.graph_rank_cap, plan=source)  # fmt: skip
        record.detail = ranking.detail
    return ranking, len(result.targets)


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
