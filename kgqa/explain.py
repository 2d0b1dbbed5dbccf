"""``kgqa explain``: what kgqa makes of a Cypher text: plan, drops, repairs, and the compiled query with parameters."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from cypher.compile import pattern_query
from cypher.dialects import neo4j
from cypher.parser import parse
from cypher.plan import QueryPlan
from cypher.sanitize import Mode, Repair, sanitize
from kgqa.app import Kgqa
from kgqa.grounding import constant_vectors, graph_schema, plan_candidates

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

    def to_json(self) -> dict[str, Any]:
        plan = asdict(self.plan)
        dropped = plan.pop("dropped")
        out = {"plan": plan, "dropped": dropped, "repairs": [asdict(r) for r in self.repairs],
               "dialect": self.dialect, "query": self.query, "params": self.params}  # fmt: skip
        if self.browser is not None:
            out["browser"] = self.browser
        return out


def explain(
    kg: Kgqa, skb: str, cypher: str, *, scope: int, mode: Mode = "strict", dialect: Dialect = "falkordb"
) -> Explanation:
    """Parse, sanitize against the live schema and compile; constants get their first ``scope`` candidates.

    The candidates always come from the SKB loaded in the embedded store, whatever the dialect: the Neo4j text is
    what kgqa would send to a Neo4j (release ``config.neo4j_version``) holding the same SKB, with the same
    parameters.
    """
    schema = graph_schema(kg.schema(skb))
    sanitized = sanitize(parse(cypher), schema, mode)
    query = pattern_query(sanitized.plan)
    params = dict(query.params)
    if query.constant_params:
        kg.store.await_indexes(skb)
        vectors = constant_vectors(kg.embedder, sanitized.plan)
        candidates = plan_candidates(kg.store, skb, sanitized.plan, vectors, schema.labels, scope)
        params.update({query.constant_params[name]: ids for name, ids in candidates.items()})
    if dialect == "falkordb":
        return Explanation(sanitized.plan, sanitized.repairs, dialect, query.text, params)
    syntax = neo4j.syntax_for(kg.config.neo4j_version)
    text = neo4j.statement(query.text, syntax)
    return Explanation(sanitized.plan, sanitized.repairs, dialect, text, params, neo4j.browser_block(text, params))
