"""``kgqa explain``: what kgqa makes of a Cypher text: plan, drops, repairs, and the compiled query with parameters.

With a QUESTION instead of a Cypher text it runs method steps 1-3 through the very functions ``kgqa ask`` runs
(kgqa.runtime.pipeline.target_type, kgqa.runtime.steps.s2_text2cypher.write_cypher and plan_from_reply, on the context
of :meth:`kgqa.runtime.app.Kgqa.prepare`), so it shows exactly the prompt, reply and plan of ``kgqa ask`` for the same
question and settings. It explains the LLM's plan: where that plan is unusable it says so, where ``kgqa ask`` would fall
back to the linked entities' plan (``kgqa ask --explain`` shows that one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kgqa.config import hidden_labels
from kgqa.cypher.compile import pattern_query
from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.sanitize import GraphSchema, Mode, SanitizedPlan
from kgqa.runtime.llm import Usage
from kgqa.runtime.pipeline import llm_plan_refusal, target_type
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s2_fallback import linked_plan, question_links
from kgqa.runtime.steps.s2_text2cypher import plan_from_reply, write_cypher
from kgqa.runtime.steps.s4_grounding import (
    at_scope,
    constant_vectors,
    exact_names,
    names_no_node,
    plan_candidates,
    weak_constants,
)
from kgqa.runtime.store.base import graph_schema
from kgqa.runtime.store.neo4j import browser_statement
from kgqa.runtime.trace import STEP_NAMES, StepTrace
from kgqa.types import Dialect, Explanation, GeneratedCypher

if TYPE_CHECKING:
    from kgqa.runtime.engine import Engine


def explain(
    kg: Engine, skb: str, cypher: str, *, scope: int, mode: Mode = "strict", dialect: Dialect = "falkordb"
) -> Explanation:
    """Step 3 as ``kgqa ask`` runs it (:func:`kgqa.runtime.steps.s2_text2cypher.plan_from_reply`: parse, the
    answer-variable repair, sanitize against the live schema), then compile; constants get their first ``scope``
    candidates."""
    schema = graph_schema(kg.schema(skb))
    sanitized = plan_from_reply(cypher, schema, None, mode, max_triplets=kg.config.max_triplets)
    return compile_plan(kg, skb, schema, sanitized, scope=scope, dialect=dialect)


def compile_plan(
    kg: Engine, skb: str, schema: GraphSchema, sanitized: SanitizedPlan, *, scope: int, dialect: Dialect = "falkordb"
) -> Explanation:
    """Compile a sanitized plan as step 5 does, with each constant's first ``scope`` candidates (step 4), or all its
    exact name matches where more tie (:func:`kgqa.runtime.steps.s4_grounding.at_scope`).

    The candidates always come from the SKB loaded in the embedded store, whatever the dialect: the Neo4j text is
    what kgqa would send to a Neo4j (release ``config.neo4j_version``) holding the same SKB, with the same
    parameters.
    """
    query = pattern_query(sanitized.plan, schema.keys, limit=kg.config.pattern_limit)
    params = dict(query.params)
    weak: tuple[str, ...] = ()
    unnamed = False
    if query.constant_params:
        kg.store.await_indexes(skb)
        vectors = constant_vectors(kg.embedder, sanitized.plan)
        aliases = kg.config.link_aliases and kg.store.schema(skb).has_aliases
        depth = max(scope, kg.config.l_max)  # the lists ``kgqa ask`` reads, so that ties and order are the same
        candidates = plan_candidates(kg.store, skb, sanitized.plan, vectors, schema.labels, depth, aliases=aliases)
        params.update(
            {
                query.constant_params[name]: [m.id for m in at_scope(matches, scope, exact_names(matches))]
                for name, matches in candidates.items()
            }
        )
        weak = weak_constants(candidates, kg.config.link_threshold)
        unnamed = names_no_node(candidates)
    if dialect == "falkordb":
        return Explanation(sanitized.plan, sanitized.repairs, dialect, query.text, params, weak=weak, unnamed=unnamed)
    text, browser = browser_statement(query.text, params, kg.config.neo4j_version)
    return Explanation(sanitized.plan, sanitized.repairs, dialect, text, params, browser, weak=weak, unnamed=unnamed)


def explain_question(
    kg: Engine,
    skb: str,
    question: str,
    *,
    scope: int,
    types: Sequence[str] | None = None,
    dialect: Dialect = "falkordb",
) -> Explanation:
    """Steps 1-3 for ``question`` exactly as ``kgqa ask`` runs them, then the compiled query of the LLM's plan and,
    ``beside`` it, of the linked entities' plan ``kgqa ask`` grounds too. Without an LLM, the linked entities' plan
    alone (``generated`` is None), which is what ``kgqa ask`` grounds then. Raises LlmError when the LLM fails,
    CypherSyntaxError when its reply gives no usable plan, or without an LLM when nothing in the question links."""
    ctx, options = kg.prepare(skb, types=types)
    step1 = StepTrace(1, STEP_NAMES[1])
    reading = read_question(question, ctx.respell)
    found = question_links(ctx, reading) if ctx.llm is None or ctx.config.plan_fallback else None
    choice = target_type(ctx, reading, options, kg.embedder.embed_one(question), step1, found)
    target = choice.label
    asked = choice.vote or target  # step 2 asks for the LLM's own type, as kgqa ask does
    if ctx.llm is None:  # what ``kgqa ask`` grounds without an LLM: the linked entities' plan (always linked then)
        linked = linked_plan(ctx, reading, target, found)[0] if found is not None else None
        if linked is None:
            raise CypherSyntaxError(
                f"no entity named in the question is linked to the graph near its answer type '{target}', so there "
                "is no plan to explain (kgqa ask answers it by document similarity alone); with an LLM ('llm') it "
                "writes the Cypher, or pass a Cypher text"
            )
        return compile_plan(
            kg, skb, ctx.graph, SanitizedPlan(linked, (), ctx.config.cypher_mode), scope=scope, dialect=dialect
        )
    reply = write_cypher(
        ctx.llm,
        ctx.store,
        skb,
        ctx.schema,
        question,
        asked,
        hidden=hidden_labels(ctx.config, skb),
        temperature=ctx.config.llm_temperature,
    )
    usage = Usage()
    usage.merge(step1.usage)
    usage.add(reply.completion)
    text = reply.completion.text
    generated = GeneratedCypher(question, asked, ctx.llm.name, reply.prompt, text, usage)
    fallback = " (kgqa ask grounds the linked entities' plan alone: see kgqa ask --explain)"
    try:
        mode, most = ctx.config.cypher_mode, ctx.config.max_triplets
        sanitized = plan_from_reply(text, ctx.graph, asked, mode, max_triplets=most)
        linked = linked_plan(ctx, reading, target, found)[0] if found is not None else None
        why = llm_plan_refusal(sanitized.plan, linked)
        if why is not None:
            raise CypherSyntaxError(why)
        result = compile_plan(kg, skb, ctx.graph, sanitized, scope=scope, dialect=dialect)
    except CypherSyntaxError as exc:
        raise CypherSyntaxError(f"{exc} in the LLM's reply {text[:300]!r}{fallback}") from exc
    beside = None
    if linked is not None:
        plan = SanitizedPlan(linked, (), ctx.config.cypher_mode)
        beside = compile_plan(kg, skb, ctx.graph, plan, scope=scope, dialect=dialect)
    return replace(result, generated=generated, beside=beside)
