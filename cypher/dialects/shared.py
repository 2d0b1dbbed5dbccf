"""Cypher texts that are word for word the same in FalkorDB and Neo4j; each dialect module re-exports them, so a
dialect module stays the complete list of what kgqa sends to that database (golden-tested per dialect)."""

from __future__ import annotations

from cypher.identifiers import quote

# Property keys every kgqa node carries.
ID, NAME, DOC, NAME_EMB, DOC_EMB = "id", "name", "doc", "name_emb", "doc_emb"


def create_edges(src_label: str, rel_type: str, dst_label: str) -> str:
    """Batch insert of edges of one (source label, type, target label); ``$rows`` = [[src_id, dst_id]]."""
    return (
        f"UNWIND $rows AS r MATCH (a:{quote(src_label)} {{{ID}: r[0]}}) "
        f"MATCH (b:{quote(dst_label)} {{{ID}: r[1]}}) CREATE (a)-[:{quote(rel_type)}]->(b)"
    )


NODE_COUNTS = "MATCH (n) RETURN labels(n)[0] AS label, count(n) AS count ORDER BY label"
EDGE_COUNTS = (
    "MATCH (a)-[r]->(b) RETURN labels(a)[0] AS source, type(r) AS type, labels(b)[0] AS target, "
    "count(r) AS count ORDER BY type, source, target"
)


def neighbours(label: str) -> str:
    """1-hop neighbours of the nodes of ``label`` whose ids are in ``$ids`` (used by benchmarks and evidence)."""
    return (
        f"UNWIND $ids AS i MATCH (a:{quote(label)} {{{ID}: i}})-[r]-(b) "
        f"RETURN a.{ID} AS id, type(r) AS type, b.{ID} AS nb"
    )


def exact_name(label: str) -> str:
    """Nodes of ``label`` whose name equals ``$text`` ignoring case: they go before vector candidates (step 4)."""
    return f"MATCH (n:{quote(label)}) WHERE toLower(n.{NAME}) = toLower($text) RETURN n.{ID} AS id, n.{NAME} AS name"


def example_names(label: str) -> str:
    """Up to ``$n`` names of ``label``, shortest first (well-known entities tend to have short names): the examples
    of the step-2 prompt."""
    return (
        f"MATCH (n:{quote(label)}) WHERE n.{NAME} IS NOT NULL AND n.{NAME} <> '' "
        f"RETURN n.{NAME} AS name ORDER BY size(n.{NAME}), n.{NAME} LIMIT $n"
    )


def documents(label: str) -> str:
    """Name and document (without relations) of the nodes of ``label`` whose ids are in ``$ids`` (steps 6 and 8)."""
    return f"MATCH (n:{quote(label)}) WHERE n.{ID} IN $ids RETURN n.{ID} AS id, n.{NAME} AS name, n.{DOC} AS doc"


def relations(label: str) -> str:
    """Outgoing and incoming relations of the nodes of ``label`` whose ids are in ``$ids``, with the neighbour's id
    and name and whether the edge points out of the node: the relations part of the rerank documents (step 8)."""
    return (
        f"MATCH (a:{quote(label)})-[r]->(b) WHERE a.{ID} IN $ids "
        f"RETURN a.{ID} AS id, type(r) AS type, true AS out, b.{ID} AS nb, b.{NAME} AS nb_name "
        f"UNION ALL MATCH (a:{quote(label)})<-[r]-(b) WHERE a.{ID} IN $ids "
        f"RETURN a.{ID} AS id, type(r) AS type, false AS out, b.{ID} AS nb, b.{NAME} AS nb_name"
    )
