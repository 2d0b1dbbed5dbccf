"""Every Cypher text kgqa sends to FalkorDB (the embedded default).

FalkorDB specifics: the vectors are not in the graph but in the store's vector directory
(kgqa.runtime.store.vectors), so no text here searches or reads one; nodes are found again by id, aliases by their
vector row.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgqa.cypher.identifiers import quote
from kgqa.runtime.store import queries as shared
from kgqa.runtime.store.base import ALIAS_LABEL, NameKind
from kgqa.runtime.store.queries import *  # noqa: F403  (re-exported: this module lists every text)
from kgqa.runtime.store.queries import ALIAS_OF, ALIAS_OF_LABEL, ALIAS_OF_NAME, DOC, ID, NAME, walk_start

__all__ = [
    *shared.__all__,
    "ALIASES_BY_ROW",
    "ALIASES_WITH_ROWS",
    "ALIAS_ROW",
    "CREATE_TEXT_INDEX",
    "LIST_INDEXES",
    "TEXT_SCORES",
    "TEXT_TOP_K",
    "create_id_index",
    "create_property_index",
    "name_problem",
    "names",
    "set_vectors_query",
    "to_vectors_query",
    "walk_degrees",
]


def create_id_index(label: str) -> str:
    return f"CREATE INDEX FOR (n:{quote(label)}) ON (n.{ID})"


def create_property_index(label: str, prop: str) -> str:
    """A range index on one property (ids; the aliases' ``of`` and ``key``)."""
    return f"CREATE INDEX FOR (n:{quote(label)}) ON (n.{quote(prop)})"


def name_problem(name: str, kind: NameKind) -> str | None:
    """Why FalkorDB cannot take ``name`` as a ``kind``, or None: the shared rules
    (:func:`kgqa.runtime.store.queries.common_name_problem`), no backtick, which FalkorDB does not read doubled inside a
    quoted name (``CREATE INDEX FOR (n:`gene``)`` is a syntax error), so no quoting carries it, and no colon in a
    label or relationship type, which ``GRAPH.BULK`` cannot take (kgqa.runtime.store.falkordb_bulk)."""
    if "`" in name:
        return "FalkorDB cannot quote a backtick"
    if ":" in name and kind != "property key":
        return f"FalkorDB's bulk loader takes no colon in a {kind}"
    return shared.common_name_problem(name)


LIST_INDEXES = "CALL db.indexes() YIELD label, properties, types, status RETURN label, properties, types, status"


ALIAS_ROW = "row"
"""Alias nodes' row in the vector directory (kgqa.runtime.store.vectors), as text: what a vector search of the
aliases returns."""


def names(label: str) -> str:
    """(id, name) of the nodes of ``label`` whose ids are in ``$ids``: the names of a vector search's hits."""
    return f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids RETURN n.{ID} AS id, n.{NAME} AS name"


ALIASES_BY_ROW = (
    f"MATCH (a:{quote(ALIAS_LABEL)}) WHERE a.{ALIAS_ROW} IN $rows "
    f"RETURN a.{ALIAS_ROW} AS row, a.{ALIAS_OF} AS id, a.{ALIAS_OF_LABEL} AS label, a.{ALIAS_OF_NAME} AS name, "
    f"a.{NAME} AS alias"
)
"""The alias nodes at vector rows ``$rows``, as the nodes they alias."""
ALIASES_WITH_ROWS = (
    f"MATCH (a:{quote(ALIAS_LABEL)}) WHERE a.{ALIAS_OF} IN $ids AND a.{ALIAS_OF_LABEL} = $label "
    f"RETURN a.{ALIAS_ROW} AS row, a.{ALIAS_OF} AS id, a.{ALIAS_OF_NAME} AS name, a.{NAME} AS alias "
    "ORDER BY id, alias"
)
"""The aliases of the nodes of ``$label`` whose ids are in ``$ids`` with their vector rows (export)."""


CREATE_TEXT_INDEX = f"CALL db.idx.fulltext.createNodeIndex($label, '{NAME}', '{DOC}')"
"""The full-text (RediSearch) index over the names and documents of label ``$label`` (steps 6-7's lexical side)."""
TEXT_SCORES = (
    f"CALL db.idx.fulltext.queryNodes($label, $query) YIELD node, score WHERE node.{ID} IN $ids "
    f"RETURN node.{ID} AS id, score"
)
"""The full-text score of each node of ``$label`` whose id is in ``$ids`` and whose text matches ``$query`` (terms
joined by ``|``, RediSearch's OR)."""
TEXT_TOP_K = (
    f"CALL db.idx.fulltext.queryNodes($label, $query) YIELD node, score "
    f"RETURN node.{ID} AS id, node.{NAME} AS name, score ORDER BY score DESC, id LIMIT $k"
)
"""The ``$k`` nodes of ``$label`` whose text best matches ``$query`` (as for TEXT_SCORES), best first."""


def to_vectors_query(props: Sequence[str]) -> str:
    """Turn the lists of doubles in ``props`` of the nodes with ids ``$first`` to ``$stop - 1`` into ``vecf32``
    vectors (planned as a ``NodeByIdSeek`` over the range): a bulk insert's vectors arrive as lists."""
    sets = ", ".join(f"n.{quote(p)} = vecf32(n.{quote(p)})" for p in props)
    return f"MATCH (n) WHERE id(n) >= $first AND id(n) < $stop SET {sets}"


def set_vectors_query(prop: str) -> str:
    """``$rows`` = [[internal id, [float, ...]], ...]: set ``prop`` of each node to the vector (``vecf32``).

    The id goes through ``WITH`` on purpose: FalkorDB 4.16 plans ``MATCH (n) WHERE id(n) = r[0]`` as a scan of
    every node per row (quadratic), and ``WITH r[0] AS i ... WHERE id(n) = i`` as a ``NodeByIdSeek``."""
    return f"UNWIND $rows AS r WITH r[0] AS i, r[1] AS v MATCH (n) WHERE id(n) = i SET n.{quote(prop)} = vecf32(v)"


def walk_degrees(label: str, types: Sequence[str], direction: str, middle: str, next_direction: str) -> str:
    """The rows a two-hop walk from each node of ``label`` whose id is in ``$ids`` reads (:func:`walk_start`), from
    FalkorDB's degree functions on the middle nodes (edges of the types in ``$next_types``; ``next_direction`` 'out',
    'in' or 'any' from the middle node): a count that does not walk the hub it measures."""
    degree = {
        "out": "outdegree(m, $next_types)",
        "in": "indegree(m, $next_types)",
        "any": "outdegree(m, $next_types) + indegree(m, $next_types)",
    }[next_direction]
    return f"{walk_start(label, types, direction, middle)}RETURN n.{ID} AS id, sum({degree}) AS degree"
