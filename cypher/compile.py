"""Compiler (method steps 4-5): a sanitized plan -> parameterized pattern queries.

Every constant becomes a parameter holding the ids of its first ``l`` candidates (found by the name vector index),
every other value a parameter too; variables are renamed ``v0, v1, ...`` and identifiers are quoted from the
sanitized (schema-only) plan, so no text of the LLM's reaches the database. The MATCHes bind the variables in
:func:`binding_order`, each constant from its own candidates. The pattern text is the same in both
dialects; they differ in how candidates are looked up (the stores' queries, kgqa/runtime/store/*_queries.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import CypherSyntaxError, CypherValueError
from .identifiers import quote
from .plan import NodeKeys, QueryPlan, Triplet, arrows

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


TARGETS_PARAM = "targets"
"""The parameter of the ids the answers are restricted to, where the target is bound first (:func:`pattern_query`)."""


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


@dataclass(frozen=True)
class Step:
    """One MATCH of the step-5 query: a constant's candidates (``triplet`` None) or one triplet, and the variables
    (plan symbols) it binds first."""

    binds: tuple[str, ...]
    triplet: Triplet | None = None
    by_id: bool = True
    """without a triplet: the constant's candidates by id, or (False) every node of the target's label"""


def binding_order(plan: QueryPlan, first: Sequence[str] = ()) -> list[Step]:
    """The order in which the step-5 query binds the plan's variables: each constant's candidates in turn (those of
    ``first`` first, in its order: the cheapest side of a join, kgqa.runtime.steps.s4_grounding.round_order), then its
    path toward the target as far as it is not yet bound (never into another constant: that one is looked up by id
    and walks its own path; a constant without a label, which no index finds by id, is reached by an edge from the
    bound side where one joins it), and a triplet between bound variables as soon as both are; then what hangs off the
    target's side without a constant. Where ``first`` names the target (its ids given), the whole plan is walked out
    from those ids, each constant's candidates filtering the walk where it reaches them.

    The query keeps this order with a WITH between its MATCHes: FalkorDB plans a run of MATCHes as one traversal
    from a single start and filters the other constants at its end, which reads every path through a hub between
    them (docs/benchmarks.md, "Scale"). A plan without constants starts from its first triplet, as written."""
    constants = [s.name for s in plan.symbols if s.search_string is not None]
    if plan.target is not None and plan.target in first and plan.target not in constants:  # by id (TARGETS_PARAM)
        constants.append(plan.target)
    constants = [*(c for c in first if c in constants), *(c for c in constants if c not in first)]
    pending = list(plan.triplets)
    bound: set[str] = set()
    steps: list[Step] = []
    far = len(plan.symbols) + 1
    distance = {plan.target: 0} if plan.target is not None else {}
    frontier = list(distance)
    while frontier:  # hops from the target, edges read undirected
        here = frontier.pop(0)
        for t in plan.triplets:
            for a, b in ((t.head, t.tail), (t.tail, t.head)):
                if a == here and b not in distance:
                    distance[b] = distance[a] + 1
                    frontier.append(b)

    def take(triplet: Triplet) -> None:
        pending.remove(triplet)
        new = tuple(dict.fromkeys(n for n in (triplet.head, triplet.tail) if n not in bound))
        steps.append(Step(new, triplet))
        bound.update(new)

    def leads(t: Triplet, toward: bool, into: bool) -> bool:
        """Whether ``t`` binds a new variable from a bound one (with ``toward``: nearer the target), a constant only
        with ``into`` (its candidates then filter the walk's end instead of being bound by id)."""
        if (t.head in bound) == (t.tail in bound):
            return False
        old, new = (t.head, t.tail) if t.head in bound else (t.tail, t.head)
        return (into or new not in constants) and (not toward or distance.get(new, far) < distance.get(old, far))

    def grow(toward: bool, into: bool = False) -> None:
        while True:
            step = next((t for t in pending if t.head in bound and t.tail in bound), None)
            step = step or next((t for t in pending if leads(t, toward, into)), None)
            if step is None:
                return
            take(step)

    unlabelled = {s.name for s in plan.symbols if not s.labels}
    for constant in constants:
        joining = next((t for t in pending if constant in (t.head, t.tail) and {t.head, t.tail} & bound), None)
        if constant not in bound and constant in unlabelled and joining is not None:
            # no label, no index on its id: reached by the edge from the bound side and filtered by its ids at the
            # walk's end, instead of a scan of every node for each row bound so far
            take(joining)
            grow(toward=True)
        if constant not in bound:
            steps.append(Step((constant,)))
            bound.add(constant)
            # the target's given ids bound first: walk out from those few into the constants (whose candidates
            # filter the walk's ends), never from a constant's whole neighbourhood back to a cartesian of them
            grow(toward=constant != plan.target, into=constant == plan.target)
    while pending:  # branches without a constant, or a plan without constants
        touching = [t for t in pending if t.head in bound or t.tail in bound]
        take(touching[0] if touching else pending[0])
        grow(toward=False)
    if plan.target is not None and plan.target not in bound:
        steps.append(Step((plan.target,), by_id=False))
    return steps


def pattern_query(
    plan: QueryPlan, keys: NodeKeys, *, limit: int | None = None, first: Sequence[str] = (), ids_only: bool = False
) -> PatternQuery:
    """The step-5 query of ``plan``; ``keys``: the graph's id and name properties (``GraphSchema.keys``); ``limit``:
    most rows (targets) returned, as the parameter ``limit``; ``first``: the constants bound first
    (:func:`binding_order`). The order changes the text, not the rows below the LIMIT: the parameters and the row
    columns are the same whatever it is (a round that reaches the LIMIT may read another subset). Where ``first``
    names the target, the answers are only those whose ids are in the parameter ``targets`` (:data:`TARGETS_PARAM`):
    a relaxed plan ranked among the question's nearest nodes instead of walking a hub whole. ``ids_only``: rows are
    ``[id]``, the distinct targets without their evidence (what an exclusion needs of thousands).

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
    constant_params = {
        s.name: f"c{number}" for number, s in enumerate(s for s in plan.symbols if s.search_string is not None)
    }
    steps = binding_order(plan, first)
    by_id = {plan.target: TARGETS_PARAM, **constant_params} if plan.target in first else constant_params
    bound = {n for step in steps for n in step.binds}
    loose = [s.name for s in plan.symbols if s.name not in bound]
    if loose:
        raise CypherSyntaxError(f"variables {', '.join(loose)} are not connected to the pattern (sanitize first)")
    conditions = {symbol.name: symbol.conditions for symbol in plan.symbols if symbol.search_string is None}
    clauses: list[str] = []
    carried: list[str] = []
    """the variables bound so far, which each WITH passes on"""
    for step in steps:
        if step.triplet is None:
            symbol = step.binds[0]
            pattern = f"({names[symbol]}{labels[symbol]})"
            where = [f"{names[symbol]}.{node_id} IN ${by_id[symbol]}"] if step.by_id else []
        else:
            t = step.triplet
            types = "|".join(quote(x) for x in t.types)
            left, right = arrows(t.direction)
            pattern = f"({names[t.head]}{labels[t.head]}){left}[:{types}]{right}({names[t.tail]}{labels[t.tail]})"
            # a constant reached by a walk (from the target's given ids) is its candidates by id at the walk's end
            where = [f"{names[s]}.{node_id} IN ${constant_params[s]}" for s in step.binds if s in constant_params]
        for symbol in step.binds:
            for condition in conditions.get(symbol, ()):
                param = f"p{len(params)}"
                params[param] = list(condition.value) if isinstance(condition.value, tuple) else condition.value
                where.append(f"{names[symbol]}.{quote(condition.property)} {_OPS[condition.op]} ${param}")
        if carried:
            clauses.append(f"WITH {', '.join(carried)}")
        clauses.append(f"MATCH {pattern}" + (f" WHERE {' AND '.join(where)}" if where else ""))
        carried += [names[symbol] for symbol in step.binds]
    target = names[plan.target]
    # One row per target: the constants' nodes it was grounded through are collected as evidence (m0, m1, ...).
    evidence = [(symbol, param) for symbol, param in constant_params.items() if symbol != plan.target]
    collected = "".join(f", collect(DISTINCT {names[s]}.{node_id}) AS m{p[1:]}" for s, p in evidence)
    distinct = "DISTINCT " if ids_only or not evidence else ""  # the aggregation gives one row per target
    matches = " ".join(clauses)
    text = f"{matches} RETURN {distinct}{target}.{node_id} AS id" + (
        "" if ids_only else f", {target}.{name} AS name, labels({target})[0] AS label{collected}"
    )
    if limit is not None:
        params["limit"] = limit
        text += " LIMIT $limit"
    return PatternQuery(text, params, constant_params, names, limit)
