"""The schema-guided plan of the entities linked in the question (kgqa.linking): the plan without an LLM, and the
LLM's fallback (``plan_fallback``).

With an LLM it stands in for a step-2/3 plan that is unusable, and it joins a plan that grounds fewer than k targets
at l = 1, i.e. does not match the graph as written: a small local model often invents a relation or turns the
question's free-text condition into a node constant, and its pattern then matches nothing until the scope is
widened far. The two plans' targets are then ranked by round (the scope l that grounded them: the method's measure
of how well a plan fits), the LLM's first within a round (measured in docs/results.md).
"""

from __future__ import annotations

import time
from dataclasses import asdict

from cypher.plan import QueryPlan
from kgqa.context import Context
from kgqa.grounding import GroundingResult, constant_vectors, ground, merge_groundings
from kgqa.linking import STOP_WORDS, describe, link_entities, not_entities, schema_guided_plan
from kgqa.relation_meaning import RelationMeaning, words_of
from kgqa.trace import Trace

LINKED_PREFIX = "linked."
"""Prefix of the linked plan's constant symbols in merged evidence (both plans may name a constant e0)."""


def linked_plan(ctx: Context, question: str, target: str) -> tuple[QueryPlan | None, str]:
    """The schema-guided plan of the entities the name index links in ``question``, and what was linked (for the
    trace); None when no linked entity is connected to ``target`` by the schema."""
    links = link_entities(
        question,
        ctx.store,
        ctx.skb,
        ctx.graph.labels,
        ctx.embedder,
        threshold=ctx.config.link_threshold,
        aliases=ctx.aliases,
        limit=ctx.config.max_link_ngrams,
    )
    found = ", ".join(map(describe, links)) or "none"
    _, textual = not_entities(words_of(question), ctx.graph.labels)
    spans = {i for link in links for i in range(link.start, link.end)}
    meaning = RelationMeaning(
        question,
        ctx.embedder,
        ctx.config.relation_threshold,
        ignore=STOP_WORDS,
        by_kind=ctx.config.relation_meaning,
        skip=frozenset(spans | textual),
    )
    plan = schema_guided_plan(links, target, ctx.graph, question, meaning, max_triplets=ctx.config.max_triplets)
    if meaning.choices:
        found += "; relation types: " + "; ".join(choice.describe() for choice in meaning.choices)
    return plan, found


def unconnected(links: str, target: str) -> str:
    return f"no linked entity ({links}) is connected to {target}"


def linked_plan_instead(ctx: Context, question: str, target: str, trace: Trace) -> QueryPlan | None:
    """Steps 2-3 gave no usable plan: take the linked entities' plan, noted on step 3 (which stays degraded)."""
    record = trace.record(3)
    start = time.perf_counter()
    plan, links = linked_plan(ctx, question, target)
    record.seconds = round(record.seconds + time.perf_counter() - start, 4)
    if plan is None:
        record.degrade(f"{record.detail}; no fallback: {unconnected(links, target)}")
        return None
    record.degrade(
        f"{record.detail}; fell back to the schema-guided plan of the linked entities ({links}) with "
        f"{len(plan.triplets)} triplet(s)"
    )
    trace.plan = asdict(plan)
    return plan


def ground_linked_too(
    ctx: Context, question: str, target: str, k: int, l_max: int, result: GroundingResult, trace: Trace
) -> tuple[GroundingResult, str]:
    """The LLM's plan grounded fewer than ``k`` targets at l = 1 (it did not match the graph as written): ground
    the linked entities' plan too and merge its targets by round (grounding.merge_groundings). Returns the merged
    result and what happened, for step 5's trace."""
    plan, links = linked_plan(ctx, question, target)
    why = f"the LLM's plan grounded {result.at_first_scope} (< k={k}) at l=1"
    if plan is None:
        return result, f"{why}; no fallback plan: {unconnected(links, target)}"
    vectors = constant_vectors(ctx.embedder, plan)
    aliases = ctx.aliases
    limit = ctx.config.pattern_limit
    linked = ground(
        ctx.store, ctx.skb, plan, vectors, ctx.graph, k=k, l_max=l_max, source="linked", aliases=aliases, limit=limit
    )
    trace.fallback = {"plan": asdict(plan), "query": linked.query.text, "params": linked.last_params}
    rounds = ", ".join(f"l={r.scope}: {r.targets}" for r in linked.rounds)
    for note in (linked.capped, linked.timed_out):
        if note:
            rounds = f"{rounds}; its {note}".lstrip("; ")
    merged = merge_groundings(result, linked, LINKED_PREFIX)
    merged.timed_out = result.timed_out or linked.timed_out
    merged.capped = result.capped or linked.capped
    return merged, f"{why}; merged by round with the schema-guided plan of the linked entities ({links}): {rounds}"
