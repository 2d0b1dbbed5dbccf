"""A load without a model or a server: a deterministic stand-in encoder and a store that records what a load writes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.store.base import DOC_VECTORS, AliasRow, IndexInfo, LabelInfo, NodeRow, NodeText, Schema, SkbMeta


class HashEncoder:
    """A deterministic stand-in model: vectors from the text's hash; records what it embedded."""

    def __init__(self, name: str, dimension: int) -> None:
        self.name, self.dimension = name, dimension
        self.texts: list[str] = []
        self.lengths: dict[str, int | None] = {}
        """text -> the max_tokens it was embedded with"""

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        self.texts.extend(texts)
        self.lengths.update((t, max_tokens) for t in texts)
        seeds = [int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little") for t in texts]
        out = np.stack([np.random.default_rng(s).standard_normal(self.dimension) for s in seeds])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


class RecordingWriter:
    def __init__(self) -> None:
        self.rows: dict[str, NodeRow] = {}
        self.labels: dict[str, str] = {}
        """id -> label"""
        self.aliases: list[AliasRow] = []
        self.indexes: tuple[int, int | None] | None = None

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None:
        self.rows.update((str(r.id), r) for r in rows)
        self.labels.update((str(r.id), label) for r in rows)

    def add_aliases(self, rows: Sequence[AliasRow]) -> None:
        self.aliases += rows

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[Any, Any]]) -> None:
        pass

    def create_vector_indexes(self, labels: Sequence[str], dimension: int, doc_dimension: int | None = None) -> None:
        self.indexes = (dimension, doc_dimension)


class RecordingDocuments:
    """What :func:`kgqa.runtime.documents.embed_documents` gives a store: id -> (label, doc vector, plain vector)."""

    def __init__(self) -> None:
        self.vectors: dict[str, tuple[str, np.ndarray, np.ndarray | None]] = {}

    def add(self, label: str, ids: Sequence[str], doc: np.ndarray, plain: np.ndarray | None = None) -> None:
        for i, node_id in enumerate(ids):
            self.vectors[node_id] = (label, doc[i], None if plain is None else plain[i])


class RecordingStore:
    def __init__(self) -> None:
        self.written: SkbMeta | None = None
        self.writer_ = RecordingWriter()
        self.documents_: RecordingDocuments | None = None
        """The document vectors once published."""

    def schema(self, graph: str) -> Schema:
        labels = sorted(set(self.writer_.labels.values()))
        counts = tuple(LabelInfo(label, list(self.writer_.labels.values()).count(label)) for label in labels)
        index = (IndexInfo(label, DOC_VECTORS, "VECTOR", "ONLINE") for label in labels)
        return Schema(counts, (), tuple(index) if self.documents_ is not None else ())

    def label_ids(self, graph: str, label: str) -> list[str]:
        return sorted(i for i, of in self.writer_.labels.items() if of == label)

    def documents(self, graph: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        rows = [self.writer_.rows[i] for i in ids]
        return [NodeText(str(r.id), r.name, r.doc, r.rel_doc) for r in rows]

    @contextmanager
    def documents_writer(self, graph: str, progress: ProgressSink | None = None) -> Iterator[RecordingDocuments]:
        writer = RecordingDocuments()
        yield writer
        self.documents_ = writer

    def meta(self, graph: str) -> SkbMeta | None:
        return self.written

    def check_names(self, labels: Sequence[str], relationship_types: Sequence[str], keys: Sequence[str] = ()) -> None:
        """Every name is quotable here: the dialects' rules are tested with the stores."""

    @contextmanager
    def writer(self, graph: str, meta: SkbMeta, progress: ProgressSink | None = None) -> Iterator[RecordingWriter]:
        yield self.writer_
        self.written = meta
        self.documents_ = None
