"""The store's interfaces: small protocols, one per concern, that both dialects implement (FalkorDB, Neo4j).

A step, a command or a test fake asks for the protocol it uses; :class:`GraphStore` is all of them, what
:class:`kgqa.runtime.app.Kgqa` holds. What only some stores can do is a protocol of its own (:class:`ManagedServer`),
checked with ``isinstance``. tests/unit/test_store_protocols.py keeps each protocol small.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kgqa.runtime.locks import ReadWriteLock
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.store.base import (
    AliasHit,
    AliasRow,
    NodeId,
    NodeRow,
    NodeText,
    Relation,
    RelationCount,
    Schema,
    SkbMeta,
    TextHit,
    VectorHit,
    VectorIndex,
)

__all__ = [
    "Catalogue",
    "DocumentWriter",
    "Dumper",
    "GraphReader",
    "GraphStore",
    "GraphWriter",
    "ManagedServer",
    "PathReader",
    "Publisher",
    "Searcher",
    "TextSearcher",
    "VectorSearcher",
]


@runtime_checkable
class GraphWriter(Protocol):
    """Receives a whole graph; the store publishes it when the writer's context exits without error."""

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None: ...

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[NodeId, NodeId]]) -> None: ...

    def add_aliases(self, rows: Sequence[AliasRow]) -> None:
        """Alias nodes (:data:`~kgqa.runtime.store.base.ALIAS_LABEL`) of nodes already added."""
        ...

    def create_vector_indexes(self, labels: Sequence[str], dimension: int, doc_dimension: int | None = None) -> None:
        """The name and document vector indexes and the full-text index (names and documents) of every label, and
        the alias index if aliases were added; ``doc_dimension``: the document vectors' when they come from another
        model than the names' (None: ``dimension``)."""
        ...


@runtime_checkable
class DocumentWriter(Protocol):
    """Receives the document vectors of a published graph that has none yet; the store publishes them (and their
    index) when the writer's context exits without error."""

    def add(self, label: str, ids: Sequence[str], doc: np.ndarray, plain: np.ndarray | None = None) -> None:
        """The document vectors of the nodes ``ids`` of ``label`` (one row each), and their plain-document vectors
        where the index holds another text (:attr:`SkbMeta.stark_documents`); every node of every label once."""
        ...


@runtime_checkable
class Catalogue(Protocol):
    """What the store holds: its graphs, their metadata and schemas, and the names and ids of a label."""

    def graphs(self) -> list[str]: ...

    def meta(self, graph: str) -> SkbMeta | None: ...

    def schema(self, graph: str) -> Schema: ...

    def labels(self, graph: str) -> list[str]:
        """Label names, without scanning nodes."""
        ...

    def label_ids(self, graph: str, label: str) -> list[str]:
        """Every id of ``label``, sorted."""
        ...

    def example_names(self, graph: str, label: str, n: int) -> list[str]:
        """Up to ``n`` names of ``label``, shortest first: the examples of the step-2 prompt."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class GraphReader(Protocol):
    """Reads of a graph's structure: compiled pattern queries, someone else's read-only queries, documents,
    relations and degrees (method steps 4-8, ``kgqa node``)."""

    def read(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run a compiled pattern query (read-only); kgqa's own reads are the methods below."""
        ...

    def read_records(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run someone else's read-only query and return its rows much as langchain-neo4j's ``Neo4jGraph.query``
        does: one dict per row by column name, a node as its properties (vectors left out,
        :func:`kgqa.runtime.store.reads.plain_node`), a path as the list of its nodes and relationship types. A
        relationship is its type alone (``Neo4jGraph`` gives (start, type, end)): FalkorDB's edges carry no endpoint
        properties."""
        ...

    def documents(self, graph: str, label: str, ids: Sequence[str]) -> list[NodeText]: ...

    def relations(self, graph: str, label: str, ids: Sequence[str]) -> list[Relation]:
        """Outgoing and incoming edges of the nodes of ``label`` whose ids are in ``ids`` (step 8's documents)."""
        ...

    def relation_summary(self, graph: str, label: str, node_id: str, k: int) -> list[RelationCount]:
        """Relations at one node per (type, neighbour label), with up to ``k`` neighbour names each."""
        ...

    def degrees(
        self, graph: str, label: str, ids: Sequence[str], types: Sequence[str], direction: str, other: str
    ) -> dict[str, int]:
        """id -> how many edges of ``types`` (``direction`` 'out', 'in' or 'any' from the node) join that node of
        ``label`` to nodes of ``other`` (any label where empty), for each of ``ids`` the graph holds."""
        ...

    def walk_degrees(
        self,
        graph: str,
        label: str,
        ids: Sequence[str],
        types: Sequence[str],
        direction: str,
        middle: str,
        next_types: Sequence[str],
        next_direction: str,
    ) -> dict[str, int]:
        """id -> how many edges of ``next_types`` (``next_direction`` from the middle node, to a node of any label)
        the nodes of ``middle`` joined to that node of ``label`` by edges of ``types`` (``direction`` from it) have,
        summed over those middle nodes: the rows a walk of two hops from it reads, read from each middle node's
        degree (the store's degree lookup), never by walking the second hop, which is what may be a hub."""
        ...


@runtime_checkable
class PathReader(Protocol):
    """Walks along typed hops from one node: the question generator's anchors and answers, and linking's reach test."""

    def reachable(self, graph: str, start: str, hops: Sequence[tuple[str, str]], node_id: str) -> list[tuple[str, str]]:
        """(id, name) of the nodes reached from node ``node_id`` of ``start`` along ``hops`` [(type, label), ...],
        edges read undirected (the anchors of a generated question)."""
        ...

    def reaches(self, graph: str, start: str, hops: Sequence[tuple[Sequence[str], str]], node_id: str) -> bool:
        """Whether node ``node_id`` of ``start`` reaches any node along ``hops`` [(types, label), ...], edges read
        undirected (a linked entity the answer type cannot reach is no constant of the linked plan)."""
        ...

    def path_answers(
        self, graph: str, start: str, hops: Sequence[tuple[str, str]], anchor: str, keyword: str
    ) -> list[str]:
        """Ids of the nodes of ``start`` that reach ``anchor`` along ``hops`` and whose document contains
        ``keyword`` (lower case): the exact answers of a generated question."""
        ...


@runtime_checkable
class VectorSearcher(Protocol):
    """Nearest-vector searches over the name, document and alias indexes, and the stored plain-document vectors
    (steps 2, 4, 6, 7)."""

    def vector_top_k(
        self, graph: str, label: str, index: VectorIndex, vector: np.ndarray, k: int
    ) -> list[VectorHit]: ...

    def vector_top_k_many(
        self, graph: str, label: str, index: VectorIndex, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[VectorHit]]:
        """:meth:`vector_top_k` of each row of ``vectors``, in one call (entity linking searches every span of a
        question: the embedded store answers them with one matrix product and one read of the names); with
        ``floor``, only the hits at least that similar (the embedded store then scores and names no other)."""
        ...

    def alias_top_k(self, graph: str, vector: np.ndarray, k: int) -> list[AliasHit]:
        """The ``k`` aliases nearest to ``vector`` by the alias name index, over every label (only for a graph
        whose schema lists that index, :attr:`Schema.has_aliases`: a graph without aliases has none)."""
        ...

    def alias_top_k_many(
        self, graph: str, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[AliasHit]]:
        """:meth:`alias_top_k` of each row of ``vectors``, in one call; with ``floor``, only the hits at least that
        similar (entity linking reads no other, and the embedded store then reads no other alias row)."""
        ...

    def plain_vectors(self, graph: str, label: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """id -> the stored vector of the plain document (:attr:`NodeRow.plain_emb`, else ``doc_emb``, which outside
        STaRK is the plain document's; float32) of the nodes of ``label`` whose ids are in ``ids`` (step 6); nodes
        with neither are absent."""
        ...

    def plain_similarities(self, graph: str, label: str, ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """id -> the cosine similarity of ``vector`` to the stored plain-document vector of the nodes of ``label``
        whose ids are in ``ids`` (step 6's dense side), computed by the store (a number per node crosses the wire,
        not a vector), with the vector :meth:`plain_vectors` reads; nodes with neither are absent."""
        ...


@runtime_checkable
class TextSearcher(Protocol):
    """Exact-name and alias lookups and the full-text index (steps 2, 4, 6, 7)."""

    def exact_name(self, graph: str, label: str, text: str) -> list[tuple[str, str]]:
        """(id, name) of the nodes of ``label`` named ``text``, ignoring case (they go first in step 4)."""
        ...

    def exact_alias(self, graph: str, labels: Sequence[str], text: str) -> list[AliasHit]:
        """Nodes of ``labels`` with an alias equal to ``text`` ignoring case (similarity 1)."""
        ...

    def aliases(self, graph: str, label: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """id -> aliases of the nodes of ``label`` whose ids are in ``ids`` (nodes without any are absent)."""
        ...

    def text_scores(self, graph: str, label: str, terms: Sequence[str], ids: Sequence[str]) -> dict[str, float]:
        """id -> full-text score of the nodes of ``label`` whose ids are in ``ids`` and whose name or document has
        any of ``terms`` (plain lower-case words; the store joins them in its index's syntax). Only for a graph
        whose schema lists a full-text index (:attr:`Schema.has_text_index`)."""
        ...

    def text_top_k(self, graph: str, label: str, terms: Sequence[str], k: int) -> list[TextHit]:
        """The ``k`` nodes of ``label`` whose name or document best match any of ``terms`` (plain lower-case words),
        best first by the index's score. Only for a graph whose schema lists a full-text index."""
        ...


@runtime_checkable
class Searcher(VectorSearcher, TextSearcher, Protocol):
    """Both searches: what grounding, step 6's preselection and step 7's fill read (no member of its own)."""


@runtime_checkable
class Publisher(Protocol):
    """Writes: a whole graph replaced atomically, its document vectors added later, and the wait for its indexes."""

    publishing: ReadWriteLock
    """Taken for writing while a load publishes; answers in the worker read under it (never across two graphs)."""

    def check_names(
        self, labels: Sequence[str], relationship_types: Sequence[str], property_keys: Sequence[str] = ()
    ) -> None:
        """Refuse (InputError) a name this database cannot quote, before a load writes anything: each dialect's
        rule lives in its query module (``name_problem``)."""
        ...

    def writer(
        self, graph: str, meta: SkbMeta, progress: ProgressSink | None = None
    ) -> AbstractContextManager[GraphWriter]:
        """``progress`` hears the index builds that run when the writer closes (the load's last, longest wait)."""
        ...

    def documents_writer(
        self, graph: str, progress: ProgressSink | None = None
    ) -> AbstractContextManager[DocumentWriter]:
        """A writer of the document vectors of ``graph``, published without them (:attr:`NodeRow.doc_emb` None):
        answers read the graph as it is meanwhile, and see the vectors all at once when the writer exits."""
        ...

    def await_indexes(self, graph: str, timeout: float = 300.0) -> None: ...


@runtime_checkable
class Dumper(Protocol):
    """Whole rows back out, vectors included (``kgqa export``)."""

    def node_rows(self, graph: str, label: str, ids: Sequence[str]) -> list[list[Any]]:
        """Full rows (id, name, doc, rel_doc, name_emb, doc_emb, plain_emb) of the nodes of ``label`` whose ids are
        in ``ids`` (export; plain_emb None where not stored)."""
        ...

    def edge_rows(self, graph: str, source: str, rel_type: str, target: str) -> list[tuple[str, str]]:
        """Every edge of one (source label, type, target label) as (source id, target id) (export)."""
        ...

    def alias_rows(self, graph: str, label: str, ids: Sequence[str]) -> list[AliasRow]:
        """Every alias, with its vector, of the nodes of ``label`` whose ids are in ``ids`` (export)."""
        ...


@runtime_checkable
class ManagedServer(Protocol):
    """A store that runs its own database server (the embedded FalkorDB): the worker reports its pid, restarts it
    when it dies, and stops when it cannot be mended. A Neo4j server is not ours to manage."""

    @property
    def server_pid(self) -> int | None:
        """The server process's pid (None while none runs)."""
        ...

    def supervise(self) -> None:
        """Start a server that died while nothing read (the worker calls this every half second)."""
        ...

    @property
    def failure(self) -> str | None:
        """Why the last restart failed; then every read fails until the store is reopened."""
        ...


@runtime_checkable
class GraphStore(Catalogue, GraphReader, PathReader, VectorSearcher, TextSearcher, Publisher, Dumper, Protocol):
    """A graph database holding one graph per SKB: every protocol above, and no member of its own."""
