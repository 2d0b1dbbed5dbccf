"""The store's query catalogue: Cypher texts that are word for word the same in FalkorDB and Neo4j.

Each dialect module (``falkordb_queries``, ``neo4j_queries``) re-exports them, so a dialect module stays the
complete list of what kgqa sends to that database (golden-tested per dialect). Only the stores import these
modules; everything else asks the store (:class:`kgqa.runtime.store.reads.CatalogueReads`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from kgqa.cypher.identifiers import quote
from kgqa.cypher.plan import Direction, arrows
from kgqa.runtime.store.base import ALIAS_LABEL, NODE_KEYS, VectorIndex

__all__ = [
    "ALIASES",
    "ALIAS_KEY",
    "ALIAS_OF",
    "ALIAS_OF_LABEL",
    "ALIAS_OF_NAME",
    "ALIAS_ROWS",
    "DOC",
    "DOC_EMB",
    "EDGE_COUNTS",
    "EXACT_ALIAS",
    "HIDDEN_PROPERTIES",
    "ID",
    "INDEX_PROPERTY",
    "LABELS",
    "NAME",
    "NAME_EMB",
    "NAME_KEY",
    "NODE_COUNTS",
    "PLAIN_EMB",
    "REL_DOC",
    "VECTOR_PROPERTIES",
    "anchors",
    "create_edges",
    "degrees",
    "documents",
    "edge_rows",
    "exact_name",
    "example_names",
    "label_ids",
    "name_key",
    "node_rows",
    "path_answers",
    "plain_vectors",
    "reaches",
    "relation_summary",
    "relations",
    "walk_start",
]

RESERVED_PREFIX = "_Kgqa"
"""kgqa's own labels (the alias nodes, Neo4j's metadata node) start with it: data named so would be taken for them."""


def common_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a label, relationship type or property key in either database, or None. Refused: an
    empty or blank name, control characters (Neo4j refuses NUL, FalkorDB's bulk format ends a name at it, and the
    others would reach terminals and logs as control codes), lone surrogates (not text: no UTF-8 to send) and
    kgqa's own prefix. Each dialect module's ``name_problem`` adds its own rules (this one is not re-exported)."""
    if not name.strip():
        return "it is empty" if not name else "it is blank"
    for char in name:
        category = unicodedata.category(char)
        if category == "Cs":
            return f"it holds a lone surrogate (U+{ord(char):04X}), which is not text"
        if category == "Cc":
            return f"it holds the control character U+{ord(char):04X}"
    if name.startswith(RESERVED_PREFIX):
        return f"names starting with {RESERVED_PREFIX} are kgqa's own"
    return None


# Property keys every kgqa node carries; id and name are also what compiled pattern queries use (NODE_KEYS).
ID, NAME = NODE_KEYS.id, NODE_KEYS.name
DOC, NAME_EMB, DOC_EMB = "doc", "name_emb", "doc_emb"
NAME_KEY = "name_key"
"""The name in lower case, indexed: an exact-name lookup (step 4) finds a node through an index, not by a scan."""
REL_DOC = "rel_doc"
"""The text that follows ``doc`` in the node's document WITH relations (doc + rel_doc), as its source renders it."""
PLAIN_EMB = "plain_emb"
"""The vector of ``doc`` alone (the name when ``doc`` is empty), by the SKB's configured embedder even when
``doc_emb`` was imported from another model: the document similarity of method step 6, stored at load time so a
question embeds only itself and its constants. Read by id (:func:`plain_vectors`), never searched: no index."""
VECTOR_PROPERTIES = frozenset({NAME_EMB, DOC_EMB, PLAIN_EMB})
"""Node properties that hold vectors."""
HIDDEN_PROPERTIES = VECTOR_PROPERTIES | {NAME_KEY}
"""Node properties a reader of a row is not shown (vectors; the name again, in lower case)."""
INDEX_PROPERTY: dict[VectorIndex, str] = {"name": NAME_EMB, "doc": DOC_EMB}
"""The property behind each of a label's two vector indexes."""
ALIAS_OF, ALIAS_OF_LABEL, ALIAS_OF_NAME, ALIAS_KEY = "of", "of_label", "of_name", "key"
"""Alias nodes (base.ALIAS_LABEL) carry the aliased node's id, label and name, the alias as ``name`` (with its
``name_emb``), and ``key``, the alias in lower case, for exact matches through an index."""
_ALIAS = quote(ALIAS_LABEL)


def create_edges(src_label: str, rel_type: str, dst_label: str) -> str:
    """Batch insert of edges of one (source label, type, target label); ``$rows`` = [[src_id, dst_id]]."""
    return (
        f"UNWIND $rows AS r MATCH (a:{quote(src_label)} {{{ID}: r[0]}}) "
        f"MATCH (b:{quote(dst_label)} {{{ID}: r[1]}}) CREATE (a)-[:{quote(rel_type)}]->(b)"
    )


LABELS = "CALL db.labels() YIELD label RETURN label ORDER BY label"
"""Label names from the catalogue, without the node scan NODE_COUNTS needs (``kgqa node`` on MAG-size graphs)."""
NODE_COUNTS = "MATCH (n) RETURN labels(n)[0] AS label, count(n) AS count ORDER BY label"
EDGE_COUNTS = (
    "MATCH (a)-[r]->(b) RETURN labels(a)[0] AS source, type(r) AS type, labels(b)[0] AS target, "
    "count(r) AS count ORDER BY type, source, target"
)


def name_key(name: str) -> str:
    """What :data:`NAME_KEY` holds for ``name``, and what an exact-name lookup searches for."""
    return name.lower()


def exact_name(label: str) -> str:
    """Nodes of ``label`` whose name equals ``$key`` (:func:`name_key` of the text) ignoring case, through the
    index on :data:`NAME_KEY`: they go before vector candidates (step 4)."""
    return f"MATCH (n:{quote(label)}) WHERE n.{NAME_KEY} = $key RETURN n.{ID} AS id, n.{NAME} AS name"


def example_names(label: str) -> str:
    """Up to ``$n`` names of ``label``, shortest first (well-known entities tend to have short names): the examples
    of the step-2 prompt."""
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{NAME} IS NOT NULL AND n.{NAME} <> '' "
        f"RETURN n.{NAME} AS name ORDER BY size(n.{NAME}), n.{NAME} LIMIT $n"
    )


def documents(label: str) -> str:
    """Name, document (without relations) and relation text of the nodes of ``label`` whose ids are in ``$ids``
    (step 8, ``kgqa node``)."""
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids "
        f"RETURN n.{ID} AS id, n.{NAME} AS name, n.{DOC} AS doc, n.{REL_DOC} AS rel_doc"
    )


def plain_vectors(label: str) -> str:
    """The stored plain-document vector of the nodes of ``label`` whose ids are in ``$ids`` (step 6's similarity):
    ``plain_emb``, else ``doc_emb``, which outside STaRK is the plain document's."""
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids "
        f"RETURN n.{ID} AS id, coalesce(n.{PLAIN_EMB}, n.{DOC_EMB}) AS {PLAIN_EMB}"
    )


def relations(label: str) -> str:
    """Outgoing and incoming relations of the nodes of ``label`` whose ids are in ``$ids``, with the neighbour's id
    and name and whether the edge points out of the node: the relations part of the rerank documents (step 8)."""
    return (
        f"MATCH (a:{quote(label)})-[r]->(b) WHERE a.{ID} IN $ids "
        f"RETURN a.{ID} AS id, type(r) AS type, true AS out, b.{ID} AS nb, b.{NAME} AS nb_name "
        f"UNION ALL MATCH (a:{quote(label)})<-[r]-(b) WHERE a.{ID} IN $ids "
        f"RETURN a.{ID} AS id, type(r) AS type, false AS out, b.{ID} AS nb, b.{NAME} AS nb_name"
    )


def relation_summary(label: str) -> str:
    """Per (relationship type, neighbour label) at the node of ``label`` with id ``$id``: distinct neighbours, edges,
    how many point out of the node, and up to ``$k`` neighbour names (``kgqa node``). Undirected, so a relation
    stored in both directions (PRIME) counts each neighbour once."""
    return (
        f"MATCH (a:{quote(label)} {{{ID}: $id}})-[r]-(b) "
        "RETURN type(r) AS type, labels(b)[0] AS label, count(DISTINCT b) AS neighbours, count(r) AS edges, "
        "sum(CASE WHEN startNode(r) = a THEN 1 ELSE 0 END) AS out, "
        f"collect(DISTINCT b.{NAME})[0..$k] AS names ORDER BY type, label"
    )


PROBE_WAYS: dict[str, Direction] = {"out": "out", "in": "in", "any": "both"}
"""A probe's direction ('out', 'in' or 'any', seen from the node) as a plan's (kgqa.cypher.plan.Direction)."""


def ends(direction: str) -> tuple[str, str]:
    """The two ends of a relationship pattern walked ``direction`` ('out', 'in' or 'any') from its left node
    (:func:`kgqa.cypher.plan.arrows`)."""
    return arrows(PROBE_WAYS[direction])


def degrees(label: str, types: Sequence[str], direction: str, other: str) -> str:
    """How many edges of ``types`` (``direction`` 'out', 'in' or 'any', seen from the node) join each node of
    ``label`` whose id is in ``$ids`` to a node of ``other`` (any label where empty): the cost probe of step 5's
    binding order (kgqa.runtime.steps.s4_grounding.round_order), one count per candidate of a constant."""
    left, right = ends(direction)
    end = f"(:{quote(other)})" if other else "()"
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids "
        f"OPTIONAL MATCH (n){left}[r:{'|'.join(quote(t) for t in types)}]{right}{end} "
        f"RETURN n.{ID} AS id, count(r) AS degree"
    )


def walk_start(label: str, types: Sequence[str], direction: str, middle: str) -> str:
    """The first hop of a two-hop walk's cost probe (each dialect's ``walk_degrees`` adds how it reads a middle
    node's degree): every node of ``middle`` joined by edges of ``types`` to a node of ``label`` whose id is in
    ``$ids``, as ``n`` and ``m``."""
    left, right = ends(direction)
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids "
        f"MATCH (n){left}[:{'|'.join(quote(t) for t in types)}]{right}(m:{quote(middle)}) "
    )


def label_ids(label: str) -> str:
    """Every id of ``label`` (the question generator samples gold answers from them)."""
    return f"MATCH (n:{quote(label)}) RETURN n.{ID} AS id ORDER BY id"


def _path(hops: Sequence[tuple[str, str]], start: str) -> str:
    """``(y:start)-[:t1]-(m0:l1)-[:t2]-(a:l2)`` for ``hops`` = [(t1, l1), (t2, l2)]; undirected, like the method."""
    parts = [f"(y:{quote(start)})"]
    for number, (rel_type, label) in enumerate(hops):
        var = "a" if number == len(hops) - 1 else f"m{number}"
        parts.append(f"-[:{quote(rel_type)}]-({var}:{quote(label)})")
    return "".join(parts)


def _path_from_anchor(hops: Sequence[tuple[str, str]], start: str) -> str:
    """The path of :func:`_path` written from its far end ``a``: FalkorDB starts a match at its first node, and a
    pattern that begins at the node an id pins is an index seek instead of a label scan (100x at PRIME size)."""
    labels = [start, *(label for _, label in hops)]
    names = ["y", *(f"m{number}" for number in range(len(hops) - 1))]
    parts = [f"(a:{quote(labels[-1])})"]
    for number in range(len(hops) - 1, -1, -1):
        parts.append(f"-[:{quote(hops[number][0])}]-({names[number]}:{quote(labels[number])})")
    return "".join(parts)


def anchors(start: str, hops: Sequence[tuple[str, str]]) -> str:
    """Nodes reached from the node ``$id`` of ``start`` along ``hops`` (candidate anchors of a generated question)."""
    return (
        f"MATCH {_path(hops, start)} WHERE y.{ID} = $id AND a <> y "
        f"RETURN DISTINCT a.{ID} AS id, a.{NAME} AS name ORDER BY id LIMIT 500"
    )


def reaches(start: str, hops: Sequence[tuple[Sequence[str], str]]) -> str:
    """One node reached from the node ``$id`` of ``start`` along ``hops`` [(types, label), ...], edges read
    undirected, or no row: whether a linked entity reaches any node of the answer type along its hop (a plan joined
    through one that does not grounds nothing)."""
    parts = [f"(a:{quote(start)})"]
    for number, (types, label) in enumerate(hops):
        var = "y" if number == len(hops) - 1 else f"m{number}"
        parts.append(f"-[:{'|'.join(quote(t) for t in types)}]-({var}:{quote(label)})")
    return f"MATCH {''.join(parts)} WHERE a.{ID} = $id AND y <> a RETURN y.{ID} AS id LIMIT 1"


def path_answers(start: str, hops: Sequence[tuple[str, str]]) -> str:
    """Every node of ``start`` linked to the anchor ``$anchor`` along ``hops`` whose document contains ``$keyword``
    (case-insensitive): the exact ground truth of a generated question."""
    return (
        f"MATCH {_path_from_anchor(hops, start)} WHERE a.{ID} = $anchor AND a <> y "
        f"AND toLower(y.{DOC}) CONTAINS $keyword RETURN DISTINCT y.{ID} AS id ORDER BY id"
    )


def node_rows(label: str) -> str:
    """Full rows (id, name, doc, rel_doc and the three vectors) of the nodes of ``label`` whose ids are in ``$ids``
    (export)."""
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids "
        f"RETURN n.{ID} AS id, n.{NAME} AS name, n.{DOC} AS doc, n.{REL_DOC} AS rel_doc, "
        f"n.{NAME_EMB} AS name_emb, n.{DOC_EMB} AS doc_emb, n.{PLAIN_EMB} AS plain_emb"
    )


def edge_rows(src_label: str, rel_type: str, dst_label: str) -> str:
    """Every edge of one (source label, type, target label) as (source id, target id) (export)."""
    return (
        f"MATCH (a:{quote(src_label)})-[:{quote(rel_type)}]->(b:{quote(dst_label)}) "
        f"RETURN a.{ID} AS source, b.{ID} AS target"
    )


EXACT_ALIAS = (
    f"MATCH (a:{_ALIAS}) WHERE a.{ALIAS_KEY} = $key AND a.{ALIAS_OF_LABEL} IN $labels "
    f"RETURN a.{ALIAS_OF} AS id, a.{ALIAS_OF_LABEL} AS label, a.{ALIAS_OF_NAME} AS name, a.{NAME} AS alias "
    "ORDER BY label, id"
)
"""Nodes of ``$labels`` with an alias whose lower case is ``$key`` (step 4 puts them right after exact names)."""
ALIASES = (
    f"MATCH (a:{_ALIAS}) WHERE a.{ALIAS_OF} IN $ids AND a.{ALIAS_OF_LABEL} = $label "
    f"RETURN a.{ALIAS_OF} AS id, a.{NAME} AS alias ORDER BY id, alias"
)
"""The aliases of the nodes of ``$label`` whose ids are in ``$ids`` (``kgqa node``, the question generator)."""
ALIAS_ROWS = (
    f"MATCH (a:{_ALIAS}) WHERE a.{ALIAS_OF} IN $ids AND a.{ALIAS_OF_LABEL} = $label "
    f"RETURN a.{ALIAS_OF} AS id, a.{ALIAS_OF_NAME} AS name, a.{NAME} AS alias, a.{NAME_EMB} AS name_emb "
    "ORDER BY id, alias"
)
"""Full alias rows of the nodes of ``$label`` whose ids are in ``$ids`` (export)."""
