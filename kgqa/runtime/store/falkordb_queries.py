"""Every Cypher text kgqa sends to FalkorDB (the embedded default).

FalkorDB specifics: vectors are stored with ``vecf32(...)``; ``db.idx.vector.queryNodes`` returns a *distance*
(cosine distance = 1 - cosine similarity), and HNSW options are set at index creation.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgqa.cypher.identifiers import quote
from kgqa.runtime.store import queries as shared
from kgqa.runtime.store.base import NameKind
from kgqa.runtime.store.queries import *  # noqa: F403  (re-exported: this module lists every text)
from kgqa.runtime.store.queries import ALIAS_OF, ALIAS_OF_LABEL, ALIAS_OF_NAME, DOC, DOC_EMB, ID, NAME, PLAIN_EMB

__all__ = [
    *shared.__all__,
    "ALIAS_TOP_K",
    "CREATE_TEXT_INDEX",
    "LIST_INDEXES",
    "TEXT_SCORES",
    "TEXT_TOP_K",
    "VECTOR_TOP_K",
    "create_id_index",
    "create_property_index",
    "create_vector_index",
    "name_problem",
    "plain_similarities",
    "set_vectors_query",
    "to_vectors_query",
]


def create_id_index(label: str) -> str:
    return f"CREATE INDEX FOR (n:{quote(label)}) ON (n.{ID})"


def create_property_index(label: str, prop: str) -> str:
    """A range index on one property (ids; the aliases' ``of`` and ``key``)."""
    return f"CREATE INDEX FOR (n:{quote(label)}) ON (n.{quote(prop)})"


def create_vector_index(label: str, prop: str, dimension: int, ef_runtime: int) -> str:
    """HNSW cosine index; the numbers are validated ints, not user text, so they may be inlined."""
    return (
        f"CREATE VECTOR INDEX FOR (n:{quote(label)}) ON (n.{quote(prop)}) OPTIONS "
        f"{{dimension: {int(dimension)}, similarityFunction: 'cosine', efRuntime: {int(ef_runtime)}}}"
    )


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


# Top ``$k`` nodes of label ``$label`` nearest to ``$vector`` by index ``$property``; FalkorDB returns the cosine
# distance, so similarity = 1 - distance.
VECTOR_TOP_K = (
    "CALL db.idx.vector.queryNodes($label, $property, $k, vecf32($vector)) YIELD node, score "
    f"RETURN node.{ID} AS id, node.{NAME} AS name, 1.0 - score AS similarity ORDER BY similarity DESC"
)


def plain_similarities(label: str) -> str:
    """The cosine similarity of ``$vector`` to the stored plain-document vector (``plain_emb``, else ``doc_emb``:
    one vector serves both outside STaRK) of each node of ``label`` whose id is in ``$ids`` (step 6's dense side),
    computed in the server: one number comes back per node, not its vector. Null where a node has neither."""
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids RETURN n.{ID} AS id, "
        f"1.0 - vec.cosineDistance(coalesce(n.{PLAIN_EMB}, n.{DOC_EMB}), vecf32($vector)) AS similarity"
    )


# The ``$k`` alias nodes (label ``$label``: base.ALIAS_LABEL) nearest to ``$vector``, as the nodes they alias.
ALIAS_TOP_K = (
    "CALL db.idx.vector.queryNodes($label, $property, $k, vecf32($vector)) YIELD node, score "
    f"RETURN node.{ALIAS_OF} AS id, node.{ALIAS_OF_LABEL} AS label, node.{ALIAS_OF_NAME} AS name, "
    f"node.{NAME} AS alias, 1.0 - score AS similarity ORDER BY similarity DESC"
)


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
