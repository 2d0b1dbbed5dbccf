"""``kgqa explain``: what kgqa makes of a Cypher text: plan, drops, repairs, and the compiled query with parameters.

With a QUESTION instead of a Cypher text it runs method steps 1-3 through the very functions ``kgqa ask`` runs
(kgqa.pipeline.target_type, kgqa.text2cypher.write_cypher and plan_from_reply, on the context of
:meth:`kgqa.app.Kgqa.prepare`), so it shows exactly the prompt, reply and plan of ``kgqa ask`` for the same question
and settings. It explains the LLM's plan: where that plan is unusable it says so, where ``kgqa ask`` would fall back
to the linked entities' plan (``kgqa ask --explain`` shows that one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from cypher.compile import pattern_query
from cypher.errors import CypherSyntaxError
from cypher.plan import QueryPlan
from cypher.sanitize import GraphSchema, Mode, Repair, SanitizedPlan
from kgqa.app import Kgqa
from kgqa.choices import StoreKind
from kgqa.config import hidden_labels
from kgqa.errors import ConfigError
from kgqa.fallback import linked_plan
from kgqa.grounding import at_scope, constant_vectors, exact_names, plan_candidates, weak_constants
from kgqa.llm import Usage
from kgqa.pipeline import llm_plan_refusal, target_type
from kgqa.store.base import graph_schema
from kgqa.store.neo4j import browser_statement
from kgqa.text2cypher import plan_from_reply, write_cypher
from kgqa.trace import STEP_NAMES, StepTrace

Dialect = StoreKind
"""Whose Cypher to show: each store speaks its own dialect."""


@dataclass(frozen=True)
class Generated:
    """QUESTION mode: steps 1-2 as ``kgqa ask`` runs them."""

    question: str
    target_type: str
    model: str
    prompt: str
    reply: str
    usage: Usage
    """LLM use of steps 1 and 2"""


@dataclass(frozen=True)
class Explanation:
    plan: QueryPlan
    repairs: tuple[Repair, ...]
    dialect: Dialect
    query: str
    params: dict[str, Any]
    browser: str | None = None
    """Neo4j only: ``:params {...}`` and the query, ready to paste into Neo4j Browser."""
    generated: Generated | None = None
    """QUESTION mode: the LLM's reply the plan was built from (method step 2)."""
    beside: Explanation | None = None
    """QUESTION mode: the schema-guided plan of the entities linked in the question, which ``kgqa ask`` grounds
    beside the LLM's (``plan_fallback``); None when no linked entity is connected to the target type."""
    weak: tuple[str, ...] = ()
    """The constants whose best candidate is no close match (kgqa.grounding.weak_constants): ``kgqa ask`` counts
    this plan's rounds one later and its vote weighs nothing."""

    def to_json(self) -> dict[str, Any]:
        plan = asdict(self.plan)
        dropped = plan.pop("dropped")
        out = {
            "plan": plan,
            "dropped": dropped,
            "repairs": [asdict(r) for r in self.repairs],
            "dialect": self.dialect,
            "query": self.query,
            "params": self.params,
        }
        if self.browser is not None:
            out["browser"] = self.browser
        if self.generated is not None:
            out["generated"] = asdict(self.generated)
        if self.beside is not None:
            out["beside"] = self.beside.to_json()
        out["weak"] = list(self.weak)
        return out


def explain(
    kg: Kgqa, skb: str, cypher: str, *, scope: int, mode: Mode = "strict", dialect: Dialect = "falkordb"
) -> Explanation:
    """Step 3 as ``kgqa ask`` runs it (:func:`kgqa.text2cypher.plan_from_reply`: parse, the answer-variable
    repair, sanitize against the live schema), then compile; constants get their first ``scope`` candidates."""
    schema = graph_schema(kg.schema(skb))
    sanitized = plan_from_reply(cypher, schema, None, mode, max_triplets=kg.config.max_triplets)
    return compile_plan(kg, skb, schema, sanitized, scope=scope, dialect=dialect)


def compile_plan(
    kg: Kgqa, skb: str, schema: GraphSchema, sanitized: SanitizedPlan, *, scope: int, dialect: Dialect = "falkordb"
) -> Explanation:
    """Compile a sanitized plan as step 5 does, with each constant's first ``scope`` candidates (step 4), or all its
    exact name matches where more tie (:func:`kgqa.grounding.at_scope`).

    The candidates always come from the SKB loaded in the embedded store, whatever the dialect: the Neo4j text is
    what kgqa would send to a Neo4j (release ``config.neo4j_version``) holding the same SKB, with the same
    parameters.
    """
    query = pattern_query(sanitized.plan, schema.keys, limit=kg.config.pattern_limit)
    params = dict(query.params)
    weak: tuple[str, ...] = ()
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
    if dialect == "falkordb":
        return Explanation(sanitized.plan, sanitized.repairs, dialect, query.text, params, weak=weak)
    text, browser = browser_statement(query.text, params, kg.config.neo4j_version)
    return Explanation(sanitized.plan, sanitized.repairs, dialect, text, params, browser, weak=weak)


def explain_question(
    kg: Kgqa,
    skb: str,
    question: str,
    *,
    scope: int,
    types: Sequence[str] | None = None,
    dialect: Dialect = "falkordb",
) -> Explanation:
    """Steps 1-3 for ``question`` exactly as ``kgqa ask`` runs them, then the compiled query of the LLM's plan and,
    ``beside`` it, of the linked entities' plan ``kgqa ask`` grounds too. Raises LlmError when the LLM fails,
    CypherSyntaxError when its reply gives no usable plan."""
    ctx, options = kg.prepare(skb, types=types)
    if ctx.llm is None:
        raise ConfigError(
            "explaining a QUESTION needs an LLM: set 'llm' (--llm openai:MODEL or llama:PATH.gguf), "
            "or pass the Cypher with --cypher"
        )
    step1 = StepTrace(1, STEP_NAMES[1])
    target = target_type(ctx, question, options, kg.embedder.embed_one(question), step1)
    reply = write_cypher(
        ctx.llm,
        ctx.store,
        skb,
        ctx.schema,
        question,
        target,
        hidden=hidden_labels(ctx.config, skb),
        temperature=ctx.config.llm_temperature,
    )
    usage = Usage()
    usage.merge(step1.usage)
    usage.add(reply.completion)
    text = reply.completion.text
    generated = Generated(question, target, ctx.llm.name, reply.prompt, text, usage)
    fallback = " (kgqa ask grounds the linked entities' plan alone: see kgqa ask --explain)"
    try:
        sanitized = plan_from_reply(
            text, ctx.graph, target, ctx.config.cypher_mode, max_triplets=ctx.config.max_triplets
        )
        linked = linked_plan(ctx, question, target)[0] if ctx.config.plan_fallback else None
        why = llm_plan_refusal(sanitized.plan, target, linked)
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
