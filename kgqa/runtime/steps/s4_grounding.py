"""Method steps 4-5: candidates for each constant, then the pattern with scope expansion (l = 1, 2, 3, 5, ...).

One round trip per round; the LLM's text never reaches the store: only the compiled pattern (identifiers from the
live schema) with candidate ids and values as parameters, through the store's read-only execution.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

import numpy as np

from kgqa.cypher.compile import TARGETS_PARAM, PatternQuery, binding_order, pattern_query
from kgqa.cypher.plan import QueryPlan, Symbol, Triplet
from kgqa.cypher.sanitize import GraphSchema
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.embed import Embedder
from kgqa.runtime.scoring import OffType, next_scope
from kgqa.runtime.store.deadline import Deadline
from kgqa.runtime.store.protocols import GraphReader, GraphStore, Searcher

T = TypeVar("T")


def expansion_schedule(l_max: int) -> list[int]:
    """1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93, 100: the reference code's l <- int(1.5 l + 0.5), capped at l_max."""
    steps, value = [], 1
    while value < l_max:
        steps.append(value)
        value = next_scope(value)
    steps.append(l_max)
    return steps


@dataclass(frozen=True)
class Round:
    scope: int
    """l, the number of candidates per constant in this round"""
    targets: int
    seconds: float


@dataclass(frozen=True)
class Grounded:
    """A target node that satisfies the whole pattern, and the round (l) in which it first appeared."""

    id: str
    name: str
    label: str
    round_l: int
    matches: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(constant symbol, ids of its candidates this target was grounded through) in that round"""
    plan: str = "llm"
    """whose plan grounded it: ``llm`` (steps 2-3) or ``linked`` (kgqa.runtime.steps.s2_schema_plan's schema-guided
    plan)"""


class NodeMatch(NamedTuple):
    """A candidate of a constant (step 4): the node, the alias it was found by ('' when by its name), and how
    similar its name (or that alias) is to the constant's search string (1 for an exact match)."""

    id: str
    name: str
    alias: str = ""
    similarity: float = 1.0
    exact: bool = False
    """found by its name or alias as written (ignoring case), not by similarity"""


@dataclass
class GroundingResult:
    query: PatternQuery
    candidates: dict[str, list[str]]
    """constant symbol -> candidate ids, best first (exact name matches, then name-vector similarity)"""
    names: dict[str, str] = field(default_factory=dict)
    """candidate id -> name, for evidence"""
    targets: list[Grounded] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    searches: dict[str, str] = field(default_factory=dict)
    """constant symbol -> its search string, for the evidence"""
    via_alias: dict[tuple[str, str], str] = field(default_factory=dict)
    """(constant symbol, candidate id) -> the alias that made the node a candidate, for the evidence"""
    timed_out: str = ""
    """Why the scope expansion stopped early: the round that ran past the store's time limit (its targets are
    not kept, those of the rounds before are)."""
    capped: str = ""
    """The round whose rows reached the query's LIMIT (``pattern_limit``): targets beyond it were not read."""
    stopped: str = ""
    """Why the expansion stopped before k targets and ``l_max`` by a bound of its own (:class:`Bounds`): a round
    that added no target, or a next round estimated past ``round_cost_cap``."""
    stopped_by: str = ""
    """The bound :attr:`stopped` names: ``expansion_stall`` (nothing left to find), ``round_cost_cap`` or
    ``ask_budget`` (targets may be left unread, as past the LIMIT), or ''."""
    unordered: str = ""
    """Why the constants were bound in the plan's order instead of the cheapest first: the degree probe ran past the
    store's time limit."""
    within: tuple[str, ...] | None = None
    """The ids the answers were restricted to (parameter ``targets``), or None: every node the pattern matches."""
    costs: dict[int, int] = field(default_factory=dict)
    """scope -> the estimated rows of that round (:func:`round_order`), for a plan of two or more constants"""
    exact: dict[str, bool] = field(default_factory=dict)
    """constant symbol -> whether its best candidate is an exact match of its search string, by name or alias"""
    tied: dict[str, int] = field(default_factory=dict)
    """constant symbol -> how many of its candidates its search string names exactly (two diseases of one name, in
    OMIM and Orphanet; at most ``l_max``): they tie for the best candidate, so every round grounds through all of
    them, l = 1 too."""

    def params_at(self, scope: int) -> dict[str, Any]:
        """The query's parameters at scope ``scope``: its values and each constant's ``scope`` best candidates, or
        all its exact name matches where it has more (:attr:`tied`)."""
        ids = {
            self.query.constant_params[n]: at_scope(found, scope, self.tied.get(n, 0))
            for n, found in self.candidates.items()
        }
        within = {} if self.within is None else {TARGETS_PARAM: list(self.within)}
        return {**self.query.params, **ids, **within}

    @property
    def incomplete(self) -> bool:
        """Whether the plan may match targets this grounding did not read: a round ran past the time limit, reached
        the LIMIT, or was not run for its estimated cost."""
        return bool(self.timed_out or self.capped or self.stopped_by in ("round_cost_cap", "ask_budget"))

    @property
    def last_params(self) -> dict[str, Any]:
        """The parameters of the last round run: with :attr:`query`, what reproduces its answers in Neo4j Browser."""
        return self.params_at(self.rounds[-1].scope if self.rounds else 1)


ALIAS_DEPTH = 3
"""Alias hits read per candidate wanted: the alias index spans every label, and one node may have several close
aliases, so ``l_max`` hits could name fewer than ``l_max`` nodes of the constant's labels."""


Search = tuple[str, tuple[str, ...]]
"""A constant as step 4 looks it up: its search string and the labels it is searched in."""


def constant_candidates(
    store: Searcher,
    skb: str,
    symbol: Symbol,
    vector: np.ndarray,
    labels: tuple[str, ...],
    l_max: int,
    *,
    aliases: bool = False,
) -> list[NodeMatch]:
    """Step 4 for one constant (:func:`search_candidates`)."""
    search = (symbol.search_string or "", labels)
    return search_candidates(store, skb, {search: vector}, l_max, aliases=aliases)[search]


def search_candidates(
    store: Searcher, skb: str, searches: dict[Search, np.ndarray], l_max: int, *, aliases: bool = False
) -> dict[Search, list[NodeMatch]]:
    """Up to ``l_max`` nodes for each search: exact (case-insensitive) name matches (several nodes of the very name
    tie for the first place: :func:`exact_names`), then exact alias matches, then the nearest by the name index and,
    with ``aliases`` (the graph has an alias index), by the alias index, merged by similarity. The vector lookups of
    one label, and those of the alias index, go in one batch for every search."""
    keys = list(searches)
    nearest: dict[Search, dict[str, list[NodeMatch]]] = {key: {} for key in keys}
    for label in dict.fromkeys(label for _, labels in keys for label in labels):
        wanted = [key for key in keys if label in key[1]]
        batch = store.vector_top_k_many(skb, label, "name", np.stack([searches[key] for key in wanted]), l_max)
        for key, hits in zip(wanted, batch, strict=True):
            nearest[key][label] = [NodeMatch(str(hit.id), hit.name, "", hit.similarity) for hit in hits]
    by_alias = (
        store.alias_top_k_many(skb, np.stack([searches[key] for key in keys]), l_max * ALIAS_DEPTH)
        if aliases and keys
        else []
    )
    out: dict[Search, list[NodeMatch]] = {}
    for number, (text, labels) in enumerate(keys):
        found = [NodeMatch(i, name, exact=True) for label in labels for i, name in store.exact_name(skb, label, text)]
        near = [match for label in labels for match in nearest[(text, labels)][label]]
        if aliases:
            found += [NodeMatch(h.id, h.name, h.alias, exact=True) for h in store.exact_alias(skb, labels, text)]
            near += [NodeMatch(h.id, h.name, h.alias, h.similarity) for h in by_alias[number] if h.label in labels]
        near.sort(key=lambda match: -match.similarity)
        ordered: dict[str, NodeMatch] = {}
        for match in found + near:
            ordered.setdefault(match.id, match)
        out[(text, labels)] = list(ordered.values())[:l_max]
    return out


def at_scope(candidates: Sequence[T], scope: int, tied: int) -> list[T]:
    """The candidates a round of scope ``scope`` grounds through: the first ``scope``, or the ``tied`` exact name
    matches where there are more."""
    return list(candidates[: max(scope, tied)])


def exact_names(matches: Sequence[NodeMatch]) -> int:
    """How many of ``matches``, from the first, are exact name matches (step 4 puts them first)."""
    return next((i for i, m in enumerate(matches) if not m.exact or m.alias), len(matches))


def constant_vectors(embedder: Embedder, plan: QueryPlan) -> dict[str, np.ndarray]:
    """The name-space embedding of each constant's search string (input of step 4)."""
    return {c.name: embedder.embed_one(c.search_string or "") for c in plan.constants}


def plan_candidates(
    store: Searcher,
    skb: str,
    plan: QueryPlan,
    vectors: dict[str, np.ndarray],
    all_labels: tuple[str, ...],
    l_max: int,
    *,
    aliases: bool = False,
) -> dict[str, list[NodeMatch]]:
    """Step 4 for every constant of ``plan``; an unlabelled constant is searched in every label."""
    return plans_candidates(store, skb, [(plan, vectors)], all_labels, l_max, aliases=aliases)[0]


def plans_candidates(
    store: Searcher,
    skb: str,
    plans: Sequence[tuple[QueryPlan, dict[str, np.ndarray]]],
    all_labels: tuple[str, ...],
    l_max: int,
    *,
    aliases: bool = False,
) -> list[dict[str, list[NodeMatch]]]:
    """Step 4 for every constant of each of ``plans`` (with its constants' vectors): a constant several plans name
    alike (the LLM's and the linked plan's 'Seizure') is looked up once, and the lookups are batched
    (:func:`search_candidates`)."""

    def search(c: Symbol) -> Search:
        return (c.search_string or "", c.labels or all_labels)

    searches: dict[Search, np.ndarray] = {}
    for plan, vectors in plans:
        for c in plan.constants:
            searches.setdefault(search(c), vectors[c.name])
    found = search_candidates(store, skb, searches, l_max, aliases=aliases)
    return [{c.name: found[search(c)] for c in plan.constants} for plan, _ in plans]


@dataclass(frozen=True)
class Bounds:
    """What ends step 5's expansion (l = 1, 2, 3, 5, ...) before ``l_max`` besides k targets, whatever wrote the
    plan: looking for answers an intersection does not have must not walk hubs for minutes (docs/benchmarks.md,
    "Step 5's bounds")."""

    cost_cap: int | None = None
    """Most rows a round's query is estimated to walk (:func:`round_order`) for it to run; l = 1 always runs."""
    stall: bool = True
    """Stop a join's expansion (a plan of two or more constants) after a round that found targets before and added
    none: the candidates further down join nothing. A single constant's rounds go on (cheap: its neighbours by
    name find the node a misread name missed)."""
    deadline: Deadline | None = None
    """When no further round starts (the ask's budget, ``ask_budget``); the store's reads keep it too
    (:func:`kgqa.runtime.store.deadline.reads_within`), so a round running then is cut by its time limit."""


Hop = tuple[str, tuple[str, ...], str, str]
"""The edge a constant is bound through toward the answer: (its label, types, direction from it, neighbour label)."""


def _hop(plan: QueryPlan, start: str, t: Triplet) -> Hop:
    """Triplet ``t`` walked from symbol ``start``, as a probe reads it (a symbol without a label as '')."""
    other = t.tail if t.head == start else t.head
    # the edge's way as seen from ``start``: out of the head of an ``out`` triplet, into the head of an ``in`` one
    outward = (t.head == start) == (t.direction == "out")
    direction = "any" if t.direction == "both" else "out" if outward else "in"
    here, there = plan.symbol(start).labels, plan.symbol(other).labels
    return (here[0] if here else "", t.types, direction, there[0] if there else "")


def first_hops(plan: QueryPlan) -> dict[str, Hop]:
    """Each constant's first edge toward the target, as the step-5 query walks it when that constant is bound
    first; a constant bound with no edge of its own (the target, a plan of one node) has none. An unlabelled
    constant's hop has no label: it is not probed (its count would scan every node)."""
    out: dict[str, Hop] = {}
    for constant in plan.constants:
        steps = binding_order(plan, (constant.name,))
        t = steps[1].triplet if len(steps) > 1 else None
        if t is not None and constant.name in (t.head, t.tail):
            out[constant.name] = _hop(plan, constant.name, t)
    return out


def second_hops(plan: QueryPlan) -> dict[str, Hop]:
    """The edge each constant's walk toward the target takes after its first (:func:`first_hops`), where the
    step-5 query binding that constant first walks on from the node its first hop reached (a paper's fields, then
    every paper of those fields: the second hop is where a hub is). Only from a labelled middle node: its degrees are
    what the probe reads."""
    out: dict[str, Hop] = {}
    for constant in plan.constants:
        steps = binding_order(plan, (constant.name,))
        if len(steps) < 3 or steps[1].triplet is None or steps[2].triplet is None or len(steps[2].binds) != 1:
            continue
        (middle,), t = steps[1].binds, steps[2].triplet
        if middle in (t.head, t.tail) and plan.symbol(middle).labels:
            out[constant.name] = _hop(plan, middle, t)
    return out


PROBE_AHEAD = 12
"""Candidates of a constant whose degrees one probe reads at least: the rounds to l = 12 cost one count each."""


class Degrees:
    """Candidates' degrees along a constant's first hop (:func:`first_hops`), and the edges of its second
    (:func:`second_hops`), counted as rounds reach them (one query per hop and round that goes past what was read) and
    kept for the whole ask: the LLM's plan, the linked plan and its relaxations share constants."""

    def __init__(self, store: GraphReader, skb: str) -> None:
        self.store, self.skb = store, skb
        self.known: dict[tuple[Hop, str], int] = {}
        self.further: dict[tuple[tuple[Any, ...], str], int] = {}

    def walked(self, hop: Hop, ids: Sequence[str], ahead: Sequence[str]) -> int:
        """The edges binding ``ids`` through ``hop`` walks; reads those of ``ahead`` (``ids`` first) not yet read."""
        missing = [i for i in dict.fromkeys([*ids, *ahead]) if (hop, i) not in self.known]
        if missing:
            label, types, direction, other = hop
            found = self.store.degrees(self.skb, label, missing, types, direction, other)
            self.known.update({(hop, i): found.get(i, 0) for i in missing})
        return sum(self.known[(hop, i)] for i in ids)

    def beyond(self, hop: Hop, then: Hop, ids: Sequence[str]) -> int:
        """The edges binding ``ids`` walks through ``then`` after ``hop`` (its second hop, :func:`second_hops`),
        from the middle nodes' degrees; reads those not yet read (no look-ahead: each probed id costs its first hop's
        edges, which may be a hub's)."""
        key = (*hop, *then)
        missing = [i for i in dict.fromkeys(ids) if (key, i) not in self.further]
        if missing:
            label, types, direction, middle = hop
            _, next_types, next_direction, _ = then
            found = self.store.walk_degrees(
                self.skb, label, missing, types, direction, middle, next_types, next_direction
            )
            self.further.update({(key, i): found.get(i, 0) for i in missing})
        return sum(self.further[(key, i)] for i in ids)


def walk_estimates(
    degrees: Degrees,
    hops: dict[str, Hop],
    then: dict[str, Hop],
    scoped: dict[str, list[str]],
    candidates: dict[str, list[str]],
) -> dict[str, int]:
    """The edges each probed constant's walk reads from its ``scoped`` candidates (:func:`round_order`'s input):
    its first hop, and its second (``then``) where the walk goes on. A first hop alone is a lower bound, so the second
    is counted only for the constant that would go first by what is known, until the one that goes first is counted
    whole: a hub's second hop is never probed (its first already rules it out, and its probe would read the hub)."""
    walked = {
        s: degrees.walked(hop, scoped[s], candidates[s][: max(len(scoped[s]), PROBE_AHEAD)]) for s, hop in hops.items()
    }
    pending = {s: hop for s, hop in then.items() if s in walked}
    while pending:
        first = round_order(walked, scoped)[0][0]
        if first not in pending:
            break
        walked[first] += degrees.beyond(hops[first], pending.pop(first), scoped[first])
    return walked


def first_round_walk(degrees: Degrees, plan: QueryPlan, found: dict[str, list[NodeMatch]]) -> int | None:
    """The edges the first round of a plan of one constant walks from it (its best candidate, or all of its exact
    name), or None where it has no labelled hop to count."""
    (constant,) = plan.constants
    hop = first_hops(plan).get(constant.name)
    if hop is None or not hop[0]:
        return None
    ids = [m.id for m in at_scope(found[constant.name], 1, exact_names(found[constant.name]))]
    return degrees.walked(hop, ids, ids)


def round_order(walked: dict[str, int], scoped: dict[str, list[str]]) -> tuple[tuple[str, ...], int | None]:
    """The constants in the order a round binds them (the fewest edges ``walked`` from its ``scoped`` candidates
    first, along its first hop and its second where its walk goes on (:func:`second_hops`), so no hub is walked
    whole; those not probed last), and the round's estimated rows: the first constant's edges times the candidates
    of the others it is then joined with. None where a constant was not probed (an
    unlabelled one): the probed side may be the hub, and no estimate says what binding the other first would cost."""
    order = tuple(sorted(scoped, key=lambda s: (s not in walked, walked.get(s, 0))))
    if not walked or set(walked) != set(scoped):
        return order, None
    first = order[0]
    return order, walked[first] * max(1, sum(len(ids) for s, ids in scoped.items() if s != first))


def ground(
    store: GraphStore,
    skb: str,
    plan: QueryPlan,
    vectors: dict[str, np.ndarray],
    schema: GraphSchema,
    *,
    k: int,
    l_max: int,
    found: dict[str, list[NodeMatch]] | None = None,
    source: str = "llm",
    aliases: bool = False,
    limit: int | None = None,
    bounds: Bounds = Bounds(),
    degrees: Degrees | None = None,
    within: Sequence[str] | None = None,
) -> GroundingResult:
    """Step 5 (and step 4 unless its candidates are given as ``found``); ``source``: whose plan (Grounded.plan);
    ``aliases``: step 4 searches the alias index too (the graph has one); ``limit``: the compiled query's LIMIT
    (``pattern_limit``); ``bounds``: what else ends the expansion. Each round of a plan of two or more constants
    binds its cheapest constant first (:func:`round_order`, from ``degrees``: the ask's counts so far);
    :attr:`GroundingResult.query` is the last round's text. ``within``: the only ids the answers may have (bound
    first)."""
    query = pattern_query(plan, schema.keys, limit=limit)
    if found is None:
        found = plan_candidates(store, skb, plan, vectors, schema.labels, l_max, aliases=aliases)
    candidates = {symbol: [m.id for m in matches] for symbol, matches in found.items()}
    result = GroundingResult(
        query,
        candidates,
        {m.id: m.name for matches in found.values() for m in matches},
        searches={c.name: c.search_string or "" for c in plan.constants},
        via_alias={(symbol, m.id): m.alias for symbol, matches in found.items() for m in matches if m.alias},
        exact={symbol: bool(matches) and matches[0].exact for symbol, matches in found.items()},
        tied={symbol: exact_names(matches) for symbol, matches in found.items()},
        within=None if within is None else tuple(within),
    )
    if within is not None and (plan.target is None or plan.target in found or len(plan.constants) != 1):
        raise ValueError("only the answers of a plan of one constant can be restricted to given ids")
    if within is not None and plan.target is not None:
        return _ground_among(
            store, skb, plan, plan.target, schema, result, k=k, l_max=l_max, limit=limit, source=source
        )
    evidence = [symbol for symbol in query.constant_params if symbol != plan.target]
    degrees = degrees or Degrees(store, skb)
    hops = {s: hop for s, hop in first_hops(plan).items() if hop[0]} if len(plan.constants) > 1 else {}
    then = {s: hop for s, hop in second_hops(plan).items() if s in hops}
    queries = {tuple(query.constant_params): query}
    seen: dict[str, Grounded] = {}
    last: dict[str, Any] | None = None
    for scope in expansion_schedule(l_max):
        params = result.params_at(scope)
        if params == last:  # no constant has a new candidate in this round (too few, or tied): nothing new to find
            continue
        last = params
        if bounds.deadline is not None and bounds.deadline.left <= 0:
            result.stopped = (
                f"l={scope} not run: nothing left of {bounds.deadline.bound} (bound: {bounds.deadline.bound})"
            )
            result.stopped_by = bounds.deadline.bound
            break
        scoped = {s: at_scope(ids, scope, result.tied.get(s, 0)) for s, ids in candidates.items()}
        try:
            walked = walk_estimates(degrees, hops, then, scoped, candidates)
        except StoreTimeoutError as exc:  # rounds still run, in the plan's order and without an estimate
            result.unordered = f"the degree probe ran past the time limit ({exc}): constants bound in the plan's order"
            hops, then, walked = {}, {}, {}
        order, cost = round_order(walked, scoped)
        if cost is not None:
            result.costs[scope] = cost
            if result.rounds and bounds.cost_cap is not None and cost > bounds.cost_cap:
                result.stopped = (
                    f"l={scope} not run: ~{cost} rows estimated, over {bounds.cost_cap} (bound: round_cost_cap)"
                )
                result.stopped_by = "round_cost_cap"
                break
        if order not in queries:
            queries[order] = pattern_query(plan, schema.keys, limit=limit, first=order)
        query = result.query = queries[order]
        start = time.perf_counter()
        try:
            rows = store.read(skb, query.text, params)
        except StoreTimeoutError as exc:  # an LLM's plan can be far too broad; what was grounded before stands
            result.timed_out = f"l={scope} ran past the time limit ({exc})"
            break
        before = len(seen)
        for node_id, name, label, *matched in rows:
            matches = tuple((symbol, tuple(map(str, ids))) for symbol, ids in zip(evidence, matched, strict=True))
            seen.setdefault(str(node_id), Grounded(str(node_id), name, label, scope, matches, source))
        result.rounds.append(Round(scope, len(seen), round(time.perf_counter() - start, 4)))
        full = limit is not None and len(rows) >= limit  # past the LIMIT lie targets not read: no stall to see
        if full and not result.capped:
            result.capped = f"l={scope} reached the LIMIT of {limit} rows (pattern_limit): further targets not read"
        if len(seen) >= k or not query.constant_params:
            break
        if bounds.stall and len(plan.constants) > 1 and before and len(seen) == before and not full:
            result.stopped = f"l={scope} added no target: stopped (bound: expansion_stall)"
            result.stopped_by = "expansion_stall"
            break
    result.targets = sorted(seen.values(), key=lambda g: g.round_l)
    return result


def _ground_among(
    store: GraphReader,
    skb: str,
    plan: QueryPlan,
    target: str,
    schema: GraphSchema,
    result: GroundingResult,
    *,
    k: int,
    l_max: int,
    limit: int | None,
    source: str,
) -> GroundingResult:
    """:func:`ground` of a plan of one constant among given target ids (``result.within``). The walk out from those
    ids costs the same whatever the round, so one query at ``l_max`` reads every round: a target's round is the
    first whose candidates it is reached through, and the rounds stop where k targets are, as the expansion would.
    The one round recorded is that one: its parameters (:attr:`GroundingResult.last_params`) replay its targets."""
    (constant,) = plan.constants
    query = result.query = pattern_query(plan, schema.keys, limit=limit, first=(target, constant.name))
    schedule = expansion_schedule(l_max)
    tied = result.tied.get(constant.name, 0)
    entered: dict[str, int] = {}
    for scope in reversed(schedule):
        entered.update((i, scope) for i in at_scope(result.candidates[constant.name], scope, tied))
    start = time.perf_counter()
    try:
        rows = store.read(skb, query.text, result.params_at(l_max))
    except StoreTimeoutError as exc:
        result.timed_out = f"l={l_max} ran past the time limit ({exc})"
        return result
    seconds = round(time.perf_counter() - start, 4)
    if limit is not None and len(rows) >= limit:
        result.capped = f"l={l_max} reached the LIMIT of {limit} rows (pattern_limit): further targets not read"
    reached: list[Grounded] = []
    for node_id, name, label, matched in rows:
        scope = min(entered[str(i)] for i in matched)
        through = tuple(str(i) for i in matched if entered[str(i)] == scope)  # its candidates of that round
        reached.append(Grounded(str(node_id), name, label, scope, ((constant.name, through),), source))
    last = next((s for s in schedule if sum(g.round_l <= s for g in reached) >= k), schedule[-1])
    result.targets = sorted((g for g in reached if g.round_l <= last), key=lambda g: g.round_l)
    result.rounds.append(Round(last, len(result.targets), seconds))
    return result


NAMES_NO_NODE = 0.6
"""A constant whose best candidate is less similar than this names no node of the graph: a junk LLM's three words of
the question ("a list of", "mentioning Desanto which") ground at 0.40-0.47 on HPO's families questions."""


def names_no_node(found: dict[str, list[NodeMatch]], floor: float = NAMES_NO_NODE) -> bool:
    """Whether no constant of a plan names a node (each one's best candidate under ``floor``, none exact): such a
    plan matches the graph through nodes the question does not name, and its targets must not go before the vector
    strand's (step 7 puts grounded answers first)."""
    return bool(found) and all(
        not matches or (matches[0].similarity < floor and not matches[0].exact) for matches in found.values()
    )


def weak_constants(found: dict[str, list[NodeMatch]], threshold: float) -> tuple[str, ...]:
    """The constants of a plan whose best candidate is neither an exact match of its search string (by name or
    alias) nor at least ``threshold`` similar to it, each as 'symbol (best similarity)': a constant the graph does
    not hold as written (an LLM turned the textual condition into a node, or gave the entity the wrong label)."""
    return tuple(
        f"{symbol} ({matches[0].similarity:.2f} < {threshold:g})" if matches else f"{symbol} (no candidate)"
        for symbol, matches in found.items()
        if not matches or matches[0].similarity < threshold
    )


@dataclass(frozen=True)
class PlanGrounding:
    """Steps 4-5 of one plan: whose it is (``llm`` or ``linked``), the plan, what it grounded, the weight of its
    vote in step 6 (kgqa.runtime.steps.s6_graph_ranking.plan_votes), its weak constants (:func:`weak_constants`),
    for which step 6 counts its rounds one later, and how step 6 ranks it where it answers another type than the ask's
    (``off_type``: kgqa.runtime.scoring.OffType)."""

    source: str
    plan: QueryPlan
    result: GroundingResult
    weight: float = 1.0
    weak: tuple[str, ...] = ()
    off_type: OffType = ""


EXCLUSION_SCOPE = 3
"""Step 4's candidates of an excluded entity an exclusion looks at: its node, and the nodes of its exact name (OMIM's
and Orphanet's entry of one disease) among them (:attr:`GroundingResult.tied`); never its neighbours by
similarity."""


Entity = tuple[str, str]
"""A constant as (its label, its search string)."""


def entity(constant: Symbol) -> Entity:
    return (constant.labels[0] if constant.labels else "", constant.search_string or "")


@dataclass(frozen=True)
class Excluded:
    """What a plan's exclusions (:attr:`kgqa.cypher.plan.QueryPlan.excluded`) rule out: for each excluded entity,
    the ids joined to it without negation; and what each ruled out, for the trace."""

    by: tuple[tuple[Entity, frozenset[str]], ...] = ()
    shown: tuple[str, ...] = ()

    def ruled_out(self, groundings: Sequence[PlanGrounding]) -> frozenset[str]:
        """The ids no answer may be: those joined to an excluded entity, but for the targets of a plan that joins
        that entity to the answers directly, through its negated hop ("features explicitly absent in Legius
        syndrome" are absent in Orphanet's entry, and may be present in OMIM's of the same name). Joined through
        another node ("genes associated with X but not with Y", through a disease Y is absent in), the gene may
        well have Y itself: no target is spared."""
        out: set[str] = set()
        for key, ids in self.by:
            holding = [g for g in groundings if _joins_directly(g.plan, key)]
            out |= ids - {t.id for g in holding for t in g.result.targets}
        return frozenset(out)


def _joins_directly(plan: QueryPlan, key: Entity) -> bool:
    """Whether ``plan`` joins its answers to the constant ``key`` by one triplet."""
    symbols = {c.name for c in plan.constants if entity(c) == key}
    return any({t.head, t.tail} & symbols and plan.target in (t.head, t.tail) for t in plan.triplets)


def ground_exclusions(
    store: GraphReader,
    skb: str,
    found: Mapping[QueryPlan, dict[str, list[NodeMatch]]],
    schema: GraphSchema,
    *,
    limit: int | None = None,
) -> Excluded:
    """Step 5 of each exclusion (with its step-4 candidates in ``found``, batched with the plans'): the ids of every
    target joined to the excluded entity itself (its best candidate, or all of its exact name: one round), however
    many, in one query of ids alone; the LIMIT (``pattern_limit``) bounds it as it bounds any round."""
    by: list[tuple[Entity, frozenset[str]]] = []
    shown: list[str] = []
    for plan, matches in found.items():
        query = pattern_query(plan, schema.keys, limit=limit, ids_only=True)
        itself = {s: [m.id for m in ms[: max(1, exact_names(ms[:EXCLUSION_SCOPE]))]] for s, ms in matches.items()}
        params = {**query.params, **{query.constant_params[s]: ids for s, ids in itself.items()}}
        bound = ""
        try:
            ids = frozenset(str(row[0]) for row in store.read(skb, query.text, params))
        except StoreTimeoutError as exc:  # the answers stand unexcluded: said in step 5's detail
            ids, bound = frozenset(), f" (ran past the time limit: {exc})"
        if limit is not None and len(ids) >= limit:
            bound = f" (reached the LIMIT of {limit} rows: pattern_limit)"
        (constant,) = plan.constants
        by.append((entity(constant), ids))
        types = "|".join(t for triplet in plan.triplets for t in triplet.types)
        shown.append(f"{len(ids)} joined to '{constant.search_string}' by {types}{bound}")
    return Excluded(tuple(by), tuple(shown))
