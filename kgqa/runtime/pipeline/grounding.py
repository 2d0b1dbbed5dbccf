"""Step 5 as the pipeline runs it: each plan grounded within its share of the ask's budget, the answer type the
grounded plans settle, the exclusions, and the relaxations of the linked plan where it grounds fewer than k; each
plan's record in the trace (:func:`kgqa.runtime.pipeline.run` passes it)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from kgqa.cypher.plan import QueryPlan
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.context import Context, Options
from kgqa.runtime.scoring import Lexical, lexical_scores
from kgqa.runtime.steps.s1_target_type import TargetType
from kgqa.runtime.steps.s1_type_evidence import (
    PlanEvidence,
    TypeDecision,
    decide_type,
    off_type,
    off_type_weight,
)
from kgqa.runtime.steps.s2_relation_meaning import type_kinds
from kgqa.runtime.steps.s2_schema_plan import relaxations
from kgqa.runtime.steps.s4_grounding import (
    Bounds,
    Degrees,
    Excluded,
    GroundingResult,
    NodeMatch,
    PlanGrounding,
    first_round_walk,
    ground,
    ground_exclusions,
    weak_constants,
)
from kgqa.runtime.steps.s6_graph_ranking import PRESELECT_FACTOR, GraphRanking, reach_of
from kgqa.runtime.store.deadline import Deadline, reads_within
from kgqa.runtime.text import HIERARCHY
from kgqa.runtime.trace import Trace


@dataclass(frozen=True)
class Planned:
    """A plan steps 4-6 ground and rank: whose (``llm`` or ``linked``), its vote's weight in step 6, and whether step
    3 gave its answer the type the LLM was asked for (``given``: the LLM wrote none the schema has), so that its
    answer type is no evidence of the LLM's reading."""

    source: str
    plan: QueryPlan
    weight: float
    given: bool = False


def answer_label(plan: QueryPlan) -> str | None:
    """The label of a plan's answer (None: an unlabelled answer, or none)."""
    labels = plan.symbol(plan.target).labels if plan.target is not None else ()
    return labels[0] if labels else None


def best_links(
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


def linked(p: Planned | PlanGrounding) -> bool:
    """Whether ``p`` is a linked entities' plan (step 1's type's, or another type's: :func:`witness`)."""
    return p.source == "linked" or witness(p.source)


def witness(source: str) -> bool:
    """Whether ``source`` is the linked entities' plan for a type other than step 1's (``linked (TYPE)``:
    :func:`_plans`): the LLM's type step 1 set aside, or a type step 1 is in doubt against
    (:attr:`TargetType.rivals`)."""
    return source.startswith("linked (")


ASK_BUDGET_RESERVE = 0.25
"""The share of ``ask_budget`` step 5 leaves to steps 6-7 (their time on HPO: docs/limits.md; more where a document
index is paged in first)."""


def ground_plans(
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
        joint = linked(p) and len(p.plan.constants) > 1
        l_max = min(options.l_max, ctx.config.joint_l_max) if joint else options.l_max
        if deadline.left <= 0:
            spent.append(f"{p.source}'s plan not grounded")
            details.append(f"{whose(p.source, plans)}not grounded: nothing left of ask_budget")
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
        details.append(whose(p.source, plans) + rounds(grounding))
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
            details.append(f"{relaxed.source} (without '{constant}'{among}): {rounds(grounding)}")
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
            best_links(found[g.source][1], g.plan, spoken if linked(g) and choice.rivals else None),
            [(t.id, t.round_l) for t in g.result.targets],
            given=g.source in given,
            matches=(matches or {}).get(g.source),
            walks=choice.unwalked and linked(g) and _walks(g.plan),
        )
        for g in groundings
    }
    decision = decide_type(choice, list(evidence.values()))
    out = []
    for g in groundings:
        how = off_type(evidence[g.source], decision.label)
        if how == "split" and witness(g.source):  # a witness for the type set aside, no voter
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
    for g in (g for g in groundings if linked(g)):
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


def no_plan(trace: Trace, steps: Sequence[int], why: str) -> GraphRanking:
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


def rounds(grounding: PlanGrounding) -> str:
    """A grounded plan's rounds for step 5's detail: targets per round, weak constants, why it stopped early."""
    result = grounding.result
    rounds = ", ".join(f"l={r.scope}: {r.targets}" for r in result.rounds)
    if grounding.weak:
        rounds += f"; weak constant(s) {', '.join(grounding.weak)}: rounds counted one later"
    for cut in (result.unordered, result.capped, result.stopped, result.timed_out):
        if cut:
            rounds = f"{rounds}; {cut}".lstrip("; ")
    return rounds


def whose(source: str, plans: Sequence[Planned]) -> str:
    """A plan's name in a step's detail, where there are several."""
    return f"{source}: " if len(plans) > 1 else ""
