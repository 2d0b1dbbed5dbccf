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
from dataclasses import asdict, dataclass, replace

import numpy as np

from kgqa.config import hidden_labels
from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.plan import Dropped, QueryPlan
from kgqa.cypher.sanitize import SanitizedPlan
from kgqa.errors import LlmError, StoreTimeoutError
from kgqa.runtime.context import Context, Options
from kgqa.runtime.reading import Reading, read_question
from kgqa.runtime.scoring import Lexical, lexical_scores
from kgqa.runtime.steps.s1_target_type import (
    NO_LINKS,
    SURE_LINK,
    Linked,
    TargetType,
    fallback_type,
    predict_target_type,
)
from kgqa.runtime.steps.s1_type_evidence import (
    PlanEvidence,
    TypeDecision,
    decide_type,
    off_type,
    off_type_weight,
    rivals_of,
)
from kgqa.runtime.steps.s2_conditions import read_conditions
from kgqa.runtime.steps.s2_fallback import QuestionLinks, lead_in, linked_plan, question_links
from kgqa.runtime.steps.s2_relation_meaning import says_hierarchy, type_kinds
from kgqa.runtime.steps.s2_schema_plan import reachable_labels, relaxations, unreached
from kgqa.runtime.steps.s2_spans import span_cap
from kgqa.runtime.steps.s2_text2cypher import ANSWER_LABEL, plan_from_reply, unusable, write_cypher
from kgqa.runtime.steps.s4_grounding import (
    NAMES_NO_NODE,
    Bounds,
    Degrees,
    Excluded,
    GroundingResult,
    NodeMatch,
    PlanGrounding,
    constant_vectors,
    first_round_walk,
    ground,
    ground_exclusions,
    names_no_node,
    plans_candidates,
    weak_constants,
)
from kgqa.runtime.steps.s6_graph_ranking import PRESELECT_FACTOR, GraphRanking, rank_graph_strand, reach_of
from kgqa.runtime.steps.s6_lexical import search_terms
from kgqa.runtime.steps.s7_hybrid import as_fill, hybrid_merge
from kgqa.runtime.steps.s7_vector import vector_strand
from kgqa.runtime.steps.s8_rerank import rerank, rerank_documents
from kgqa.runtime.store.deadline import Deadline, reads_within
from kgqa.runtime.text import HIERARCHY
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


@dataclass(frozen=True)
class Planned:
    """A plan steps 4-6 ground and rank: whose (``llm`` or ``linked``), its vote's weight in step 6, and whether step
    3 gave its answer the type the LLM was asked for (``given``: the LLM wrote none the schema has), so that its
    answer type is no evidence of the LLM's reading."""

    source: str
    plan: QueryPlan
    weight: float
    given: bool = False


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


def answer_label(plan: QueryPlan) -> str | None:
    """The label of a plan's answer (None: an unlabelled answer, or none)."""
    labels = plan.symbol(plan.target).labels if plan.target is not None else ()
    return labels[0] if labels else None


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
        return _no_plan(trace, (4, 5, 6), "no plan"), choice.label
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
            _whose(p.source, plans)
            + ", ".join(f"{symbol}: {len(pairs)} candidates" for symbol, pairs in found[p.source][1].items())
            for p in plans
        )
        unnamed = [p.source for p in plans if not _linked(p) and names_no_node(found[p.source][1])]
        if unnamed:
            record.detail += (
                f"; {', '.join(unnamed)}: no constant names a node (all under {NAMES_NO_NODE}), not grounded"
            )
            plans = [p for p in plans if p.source not in unnamed]
    if not plans:
        return _no_plan(trace, (5, 6), "no plan names a node"), choice.label
    with trace.step(5) as record, reads_within(deadline):
        groundings, excluded, details, near, spent, decision = _ground_plans(
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


def _best_links(
    found: dict[str, list[NodeMatch]], plan: QueryPlan | None = None, spoken: Mapping[str, float] | None = None
) -> list[tuple[str, float]]:
    """Each constant's best candidate by step 4 (its name, or the symbol where it has none) and how similar it is
    (1.0 where found by its name or alias as written), at most as similar as the question's words were to that name
    (``spoken``: step 2's similarity of the span by each search string of ``plan``)."""
    searched = {c.name: c.search_string or "" for c in plan.constants} if plan is not None else {}
    bound = {symbol: (spoken or {}).get(searched.get(symbol, ""), 1.0) for symbol in found}
    return [
        (m[0].name, min(bound[symbol], 1.0 if m[0].exact else m[0].similarity)) if m else (symbol, 0.0)
        for symbol, m in found.items()
    ]


def _linked(p: Planned | PlanGrounding) -> bool:
    """Whether ``p`` is a linked entities' plan (step 1's type's, or another type's: :func:`_witness`)."""
    return p.source == "linked" or _witness(p.source)


def _witness(source: str) -> bool:
    """Whether ``source`` is the linked entities' plan for a type other than step 1's (``linked (TYPE)``:
    :func:`_plans`): the LLM's type step 1 set aside, or a type step 1 is in doubt against
    (:attr:`TargetType.rivals`)."""
    return source.startswith("linked (")


ASK_BUDGET_RESERVE = 0.25
"""The share of ``ask_budget`` step 5 leaves to steps 6-7 (their time on HPO: docs/limits.md; more where a document
index is paged in first)."""


def _ground_plans(
    ctx: Context,
    plans: Sequence[Planned],
    found: dict[str, tuple[dict[str, np.ndarray], dict[str, list[NodeMatch]]]],
    excluded_found: dict[QueryPlan, dict[str, list[NodeMatch]]],
    question_vectors: tuple[np.ndarray, np.ndarray],
    lexical: Lexical | None,
    options: Options,
    trace: Trace,
    choice: TargetType,
    context: frozenset[str],
    deadline: Deadline,
    spoken: Mapping[str, float],
) -> tuple[list[PlanGrounding], Excluded, list[str], dict[str, tuple[dict[str, int], str]], list[str], TypeDecision]:
    """Step 5: each plan's grounding, the answer type they settle (:func:`settle_type`), the exclusions, then the
    relaxations of the linked plan of that type where it grounds fewer than k (:func:`_graph_strand`), each only
    while ``deadline`` (``ask_budget``) leaves time. Returns the groundings, the exclusions, step 5's detail, the
    nodes a relaxation was grounded among (step 6 reuses them), what the budget cut (empty where it cut nothing) and
    the type decision."""
    groundings: list[PlanGrounding] = []
    degrees = Degrees(ctx.store, ctx.skb)
    near: dict[str, tuple[dict[str, int], str]] = {}
    details: list[str] = []
    spent: list[str] = []
    bounds = Bounds(ctx.config.round_cost_cap, ctx.config.expansion_stall, deadline)
    relaxing: list[tuple[Planned, int]] = []
    kept_exclusions = {e: excluded_found[e] for p in plans for e in p.plan.excluded}
    for number, p in enumerate(plans):
        vectors, candidates = found[p.source]
        joint = _linked(p) and len(p.plan.constants) > 1
        l_max = min(options.l_max, ctx.config.joint_l_max) if joint else options.l_max
        if deadline.left <= 0:
            spent.append(f"{p.source}'s plan not grounded")
            details.append(f"{_whose(p.source, plans)}not grounded: nothing left of ask_budget")
            continue
        # an even share of what is left for each plan still to ground and the exclusions: an LLM's plan that walks
        # half the graph leaves the linked plan its turn
        share = deadline.left / (len(plans) - number + bool(kept_exclusions))
        own = replace(deadline, at=time.monotonic() + share)
        with reads_within(own):
            grounding = _ground(
                ctx, p, vectors, candidates, options.k, l_max, trace, degrees, bounds=replace(bounds, deadline=own)
            )
        groundings.append(grounding)
        details.append(_whose(p.source, plans) + _rounds(grounding))
        if _cut_by_budget(grounding.result):
            spent.append(f"{p.source}'s rounds cut")
        if joint and len(grounding.result.targets) < options.k:
            relaxing.append((p, l_max))
    given = frozenset(p.source for p in plans if p.given)
    matches, unread = condition_matches(ctx, groundings, lexical) if choice.rivals else ({}, [])
    details += unread
    groundings, decision = settle_type(groundings, found, choice, trace, given, matches, spoken)
    relaxing = [(p, l_max) for p, l_max in relaxing if answer_label(p.plan) == decision.label]
    if kept_exclusions and deadline.left <= 0:  # the answers stand unexcluded, as when an exclusion times out
        spent.append("exclusions not grounded")
        details.append("exclusions not grounded: nothing left of ask_budget")
        kept_exclusions = {}
    excluded = ground_exclusions(ctx.store, ctx.skb, kept_exclusions, ctx.graph, limit=ctx.config.pattern_limit)
    details += [f"excluded: {shown}" for shown in excluded.shown]
    spent += [f"exclusion {shown}" for shown in excluded.shown if "ask_budget" in shown]
    for p, l_max in relaxing:
        vectors, candidates = found[p.source]
        # the relaxations without the lead-in's entities first (a stable sort keeps their order otherwise)
        ordered = sorted(enumerate(relaxations(p.plan), 1), key=lambda r: r[1][0] not in context)
        first = sum(constant in context for _, (constant, _) in ordered)
        relaxed_targets: set[str] = set()
        for at, (number, (constant, plan)) in enumerate(ordered):
            if first and at == first and len(relaxed_targets) >= options.k:
                details.append("the question's own entities kept: without the lead-in's, k grounded")
                break
            if deadline.left <= 0:
                rest = len(ordered) - at
                spent.append(f"{rest} relaxation(s) not grounded")
                details.append(f"relaxed-{number} and after: not grounded, nothing left of ask_budget")
                break
            kept = {c.name: candidates[c.name] for c in plan.constants}
            relaxed = Planned(f"relaxed-{number}", plan, ctx.config.relaxed_weight)
            # still a join of linked entities: bounded as the whole plan is, or a plan that grounds nothing
            # walks every relaxation to l_max (step 5's worst cases)
            relaxed_l_max = l_max if len(plan.constants) > 1 else options.l_max
            try:
                within, among = _hub_alone(ctx, plan, kept, degrees, question_vectors, lexical, near)
            except StoreTimeoutError as exc:  # its preselection ran out of the budget: this one is not grounded
                spent.append(f"relaxed-{number} not grounded")
                details.append(f"relaxed-{number} (without '{constant}'): not grounded ({exc})")
                break
            grounding = _ground(
                ctx, relaxed, vectors, kept, options.k, relaxed_l_max, trace, degrees, within, bounds=bounds
            )
            relaxed_targets.update(t.id for t in grounding.result.targets)
            groundings.append(grounding)
            details.append(f"{relaxed.source} (without '{constant}'{among}): {_rounds(grounding)}")
            if _cut_by_budget(grounding.result):
                spent.append(f"{relaxed.source}'s rounds cut")
    return groundings, excluded, details, near, spent, decision


def settle_type(
    groundings: Sequence[PlanGrounding],
    found: dict[str, tuple[dict[str, np.ndarray], dict[str, list[NodeMatch]]]],
    choice: TargetType,
    trace: Trace,
    given: frozenset[str] = frozenset(),
    matches: Mapping[str, int] | None = None,
    spoken: Mapping[str, float] | None = None,
) -> tuple[list[PlanGrounding], TypeDecision]:
    """The answer type the grounded plans settle (:func:`kgqa.runtime.steps.s1_type_evidence.decide_type`) and the
    groundings with each plan of another type marked as step 6 ranks it (kgqa.runtime.scoring.OffType; a strong
    one's weight scaled by its type's prior), also in ``trace.plans``: none is dropped. The linked entities' plan
    for the type step 1 set aside is a witness for that type (it backs the LLM's plan): where that type is not
    settled it is ranked behind, or its agreement with the LLM's plan would outvote the settled type's plan.
    ``given``: the plans whose answer label step 3 gave (:class:`Planned`); ``matches``: of the linked plans, how
    many answers at l = 1 hold the stated textual condition (:func:`condition_matches`); ``spoken``: how similar
    each linked entity's span in the question is to the name or alias it linked by (step 2), which bounds how exactly
    a linked plan's constant names its node (its search string is that name, found exactly by step 4), where step 1
    is in doubt (:attr:`TargetType.rivals`)."""
    evidence = {
        g.source: PlanEvidence.of(
            g.source,
            answer_label(g.plan),
            _best_links(found[g.source][1], g.plan, spoken if _linked(g) and choice.rivals else None),
            [(t.id, t.round_l) for t in g.result.targets],
            given=g.source in given,
            matches=(matches or {}).get(g.source),
            walks=choice.unwalked and _linked(g) and _walks(g.plan),
        )
        for g in groundings
    }
    decision = decide_type(choice, list(evidence.values()))
    out = []
    for g in groundings:
        how = off_type(evidence[g.source], decision.label)
        if how == "split" and _witness(g.source):  # a witness for the type set aside, no voter
            how = "behind"
        if how:
            weight = off_type_weight(g.weight, evidence[g.source].answers, decision.label, choice.prior)
            g = replace(g, weight=weight if how == "split" else g.weight, off_type=how)
            for record in trace.plans:
                if record["source"] == g.source:
                    record["weight"], record["off_type"] = g.weight, how
        out.append(g)
    return out, decision


def _walks(plan: QueryPlan) -> bool:
    """Whether every hop of ``plan`` is a hierarchy's (:attr:`PlanEvidence.walks`)."""
    return bool(plan.triplets) and all(HIERARCHY in type_kinds(t) for triplet in plan.triplets for t in triplet.types)


CONDITION_READS = 200
"""The answers at l = 1 of one plan read for the stated textual condition (:func:`condition_matches`)."""


def condition_matches(
    ctx: Context, groundings: Sequence[PlanGrounding], lexical: Lexical | None
) -> tuple[dict[str, int], list[str]]:
    """Of each linked entities' plan, how many of its answers at l = 1 (the first :data:`CONDITION_READS`) hold the
    words of the textual condition the question states ("whose label includes 'facies'"): the evidence that tells
    which type's plan the question meant where step 1 is in doubt. Empty where it states none. A plan whose read ran
    out of time is left out (no evidence either way), named in the second list, for step 5's trace."""
    if lexical is None or not lexical.stated or not lexical.terms:
        return {}, []
    out, unread = {}, []
    for g in (g for g in groundings if _linked(g)):
        keys = [(t.label, t.id) for t in g.result.targets if t.round_l <= 1][:CONDITION_READS]
        try:
            out[g.source] = int((lexical_scores(ctx.store, ctx.skb, keys, lexical.terms) > 0).sum()) if keys else 0
        except StoreTimeoutError as exc:
            unread.append(f"{g.source}: its answers not read for {list(lexical.terms)} ({exc})")
    return out, unread


def _cut_by_budget(result: GroundingResult) -> bool:
    """Whether the ask's budget ended a plan's rounds: before a round, or through a read's time limit."""
    return result.stopped_by == "ask_budget" or "ask_budget" in result.timed_out


def _hub_alone(
    ctx: Context,
    plan: QueryPlan,
    found: dict[str, list[NodeMatch]],
    degrees: Degrees,
    question_vectors: tuple[np.ndarray, np.ndarray],
    lexical: Lexical | None,
    near: dict[str, tuple[dict[str, int], str]],
) -> tuple[list[str] | None, str]:
    """Where a relaxation leaves one constant whose first round would join more targets than step 6 ranks
    (``graph_rank_cap``: 'Seizure' alone joins 2,439 diseases), the ids it is grounded among: the nodes of its answer
    label step 6 would rank first anyway (:func:`reach_of`, read once an ask per label into ``near`` with what
    step 5's detail says of the lookup; step 6 preselects by the same lookups without reading them again); and what
    step 5's detail says of it. A relaxation is not a license to
    scan."""
    if len(plan.constants) != 1 or plan.target is None or plan.target in found or not plan.symbol(plan.target).labels:
        return None, ""
    try:
        walk = first_round_walk(degrees, plan, found)
    except StoreTimeoutError as exc:  # grounded as before the count: whole, bounded by its rounds' own limits
        return None, f"; its count ran past the time limit ({exc}): grounded whole"
    if walk is None or walk <= ctx.config.graph_rank_cap:
        return None, ""
    label = plan.symbol(plan.target).labels[0]
    if label not in near:
        terms = lexical.terms if lexical is not None and lexical.weight else ()
        depth = ctx.config.graph_rank_cap * PRESELECT_FACTOR
        try:
            reach = reach_of(ctx.store, ctx.skb, label, question_vectors[1], depth, terms, documents=ctx.documents)
            near[label] = (reach, "")
        except StoreTimeoutError as exc:  # as step 6's preselection: the full-text side is a refinement
            reach = reach_of(ctx.store, ctx.skb, label, question_vectors[1], depth, (), documents=ctx.documents)
            near[label] = (reach, f"; its full-text side ran past the time limit ({exc})")
    reach, note = near[label]
    ids = list(reach)
    (constant,) = plan.constants
    return ids, (
        f"; '{constant.search_string}' alone joins ~{walk}: grounded among the {len(ids)} {label} nodes step 6 ranks "
        f"first (bound: graph_rank_cap{note})"
    )


def _no_plan(trace: Trace, steps: Sequence[int], why: str) -> GraphRanking:
    """Steps ``steps`` skipped for ``why``, and the empty ranking step 7 fills alone."""
    for number in steps:
        with trace.step(number, skipped=why):
            pass
    return GraphRanking([], {}, why)


def _ground(
    ctx: Context,
    p: Planned,
    vectors: dict[str, np.ndarray],
    candidates: dict[str, list[NodeMatch]],
    k: int,
    l_max: int,
    trace: Trace,
    degrees: Degrees,
    within: Sequence[str] | None = None,
    *,
    bounds: Bounds,
) -> PlanGrounding:
    """Step 5 of one plan, up to ``l_max`` candidates per constant, within ``bounds``; its record in ``trace.plans``
    (and the LIMIT it reached in the trace's bounds)."""
    result = ground(
        ctx.store,
        ctx.skb,
        p.plan,
        vectors,
        ctx.graph,
        k=k,
        l_max=l_max,
        found=candidates,
        source=p.source,
        limit=ctx.config.pattern_limit,
        bounds=bounds,
        degrees=degrees,
        within=within,
    )
    weak = weak_constants(candidates, ctx.config.link_threshold)
    trace.plans.append(
        {
            "source": p.source,
            "weight": p.weight,
            "plan": asdict(p.plan),
            "query": result.query.text,
            "params": result.last_params,
            "rounds": [asdict(r) for r in result.rounds],
            "grounded": len(result.targets),
            "weak": list(weak),
            "estimated_rows": {str(scope): rows for scope, rows in result.costs.items()},
            "stopped": result.stopped,
            "off_type": "",
        }
    )
    for cut in (result.capped, result.stopped if result.stopped_by == "round_cost_cap" else ""):
        if cut and cut not in trace.bounds:  # a limit (pattern_limit, round_cost_cap) cut the plan's rounds
            trace.bounds.append(cut)
    return PlanGrounding(p.source, p.plan, result, p.weight, weak)


def _rounds(grounding: PlanGrounding) -> str:
    """A grounded plan's rounds for step 5's detail: targets per round, weak constants, why it stopped early."""
    result = grounding.result
    rounds = ", ".join(f"l={r.scope}: {r.targets}" for r in result.rounds)
    if grounding.weak:
        rounds += f"; weak constant(s) {', '.join(grounding.weak)}: rounds counted one later"
    for cut in (result.unordered, result.capped, result.stopped, result.timed_out):
        if cut:
            rounds = f"{rounds}; {cut}".lstrip("; ")
    return rounds


def _whose(source: str, plans: Sequence[Planned]) -> str:
    """A plan's name in a step's detail, where there are several."""
    return f"{source}: " if len(plans) > 1 else ""


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
