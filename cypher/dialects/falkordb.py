"""Every Cypher text kgqa sends to FalkorDB (the embedded default).

FalkorDB specifics: vectors are stored with ``vecf32(...)``; ``db.idx.vector.queryNodes`` returns a *distance*
(cosine distance = 1 - cosine similarity), and HNSW options are set at index creation.
"""

from __future__ import annotations

from cypher.identifiers import quote

# Property keys every kgqa node carries.
ID, NAME, DOC, NAME_EMB, DOC_EMB = "id", "name", "doc", "name_emb", "doc_emb"


def create_nodes(label: str) -> str:
    """Batch insert of nodes of one label; ``$rows`` = [{id, name, doc, name_emb, doc_emb}]."""
    return (
        f"UNWIND $rows AS r CREATE (n:{quote(label)} "
        f"{{{ID}: r.id, {NAME}: r.name, {DOC}: r.doc, "
        f"{NAME_EMB}: vecf32(r.name_emb), {DOC_EMB}: vecf32(r.doc_emb)}})"
    )


def create_edges(src_label: str, rel_type: str, dst_label: str) -> str:
    """Batch insert of edges of one (source label, type, target label); ``$rows`` = [[src_id, dst_id]]."""
    return (
        f"UNWIND $rows AS r MATCH (a:{quote(src_label)} {{{ID}: r[0]}}) "
        f"MATCH (b:{quote(dst_label)} {{{ID}: r[1]}}) CREATE (a)-[:{quote(rel_type)}]->(b)"
    )


def create_id_index(label: str) -> str:
    return f"CREATE INDEX FOR (n:{quote(label)}) ON (n.{ID})"


def create_vector_index(label: str, prop: str, dimension: int, ef_runtime: int) -> str:
    """HNSW cosine index; the numbers are validated ints, not user text, so they may be inlined."""
    return (
        f"CREATE VECTOR INDEX FOR (n:{quote(label)}) ON (n.{quote(prop)}) OPTIONS "
        f"{{dimension: {int(dimension)}, similarityFunction: 'cosine', efRuntime: {int(ef_runtime)}}}"
    )


LIST_INDEXES = "CALL db.indexes() YIELD label, properties, types, status RETURN label, properties, types, status"


# Top ``$k`` nodes of label ``$label`` nearest to ``$vector`` by index ``$property``; FalkorDB returns the cosine
# distance, so similarity = 1 - distance.
VECTOR_TOP_K = (
    "CALL db.idx.vector.queryNodes($label, $property, $k, vecf32($vector)) YIELD node, score "
    f"RETURN node.{ID} AS id, node.{NAME} AS name, 1.0 - score AS similarity ORDER BY similarity DESC"
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
