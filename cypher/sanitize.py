"""Sanitizer (method step 3, second half): check a plan against the live schema and repair near misses.

Identifiers that leave this module come only from the schema, so compiled queries never carry an identifier the
LLM invented. Strict mode (default) repairs only confident near misses and drops the rest with a reason; lenient mode
maps a label or type to the most similar one in the schema unless nothing there is like it (LENIENT_FLOOR).
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from .errors import CypherSyntaxError
from .plan import NAME_PROPERTIES, Condition, Dropped, NodeKeys, QueryPlan, Symbol, Triplet, arrows

Mode = Literal["strict", "lenient"]
CONFIDENT = 0.6
LENIENT_FLOOR = 0.44
"""Lenient mode maps a name to its most similar schema name only from this similarity up; below, nothing of the
schema is meant (``paper___has_topic___field_of_study`` in HPO) and the name is dropped."""
MAX_TRIPLETS = 8
"""Default of ``max_triplets`` (kgqa's setting of the same name)."""
_WORDS = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class GraphSchema:
    """The identifiers the live graph has (kgqa builds it from its store's schema)."""

    labels: tuple[str, ...]
    relationships: tuple[tuple[str, str, str], ...]
    """(source label, type, target label)"""
    keys: NodeKeys
    """the id and name property keys of every node"""

    @property
    def properties(self) -> tuple[str, ...]:
        """The node properties a condition may test (others are dropped or extend a constant's search string)."""
        return (self.keys.id, self.keys.name)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for _, t, _ in self.relationships))


@dataclass(frozen=True)
class Repair:
    kind: str
    original: str
    replacement: str
    similarity: float


@dataclass(frozen=True)
class SanitizedPlan:
    plan: QueryPlan
    repairs: tuple[Repair, ...]
    mode: Mode


def similarity(a: str, b: str) -> float:
    """Max of character similarity, word overlap and word containment, case-folded (``has_field_of_study`` ~
    ``paper___has_topic___field_of_study`` and ``writes`` ~ ``author___writes___paper`` by words;
    ``gene_protein`` ~ ``gene/protein`` by characters)."""
    a_low, b_low = a.lower(), b.lower()
    chars = SequenceMatcher(None, a_low, b_low).ratio()
    wa, wb = set(_WORDS.findall(a_low)), set(_WORDS.findall(b_low))
    words = len(wa & wb) / len(wa | wb) if wa and wb else 0.0
    contained = 0.7 + 0.3 * words if wa and wa <= wb else 0.0  # every written word is in the schema's name
    return max(chars, words, contained)


def _resolve(name: str, choices: tuple[str, ...], kind: str, mode: Mode, repairs: list[Repair]) -> str | None:
    if name in choices:
        return name
    if not choices:
        return None
    best = max(choices, key=lambda c: (similarity(name, c), c))
    score = similarity(name, best)
    floor = LENIENT_FLOOR if mode == "lenient" else CONFIDENT
    if score >= floor or best.lower() == name.lower():
        repairs.append(Repair(kind, name, best, round(score, 3)))
        return best
    return None


def sanitize(
    plan: QueryPlan, schema: GraphSchema, mode: Mode = "strict", *, max_triplets: int = MAX_TRIPLETS
) -> SanitizedPlan:
    """Schema identifiers only, then :func:`focus` on the answer's part of the pattern (at most ``max_triplets``)."""
    repairs: list[Repair] = []
    dropped = list(plan.dropped)
    written = {symbol.name: symbol.labels for symbol in plan.symbols}
    symbols: dict[str, Symbol] = {}
    for symbol in plan.symbols:
        labels = []
        for label in symbol.labels:
            resolved = _resolve(label, schema.labels, "label", mode, repairs)
            if resolved is None:
                dropped.append(Dropped(f"{symbol.name}:{label}", "label not in the schema"))
            else:
                labels.append(resolved)
        symbols[symbol.name] = _conditions(
            dataclasses.replace(symbol, labels=tuple(dict.fromkeys(labels[:1]))), schema, dropped
        )

    triplets = []
    for triplet in plan.triplets:
        types = [t for t in (_resolve(t, schema.types, "type", mode, repairs) for t in triplet.types) if t]
        if not types:
            dropped.append(Dropped(f"-[:{'|'.join(triplet.types)}]-", "relationship type not in the schema"))
            continue
        triplets.append(dataclasses.replace(triplet, types=tuple(dict.fromkeys(types))))
    if not triplets and not any(s.search_string for s in symbols.values()):
        raise CypherSyntaxError("nothing of the query matches the schema")
    plan = dataclasses.replace(plan, symbols=tuple(symbols.values()), triplets=tuple(triplets), dropped=tuple(dropped))
    plan, labelled = complete_labels(plan, schema, written, keep=plan.target)
    repairs += labelled
    plan = focus(plan, max_triplets)
    if not plan.triplets and not plan.constants:
        raise CypherSyntaxError(f"no triplet or constant of the query is connected to the answer ({plan.target})")
    return SanitizedPlan(plan, tuple(repairs), mode)


def focus(plan: QueryPlan, max_triplets: int) -> QueryPlan:
    """The answer's part of the pattern: triplets reached from the target, nearest first, at most ``max_triplets``.

    A pattern part that shares no variable with the answer only multiplies rows (a cartesian product) and a long
    chain only multiplies work, so both are dropped, with the reason, before anything is compiled. A plan without a
    target is left as it is (it cannot be compiled).
    """
    if plan.target is None or plan.target not in {s.name for s in plan.symbols}:
        return plan
    component = _nearest_first(tuple(dict.fromkeys(plan.triplets)), plan.target)
    kept, over = component[:max_triplets], component[max_triplets:]
    reached = {plan.target} | {end for t in kept for end in (t.head, t.tail)}
    connected = set(component)
    apart = [t for t in plan.triplets if t not in connected]
    beyond = f"beyond the max_triplets = {max_triplets} triplets nearest the answer"
    unlinked = f"shares no variable with the answer ({plan.target}): it would only multiply rows"
    in_triplets = {end for t in plan.triplets for end in (t.head, t.tail)}
    lost = [  # a lost condition, or a node pattern of its own; other nodes go with their triplets
        s for s in plan.symbols if s.name not in reached and (s.conditions or (s.labels and s.name not in in_triplets))
    ]
    far = {end for t in over for end in (t.head, t.tail)}
    dropped = [
        *plan.dropped,
        *_summarised([_triplet_text(t) for t in over], beyond),
        *_summarised([_triplet_text(t) for t in apart], unlinked),
        *_summarised([_symbol_text(s) for s in lost if s.name in far], beyond),
        *_summarised([_symbol_text(s) for s in lost if s.name not in far], unlinked),
    ]
    symbols = tuple(s for s in plan.symbols if s.name in reached)
    return dataclasses.replace(plan, symbols=symbols, triplets=tuple(kept), dropped=tuple(dropped))


def _nearest_first(triplets: tuple[Triplet, ...], start: str) -> list[Triplet]:
    """The triplets connected to ``start``, breadth first: every prefix of the list is connected to ``start``."""
    touching: dict[str, list[int]] = {}
    for index, triplet in enumerate(triplets):
        for end in dict.fromkeys((triplet.head, triplet.tail)):
            touching.setdefault(end, []).append(index)
    taken: dict[int, None] = {}
    seen, frontier = {start}, deque([start])
    while frontier:
        for index in touching.get(frontier.popleft(), []):
            if index in taken:
                continue
            taken[index] = None
            for end in (triplets[index].head, triplets[index].tail):
                if end not in seen:
                    seen.add(end)
                    frontier.append(end)
    return [triplets[index] for index in taken]


SHOWN = 5
"""Dropped parts listed one by one for each reason; the rest are counted (a long chain would list hundreds)."""


def _summarised(texts: list[str], reason: str) -> list[Dropped]:
    shown = [Dropped(text, reason) for text in texts[:SHOWN]]
    if len(texts) > SHOWN:
        shown.append(Dropped(f"{len(texts) - SHOWN} more like these", reason))
    return shown


def _triplet_text(triplet: Triplet) -> str:
    left, right = arrows(triplet.direction)
    return f"({triplet.head}){left}[:{'|'.join(triplet.types)}]{right}({triplet.tail})"


def _symbol_text(symbol: Symbol) -> str:
    labels = "".join(f":{label}" for label in symbol.labels)
    conditions = ", ".join(f"{c.property} {c.op} {c.value!r}" for c in symbol.conditions)
    return f"({symbol.name}{labels}{' {' + conditions + '}' if conditions else ''})"


def _conditions(symbol: Symbol, schema: GraphSchema, dropped: list[Dropped]) -> Symbol:
    """Name/title equalities become the search string; unknown properties of a constant extend it (method step 3);
    other conditions on properties the graph does not have are dropped."""
    kept: list[Condition] = []
    extra: list[str] = []
    is_constant = symbol.search_string is not None
    for condition in symbol.conditions:
        prop = "name" if condition.property in NAME_PROPERTIES else condition.property
        if prop in schema.properties:
            kept.append(dataclasses.replace(condition, property=prop))
        elif is_constant and isinstance(condition.value, str | int | float):
            extra.append(str(condition.value))
        else:
            dropped.append(Dropped(f"{symbol.name}.{condition.property}", "property not in the schema"))
    if extra:
        first = next(i for i, c in enumerate(kept) if c.property == "name" and c.op == "=")
        kept[first] = dataclasses.replace(kept[first], value=f"{kept[first].value} {' '.join(extra)}")
    if is_constant:  # found by its name alone (method step 4): say so of any other condition
        search = next(c for c in kept if c.property == "name" and c.op == "=" and isinstance(c.value, str))
        reason = "a constant is found by its name; its other conditions are not used"
        dropped += [Dropped(f"{symbol.name}.{c.property} {c.op} {c.value!r}", reason) for c in kept if c != search]
        kept = [search]
    return dataclasses.replace(symbol, conditions=tuple(kept))


def complete_labels(
    plan: QueryPlan,
    schema: GraphSchema,
    written: Mapping[str, tuple[str, ...]] | None = None,
    *,
    keep: str | None = None,
) -> tuple[QueryPlan, tuple[Repair, ...]]:
    """Each unlabelled node the schema allows one label for, given its neighbours' labels and the relationship
    types that join them (``(y:disease)-[:`phenotype present`]->(v1 {name: "Seizure"})``: v1 can only be an
    effect/phenotype), labelled so; then every triplet oriented as the schema has it (:func:`_orient`). An unlabelled
    constant is searched in every label (step 4) and looked up by id without an index (step 5: a scan of every
    node for each row of a join), and no label it could have in this pattern is lost. Repeated until nothing
    changes: a label found lets the next be found. ``written``: each symbol's labels as written (for the repair's
    text); ``keep``: a symbol left as it is (the answer, whose label step 1's type gives first)."""
    written = written or {}
    symbols = {s.name: s for s in plan.symbols}
    repairs: list[Repair] = []
    changed = True
    while changed:
        changed = False
        for name, symbol in symbols.items():
            if symbol.labels or name == keep:
                continue
            allowed: set[str] | None = None
            for t in plan.triplets:
                if name not in (t.head, t.tail) or t.head == t.tail:
                    continue
                other = symbols[t.tail if t.head == name else t.head].labels
                if not other:
                    continue
                fits = _labels_beside(schema, other[0], t.types, t.direction, toward=t.tail == name)
                allowed = fits if allowed is None else allowed & fits
            if allowed is not None and len(allowed) == 1:
                (label,) = allowed
                symbols[name] = dataclasses.replace(symbol, labels=(label,))
                was = written.get(name, ())
                original = f"({name}:{':'.join(was)})" if was else f"({name}) without a label"
                repairs.append(Repair("label", original, label, 1.0))
                changed = True
    triplets = [_orient(t, symbols, schema, repairs) for t in plan.triplets]
    return dataclasses.replace(plan, symbols=tuple(symbols.values()), triplets=tuple(triplets)), tuple(repairs)


def _labels_beside(
    schema: GraphSchema, other: str, types: tuple[str, ...], direction: str, *, toward: bool
) -> set[str]:
    """The labels a node joined to a node of label ``other`` by an edge of ``types`` may have: at the written end
    (``toward``: the node is the triplet's tail), or at either end where the schema has it only the other way round
    (the direction is then repaired) or the triplet has no direction."""
    ahead = {dst for src, t, dst in schema.relationships if src == other and t in types}
    behind = {src for src, t, dst in schema.relationships if dst == other and t in types}
    written, reverse = (ahead, behind) if toward else (behind, ahead)
    return written | reverse if direction == "both" or not written else written


def _orient(triplet: Triplet, symbols: dict[str, Symbol], schema: GraphSchema, repairs: list[Repair]) -> Triplet:
    """Flip a written direction that the schema only has the other way round (LLMs often get it wrong)."""
    if triplet.direction == "both":
        return triplet
    head = symbols[triplet.head].labels[:1]
    tail = symbols[triplet.tail].labels[:1]
    if not head or not tail:
        return triplet
    forward = any((head[0], t, tail[0]) in schema.relationships for t in triplet.types)
    backward = any((tail[0], t, head[0]) in schema.relationships for t in triplet.types)
    if backward and not forward:
        repairs.append(
            Repair("direction", f"({triplet.head})->({triplet.tail})", f"({triplet.tail})->({triplet.head})", 1.0)
        )
        return dataclasses.replace(triplet, head=triplet.tail, tail=triplet.head)
    return triplet
