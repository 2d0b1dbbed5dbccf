"""The query plan: what kgqa keeps of an LLM's Cypher (method step 3). Small frozen dataclasses, no database."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["out", "in", "both"]
Value = str | int | float | bool | None | tuple["Value", ...]

NAME_PROPERTIES = ("name", "title")
"""Properties whose equality makes a symbol a CONSTANT searched by name (method step 3)."""


@dataclass(frozen=True)
class NodeKeys:
    """The property keys holding a node's id and its name in the graph. The store decides them
    (``kgqa.runtime.store.base.NODE_KEYS``); the sanitizer and the compiler take them from the schema, never as
    literals."""

    id: str
    name: str


@dataclass(frozen=True)
class Condition:
    """``symbol.property <op> value`` from an inline map or a WHERE clause."""

    property: str
    op: str
    value: Value


@dataclass(frozen=True)
class Symbol:
    """A node variable with its labels and conditions; anonymous nodes get generated names (``_n1``...)."""

    name: str
    labels: tuple[str, ...] = ()
    conditions: tuple[Condition, ...] = ()

    @property
    def search_string(self) -> str | None:
        """The name/title this symbol must match, if any: then it is a constant."""
        for condition in self.conditions:
            if condition.property in NAME_PROPERTIES and condition.op == "=" and isinstance(condition.value, str):
                return condition.value
        return None


@dataclass(frozen=True)
class Triplet:
    """``(head)-[:types]->(tail)``; ``direction`` is as written: out (->), in (<-) or both (-)."""

    head: str
    types: tuple[str, ...]
    tail: str
    direction: Direction


def arrows(direction: Direction) -> tuple[str, str]:
    """The two ends of a relationship pattern written ``direction``: out ``-[...]->``, in ``<-[...]-``, both
    ``-[...]-`` (a parsed plan is never ``in``: the parser turns it round; a schema-guided plan may be)."""
    return ("<-" if direction == "in" else "-", "->" if direction == "out" else "-")


@dataclass(frozen=True)
class Dropped:
    """A part of the input kgqa did not keep, and why (shown by ``kgqa explain``)."""

    text: str
    reason: str


@dataclass(frozen=True)
class QueryPlan:
    symbols: tuple[Symbol, ...]
    triplets: tuple[Triplet, ...]
    target: str | None
    """The returned variable (the answer); None when RETURN named no node variable."""
    limit: int | None = None
    distinct: bool = False
    dropped: tuple[Dropped, ...] = field(default=())
    excluded: tuple[QueryPlan, ...] = field(default=())
    """Plans whose answers are not answers of this one ("diseases with chorea but no seizures": those with Seizure
    present). Only kgqa's own plan of the linked entities says one; an LLM's Cypher never does (the method's prompt
    allows no negation)."""

    def symbol(self, name: str) -> Symbol:
        return next(s for s in self.symbols if s.name == name)

    @property
    def constants(self) -> tuple[Symbol, ...]:
        return tuple(s for s in self.symbols if s.search_string is not None)
