"""``kgqa explain``: what kgqa makes of a Cypher text: plan, drops, repairs, and the compiled query with parameters."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cypher.compile import pattern_query
from cypher.parser import parse
from cypher.plan import QueryPlan
from cypher.sanitize import Mode, Repair, sanitize
from kgqa.app import Kgqa
from kgqa.grounding import constant_vectors, graph_schema, plan_candidates


@dataclass(frozen=True)
class Explanation:
    plan: QueryPlan
    repairs: tuple[Repair, ...]
    dialect: str
    query: str
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        plan = asdict(self.plan)
        dropped = plan.pop("dropped")
        return {"plan": plan, "dropped": dropped, "repairs": [asdict(r) for r in self.repairs],
                "dialect": self.dialect, "query": self.query, "params": self.params}  # fmt: skip


def explain(kg: Kgqa, skb: str, cypher: str, *, scope: int, mode: Mode = "strict") -> Explanation:
    """Parse, sanitize against the live schema and compile; constants get their first ``scope`` candidates."""
    schema = graph_schema(kg.schema(skb))
    sanitized = sanitize(parse(cypher), schema, mode)
    query = pattern_query(sanitized.plan)
    params = dict(query.params)
    if query.constant_params:
        kg.store.await_indexes(skb)
        vectors = constant_vectors(kg.embedder, sanitized.plan)
        candidates = plan_candidates(kg.store, skb, sanitized.plan, vectors, schema.labels, scope)
        params.update({query.constant_params[name]: ids for name, ids in candidates.items()})
    return Explanation(sanitized.plan, sanitized.repairs, "falkordb", query.text, params)
