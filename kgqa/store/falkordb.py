"""FalkorDB implementation of the store interface, on the embedded server of :mod:`kgqa.store.server`.

Loads go into a staging graph that replaces the live one with a single ``RENAME`` once complete, followed by an
explicit ``SAVE``; reads use ``GRAPH.RO_QUERY``, which the server refuses for any write.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from falkordb import FalkorDB
from falkordb.helpers import quote_string
from redis.exceptions import RedisError, ResponseError

from kgqa.errors import StoreError
from kgqa.store import falkordb_queries as q
from kgqa.store.base import (
    IndexInfo,
    LabelInfo,
    NodeId,
    NodeRow,
    RelationshipInfo,
    Schema,
    SkbMeta,
    VectorHit,
    VectorIndex,
    batched,
)
from kgqa.store.reads import CatalogueReads
from kgqa.store.server import EmbeddedServer

META_KEY = "kgqa:meta:{}"
STAGING_SUFFIX = ".staging"


def literal(value: Any) -> str:
    """Render a parameter value for FalkorDB's ``CYPHER name=value`` header.

    The client's own serializer formats floats one by one in Python; a load sends millions of them, so vectors go
    through ``json.dumps`` (C speed, same syntax for numbers), rounded to 7 decimals: float32 holds no more, and the
    text (which the server must parse) halves. Strings use the client's quoting.
    """
    if isinstance(value, np.ndarray):
        if not np.isfinite(value).all():
            raise StoreError("refusing to store a vector with NaN or infinite values")
        return json.dumps(np.round(value.astype(np.float64), 7).tolist())
    if isinstance(value, str):
        return str(quote_string(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StoreError(f"refusing to send non-finite number {value!r}")
        return repr(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"`{k}`:{literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(literal(v) for v in value) + "]"
    raise StoreError(f"unsupported parameter type {type(value).__name__}")


def pairs_literal(pairs: Sequence[tuple[Any, Any]]) -> str:
    """Edge rows ``[[source_id, target_id], ...]``: millions of them per load, so plain ids take a JSON fast path.

    JSON and Cypher spell lists, integers and strings identically as long as no character needs escaping; a JSON
    text without a backslash proves that (JSON escapes quotes, backslashes, control and non-ASCII characters), and
    anything else takes the general :func:`literal` path.
    """
    if all(type(a) in (str, int) and type(b) in (str, int) for a, b in pairs):
        text = json.dumps(pairs)
        if "\\" not in text:
            return text
    return literal([list(pair) for pair in pairs])


def params_header(params: Mapping[str, Any]) -> str:
    return "CYPHER " + " ".join(f"{name}={literal(value)}" for name, value in params.items()) + " "


class FalkorWriter:
    """Writes one graph into its staging key; see :meth:`FalkorStore.writer`."""

    def __init__(self, store: FalkorStore, staging: str, batch_size: int, ef_runtime: int) -> None:
        self._graph = store.client.select_graph(staging)
        self._batch_size = batch_size
        self._ef_runtime = ef_runtime
        self._labels: set[str] = set()

    def _write(self, query: str, params: Mapping[str, Any]) -> None:
        self._write_header(query, params_header(params))

    def _write_header(self, query: str, header: str) -> None:
        try:
            self._graph.query(header + query)
        except RedisError as exc:
            raise StoreError(f"FalkorDB write failed: {exc}") from exc

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None:
        if label not in self._labels:
            self._write(q.create_id_index(label), {})
            self._labels.add(label)
        text = q.create_nodes(label)
        for chunk in batched(rows, self._batch_size):
            rows_param = [
                {
                    "id": r.id,
                    "name": r.name,
                    "doc": r.doc,
                    "rel_doc": r.rel_doc,
                    "name_emb": r.name_emb,
                    "doc_emb": r.doc_emb,
                }
                for r in chunk
            ]
            self._write(text, {"rows": rows_param})

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[NodeId, NodeId]]) -> None:
        text = q.create_edges(source, rel_type, target)
        for chunk in batched(pairs, self._batch_size * 10):
            self._write_header(text, f"CYPHER rows={pairs_literal(chunk)} ")

    def create_vector_indexes(self, labels: Sequence[str], dimension: int, doc_dimension: int | None = None) -> None:
        dimensions = {q.NAME_EMB: dimension, q.DOC_EMB: doc_dimension or dimension}
        for label in labels:
            for prop, dim in dimensions.items():
                self._write(q.create_vector_index(label, prop, dim, self._ef_runtime), {})


class FalkorStore(CatalogueReads):
    """One embedded FalkorDB server per data directory; use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        directory: Path,
        *,
        ef_runtime: int = 200,
        batch_size: int = 2000,
        start_timeout: float = 120.0,
        query_timeout_ms: int = 60_000,
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._server = EmbeddedServer(directory, start_timeout)
        self.client: FalkorDB = self._server.start()
        self._ef_runtime = ef_runtime
        self._batch_size = batch_size
        self._query_timeout_ms = query_timeout_ms

    def __enter__(self) -> FalkorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.stop(self.client)

    @property
    def server_pid(self) -> int | None:
        process = self._server.process
        return None if process is None else process.pid

    def graphs(self) -> list[str]:
        names = self.client.connection.execute_command("GRAPH.LIST")
        return sorted(n.decode() if isinstance(n, bytes) else n for n in names if not str(n).endswith(STAGING_SUFFIX))

    def meta(self, graph: str) -> SkbMeta | None:
        raw = self.client.connection.get(META_KEY.format(graph))
        if raw is None or graph not in self.graphs():
            return None
        data = json.loads(raw)
        data["candidate_types"] = tuple(data["candidate_types"])
        return SkbMeta(**data)

    @contextmanager
    def writer(self, graph: str, meta: SkbMeta) -> Iterator[FalkorWriter]:
        """Yield a writer on a fresh staging graph; on success publish it as ``graph`` atomically and SAVE."""
        staging = graph + STAGING_SUFFIX
        conn = self.client.connection
        conn.delete(staging)  # leftovers of an interrupted load (only if it was saved, which loads never do)
        yield FalkorWriter(self, staging, self._batch_size, self._ef_runtime)
        self.await_indexes(staging)
        with conn.pipeline(transaction=True) as tx:
            tx.rename(staging, graph)
            tx.set(META_KEY.format(graph), json.dumps(dataclasses.asdict(meta)))
            tx.execute()
        conn.save()

    def await_indexes(self, graph: str, timeout: float = 300.0) -> None:
        """Block until every index of ``graph`` is OPERATIONAL (FalkorDB refuses index queries while building)."""
        deadline = time.monotonic() + timeout
        while True:
            pending = [i for i in self._indexes(graph) if i.status != "OPERATIONAL"]
            if not pending:
                return
            if time.monotonic() > deadline:
                names = ", ".join(f"{i.label}.{i.property}" for i in pending)
                raise StoreError(f"indexes of graph '{graph}' still building after {timeout:.0f} s: {names}")
            time.sleep(0.05)

    def _indexes(self, graph: str) -> list[IndexInfo]:
        out: list[IndexInfo] = []
        for label, props, types, status in self.read(graph, q.LIST_INDEXES):
            for prop in props:
                out.extend(IndexInfo(label, prop, kind, status) for kind in types.get(prop, []))
        return out

    def schema(self, graph: str) -> Schema:
        labels = tuple(LabelInfo(label, count) for label, count in self.read(graph, q.NODE_COUNTS))
        rels = tuple(RelationshipInfo(t, s, d, c) for s, t, d, c in self.read(graph, q.EDGE_COUNTS))
        return Schema(labels, rels, tuple(self._indexes(graph)))

    def vector_top_k(self, graph: str, label: str, index: VectorIndex, vector: np.ndarray, k: int) -> list[VectorHit]:
        prop = q.INDEX_PROPERTY[index]
        params = {"label": label, "property": prop, "k": int(k), "vector": [float(x) for x in vector]}
        rows = self.read(graph, q.VECTOR_TOP_K, params)
        return [VectorHit(node_id, name, label, float(sim)) for node_id, name, sim in rows]

    def read(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run a read-only query; the server itself rejects writes (GRAPH.RO_QUERY)."""
        try:
            result = self.client.select_graph(graph).ro_query(
                query, dict(params) if params else None, timeout=self._query_timeout_ms
            )
        except ResponseError as exc:
            raise StoreError(f"query refused by FalkorDB: {exc}") from exc
        except RedisError as exc:
            raise StoreError(f"FalkorDB read failed: {exc}") from exc
        rows: list[list[Any]] = result.result_set
        return rows
