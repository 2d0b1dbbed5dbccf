"""The AF-Retriever pipeline (method steps 1-8, as in the AF-Retriever paper), with whatever LLM is configured,
or none.

Each step is one function in its own module; this module only wires them and records the trace:
1 kgqa.runtime.steps.s1_target_type, 2 kgqa.runtime.steps.s2_text2cypher.write_cypher, 3
kgqa.runtime.steps.s2_text2cypher.plan_from_reply and the schema-guided plan of the entities linked in the question
(kgqa.runtime.steps.s2_fallback.linked_plan), 4-5 kgqa.runtime.steps.s4_grounding, 6
kgqa.runtime.steps.s6_graph_ranking, 7 kgqa.runtime.steps.s7_hybrid, 8 kgqa.runtime.steps.s8_rerank.rerank. Modes
(``steps``): ``vss`` = the vector strand alone (step 7 over the candidate types); ``graph`` = steps 1-6; ``hybrid`` =
1-7; ``full`` = 1-8. The question is read once (kgqa.runtime.reading.read_question): steps 1-3 and step 6's lexical
side take that reading, so that they count the same words at the same positions.

An LLM only ever adds evidence: its type is one vote beside the type the question names
(kgqa.runtime.steps.s1_target_type), its plan (asked for its own type) is grounded beside the linked entities' plan and
step 6 ranks both plans' targets by their votes, and the lexical terms come from the question, not from a plan's
constants. Once grounded, a strong LLM plan may settle the type against step 1's reading; a plan of another type than
the settled one stays in the ranking, behind it (kgqa.runtime.steps.s1_type_evidence). A failing LLM never
loses the question: step 1 falls back to the type the question names or embeddings, a step-2/3 failure leaves the linked
plan alone (with ``plan_fallback`` off, the LLM's plan alone: the graph strand may stay empty and the vector strand fill
all k), a step-8 failure keeps the merged order; each such step is marked ``degraded`` with the reason. Errors of the
store or the embedder still raise. The API checks every question before it calls :func:`run`
(:func:`kgqa.api.check_question`): one too long or not text is refused with a QuestionError before anything is
embedded, asked or read.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace

import numpy as np

from kgqa.config import hidden_labels
from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.plan import Dropped, QueryPlan
from kgqa.cypher.sanitize import SanitizedPlan
from kgqa.errors import LlmError
from kgqa.runtime.context import Context, Options
from kgqa.runtime.pipeline.grounding import (
    ASK_BUDGET_RESERVE,
    Planned,
    answer_label,
    ground_plans,
    linked,
    no_plan,
    whose,
)
from kgqa.runtime.reading import Reading, read_question
from kgqa.runtime.scoring import Lexical
from kgqa.runtime.steps.s1_target_type import (
    NO_LINKS,
    SURE_LINK,
    Linked,
    TargetType,
    fallback_type,
    predict_target_type,
)
from kgqa.runtime.steps.s1_type_evidence import rivals_of
from kgqa.runtime.steps.s2_conditions import read_conditions
from kgqa.runtime.steps.s2_fallback import QuestionLinks, lead_in, linked_plan, question_links
from kgqa.runtime.steps.s2_relation_meaning import says_hierarchy
from kgqa.runtime.steps.s2_schema_plan import reachable_labels, unreached
from kgqa.runtime.steps.s2_spans import span_cap
from kgqa.runtime.steps.s2_text2cypher import ANSWER_LABEL, plan_from_reply, unusable, write_cypher
from kgqa.runtime.steps.s4_grounding import (
    NAMES_NO_NODE,
    constant_vectors,
    names_no_node,
    plans_candidates,
)
from kgqa.runtime.steps.s6_graph_ranking import GraphRanking, rank_graph_strand
from kgqa.runtime.steps.s6_lexical import search_terms
from kgqa.runtime.steps.s7_hybrid import as_fill, hybrid_merge
from kgqa.runtime.steps.s7_vector import vector_strand
from kgqa.runtime.steps.s8_rerank import rerank, rerank_documents
from kgqa.runtime.store.deadline import Deadline, reads_within
from kgqa.runtime.trace import StepTrace, Trace
from kgqa.types import Candidate


def run(
    ctx: Context, question: str, options: Options, doc_vector: np.ndarray | None = None
) -> tuple[list[Candidate], Trace]:
    """Answer ``question``: the ranked candidates and the trace of all 8 steps.

    Two question vectors: the embedder's (step 1's type similarity, step 6's similarity to the documents' stored
    ``plain_emb``, and the name side) and the one searched against the document index (step 6's preselection, step 7):
    ``doc_vector`` when given (the SKB's document vectors may come from another model, e.g. STaRK's precomputed
    embeddings, whose question vectors come with them), else the embedder's."""
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
    if ctx.pending is not None:
        trace.documents = (
            f"{ctx.pending}: the vector strand (step 7), step 6's document similarity and preselection, and the "
            "linking of quoted descriptions ran without document vectors"
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
            strand = vector_strand(ctx.store, ctx.skb, doc_question, options.types, options.k, documents=ctx.documents)
            answers = as_fill(strand, "similarity")
            record.detail = f"{len(answers)} answers over {', '.join(options.types)}"
        with trace.step(8, skipped="steps=vss"):
            pass
        return answers, trace

    reading = read_question(question, ctx.respell)  # steps 1-3 and 6 read the question's words from here, once
    start = time.perf_counter()
    found = question_links(ctx, reading) if ctx.llm is None or ctx.config.plan_fallback else None
    linking = time.perf_counter() - start  # the linked plan's time, counted in step 3 as the plan's
    with trace.step(1) as record:
        choice = target_type(ctx, reading, options, question_vector, record, found)
    trace.target_type = choice.label
    plans = _plans(ctx, reading, choice, trace, found, linking)
    keep = options.k if options.steps == "graph" else round(options.alpha * options.k)
    vectors = (question_vector, doc_question)
    linked = next((p.plan for p in plans if p.source == "linked"), None)
    lexical = lexical_signal(ctx, reading, linked)
    context = lead_in(reading, found)
    spoken = {link.search: link.similarity for link in found.links} if found is not None else {}
    ranking, target = _graph_strand(ctx, plans, vectors, lexical, options, keep, trace, choice, context, spoken)
    trace.target_type = target
    if options.steps == "graph":
        with trace.step(7, skipped="steps=graph"):
            pass
        answers = ranking.kept
    else:
        with trace.step(7) as record:
            fusion = ctx.config.fusion
            answers, note = hybrid_merge(
                ctx.store,
                ctx.skb,
                vectors,
                target,
                ranking,
                options.k,
                lexical=lexical,
                fusion=fusion,
                documents=ctx.documents,
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


def target_type(
    ctx: Context,
    reading: Reading,
    options: Options,
    question_vector: np.ndarray,
    record: StepTrace,
    found: QuestionLinks | None,
) -> TargetType:
    """Step 1, recorded on ``record`` (kgqa explain runs it too, so that its step 2 gets the same target type);
    ``found``: the entities linked in the question, where the linked plan is made (a type word in a linked name names
    no answer type; the hierarchy a step word walks from one of them names it where nothing else does). The choice
    carries the LLM's vote and the learned reader's probabilities (the prior of each type): where step 1 outvotes
    the LLM, its grounded plan may still settle the type (:func:`_graph_strand`)."""
    if len(options.types) == 1:
        record.detail = f"{options.types[0]} (the only candidate type)"
        return TargetType(options.types[0], "only")
    temperature = ctx.config.llm_temperature
    learned = None
    if ctx.reader is not None:
        asking = reading.asking  # most often the whole question, whose vector is ``question_vector``
        vector = question_vector if asking == reading.text else ctx.embedder.embed_one(asking)
        learned = ctx.reader.types.probabilities(asking, vector, options.types)
    linked = NO_LINKS
    if found is not None:
        names = tuple((link.span, link.label) for link in found.links)
        reachable = reachable_labels(reading, found.links, ctx.graph, found.nouns, SURE_LINK)
        family = found.family
        named = (family.label, " ".join(family.words)) if family is not None else None
        linked = Linked(names, found.hierarchy, reachable, named)
    try:
        choice = predict_target_type(
            reading,
            options.types,
            llm=ctx.llm,
            embedder=ctx.embedder,
            question_vector=question_vector,
            temperature=temperature,
            learned=learned,
            linked=linked,
        )
    except LlmError as exc:
        choice = fallback_type(reading, options.types, ctx.embedder, question_vector, str(exc), learned, linked)
        record.degrade(f"{choice.detail}: {choice.label}")
        return _in_doubt(replace(choice, prior=learned), reading, options, linked, found)
    choice = _in_doubt(replace(choice, prior=learned), reading, options, linked, found)
    if choice.completion is not None:
        record.usage.add(choice.completion)
    if choice.method not in ("only", "given", "llm", "outvoted"):  # no LLM, or its reply named no type
        record.degrade(f"{choice.detail}: {choice.label}")
    elif choice.method == "outvoted":
        record.detail = f"{choice.label} ({choice.detail})"
    else:
        record.detail = f"{choice.label} ({choice.method})"
    return choice


def _in_doubt(
    choice: TargetType, reading: Reading, options: Options, linked: Linked, found: QuestionLinks | None
) -> TargetType:
    """``choice`` with the types it is in doubt against (:func:`kgqa.runtime.steps.s1_type_evidence.rivals_of`),
    where the question links entities whose plans can settle them."""
    if found is None:
        return choice
    walked = linked.hierarchy[0] if linked.hierarchy is not None else None
    unwalked = walked is None and not says_hierarchy(reading.lowered)
    sure = [link.label for link in found.links if link.similarity >= SURE_LINK]
    own_only = unwalked and bool(sure) and set(sure) == {choice.label}
    rivals = rivals_of(choice, options.types, walked, own_only)
    return replace(choice, rivals=rivals, unwalked=unwalked, walked=walked)


def _plans(
    ctx: Context, reading: Reading, choice: TargetType, trace: Trace, found: QuestionLinks | None, linking: float
) -> list[Planned]:
    """Steps 2-3: the LLM's plan (if there is an LLM and :func:`llm_plan_refusal` finds its reply's plan fit to
    ground), asked for the LLM's own type (``choice.vote``), and, without an LLM or with ``plan_fallback``, the
    schema-guided plan of the linked entities (``found``, linked in ``linking`` seconds) for step 1's type; where step
    1 set the LLM's type aside, the linked entities' plan for that type too (``linked (TYPE)``): both types' plans are
    grounded, and the evidence settles which type answers (:func:`_graph_strand`). The LLM's first."""
    target = choice.label
    asked = choice.vote or target
    sanitized = _llm_plan(ctx, reading.text, asked, trace) if ctx.llm is not None else None
    llm_plan = sanitized.plan if sanitized is not None else None
    if ctx.llm is None:
        with trace.step(2) as record:
            record.degrade("no LLM: entities linked by the name index")
        with trace.step(3) as record:
            pass
    record = trace.record(3)
    plan, links = None, ""
    if found is not None:  # linked where there is no LLM or with ``plan_fallback``
        start = time.perf_counter()
        plan, links = linked_plan(ctx, reading, target, found)
        record.seconds = round(record.seconds + linking + time.perf_counter() - start, 4)
    plans: list[Planned] = []
    if llm_plan is not None:
        why = llm_plan_refusal(llm_plan, plan)
        if why is None:
            given = sanitized is not None and any(r.kind == ANSWER_LABEL for r in sanitized.repairs)
            weight = ctx.config.llm_plan_weight
            if llm_plan.dropped:  # step 3 kept less than the LLM wrote ("NOT (d)-[...]->(e)"): a relaxation of it
                weight = min(weight, ctx.config.relaxed_weight)
                note = f"the LLM's plan lost {len(llm_plan.dropped)} part(s): weighed as a relaxation ({weight:g})"
                record.detail = f"{record.detail}; {note}".lstrip("; ")
            plans.append(Planned("llm", llm_plan, weight, given))
            trace.plan = asdict(llm_plan)
            answers = answer_label(llm_plan)
            if answers != target:
                note = f"the LLM's plan answers {answers or 'any node'}, step 1 reads {target}: grounded, weighed after"
                record.detail = f"{record.detail}; {note}".lstrip("; ")
        else:
            record.degrade(f"{record.detail}; {why}".lstrip("; "))
    if ctx.llm is not None and not ctx.config.plan_fallback:
        return plans
    if ctx.llm is None:
        step2 = trace.record(2)
        step2.degrade(f"no LLM: entities linked by the name index: {links}")
        note_link_cap(ctx, reading, trace, step2)
    others = list(dict.fromkeys([*([asked] if asked != target else []), *choice.rivals]))
    if found is not None and others:  # the types step 1 set aside or is in doubt against get linked plans too
        start = time.perf_counter()
        for label in others:
            other, _ = linked_plan(ctx, reading, label, found)
            if other is not None:
                plans.append(Planned(f"linked ({label})", other, 1.0))
                whose = f"the LLM's {label}" if label == asked else label
                record.detail = f"{record.detail}; the linked entities' plan for {whose} too".lstrip("; ")
        record.seconds = round(record.seconds + time.perf_counter() - start, 4)
    if plan is None:
        why = f"no linked entity ({links}) is connected to {target} by the schema"
        record.degrade(f"{record.detail}; {why}".lstrip("; ") if ctx.llm is not None else f"no LLM: {why}")
        return plans
    shown = f"the schema-guided plan of the linked entities ({links}) with {len(plan.triplets)} triplet(s)"
    if ctx.llm is None:
        record.degrade(f"no LLM: schema-guided plan with {len(plan.triplets)} triplet(s)")
    elif plans:
        record.detail = f"{record.detail}; beside it, {shown}".lstrip("; ")
    else:
        record.degrade(f"{record.detail}; {shown} alone".lstrip("; "))
    if ctx.llm is not None:
        note_link_cap(ctx, reading, trace, record)
    note_unjoined([d for d in plan.dropped if not unreached(d)], trace, record)
    for d in (d for d in plan.dropped if unreached(d)):
        record.detail = f"{record.detail}; not joined: {d.text}, {d.reason} (its words stay with the full text)"
    plans.append(Planned("linked", plan, 1.0))
    trace.plan = trace.plan if trace.plan is not None else asdict(plan)
    return plans


def _llm_plan(ctx: Context, question: str, target: str, trace: Trace) -> SanitizedPlan | None:
    """Steps 2-3 with an LLM: its Cypher and the plan step 3 makes of it (None: no Cypher, or none that parses;
    recorded). Whether that plan is grounded is :func:`llm_plan_refusal`'s to say."""
    assert ctx.llm is not None
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
            with trace.step(3) as step3:
                step3.degrade("no Cypher from step 2")
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
        parts = [f"{r.kind} {r.original!r} -> {r.replacement!r}" for r in sanitized.repairs]
        parts += [f"dropped {d.text!r}: {d.reason}" for d in sanitized.plan.dropped]
        record.detail = "; ".join(parts)
        return sanitized


def llm_plan_refusal(plan: QueryPlan, linked: QueryPlan | None) -> str | None:
    """Why ``kgqa ask`` does not ground the LLM's ``plan`` (``kgqa explain QUESTION`` refuses it for the same
    reason), or None: it cannot be grounded (:func:`kgqa.runtime.steps.s2_text2cypher.unusable`), or it names no
    constant while the ``linked`` entities' plan is grounded beside it (:func:`unanchored`). A plan whose answer is
    not of step 1's type is grounded: it is evidence of its own type (kgqa.runtime.steps.s1_type_evidence)."""
    return unusable(plan) or (unanchored(plan) if linked is not None else None)


def unanchored(plan: QueryPlan) -> str | None:
    """Why an LLM's plan that names no constant is not grounded beside the linked entities' plan, or None: it
    matches every node of its answer type that has its pattern (thousands, up to ``pattern_limit``), which says
    nothing about this question's entities, and all of them would tie at l = 1 with the linked plan's targets."""
    if plan.constants:
        return None
    return "the LLM's plan names no constant (it matches every node with its pattern): not grounded"


def note_link_cap(ctx: Context, reading: Reading, trace: Trace, record: StepTrace) -> None:
    """Entity linking ran on the question (``reading``) for ``record``'s step: when ``max_link_ngrams`` cut its
    spans, the step is degraded (a later part of the question was not linked) and the trace's ``bounds`` say so."""
    cap = span_cap(reading, ctx.graph.labels, ctx.config.max_link_ngrams)
    if cap is None:
        return
    note = cap.describe()
    if note not in trace.bounds:
        trace.bounds.append(note)
    record.degrade(f"{record.detail}; {note}".lstrip("; "))


SHOWN = 3
"""Entities a note names before it counts the rest."""


def note_unjoined(dropped: Sequence[Dropped], trace: Trace, record: StepTrace) -> None:
    """The linked entities' plan left links out (``max_triplets``,
    kgqa.runtime.steps.s2_schema_plan.schema_guided_plan): ``record``'s step is degraded and the trace's ``bounds`` say
    which."""
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
    plans: Sequence[Planned],
    question_vectors: tuple[np.ndarray, np.ndarray],
    lexical: Lexical | None,
    options: Options,
    keep: int,
    trace: Trace,
    choice: TargetType,
    context: frozenset[str] = frozenset(),
    spoken: Mapping[str, float] | None = None,
) -> tuple[GraphRanking, str]:
    """Steps 4-6: each plan's candidates and grounding, then one ranking of their targets by the plans' votes, and
    the answer type the grounded plans settle (:func:`kgqa.runtime.steps.s1_type_evidence.decide_type` on step 1's
    ``choice``, recorded on step 1).
    ``question_vectors``: the embedder's and the document index's (see :func:`run`); ``lexical``: step 6's
    full-text side. Where the linked plan grounds fewer than k, its relaxations without each entity of ``context``
    (:func:`lead_in`) are grounded first, and those without the question's own entities only where they ground
    fewer than k together: "The scan showed short long bones and the lab offers FGFR3 testing. Diseases associated
    with FGFR3?" asks for FGFR3's 25 diseases, not for the 105 with short long bones beside them."""
    if not plans:
        return no_plan(trace, (4, 5, 6), "no plan"), choice.label
    started = time.monotonic()  # steps 4-7 keep ask_budget together; step 5 leaves steps 6-7 their share
    deadline = Deadline(started + ctx.config.ask_budget * (1 - ASK_BUDGET_RESERVE), "ask_budget")
    with trace.step(4) as record:
        exclusions = list(dict.fromkeys(e for p in plans for e in p.plan.excluded))
        plan_vectors = [constant_vectors(ctx.embedder, plan) for plan in [*(p.plan for p in plans), *exclusions]]
        each = plans_candidates(
            ctx.store,
            ctx.skb,
            list(zip([*(p.plan for p in plans), *exclusions], plan_vectors, strict=True)),
            ctx.graph.labels,
            options.l_max,
            aliases=ctx.aliases,
        )
        found = {p.source: (plan_vectors[i], each[i]) for i, p in enumerate(plans)}
        excluded_found = dict(zip(exclusions, each[len(plans) :], strict=True))
        record.detail = "; ".join(
            whose(p.source, plans)
            + ", ".join(f"{symbol}: {len(pairs)} candidates" for symbol, pairs in found[p.source][1].items())
            for p in plans
        )
        unnamed = [p.source for p in plans if not linked(p) and names_no_node(found[p.source][1])]
        if unnamed:
            record.detail += (
                f"; {', '.join(unnamed)}: no constant names a node (all under {NAMES_NO_NODE}), not grounded"
            )
            plans = [p for p in plans if p.source not in unnamed]
    if not plans:
        return no_plan(trace, (5, 6), "no plan names a node"), choice.label
    with trace.step(5) as record, reads_within(deadline):
        groundings, excluded, details, near, spent, decision = ground_plans(
            ctx,
            plans,
            found,
            excluded_found,
            question_vectors,
            lexical,
            options,
            trace,
            choice,
            context,
            deadline,
            spoken or {},
        )
        record.detail = "; ".join(details)
        if trace.plans:
            trace.query, trace.params = trace.plans[0]["query"], trace.plans[0]["params"]
        if spent:
            note = (
                f"ask_budget: steps 4-7 may take {ctx.config.ask_budget:g} s, step 5 "
                f"{ctx.config.ask_budget * (1 - ASK_BUDGET_RESERVE):g} s of them; {'; '.join(spent)}"
            )
            trace.bounds.append(note)
            record.degrade(f"{record.detail}; {note}")
        elif any(g.result.incomplete for g in groundings):  # fewer targets than a plan matched
            record.degrade(record.detail)
    with trace.step(6) as record:
        question_vector, doc_question = question_vectors
        ranking = rank_graph_strand(
            groundings,
            ctx.store,
            ctx.skb,
            question_vector,
            keep=keep,
            keep_corroborated=options.k,
            cap=ctx.config.graph_rank_cap,
            doc_vector=doc_question,
            lexical=lexical,
            excluded=excluded.ruled_out(groundings),
            reached={label: reach for label, (reach, cut) in near.items() if not cut},
            documents=ctx.documents,
        )
        record.detail = ranking.detail
    if decision.detail:
        step1 = trace.record(1)
        step1.detail = f"{step1.detail}; grounded: {decision.detail}".lstrip("; ")
    return ranking, decision.label


def lexical_signal(ctx: Context, reading: Reading, plan: QueryPlan | None) -> Lexical | None:
    """Steps 6-7's lexical side: the question's words not covered by the constants of ``plan``, the linked
    entities' plan (all of them without one), if the graph has full-text indexes and ``lexical_weight`` is on. An
    LLM's constants never take words away: one that turns the textual condition into a constant would otherwise
    swallow the words that decide the answer."""
    if not ctx.config.lexical_weight or not ctx.schema.has_text_index:
        return None
    covered = [c.search_string or "" for c in plan.constants] if plan is not None else []
    types = sorted({t for _, t, _ in ctx.graph.relationships})
    conditions = read_conditions(reading, ctx.graph.labels, covered)
    terms = search_terms(
        reading, covered, ctx.graph.labels, types, stated=conditions.stated, prefixes=conditions.prefixes
    )
    stated = bool(conditions.stated or conditions.prefixes)
    return Lexical(tuple(terms), ctx.config.lexical_weight, stated)


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
    return reranked(outcome.order, options.reranker)


def reranked(order: Sequence[Candidate], reranker: str) -> list[Candidate]:
    """Step 8's order with the score it makes: the reciprocal of the rank the reranker gave (it replaces steps
    1-7's fused score, which stays in ``why``)."""
    return [
        replace(c, fused=1.0 / rank, why=f"{reranker} rerank placed it {rank}; steps 1-7: {c.why}")
        for rank, c in enumerate(order, 1)
    ]
