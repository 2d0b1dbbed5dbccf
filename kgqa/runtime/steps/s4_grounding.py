"""Method steps 4-5: candidates for each constant, then the pattern with scope expansion (l = 1, 2, 3, 5, ...).

One round trip per round; the LLM's text never reaches the store: only the compiled pattern (identifiers from the
live schema) with candidate ids and values as parameters, through the store's read-only execution.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

import numpy as np

from kgqa.cypher.compile import PatternQuery, pattern_query
from kgqa.cypher.plan import QueryPlan, Symbol
from kgqa.cypher.sanitize import GraphSchema
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.embed import Embedder
from kgqa.runtime.scoring import next_scope
from kgqa.runtime.store.base import GraphStore

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
        return {**self.query.params, **ids}

    @property
    def last_params(self) -> dict[str, Any]:
        """The parameters of the last round run: with :attr:`query`, what reproduces its answers in Neo4j Browser."""
        return self.params_at(self.rounds[-1].scope if self.rounds else 1)


ALIAS_DEPTH = 3
"""Alias hits read per candidate wanted: the alias index spans every label, and one node may have several close
aliases, so ``l_max`` hits could name fewer than ``l_max`` nodes of the constant's labels."""


def constant_candidates(
    store: GraphStore,
    skb: str,
    symbol: Symbol,
    vector: np.ndarray,
    labels: tuple[str, ...],
    l_max: int,
    *,
    aliases: bool = False,
) -> list[NodeMatch]:
    """Up to ``l_max`` nodes: exact (case-insensitive) name matches (several nodes of the very name tie for the
    first place: :func:`exact_names`), then exact alias matches, then the nearest by the name index and, with
    ``aliases`` (the graph has an alias index), by the alias index, merged by similarity."""
    text = symbol.search_string or ""
    found = [NodeMatch(i, name, exact=True) for label in labels for i, name in store.exact_name(skb, label, text)]
    hits = [hit for label in labels for hit in store.vector_top_k(skb, label, "name", vector, l_max)]
    nearest = [NodeMatch(str(hit.id), hit.name, "", hit.similarity) for hit in hits]
    if aliases:
        found += [NodeMatch(h.id, h.name, h.alias, exact=True) for h in store.exact_alias(skb, labels, text)]
        by_alias = store.alias_top_k(skb, vector, l_max * ALIAS_DEPTH)
        nearest += [NodeMatch(h.id, h.name, h.alias, h.similarity) for h in by_alias if h.label in labels]
    nearest.sort(key=lambda match: -match.similarity)
    ordered: dict[str, NodeMatch] = {}
    for match in found + nearest:
        ordered.setdefault(match.id, match)
    return list(ordered.values())[:l_max]


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
    store: GraphStore,
    skb: str,
    plan: QueryPlan,
    vectors: dict[str, np.ndarray],
    all_labels: tuple[str, ...],
    l_max: int,
    *,
    aliases: bool = False,
) -> dict[str, list[NodeMatch]]:
    """Step 4 for every constant of ``plan``; an unlabelled constant is searched in every label."""
    return {
        c.name: constant_candidates(store, skb, c, vectors[c.name], c.labels or all_labels, l_max, aliases=aliases)
        for c in plan.constants
    }


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
) -> GroundingResult:
    """Step 5 (and step 4 unless its candidates are given as ``found``); ``source``: whose plan (Grounded.plan);
    ``aliases``: step 4 searches the alias index too (the graph has one); ``limit``: the compiled query's LIMIT
    (``pattern_limit``)."""
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
    )
    evidence = [symbol for symbol in query.constant_params if symbol != plan.target]
    seen: dict[str, Grounded] = {}
    last: dict[str, Any] | None = None
    for scope in expansion_schedule(l_max):
        params = result.params_at(scope)
        if params == last:  # no constant has a new candidate in this round (too few, or tied): nothing new to find
            continue
        last = params
        start = time.perf_counter()
        try:
            rows = store.read(skb, query.text, params)
        except StoreTimeoutError as exc:  # an LLM's plan can be far too broad; what was grounded before stands
            result.timed_out = f"l={scope} ran past the time limit ({exc})"
            break
        for node_id, name, label, *matched in rows:
            matches = tuple((symbol, tuple(map(str, ids))) for symbol, ids in zip(evidence, matched, strict=True))
            seen.setdefault(str(node_id), Grounded(str(node_id), name, label, scope, matches, source))
        result.rounds.append(Round(scope, len(seen), round(time.perf_counter() - start, 4)))
        if limit is not None and len(rows) >= limit and not result.capped:
            result.capped = f"l={scope} reached the LIMIT of {limit} rows (pattern_limit): further targets not read"
        if len(seen) >= k or not query.constant_params:
            break
    result.targets = sorted(seen.values(), key=lambda g: g.round_l)
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
    vote in step 6 (kgqa.runtime.steps.s6_graph_ranking.plan_votes), and its weak constants (:func:`weak_constants`),
    for which step 6 counts its rounds one later."""

    source: str
    plan: QueryPlan
    result: GroundingResult
    weight: float = 1.0
    weak: tuple[str, ...] = ()


EXCLUSION_SCOPE = 3
"""Candidates read for an excluded entity: its node, and the nodes of its exact name (OMIM's and Orphanet's entry of
one disease) that one round grounds through (:attr:`GroundingResult.tied`); never its neighbours by similarity."""


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
    store: GraphStore,
    skb: str,
    embedder: Embedder,
    plans: Sequence[QueryPlan],
    schema: GraphSchema,
    *,
    aliases: bool = False,
    limit: int | None = None,
) -> Excluded:
    """Steps 4-5 of each plan's exclusions: every target joined to the excluded entity itself (its best candidate, or
    all of its exact name: one round), however many; the LIMIT (``pattern_limit``) bounds it as it bounds any
    round."""
    by: list[tuple[Entity, frozenset[str]]] = []
    shown: list[str] = []
    for plan in dict.fromkeys(e for p in plans for e in p.excluded):
        vectors = constant_vectors(embedder, plan)
        found = plan_candidates(store, skb, plan, vectors, schema.labels, EXCLUSION_SCOPE, aliases=aliases)
        itself = {symbol: matches[: max(1, exact_names(matches))] for symbol, matches in found.items()}
        result = ground(store, skb, plan, vectors, schema, k=1, l_max=1, found=itself, source="excluded", limit=limit)
        (constant,) = plan.constants
        by.append((entity(constant), frozenset(t.id for t in result.targets)))
        types = "|".join(t for triplet in plan.triplets for t in triplet.types)
        bound = f" ({result.timed_out})" if result.timed_out else " (capped)" if result.capped else ""
        shown.append(f"{len(result.targets)} joined to '{constant.search_string}' by {types}{bound}")
    return Excluded(tuple(by), tuple(shown))
