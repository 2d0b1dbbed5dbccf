"""Every Cypher text kgqa sends to Neo4j, the production backend.

Neo4j changed how vector search is written, so this dialect has two syntaxes, chosen by the server's version
(:func:`syntax_for`):

- ``"5"`` (Neo4j 5.x and 2025.x): ``CALL db.index.vector.queryNodes(...)`` (deprecated from 2026.04, still served);
- ``"25"`` (Neo4j 2026.01 and later): the Cypher 25 ``SEARCH`` subclause of ``MATCH``; every text is prefixed
  ``CYPHER 25`` so that it means the same whatever the database's default language is.

Neo4j names every index (FalkorDB does not): :func:`index_name` derives a stable, collision-free name from
the label. Neo4j's cosine score is ``(1 + cos) / 2`` in [0, 1]; the queries turn it back into the cosine similarity
(``2 * score - 1``) so that both dialects rank and report on the same scale. Everything here is linted by Neo4j's
own parser and semantic analysis in the tests (tools/neo4j-lint).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgqa.cypher.identifiers import quote
from kgqa.runtime.store import queries as shared
from kgqa.runtime.store.base import ALIAS_LABEL, NameKind
from kgqa.runtime.store.neo4j_version import SEARCH_SINCE, Syntax, syntax_for
from kgqa.runtime.store.queries import *  # noqa: F403  (re-exported: this module lists every text)
from kgqa.runtime.store.queries import (
    ALIAS_KEY,
    ALIAS_OF,
    ALIAS_OF_LABEL,
    ALIAS_OF_NAME,
    DOC,
    DOC_EMB,
    ID,
    NAME,
    NAME_EMB,
    NAME_KEY,
    PLAIN_EMB,
    REL_DOC,
    walk_start,
)

__all__ = [
    *shared.__all__,
    "CLEAR_GRAPH",
    "LIST_INDEXES",
    "LIST_TEXT_INDEXES",
    "META_LABEL",
    "NODE_COUNTS_NEO4J",
    "NODE_TOTAL",
    "READ_META",
    "SEARCH_SINCE",
    "SERVER_VERSION",
    "WRITE_META",
    "Syntax",
    "VectorQuery",
    "alias_top_k",
    "browser_block",
    "create_aliases",
    "create_id_constraint",
    "create_nodes",
    "create_property_index",
    "set_documents",
    "create_text_index",
    "create_vector_index",
    "cypher_literal",
    "drop_vector_index",
    "explain",
    "index_name",
    "is_kgqa_index",
    "name_problem",
    "plain_similarities",
    "statement",
    "syntax_for",
    "text_scores",
    "text_top_k",
    "vector_top_k",
    "walk_degrees",
]


def statement(text: str, syntax: Syntax) -> str:
    """``text`` as sent to a server of this syntax (the ``CYPHER 25`` prefix where needed)."""
    return f"CYPHER 25 {text}" if syntax == "25" else text


def index_name(label: str, prop: str) -> str:
    """``kgqa_<label slug>_<property>_<8 hex of the label>``: readable in ``SHOW INDEXES`` and unique per label."""
    slug = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")[:40] or "label"
    digest = hashlib.sha256(label.encode()).hexdigest()[:8]
    return f"kgqa_{slug}_{prop}_{digest}"


def create_id_constraint(label: str) -> str:
    """Unique ids per label; the constraint's index also serves the id lookups of the pattern queries."""
    name = quote(index_name(label, ID))
    return f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{quote(label)}) REQUIRE n.{ID} IS UNIQUE"


def create_nodes(label: str, *, plain: bool = True, doc: bool = True) -> str:
    """Batch insert of nodes of one label; ``$rows`` = [{id, name, name_key, doc, rel_doc, name_emb, doc_emb,
    plain_emb}]
    (without ``plain_emb`` when ``plain`` is false, without ``doc_emb`` when ``doc`` is: rows that carry none, see
    NodeRow; :func:`set_documents` adds them).

    ``db.create.setNodeVectorProperty`` stores the vectors as float32 arrays (a plain SET would store float64).
    """
    vectors = (NAME_EMB, *((DOC_EMB,) if doc else ()), *((PLAIN_EMB,) if plain else ()))
    calls = " ".join(f"CALL db.create.setNodeVectorProperty(n, '{prop}', r.{prop})" for prop in vectors)
    return (
        f"UNWIND $rows AS r CREATE (n:{quote(label)} "
        f"{{{ID}: r.id, {NAME}: r.name, {NAME_KEY}: r.{NAME_KEY}, {DOC}: r.doc, {REL_DOC}: r.rel_doc}}) "
        f"WITH n, r {calls}"
    )


def set_documents(label: str, *, plain: bool) -> str:
    """The document vectors (and the plain-document ones where ``plain``) of nodes of one label written without
    them; ``$rows`` = [{id, doc_emb, plain_emb}]."""
    vectors = (DOC_EMB, PLAIN_EMB) if plain else (DOC_EMB,)
    calls = " ".join(f"CALL db.create.setNodeVectorProperty(n, '{prop}', r.{prop})" for prop in vectors)
    return f"UNWIND $rows AS r MATCH (n:{quote(label)} {{{ID}: r.id}}) WITH n, r {calls}"


def create_aliases() -> str:
    """Batch insert of alias nodes (base.ALIAS_LABEL); ``$rows`` = [{of, of_label, of_name, name, key, name_emb}]."""
    props = ", ".join(f"{p}: r.{p}" for p in (ALIAS_OF, ALIAS_OF_LABEL, ALIAS_OF_NAME, NAME, ALIAS_KEY))
    return (
        f"UNWIND $rows AS r CREATE (n:{quote(ALIAS_LABEL)} {{{props}}}) "
        f"WITH n, r CALL db.create.setNodeVectorProperty(n, '{NAME_EMB}', r.{NAME_EMB})"
    )


def create_property_index(label: str, prop: str) -> str:
    """A range index on one property (the nodes' ``name_key``, the aliases' ``of`` and ``key``)."""
    name = quote(index_name(label, prop))
    return f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{quote(label)}) ON (n.{quote(prop)})"


def create_vector_index(label: str, prop: str, dimension: int) -> str:
    """Cosine vector index; the dimension is a validated int, not user text, so it may be inlined."""
    return (
        f"CREATE VECTOR INDEX {quote(index_name(label, prop))} IF NOT EXISTS "
        f"FOR (n:{quote(label)}) ON (n.{quote(prop)}) OPTIONS {{indexConfig: "
        f"{{`vector.dimensions`: {int(dimension)}, `vector.similarity_function`: 'cosine'}}}}"
    )


def create_text_index(label: str) -> str:
    """The full-text (Lucene) index over the names and documents of ``label`` (steps 6-7's lexical side)."""
    name = quote(index_name(label, "text"))
    return f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS FOR (n:{quote(label)}) ON EACH [n.{NAME}, n.{DOC}]"


def name_problem(name: str, kind: NameKind) -> str | None:
    """Why Neo4j cannot take ``name`` as a ``kind`` (any of the three), or None: the shared rules
    (:func:`kgqa.runtime.store.queries.common_name_problem`) only; Neo4j reads a doubled backtick inside a quoted name
    as one, so :func:`kgqa.cypher.identifiers.quote` carries any backtick."""
    return shared.common_name_problem(name)


_KGQA_INDEX = re.compile(r"kgqa_[a-z0-9_]+_[0-9a-f]{8}")


def is_kgqa_index(name: str) -> bool:
    """Whether an index name (as ``SHOW INDEXES`` lists it) is one :func:`index_name` makes."""
    return _KGQA_INDEX.fullmatch(name) is not None


def drop_vector_index(name: str) -> str:
    """Drops one of kgqa's own vector indexes before a reload: ``IF NOT EXISTS`` would otherwise keep an index of
    an earlier embedder's dimension, or a FAILED one. Only names :func:`index_name` makes are accepted."""
    if not is_kgqa_index(name):
        raise ValueError(f"not a kgqa index name: {name!r}")
    return f"DROP INDEX {quote(name)} IF EXISTS"


LIST_INDEXES = (
    "SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, state RETURN name, labelsOrTypes, properties, state"
)
LIST_TEXT_INDEXES = (
    "SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties, state RETURN name, labelsOrTypes, properties, state"
)

_HIT_RETURN = f"RETURN node.{ID} AS id, node.{NAME} AS name, 2 * score - 1 AS similarity ORDER BY similarity DESC"


@dataclass(frozen=True)
class VectorQuery:
    """A query over one named index: run ``text`` with ``params`` plus its values (``k`` and ``vector`` for a
    vector index, ``query`` and ``ids`` for a full-text one)."""

    text: str
    params: dict[str, Any]


def vector_top_k(label: str, prop: str, syntax: Syntax) -> VectorQuery:
    """For each vector of ``$vectors``, the top ``$k`` nodes of ``label`` nearest to it by the index on ``prop``, with
    cosine similarity; rows ``[i, id, name, similarity]``, ``i`` the vector's position."""
    return _top_k(label, index_name(label, prop), _HIT_RETURN, syntax)


def _top_k(label: str, index: str, returned: str, syntax: Syntax) -> VectorQuery:
    """Top ``$k`` nodes of ``label`` by the vector index ``index`` for each of ``$vectors``, then ``returned`` (the
    RETURN clause, after the vector's position ``i``), ordered by ``i``: every search of a question (one per linked
    span) in one query instead of one round trip each."""
    each = "UNWIND range(0, size($vectors) - 1) AS i WITH i, $vectors[i] AS vector "
    order = f"{returned.replace('RETURN ', 'RETURN i, ', 1).replace(' ORDER BY ', ' ORDER BY i, ', 1)}"
    if syntax == "25":
        text = (
            f"{each}MATCH (node:{quote(label)}) SEARCH node IN (VECTOR INDEX {quote(index)} FOR vector LIMIT $k) "
            f"SCORE AS score {order}"
        )
        return VectorQuery(statement(text, syntax), {})
    text = f"{each}CALL db.index.vector.queryNodes($index, $k, vector) YIELD node, score {order}"
    return VectorQuery(text, {"index": index})


def plain_similarities(label: str, syntax: Syntax) -> str:
    """The cosine similarity of ``$vector`` to the stored plain-document vector (``plain_emb``, else ``doc_emb``:
    one vector serves both outside STaRK) of each node of ``label`` whose id is in ``$ids`` (step 6's dense side),
    computed in the server: one number comes back per node, not its vector. Neo4j's function scales cosine to
    [0, 1], undone here; null where a node has neither."""
    text = (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids RETURN n.{ID} AS id, "
        f"2 * vector.similarity.cosine(coalesce(n.{PLAIN_EMB}, n.{DOC_EMB}), $vector) - 1 AS similarity"
    )
    return statement(text, syntax)


def text_scores(label: str, syntax: Syntax) -> VectorQuery:
    """The full-text score of each node of ``label`` whose id is in ``$ids`` and whose text matches ``$query``
    (terms joined by ``OR``)."""
    text = (
        "CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score "
        f"WHERE node.{ID} IN $ids RETURN node.{ID} AS id, score"
    )
    return VectorQuery(statement(text, syntax), {"index": index_name(label, "text")})


def text_top_k(label: str, syntax: Syntax) -> VectorQuery:
    """The ``$k`` nodes of ``label`` whose text best matches ``$query`` (terms joined by ``OR``), best first."""
    text = (
        "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node, score "
        f"RETURN node.{ID} AS id, node.{NAME} AS name, score ORDER BY score DESC, id"
    )
    return VectorQuery(statement(text, syntax), {"index": index_name(label, "text")})


_ALIAS_RETURN = (
    f"RETURN node.{ALIAS_OF} AS id, node.{ALIAS_OF_LABEL} AS label, node.{ALIAS_OF_NAME} AS name, "
    f"node.{NAME} AS alias, 2 * score - 1 AS similarity ORDER BY similarity DESC"
)


def alias_top_k(syntax: Syntax) -> VectorQuery:
    """For each vector of ``$vectors``, the top ``$k`` alias nodes nearest to it, returned as the nodes they alias,
    with the alias; rows ``[i, id, label, name, alias, similarity]``."""
    return _top_k(ALIAS_LABEL, index_name(ALIAS_LABEL, NAME_EMB), _ALIAS_RETURN, syntax)


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _escape(ch: str) -> str:
    """Printable characters as they are; others as ``\\uXXXX`` (UTF-16 surrogate pairs beyond the BMP, as Java)."""
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def cypher_literal(value: Any) -> str:
    """A parameter value as a Cypher literal, for the ``:params`` line of a Neo4j Browser block (never sent by kgqa:
    kgqa always sends values as driver parameters)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int | float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{value!r} has no Cypher literal")
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace("'", "\\'")
        escaped = "".join(map(_escape, escaped))
        return f"'{escaped}'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = [k if _PLAIN_KEY.fullmatch(k) else quote(k) for k in map(str, value)]
        return "{" + ", ".join(f"{k}: {cypher_literal(v)}" for k, v in zip(keys, value.values(), strict=True)) + "}"
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


def browser_block(text: str, params: dict[str, Any]) -> str:
    """``:params {...};`` then the query: paste both into Neo4j Browser to run exactly what kgqa runs (the ``;``
    separates the two statements in Browser's multi-statement editor)."""
    return f":params {cypher_literal(params)};\n{text};"


SERVER_VERSION = "CALL dbms.components() YIELD versions RETURN versions[0] AS version"

META_LABEL = "_KgqaMeta"
"""Neo4j has no key-value side store: an SKB's metadata is one node with this label, written last by a load."""

NODE_COUNTS_NEO4J = (
    f"MATCH (n) WHERE NOT n:{META_LABEL} AND NOT n:{ALIAS_LABEL} "
    "RETURN labels(n)[0] AS label, count(n) AS count ORDER BY label"
)
READ_META = f"MATCH (m:{META_LABEL}) RETURN m.name AS name, m.json AS json ORDER BY name"
"""An empty ``json`` marks a load in progress (or killed): the SKB is not there yet, but the data is kgqa's."""
NODE_TOTAL = "MATCH (n) RETURN count(n) AS count"
WRITE_META = f"MERGE (m:{META_LABEL} {{name: $name}}) SET m.json = $json"
CLEAR_GRAPH = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
"""Empties the database before a forced reload (an auto-commit query: IN TRANSACTIONS cannot run inside one)."""


def explain(text: str) -> str:
    """The ``EXPLAIN`` preflight of ``text`` (after a ``CYPHER 25`` prefix, which must stay first)."""
    if text.startswith("CYPHER 25 "):
        return "CYPHER 25 EXPLAIN " + text.removeprefix("CYPHER 25 ")
    return "EXPLAIN " + text


def walk_degrees(
    label: str, types: Sequence[str], direction: str, middle: str, next_types: Sequence[str], next_direction: str
) -> str:
    """The rows a two-hop walk from each node of ``label`` whose id is in ``$ids`` reads (:func:`walk_start`), from
    the middle nodes' degrees: a ``COUNT`` of edges of ``next_types`` to a node of any label, which Neo4j answers
    from the node's degree store instead of walking the hub it measures."""
    left, right = shared.ends(next_direction)
    edges = "|".join(quote(t) for t in next_types)
    return (
        f"{walk_start(label, types, direction, middle)}"
        f"RETURN n.{ID} AS id, sum(COUNT {{ (m){left}[:{edges}]{right}() }}) AS degree"
    )
