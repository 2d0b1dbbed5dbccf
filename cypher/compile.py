"""Compiler (method steps 4-5): a sanitized plan -> parameterized pattern queries.

Every constant becomes a parameter holding the ids of its first ``l`` candidates (found by the name vector index),
every other value a parameter too; variables are renamed ``v0, v1, ...`` and identifiers are quoted from the
sanitized (schema-only) plan, so no text of the LLM's reaches the database. The pattern text is the same in both
dialects; they differ in how candidates are looked up (the stores' queries, kgqa/runtime/store/*_queries.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import CypherSyntaxError, CypherValueError
from .identifiers import quote
from .plan import NodeKeys, QueryPlan

_OPS = {
    "=": "=",
    "<>": "<>",
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
    "CONTAINS": "CONTAINS",
    "STARTS WITH": "STARTS WITH",
    "ENDS WITH": "ENDS WITH",
    "IN": "IN",
}


@dataclass(frozen=True)
class PatternQuery:
    """The step-5 query: run it with ``params`` plus one id list per constant (``constant_params``).

    Rows are ``[id, name, label, m0, m1, ...]``: ``mN`` lists the ids of constant ``cN``'s candidates the target was
    grounded through (the target's own constant, if it is one, has none).
    """

    text: str
    params: dict[str, Any]
    constant_params: dict[str, str]
    """plan symbol name -> parameter name holding that constant's candidate ids"""
    variables: dict[str, str]
    """plan symbol name -> variable in the text"""
    limit: int | None = None
    """The query's LIMIT (parameter ``limit``): a round that returns this many rows may have left targets unread."""


def pattern_query(plan: QueryPlan, keys: NodeKeys, *, limit: int | None = None) -> PatternQuery:
    """The step-5 query of ``plan``; ``keys``: the graph's id and name properties (``GraphSchema.keys``); ``limit``:
    most rows (targets) returned, as the parameter ``limit``.

    Every variable is bound by a MATCH before a WHERE names it, each MATCH has at most one WHERE, and the plan must
    be connected (:func:`kgqa.cypher.sanitize.focus`): a symbol no MATCH would bind is an error, never a filter on an
    unbound variable.
    """
    if plan.target is None:
        raise CypherSyntaxError("the query returns no node variable to answer with")
    if limit is not None and limit < 1:
        raise CypherValueError(f"limit must be >= 1, got {limit}")
    node_id, name = quote(keys.id), quote(keys.name)
    names = {symbol.name: f"v{i}" for i, symbol in enumerate(plan.symbols)}
    labels = {s.name: f":{quote(s.labels[0])}" if s.labels else "" for s in plan.symbols}
    params: dict[str, Any] = {}
    constant_params: dict[str, str] = {}
    clauses: list[tuple[str, list[str]]] = []
    """(MATCH pattern, its WHERE conditions)"""
    # Constants first, so the planner starts from their few candidates rather than from whole labels.
    for symbol in plan.symbols:
        if symbol.search_string is not None:
            param = constant_params[symbol.name] = f"c{len(constant_params)}"
            var = names[symbol.name]
            clauses.append((f"({var}{labels[symbol.name]})", [f"{var}.{node_id} IN ${param}"]))
    bound = set(constant_params) | {n for t in plan.triplets for n in (t.head, t.tail)}
    for triplet in plan.triplets:
        types = "|".join(quote(t) for t in triplet.types)
        arrow = "->" if triplet.direction == "out" else "-"
        head, tail = triplet.head, triplet.tail
        clauses.append((f"({names[head]}{labels[head]})-[:{types}]{arrow}({names[tail]}{labels[tail]})", []))
    if plan.target not in bound:
        bound.add(plan.target)
        clauses.append((f"({names[plan.target]}{labels[plan.target]})", []))
    loose = [s.name for s in plan.symbols if s.name not in bound]
    if loose:
        raise CypherSyntaxError(f"variables {', '.join(loose)} are not connected to the pattern (sanitize first)")
    for symbol in plan.symbols:
        if symbol.search_string is not None:
            continue
        for condition in symbol.conditions:
            param = f"p{len(params)}"
            params[param] = list(condition.value) if isinstance(condition.value, tuple) else condition.value
            clauses[-1][1].append(f"{names[symbol.name]}.{quote(condition.property)} {_OPS[condition.op]} ${param}")
    target = names[plan.target]
    # One row per target: the constants' nodes it was grounded through are collected as evidence (m0, m1, ...).
    evidence = [(symbol, param) for symbol, param in constant_params.items() if symbol != plan.target]
    collected = "".join(f", collect(DISTINCT {names[s]}.{node_id}) AS m{p[1:]}" for s, p in evidence)
    distinct = "" if evidence else "DISTINCT "  # aggregation already gives one row per target
    matches = " ".join(
        f"MATCH {pattern}" + (f" WHERE {' AND '.join(where)}" if where else "") for pattern, where in clauses
    )
    text = (
        f"{matches} RETURN {distinct}{target}.{node_id} AS id, {target}.{name} AS name, "
        f"labels({target})[0] AS label{collected}"
    )
    if limit is not None:
        params["limit"] = limit
        text += " LIMIT $limit"
    return PatternQuery(text, params, constant_params, names, limit)
