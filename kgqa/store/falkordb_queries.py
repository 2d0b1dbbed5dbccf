"""Every Cypher text kgqa sends to FalkorDB (the embedded default).

FalkorDB specifics: vectors are stored with ``vecf32(...)``; ``db.idx.vector.queryNodes`` returns a *distance*
(cosine distance = 1 - cosine similarity), and HNSW options are set at index creation.
"""

from __future__ import annotations

from cypher.identifiers import quote
from kgqa.store import queries as shared
from kgqa.store.queries import *  # noqa: F403  (re-exported: this module lists every text)
from kgqa.store.queries import DOC, DOC_EMB, ID, NAME, NAME_EMB, REL_DOC

__all__ = [
    *shared.__all__,
    "LIST_INDEXES",
    "VECTOR_TOP_K",
    "create_id_index",
    "create_nodes",
    "create_vector_index",
]


def create_nodes(label: str) -> str:
    """Batch insert of nodes of one label; ``$rows`` = [{id, name, doc, rel_doc, name_emb, doc_emb}]."""
    return (
        f"UNWIND $rows AS r CREATE (n:{quote(label)} "
        f"{{{ID}: r.id, {NAME}: r.name, {DOC}: r.doc, {REL_DOC}: r.rel_doc, "
        f"{NAME_EMB}: vecf32(r.name_emb), {DOC_EMB}: vecf32(r.doc_emb)}})"
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
