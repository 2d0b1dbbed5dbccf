"""Bulk loading into FalkorDB with ``GRAPH.BULK``, the binary protocol of the ``falkordb-bulk-loader`` package,
encoded here straight from Python strings and numpy arrays (no CSV files, no loader process, no dependency).

The protocol (FalkorDB 4.16, ``src/bulk_insert/bulk_insert.c``; the loader's ``entity_file.py``)::

    GRAPH.BULK <graph> [BEGIN] <nodes> <edges> <node tokens> <edge tokens> <token> ...

``BEGIN`` creates the graph and is refused when the key exists; later calls append to it. Node tokens are processed
before edge tokens within a call. A token is one label (or relationship type) with its entities::

    header : name NUL, uint32 property count, property names (each NUL-terminated)
    node   : one value per property
    edge   : uint64 source, uint64 destination (internal node ids), then one value per property
    value  : 1 type byte, then NULL 0 | BOOL 1 (1 byte) | DOUBLE 2 (8 bytes) | STRING 3 (NUL-terminated)
             | LONG 4 (8 bytes) | ARRAY 5 (int64 length, then values); numbers in native byte order

There is no vector type: an ARRAY of DOUBLE becomes a list. (kgqa's loads send no vectors: the embedded store keeps
them in its vector directory, kgqa/runtime/store/vectors.py; vector columns serve benchmarks/bulk_vs_unwind.py's
comparison and graphs written as raw blocks.) A vector column of :class:`NodeBlock` is sent that way
and turned into ``vecf32`` right after its call by one ``SET`` over the call's node ids (:func:`to_vectors_query`),
exact and several times faster than vectors sent as query text (:func:`set_vectors`, kept for vectors that come
later). Nodes get internal ids 0, 1, 2, ... in the order they are sent (a graph created by ``BEGIN`` and never
deleted from), which is how edges name their endpoints. The server checks almost nothing: an edge to a node id that
does not exist is created dangling, a ``:`` in a label splits it into several labels, a node token without properties
would never advance through its data, and a NUL ends a string early. :func:`bulk_insert` therefore refuses all of
these before sending them.
"""

from __future__ import annotations

import contextlib
import json
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from redis import Redis
from redis.exceptions import RedisError

from kgqa.errors import StoreError
from kgqa.runtime.store.falkordb_queries import set_vectors_query, to_vectors_query
from kgqa.runtime.store.server import WRITE_TIMEOUT_MS

DEFAULT_MAX_TOKEN_BYTES = 8 * 2**20
"""Bytes of entity data per ``GRAPH.BULK`` call (the loader's default is 64 MB); Redis refuses one argument over
512 MB (``proto-max-bulk-len``)."""
STRING = b"\x03"
ARRAY, DOUBLE = 5, 2
_EDGE = np.dtype([("src", "=u8"), ("dst", "=u8")])
_WINDOW_START = 4096
"""Nodes encoded in the first window of a block; later windows are sized to the token budget."""

PropertyColumn = Sequence[str] | np.ndarray
"""One value per node: strings (a list or a 1-d array of ``str``), or a 2-d float array of vectors (one row each)."""


class NodeBlock(NamedTuple):
    """Nodes of one label: ``properties`` maps each property name to a :data:`PropertyColumn`, all of one length.

    A vector column travels as a list of doubles (the protocol's only numeric list) and becomes a ``vecf32``
    property on the server after each call, by a ``SET`` over the call's range of node ids."""

    label: str
    properties: Mapping[str, PropertyColumn]


class EdgeBlock(NamedTuple):
    """Edges of one type from ``src[i]`` to ``dst[i]``, both internal node ids (integer arrays), no properties."""

    rel_type: str
    src: np.ndarray
    dst: np.ndarray


@dataclass(frozen=True)
class BulkStats:
    nodes: int
    edges: int
    calls: int
    """``GRAPH.BULK`` commands sent."""
    vector_queries: int
    """``SET ... = vecf32(...)`` queries that turned lists of doubles into vectors."""


def _command(conn: Redis, *args: Any) -> Any:
    """One Redis command (redis-py leaves ``execute_command`` untyped)."""
    return conn.execute_command(*args)  # type: ignore[no-untyped-call]


def _name(text: str, what: str, *, colon: bool = False) -> bytes:
    if not text or "\x00" in text or (colon and ":" in text):
        rule = "non-empty, without NUL" + (" or ':'" if colon else "")
        raise StoreError(f"{what} {text!r} cannot be bulk loaded ({what}s must be {rule})")
    return text.encode()


def _header(name: bytes, properties: Sequence[bytes]) -> bytes:
    return name + b"\x00" + struct.pack("=I", len(properties)) + b"".join(p + b"\x00" for p in properties)


def _column_slice(column: PropertyColumn, start: int, stop: int) -> list[Any]:
    part = column[start:stop]
    return part.tolist() if isinstance(part, np.ndarray) else list(part)


def _is_vector(column: PropertyColumn) -> bool:
    return isinstance(column, np.ndarray) and column.ndim == 2


def _vector_dtype(dimension: int) -> np.dtype[Any]:
    """One vector as the protocol's ARRAY of DOUBLE: type 5, int64 length, then (type 2, float64) per element."""
    element = np.dtype([("type", "u1"), ("value", "=f8")])
    return np.dtype([("type", "u1"), ("length", "=i8"), ("elements", element, (dimension,))])


@dataclass
class _Node:
    """One node block, checked: string properties first, then vector properties, as its header lists them."""

    label: str
    header: bytes
    strings: list[PropertyColumn]
    vectors: list[np.ndarray]
    vector_names: tuple[str, ...]
    count: int

    @classmethod
    def check(cls, block: NodeBlock) -> _Node:
        label = _name(block.label, "label", colon=True)
        where = f"label {block.label!r}"
        if not block.properties:
            raise StoreError(f"{where}: bulk loading needs at least one property per node")
        if len(block.properties) >= 65535:
            raise StoreError(f"{where}: too many properties ({len(block.properties)})")
        strings = {k: v for k, v in block.properties.items() if not _is_vector(v)}
        vectors = {k: np.asarray(v) for k, v in block.properties.items() if _is_vector(v)}
        for name, vector in vectors.items():
            if not np.issubdtype(vector.dtype, np.floating) or vector.shape[1] == 0:
                raise StoreError(f"{where}: vector property {name!r} must be a 2-d float array with columns")
            if not np.isfinite(vector).all():
                raise StoreError(f"{where}: refusing to store a vector with NaN or infinite values ({name!r})")
        counts = {len(c) for c in block.properties.values()}
        if len(counts) != 1:
            raise StoreError(f"{where}: properties of different lengths {sorted(counts)}")
        names = [_name(p, "property name") for p in [*strings, *vectors]]
        return cls(
            block.label,
            _header(label, names),
            list(strings.values()),
            list(vectors.values()),
            tuple(vectors),
            counts.pop(),
        )

    def _strings(self, start: int, stop: int) -> tuple[bytes, np.ndarray]:
        if not self.strings:
            return b"", np.zeros(stop - start, np.int64)
        values = [v for row in zip(*(_column_slice(c, start, stop) for c in self.strings), strict=True) for v in row]
        try:
            text = "\x00\x03".join(values)
        except TypeError:
            raise StoreError(f"label {self.label!r}: non-vector properties must be strings") from None
        if text.count("\x00") != len(values) - 1:
            raise StoreError(f"label {self.label!r}: a property value contains a NUL character")
        body = STRING + text.encode() + b"\x00"
        per_node = len(self.strings)
        return body, np.flatnonzero(np.frombuffer(body, np.uint8) == 0)[per_node - 1 :: per_node] + 1

    def _vectors(self, start: int, stop: int) -> np.ndarray:
        """The vector properties of nodes ``start:stop`` encoded, one row of bytes per node."""
        parts = []
        for vectors in self.vectors:
            records = np.empty(stop - start, _vector_dtype(vectors.shape[1]))
            records["type"], records["length"] = ARRAY, vectors.shape[1]
            records["elements"]["type"] = DOUBLE
            records["elements"]["value"] = vectors[start:stop]
            parts.append(records.view(np.uint8).reshape(stop - start, -1))
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def encode(self, start: int, stop: int) -> tuple[bytes, np.ndarray]:
        """The records of nodes ``start:stop`` and where each ends (byte offsets, exclusive)."""
        body, ends = self._strings(start, stop)
        if not self.vectors:
            return body, ends
        vectors = self._vectors(start, stop)
        count, width = vectors.shape
        # interleave: node i's strings, then its vectors (numpy scatter, no Python object per node)
        out = np.empty(len(body) + vectors.size, np.uint8)
        string_bytes = np.frombuffer(body, np.uint8)
        shift = np.repeat(np.arange(count, dtype=np.int64) * width, np.diff(ends, prepend=0))
        out[np.arange(len(string_bytes)) + shift] = string_bytes
        ends = ends + width * np.arange(1, count + 1, dtype=np.int64)
        out[(ends - width)[:, None] + np.arange(width)] = vectors
        return out.tobytes(), ends


@dataclass
class _Call:
    """The tokens of one ``GRAPH.BULK`` command being filled."""

    budget: int
    nodes: int = 0
    edges: int = 0
    size: int = 0
    node_tokens: list[bytes] = field(default_factory=list)
    edge_tokens: list[bytes] = field(default_factory=list)
    vector_ranges: list[tuple[int, int, tuple[str, ...]]] = field(default_factory=list)
    """(first node's offset in this call, node count, vector properties) of the nodes with vector columns."""

    def room(self, header: bytes) -> int:
        """Entity bytes that still fit after a token with ``header``."""
        return self.budget - self.size - len(header)

    def add_nodes(self, node: _Node, body: bytes | memoryview, count: int) -> None:
        if node.vector_names:
            last = self.vector_ranges[-1] if self.vector_ranges else None
            if last is not None and last[0] + last[1] == self.nodes and last[2] == node.vector_names:
                self.vector_ranges[-1] = (last[0], last[1] + count, last[2])  # one block, split by windows
            else:
                self.vector_ranges.append((self.nodes, count, node.vector_names))
        self.node_tokens.append(node.header + body)
        self.nodes += count
        self.size += len(node.header) + len(body)

    def add_edges(self, header: bytes, body: bytes, count: int) -> None:
        self.edge_tokens.append(header + body)
        self.edges += count
        self.size += len(header) + len(body)


class _Sender:
    def __init__(self, conn: Redis, graph: str, budget: int) -> None:
        self.conn, self.graph, self.budget = conn, graph, budget
        self.call = _Call(budget)
        self.calls = 0
        self.vector_queries = 0
        self.next_id = 0

    def flush(self, *, force: bool = False) -> None:
        """Send the call being filled (``force``: even an empty one, which creates an empty graph)."""
        call = self.call
        if not call.node_tokens and not call.edge_tokens and not force:
            return
        args: list[Any] = [self.graph, "BEGIN"] if self.calls == 0 else [self.graph]
        args += [call.nodes, call.edges, len(call.node_tokens), len(call.edge_tokens)]
        reply = _command(self.conn, "GRAPH.BULK", *args, *call.node_tokens, *call.edge_tokens)
        self.calls += 1
        text = reply.decode() if isinstance(reply, bytes) else str(reply)
        if text != f"{call.nodes} nodes created, {call.edges} edges created":
            raise StoreError(f"GRAPH.BULK answered {text!r} for {call.nodes} nodes and {call.edges} edges")
        for first, count, props in call.vector_ranges:
            start = self.next_id + first
            query = f"CYPHER first={start} stop={start + count} {to_vectors_query(props)}"
            _command(self.conn, "GRAPH.QUERY", self.graph, query, "--compact", "TIMEOUT", WRITE_TIMEOUT_MS)
            self.vector_queries += 1
        self.next_id += call.nodes
        self.call = _Call(self.budget)

    def room(self, header: bytes, minimum: int) -> int:
        """Room for a token with ``header``; flushes first when less than ``minimum`` bytes (one entity) fit."""
        room = self.call.room(header)
        if room < minimum and self.call.size > 0:
            self.flush()
            room = self.call.room(header)
        return room


def _send_nodes(sender: _Sender, node: _Node) -> None:
    start, window = 0, _WINDOW_START
    while start < node.count:
        stop = min(node.count, start + window)
        body, ends = node.encode(start, stop)
        taken = 0  # nodes of this window already sent
        while taken < len(ends):
            offset = int(ends[taken - 1]) if taken else 0
            room = sender.room(node.header, int(ends[taken]) - offset)
            # as many whole nodes as fit; at least one, which then goes alone into its call
            fit = max(int(np.searchsorted(ends, offset + room, side="right")), taken + 1)
            sender.call.add_nodes(node, memoryview(body)[offset : int(ends[fit - 1])], fit - taken)
            taken = fit
        start = stop
        window = max(1, int(sender.budget * len(ends) / max(len(body), 1)))


def _send_edges(sender: _Sender, block: EdgeBlock) -> None:
    header = _header(block.rel_type.encode(), [])
    start, total = 0, len(block.src)
    while start < total:
        count = min(total - start, max(1, sender.room(header, _EDGE.itemsize) // _EDGE.itemsize))
        records = np.empty(count, _EDGE)
        records["src"] = block.src[start : start + count]
        records["dst"] = block.dst[start : start + count]
        sender.call.add_edges(header, records.tobytes(), count)
        start += count


def _check_edges(block: EdgeBlock, nodes: int) -> EdgeBlock:
    """``block`` with arrays for endpoints, once they are known to name nodes ``0..nodes-1``."""
    _name(block.rel_type, "relationship type", colon=True)
    src, dst = np.asarray(block.src), np.asarray(block.dst)
    if src.ndim != 1 or src.shape != dst.shape:
        raise StoreError(f"relationship {block.rel_type!r}: src and dst must be 1-d arrays of one length")
    if len(src) and not (np.issubdtype(src.dtype, np.integer) and np.issubdtype(dst.dtype, np.integer)):
        raise StoreError(f"relationship {block.rel_type!r}: endpoints must be integer node ids")
    for ends in (src, dst):
        if len(ends) and (int(ends.min()) < 0 or int(ends.max()) >= nodes):
            raise StoreError(
                f"relationship {block.rel_type!r}: endpoint ids must lie in 0..{nodes - 1} "
                f"(found {int(ends.min())}..{int(ends.max())})"
            )
    return EdgeBlock(block.rel_type, src, dst)


class BulkSession:
    """``GRAPH.BULK`` calls into a new graph, fed block by block (a load streams its nodes, then its edges).

    Nodes get internal ids ``0..N-1`` in the order they arrive; :meth:`add_nodes` returns the first id of its block.
    Nodes and edges never share a call (a call creates its nodes before its edges, so a later node block would
    otherwise take ids before edges sent earlier). :meth:`close` sends what is left; the graph exists only after
    the first call, so an empty session creates an empty graph on close."""

    def __init__(self, conn: Redis, graph: str, max_token_bytes: int = DEFAULT_MAX_TOKEN_BYTES) -> None:
        if max_token_bytes < 1:
            raise StoreError("max_token_bytes must be positive")
        self._sender = _Sender(conn, graph, max_token_bytes)
        self.nodes = self.edges = 0
        self._sending_edges = False

    def add_nodes(self, block: NodeBlock) -> int:
        node = _Node.check(block)
        if self._sending_edges:
            self._sender.flush()
            self._sending_edges = False
        first = self.nodes
        _send_nodes(self._sender, node)
        self.nodes += node.count
        return first

    def add_edges(self, block: EdgeBlock) -> None:
        checked = _check_edges(block, self.nodes)
        if not self._sending_edges:
            self._sender.flush()
            self._sending_edges = True
        _send_edges(self._sender, checked)
        self.edges += len(checked.src)

    def close(self) -> BulkStats:
        self._sender.flush(force=self._sender.calls == 0)
        return BulkStats(self.nodes, self.edges, self._sender.calls, self._sender.vector_queries)

    def discard(self) -> None:
        """Delete the partial graph after a failure (if a call created it)."""
        if self._sender.calls:
            with contextlib.suppress(RedisError):
                self._sender.conn.delete(self._sender.graph)


def bulk_insert(
    conn: Redis,
    graph: str,
    labels: Iterable[NodeBlock],
    relations: Iterable[EdgeBlock],
    max_token_bytes: int = DEFAULT_MAX_TOKEN_BYTES,
) -> BulkStats:
    """Create ``graph`` (which must not exist) with the nodes of ``labels`` and the edges of ``relations``.

    Nodes get internal ids ``0..N-1`` in the order given (block by block), and edges refer to those ids. The data
    goes in ``GRAPH.BULK`` calls of at most ``max_token_bytes`` of entity data each (a single node larger than that
    goes alone), encoded a window at a time, so client memory stays bounded by a few calls whatever the graph's
    size; both arguments may be generators, so that the caller need not hold every block at once either. Each
    block is checked before any of it is sent; on any failure after the graph was created, the partial graph is
    deleted.
    """
    session = BulkSession(conn, graph, max_token_bytes)
    try:
        for block in labels:
            session.add_nodes(block)
        for relation in relations:
            session.add_edges(relation)
        return session.close()
    except BaseException as exc:
        session.discard()
        if isinstance(exc, RedisError):
            raise StoreError(f"GRAPH.BULK into '{graph}' failed: {exc}") from exc
        raise


def set_vectors(
    conn: Redis, graph: str, prop: str, ids: np.ndarray, vectors: np.ndarray, batch_rows: int = 2000
) -> None:
    """Set property ``prop`` of the nodes with internal ids ``ids`` to the rows of ``vectors`` (float32 vectors
    through ``vecf32``, sent as text rounded to 7 decimals like :func:`kgqa.runtime.store.falkordb.literal`)."""
    ids = np.asarray(ids)
    if vectors.ndim != 2 or len(ids) != len(vectors):
        raise StoreError("set_vectors needs one vector (row) per id")
    if not np.isfinite(vectors).all():
        raise StoreError("refusing to store a vector with NaN or infinite values")
    query = set_vectors_query(prop)
    for start in range(0, len(ids), batch_rows):
        stop = start + batch_rows
        rows = zip(ids[start:stop].tolist(), np.round(vectors[start:stop].astype(np.float64), 7).tolist(), strict=True)
        header = f"CYPHER rows={json.dumps(list(rows), allow_nan=False)} "
        try:
            _command(conn, "GRAPH.QUERY", graph, header + query, "--compact", "TIMEOUT", WRITE_TIMEOUT_MS)
        except RedisError as exc:
            raise StoreError(f"setting vectors of '{graph}' failed: {exc}") from exc
