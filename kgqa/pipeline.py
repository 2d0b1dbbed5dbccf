"""The AF-Retriever pipeline (method steps 1-8, as in the AF-Retriever paper), with whatever LLM is configured,
or none.

Each step is one function in its own module; this module only wires them and records the trace:
1 kgqa.target_type, 2 kgqa.text2cypher.write_cypher, 3 kgqa.text2cypher.plan_from_reply (without an LLM, or as the
fallback of an unusable plan: kgqa.fallback), 4-5 kgqa.grounding, 6 kgqa.graph_ranking, 7 kgqa.hybrid,
8 kgqa.rerank.rerank. Modes (``steps``): ``vss`` = the vector strand alone (step 7 over the candidate types);
``graph`` = steps 1-6; ``hybrid`` = 1-7; ``full`` = 1-8. A failing LLM never loses the question: step 1 falls back
to the type the question names or embeddings, a step-2/3 failure to the schema-guided plan of the entities linked
in the question (with ``plan_fallback`` off the graph strand stays empty and the vector strand fills all k), a
step-8 failure keeps the merged order; each such step is marked ``degraded`` with the reason. Errors of the store or
the embedder still raise. Every question is checked first (:func:`kgqa.session.check_question`): one too long or
not text is refused with a QuestionError before anything is embedded, asked or read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from cypher.errors import CypherSyntaxError
from cypher.plan import Dropped, QueryPlan
from kgqa.answers import Candidate
from kgqa.config import hidden_labels
from kgqa.context import Context, Options
from kgqa.errors import LlmError
from kgqa.fallback import ground_linked_too, linked_plan, linked_plan_instead
from kgqa.graph_ranking import GraphRanking, Lexical, rank_graph_strand
from kgqa.grounding import constant_vectors, ground, plan_candidates
from kgqa.hybrid import hybrid_merge
from kgqa.lexical import residual_terms
from kgqa.linking import span_cap
from kgqa.rerank import rerank, rerank_documents
from kgqa.session import check_question
from kgqa.target_type import fallback_type, predict_target_type
from kgqa.text2cypher import plan_from_reply, unusable, write_cypher
from kgqa.trace import StepTrace, Trace
from kgqa.vector import vector_strand


def run(
    ctx: Context, question: str, options: Options, doc_vector: np.ndarray | None = None
) -> tuple[list[Candidate], Trace]:
    """Answer ``question``: the ranked candidates and the trace of all 8 steps.

    Two question vectors: the embedder's (step 1's type similarity, step 6's similarity to the documents' stored
    ``plain_emb``, and the name side) and the one searched against the document index (step 6's preselection, step 7):
    ``doc_vector`` when given (the SKB's document vectors may come from another model, e.g. STaRK's precomputed
    embeddings, whose question vectors come with them), else the embedder's."""
    check_question(question, ctx.config.max_question_chars)
    trace = Trace(
        ctx.skb,
        options.steps,
        ctx.llm.name if ctx.llm else "none",
        options.reranker,
        options.k,
        options.alpha,
        options.l_max,
        ctx.embedder.name,
        options.types,
    )
    start = time.perf_counter()
    ctx.store.await_indexes(ctx.skb)
    trace.seconds["await_indexes"] = round(time.perf_counter() - start, 4)
    if doc_vector is not None:
        trace.doc_question = "supplied"
    if options.steps == "vss" and doc_vector is not None:
        question_vector = doc_vector  # the vector strand alone needs no other vector: nothing is embedded
    else:
        start = time.perf_counter()
        question_vector = ctx.embedder.embed_one(question)
        trace.seconds["embed_question"] = round(time.perf_counter() - start, 4)
    doc_question = question_vector if doc_vector is None else doc_vector

    if options.steps == "vss":
        for number in range(1, 7):
            with trace.step(number, skipped="steps=vss"):
                pass
        with trace.step(7) as record:
            answers = vector_strand(ctx.store, ctx.skb, doc_question, options.types, options.k)
            record.detail = f"{len(answers)} answers over {', '.join(options.types)}"
        with trace.step(8, skipped="steps=vss"):
            pass
        return answers, trace

    with trace.step(1) as record:
        target = target_type(ctx, question, options, question_vector, record)
    trace.target_type = target
    plan = _plan(ctx, question, target, trace)
    source, fallback = ("llm", ctx.config.plan_fallback) if ctx.llm is not None else ("linked", False)
    if plan is None and fallback:
        plan = linked_plan_instead(ctx, question, target, trace)
        note_link_cap(ctx, question, trace, trace.record(3))
        note_unjoined(plan.dropped if plan is not None else (), trace, trace.record(3))
        source, fallback = "linked", False  # the graph strand already runs on the linked plan
    keep = options.k if options.steps == "graph" else round(options.alpha * options.k)
    linked = (question, target) if fallback else None
    vectors = (question_vector, doc_question)
    lexical = lexical_signal(ctx, question, plan)
    ranking = _graph_strand(ctx, plan, source, linked, vectors, lexical, options, keep, trace)
    if options.steps == "graph":
        with trace.step(7, skipped="steps=graph"):
            pass
        answers = ranking.kept
    else:
        with trace.step(7) as record:
            fusion = ctx.config.fusion
            answers, note = hybrid_merge(
                ctx.store, ctx.skb, vectors, target, ranking, options.k, lexical=lexical, fusion=fusion
            )
            filled = sum(c.strands[0] != "graph" for c in answers)
            record.detail = f"{filled} of {len(answers)} answers from the fill over {target}{note}"
    if options.steps != "full" or options.reranker == "none":
        with trace.step(8, skipped=f"steps={options.steps}" if options.steps != "full" else "reranker=none"):
            pass
        return answers, trace
    with trace.step(8) as record:
        answers = _rerank(ctx, question, answers, options, record)
    return answers, trace


def target_type(ctx: Context, question: str, options: Options, question_vector: np.ndarray, record: StepTrace) -> str:
    """Step 1, recorded on ``record`` (kgqa explain runs it too, so that its step 2 gets the same target type)."""
    if len(options.types) == 1:
        record.detail = f"{options.types[0]} (the only candidate type)"
        return options.types[0]
    temperature = ctx.config.llm_temperature
    try:
        choice = predict_target_type(
            question,
            options.types,
            llm=ctx.llm,
            embedder=ctx.embedder,
            question_vector=question_vector,
            temperature=temperature,
        )
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
            plan, links = linked_plan(ctx, question, target)
            record.degrade(f"no LLM: entities linked by the name index: {links}")
            note_link_cap(ctx, question, trace, record)
        with trace.step(3) as record:
            if plan is None:
                record.degrade("no LLM: no linked entity is connected to the target type by the schema")
            else:
                record.degrade(f"no LLM: schema-guided plan with {len(plan.triplets)} triplet(s)")
                trace.plan = asdict(plan)
                note_unjoined(plan.dropped, trace, record)
        return plan
    with trace.step(2) as record:
        try:
            reply = write_cypher(
                ctx.llm,
                ctx.store,
                ctx.skb,
                ctx.schema,
                question,
                target,
                hidden=hidden_labels(ctx.config, ctx.skb),
                temperature=ctx.config.llm_temperature,
            )
        except LlmError as exc:
            record.degrade(str(exc))
            with trace.step(3, skipped="no Cypher from step 2"):
                pass
            return None
        record.usage.add(reply.completion)
        record.detail = reply.completion.text
    with trace.step(3) as record:
        try:
            sanitized = plan_from_reply(
                reply.completion.text, ctx.graph, target, ctx.config.cypher_mode, max_triplets=ctx.config.max_triplets
            )
        except CypherSyntaxError as exc:
            record.degrade(f"unusable Cypher: {exc}")
            return None
        trace.plan = asdict(sanitized.plan)
        parts = [f"{r.kind} {r.original!r} -> {r.replacement!r}" for r in sanitized.repairs]
        parts += [f"dropped {d.text!r}: {d.reason}" for d in sanitized.plan.dropped]
        record.detail = "; ".join(parts)
        why = unusable(sanitized.plan)
        if why is not None:
            record.degrade(why)
            return None
        return sanitized.plan


def note_link_cap(ctx: Context, question: str, trace: Trace, record: StepTrace) -> None:
    """Entity linking ran on ``question`` for ``record``'s step: when ``max_link_ngrams`` cut its spans, the step is
    degraded (a later part of the question was not linked) and the trace's ``bounds`` say so."""
    cap = span_cap(question, ctx.graph.labels, ctx.config.max_link_ngrams)
    if cap is None:
        return
    note = cap.describe()
    if note not in trace.bounds:
        trace.bounds.append(note)
    record.degrade(f"{record.detail}; {note}".lstrip("; "))


SHOWN = 3
"""Entities a note names before it counts the rest."""


def note_unjoined(dropped: Sequence[Dropped], trace: Trace, record: StepTrace) -> None:
    """The linked entities' plan left links out (``max_triplets``, kgqa.linking.schema_guided_plan): ``record``'s
    step is degraded and the trace's ``bounds`` say which."""
    if not dropped:
        return
    more = f" and {len(dropped) - SHOWN} more" if len(dropped) > SHOWN else ""
    names = ", ".join(d.text for d in dropped[:SHOWN])
    note = f"{len(dropped)} linked entit{'y' if len(dropped) == 1 else 'ies'} not joined, {dropped[0].reason}: "
    note += names + more
    if note not in trace.bounds:
        trace.bounds.append(note)
    record.degrade(f"{record.detail}; {note}".lstrip("; "))


def _graph_strand(
    ctx: Context,
    plan: QueryPlan | None,
    source: str,
    linked: tuple[str, str] | None,
    question_vectors: tuple[np.ndarray, np.ndarray],
    lexical: Lexical | None,
    options: Options,
    keep: int,
    trace: Trace,
) -> GraphRanking:
    """Steps 4-6. ``source``: whose plan (Candidate.plan); ``linked``: (question, target type) when the linked
    entities' plan may join an LLM plan that grounds fewer than k targets at l = 1 (plan_fallback);
    ``question_vectors``: the embedder's and the document index's (see :func:`run`); ``lexical``: step 6's
    full-text side."""
    empty = GraphRanking([], {}, "no plan")
    if plan is None:
        for number in (4, 5, 6):
            with trace.step(number, skipped="no plan"):
                pass
        return empty
    with trace.step(4) as record:
        vectors = constant_vectors(ctx.embedder, plan)
        aliases = ctx.aliases
        found = plan_candidates(ctx.store, ctx.skb, plan, vectors, ctx.graph.labels, options.l_max, aliases=aliases)
        record.detail = "; ".join(f"{symbol}: {len(pairs)} candidates" for symbol, pairs in found.items())
    with trace.step(5) as record:
        result = ground(
            ctx.store,
            ctx.skb,
            plan,
            vectors,
            ctx.graph,
            k=options.k,
            l_max=options.l_max,
            found=found,
            source=source,
            limit=ctx.config.pattern_limit,
        )  # a plan without a target never gets here (_plan)
        trace.query, trace.params = result.query.text, result.last_params
        record.detail = ", ".join(f"l={r.scope}: {r.targets}" for r in result.rounds)
        for cut in (result.capped, result.timed_out):
            if cut:
                record.detail = f"{record.detail}; {cut}".lstrip("; ")
        if linked is not None and result.at_first_scope < options.k:
            result, note = ground_linked_too(ctx, *linked, options.k, options.l_max, result, trace)
            record.detail = f"{record.detail}; {note}"
            note_link_cap(ctx, linked[0], trace, record)
            if trace.fallback is not None:
                note_unjoined([Dropped(**d) for d in trace.fallback["plan"]["dropped"]], trace, record)
        if result.capped and result.capped not in trace.bounds:  # the LIMIT (pattern_limit) cut a round's rows
            trace.bounds.append(result.capped)
        if result.timed_out or result.capped:  # fewer targets than the plan asked for, or than it matched
            record.degrade(record.detail)
    with trace.step(6) as record:
        question_vector, doc_question = question_vectors
        ranking = rank_graph_strand(
            result,
            ctx.store,
            ctx.skb,
            question_vector,
            keep=keep,
            cap=ctx.config.graph_rank_cap,
            doc_vector=doc_question,
            lexical=lexical,
        )
        record.detail = ranking.detail
        from_linked = sum(c.plan == "linked" for c in ranking.kept)
        if source == "llm" and from_linked:  # answers the LLM's plan did not put there: shown as degraded
            record.degrade(f"{ranking.detail}; {from_linked} of them from the linked entities' plan")
    return ranking


def lexical_signal(ctx: Context, question: str, plan: QueryPlan | None) -> Lexical | None:
    """Steps 6-7's lexical side: the question's words not covered by the plan's constants (all of them without a
    plan), if the graph has full-text indexes and ``lexical_weight`` is on."""
    if not ctx.config.lexical_weight or not ctx.schema.has_text_index:
        return None
    covered = [c.search_string or "" for c in plan.constants] if plan is not None else []
    types = sorted({t for _, t, _ in ctx.graph.relationships})
    return Lexical(tuple(residual_terms(question, covered, ctx.graph.labels, types)), ctx.config.lexical_weight)


def _rerank(
    ctx: Context, question: str, answers: list[Candidate], options: Options, record: StepTrace
) -> list[Candidate]:
    """Step 8 over the merged answers; an LLM failure keeps the merged order (recorded as degraded)."""
    docs = rerank_documents(ctx.store, ctx.skb, answers)
    try:
        outcome = rerank(
            options.reranker,
            question,
            docs,
            llm=ctx.llm,
            cross_encoder=ctx.cross_encoder,
            budget=ctx.config.rerank_budget_tokens,
            temperature=ctx.config.llm_temperature,
            concurrency=ctx.config.rerank_concurrency,
        )
    except LlmError as exc:
        record.degrade(f"{exc}; kept the merged order")
        return answers
    record.usage = outcome.usage
    record.detail = f"{options.reranker}: {outcome.detail}"
    if outcome.repaired:
        record.degrade(f"{options.reranker}: {outcome.detail}")
    return outcome.order
