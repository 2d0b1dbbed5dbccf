"""The store interface: the few operations kgqa needs from a graph database, shared by FalkorDB and Neo4j.

Design: reads go through read-only execution only; writes go through a :class:`GraphWriter` that replaces a graph
atomically when it completes (a load that is killed midway leaves the previous graph, or none, never half of one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

NodeId = str | int


@dataclass(frozen=True)
class NodeRow:
    """One node as written: its id, name, document and the two embeddings (name for constants, document for answers)."""

    id: NodeId
    name: str
    doc: str
    name_emb: np.ndarray
    doc_emb: np.ndarray


@dataclass(frozen=True)
class LabelInfo:
    name: str
    count: int


@dataclass(frozen=True)
class RelationshipInfo:
    type: str
    source: str
    target: str
    count: int


@dataclass(frozen=True)
class IndexInfo:
    label: str
    property: str
    kind: str
    status: str


@dataclass(frozen=True)
class Schema:
    """What the live graph holds; the sanitizer and the CLI read identifiers only from here."""

    labels: tuple[LabelInfo, ...]
    relationships: tuple[RelationshipInfo, ...]
    indexes: tuple[IndexInfo, ...]

    @property
    def node_count(self) -> int:
        return sum(label.count for label in self.labels)

    @property
    def edge_count(self) -> int:
        return sum(rel.count for rel in self.relationships)


@dataclass(frozen=True)
class SkbMeta:
    """What kgqa records about a loaded SKB, written atomically with the graph."""

    name: str
    source: str
    version: str
    embedder: str
    dimension: int
    candidate_types: tuple[str, ...]
    node_count: int
    edge_count: int
    fingerprint: str
    loaded_at: str


@dataclass(frozen=True)
class VectorHit:
    id: NodeId
    name: str
    label: str
    similarity: float


class GraphWriter(Protocol):
    """Receives a whole graph; the store publishes it when the writer's context exits without error."""

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None: ...

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[NodeId, NodeId]]) -> None: ...

    def create_vector_indexes(self, labels: Sequence[str], dimension: int) -> None: ...


class GraphStore(Protocol):
    """A graph database holding one graph per SKB."""

    def graphs(self) -> list[str]: ...

    def meta(self, graph: str) -> SkbMeta | None: ...

    def schema(self, graph: str) -> Schema: ...

    def writer(self, graph: str, meta: SkbMeta) -> AbstractContextManager[GraphWriter]: ...

    def await_indexes(self, graph: str, timeout: float = 300.0) -> None: ...

    def vector_top_k(self, graph: str, label: str, prop: str, vector: np.ndarray, k: int) -> list[VectorHit]: ...

    def read(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]: ...

    def close(self) -> None: ...


def batched(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
