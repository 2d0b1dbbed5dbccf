"""A load without a model or a server: a deterministic stand-in encoder and a store that records what a load writes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.store.base import AliasRow, NodeRow, SkbMeta


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
        self.aliases: list[AliasRow] = []
        self.indexes: tuple[int, int | None] | None = None

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None:
        self.rows.update((str(r.id), r) for r in rows)

    def add_aliases(self, rows: Sequence[AliasRow]) -> None:
        self.aliases += rows

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[Any, Any]]) -> None:
        pass

    def create_vector_indexes(self, labels: Sequence[str], dimension: int, doc_dimension: int | None = None) -> None:
        self.indexes = (dimension, doc_dimension)


class RecordingStore:
    def __init__(self) -> None:
        self.written: SkbMeta | None = None
        self.writer_ = RecordingWriter()

    def meta(self, graph: str) -> SkbMeta | None:
        return self.written

    def check_names(self, labels: Sequence[str], relationship_types: Sequence[str], keys: Sequence[str] = ()) -> None:
        """Every name is quotable here: the dialects' rules are tested with the stores."""

    @contextmanager
    def writer(self, graph: str, meta: SkbMeta, progress: ProgressSink | None = None) -> Iterator[RecordingWriter]:
        yield self.writer_
        self.written = meta
