"""``kgqa explain``: what kgqa makes of a Cypher text: plan, drops, repairs, and the compiled query with parameters."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from cypher.compile import pattern_query
from cypher.dialects import neo4j
from cypher.errors import CypherSyntaxError
from cypher.parser import parse
from cypher.plan import QueryPlan
from cypher.sanitize import Mode, Repair, sanitize
from kgqa.app import Kgqa
from kgqa.errors import ConfigError
from kgqa.grounding import constant_vectors, graph_schema, plan_candidates
from kgqa.llm import Usage
from kgqa.text2cypher import generate_cypher, schema_view, with_answer_variable

Dialect = Literal["falkordb", "neo4j"]


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

    def to_json(self) -> dict[str, Any]:
        plan = asdict(self.plan)
        dropped = plan.pop("dropped")
        out = {"plan": plan, "dropped": dropped, "repairs": [asdict(r) for r in self.repairs],
               "dialect": self.dialect, "query": self.query, "params": self.params}  # fmt: skip
        if self.browser is not None:
            out["browser"] = self.browser
        if self.generated is not None:
            out["generated"] = asdict(self.generated)
        return out


@dataclass(frozen=True)
class Generated:
    question: str
    model: str
    reply: str
    usage: Usage


def explain(
    kg: Kgqa, skb: str, cypher: str, *, scope: int, mode: Mode = "strict", dialect: Dialect = "falkordb"
) -> Explanation:
    """Parse, sanitize against the live schema and compile; constants get their first ``scope`` candidates."""
    return explain_plan(kg, skb, parse(cypher), scope=scope, mode=mode, dialect=dialect)


def explain_plan(
    kg: Kgqa, skb: str, parsed: QueryPlan, *, scope: int, mode: Mode = "strict", dialect: Dialect = "falkordb",
    repairs: tuple[Repair, ...] = (),
) -> Explanation:  # fmt: skip
    """Sanitize a parsed plan against the live schema and compile it (``repairs``: those made before sanitizing).

    The candidates always come from the SKB loaded in the embedded store, whatever the dialect: the Neo4j text is
    what kgqa would send to a Neo4j (release ``config.neo4j_version``) holding the same SKB, with the same
    parameters.
    """
    schema = graph_schema(kg.schema(skb))
    sanitized = sanitize(parsed, schema, mode)
    query = pattern_query(sanitized.plan)
    params = dict(query.params)
    if query.constant_params:
        kg.store.await_indexes(skb)
        vectors = constant_vectors(kg.embedder, sanitized.plan)
        candidates = plan_candidates(kg.store, skb, sanitized.plan, vectors, schema.labels, scope)
        params.update({query.constant_params[name]: [node for node, _ in pairs] for name, pairs in candidates.items()})
    repairs = repairs + sanitized.repairs
    if dialect == "falkordb":
        return Explanation(sanitized.plan, repairs, dialect, query.text, params)
    syntax = neo4j.syntax_for(kg.config.neo4j_version)
    text = neo4j.statement(query.text, syntax)
    return Explanation(sanitized.plan, repairs, dialect, text, params, neo4j.browser_block(text, params))


def explain_question(
    kg: Kgqa, skb: str, question: str, *, scope: int, mode: Mode = "strict", dialect: Dialect = "falkordb"
) -> Explanation:
    """Step 2 (the configured LLM writes Cypher for ``question``), then :func:`explain` of its reply."""
    llm = kg.llm
    if llm is None:
        raise ConfigError("explaining a QUESTION needs an LLM: set 'llm' (--llm openai:MODEL or llama:PATH.gguf), "
                          "or pass the Cypher with --cypher")  # fmt: skip
    view = schema_view(kg.store, skb, kg.schema(skb))
    completion = generate_cypher(llm, question, view, temperature=kg.config.llm_temperature)
    usage = Usage()
    usage.add(completion)
    generated = Generated(question, llm.name, completion.text, usage)
    try:
        plan, repairs = with_answer_variable(parse(completion.text))
        result = explain_plan(kg, skb, plan, scope=scope, mode=mode, dialect=dialect, repairs=repairs)
    except CypherSyntaxError as exc:
        raise CypherSyntaxError(f"{exc} in the LLM's reply {completion.text[:300]!r}") from exc
    return replace(result, generated=generated)
