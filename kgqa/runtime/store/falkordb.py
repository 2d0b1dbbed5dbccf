"""FalkorDB implementation of the store interface, on the embedded server of :mod:`kgqa.runtime.store.server`.

Loads go into a staging graph that replaces the live one with a single ``RENAME`` once complete, followed by an
explicit ``SAVE``; reads use ``GRAPH.RO_QUERY``, which the server refuses for any write. Every read is bounded by
``query_timeout``: the server stops most at that limit; kgqa stops waiting ``WATCHDOG_GRACE`` seconds later and
restarts the server, which would otherwise go on computing (see :class:`kgqa.runtime.store.server.Restarts`).
"""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from falkordb import Edge, FalkorDB, Node
from falkordb import Path as GraphPath
from falkordb.helpers import quote_string
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from kgqa.errors import StoreError, StoreTimeoutError
from kgqa.runtime.locks import ReadWriteLock
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.store import falkordb_queries as q
from kgqa.runtime.store.base import (
    ALIAS_LABEL,
    AliasHit,
    AliasRow,
    IndexInfo,
    LabelInfo,
    NodeId,
    NodeRow,
    RelationshipInfo,
    Schema,
    SkbMeta,
    TextHit,
    VectorHit,
    VectorIndex,
    check_terms,
    doc_matrix,
    plain_matrix,
    refuse_names,
)
from kgqa.runtime.store.deadline import read_limit
from kgqa.runtime.store.falkordb_bulk import BulkSession, EdgeBlock, NodeBlock
from kgqa.runtime.store.protocols import DocumentWriter, GraphStore, GraphWriter, ManagedServer
from kgqa.runtime.store.reads import CatalogueReads, plain_node, plain_values
from kgqa.runtime.store.server import (
    HANG_TIMEOUT,
    RUNAWAY_PROBE_TIMEOUT,
    WRITE_TIMEOUT_MS,
    EmbeddedServer,
    IdleWatch,
    Restarts,
    timeout_ms,
)
from kgqa.runtime.store.vectors import (
    PARTIAL,
    ColumnWriter,
    VectorTables,
    VectorWriter,
    check_disk,
    estimate_bytes,
    remove_unreferenced,
)

META_KEY = "kgqa:meta:{}"
SCHEMA_KEY = "kgqa:schema:{}"
"""Label and relationship counts of a graph as its load wrote them (graphs never change after a load)."""
VECTORS_KEY = "kgqa:vectors:{}"
"""The token of the graph's vector directory (kgqa.runtime.store.vectors), published with the graph."""
VECTORS_DIR = "vectors"
STAGING_SUFFIX = ".staging"
DEATH_WAIT = 2.0
"""Seconds a call that lost its connection waits for the server process to end, to tell a dead server from a
failed connection."""
INDEX_HANG_AFTER = 60.0
"""Seconds without CPU use after which a server with indexes still building counts as hung."""

T = TypeVar("T")


def literal(value: Any) -> str:
    """Render a parameter value for FalkorDB's ``CYPHER name=value`` header.

    The client's own serializer formats floats one by one in Python; a load sends millions of them, so vectors go
    through ``json.dumps`` (C speed, same syntax for numbers), rounded to 7 decimals: float32 holds no more, and the
    text the server must parse is shorter. Strings use the client's quoting.
    """
    if isinstance(value, np.ndarray):
        if not np.isfinite(value).all():
            raise StoreError("refusing to store a vector with NaN or infinite values")
        return json.dumps(np.round(value.astype(np.float64), 7).tolist(), allow_nan=False)
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


def params_header(params: Mapping[str, Any]) -> str:
    return "CYPHER " + " ".join(f"{name}={literal(value)}" for name, value in params.items()) + " "


class FalkorWriter(GraphWriter):
    """Writes one graph into its staging key through ``GRAPH.BULK`` (see :mod:`kgqa.runtime.store.falkordb_bulk`): nodes
    and edges go in as binary records, edges by internal node id, so no index lookup per edge; the id index and the
    vector indexes are built once the data is in. Counts what it wrote, which :meth:`FalkorStore.schema` serves
    without scanning the graph."""

    def __init__(self, store: FalkorStore, staging: str, vectors: VectorWriter) -> None:
        self._store = store
        self._graph = store.client.select_graph(staging)
        self._bulk = BulkSession(store.client.connection, staging)
        self.vectors = vectors
        self._internal: dict[str, int] = {}
        self.labels: dict[str, int] = {}
        self.relationships: dict[tuple[str, str, str], int] = {}
        self.aliases = 0
        self.indexed: dict[str, set[str]] = {}
        """label -> the vector properties searched by index (the others are read by id only)."""
        self.documents: set[str] = set()
        """The labels written with their document vectors (the others get theirs from
        :meth:`FalkorStore.documents_writer`)."""
        self._finished = False

    def _write(self, query: str, params: Mapping[str, Any]) -> None:
        with self._store.writing_call("write"):
            self._graph.query(params_header(params) + query, timeout=WRITE_TIMEOUT_MS)

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None:
        if not rows:
            return
        ids = [str(r.id) for r in rows]
        columns: dict[str, Any] = {
            q.ID: ids,
            q.NAME: [r.name for r in rows],
            q.NAME_KEY: [q.name_key(r.name) for r in rows],
            q.DOC: [r.doc for r in rows],
            q.REL_DOC: [r.rel_doc for r in rows],
        }
        vectors = {q.NAME_EMB: np.stack([r.name_emb for r in rows])}
        for prop, matrix in ((q.DOC_EMB, doc_matrix(label, rows)), (q.PLAIN_EMB, plain_matrix(label, rows))):
            if matrix is not None:
                vectors[prop] = matrix
                self.documents.add(label)
        self.vectors.add(label, ids, vectors)
        with self._store.writing_call("bulk write"):
            first = self._bulk.add_nodes(NodeBlock(label, columns))
        self._internal.update(zip(ids, range(first, first + len(ids)), strict=True))
        self.labels[label] = self.labels.get(label, 0) + len(ids)

    def add_aliases(self, rows: Sequence[AliasRow]) -> None:
        if not rows:
            return
        numbers = [str(self.aliases + i) for i in range(len(rows))]
        columns: dict[str, Any] = {
            q.ALIAS_ROW: numbers,
            q.ALIAS_OF: [str(r.of) for r in rows],
            q.ALIAS_OF_LABEL: [r.label for r in rows],
            q.ALIAS_OF_NAME: [r.name for r in rows],
            q.NAME: [r.alias for r in rows],
            q.ALIAS_KEY: [r.alias.strip().lower() for r in rows],
        }
        self.vectors.add(ALIAS_LABEL, numbers, {q.NAME_EMB: np.stack([r.emb for r in rows])})
        with self._store.writing_call("bulk write"):
            self._bulk.add_nodes(NodeBlock(ALIAS_LABEL, columns))
        self.aliases += len(rows)

    def finish(self) -> None:
        """End the bulk insert (the graph exists from here on) and index the ids; once, whoever calls first."""
        if self._finished:
            return
        self._finished = True
        with self._store.writing_call("bulk write"):
            self._bulk.close()
        for label in self.labels:
            self._write(q.create_id_index(label), {})
            self._write(q.create_property_index(label, q.NAME_KEY), {})
        if self.aliases:
            for prop in (q.ALIAS_OF, q.ALIAS_KEY, q.ALIAS_ROW):
                self._write(q.create_property_index(ALIAS_LABEL, prop), {})

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[NodeId, NodeId]]) -> None:
        if not pairs:
            return
        internal = self._internal
        try:
            src = np.fromiter((internal[str(a)] for a, _ in pairs), dtype=np.int64, count=len(pairs))
            dst = np.fromiter((internal[str(b)] for _, b in pairs), dtype=np.int64, count=len(pairs))
        except KeyError as exc:
            raise StoreError(f"edge {source}-[{rel_type}]->{target} names node {exc.args[0]!r}, not written") from None
        with self._store.writing_call("bulk write"):
            self._bulk.add_edges(EdgeBlock(rel_type, src, dst))
        key = (source, rel_type, target)
        self.relationships[key] = self.relationships.get(key, 0) + len(pairs)

    def create_vector_indexes(self, labels: Sequence[str], dimension: int, doc_dimension: int | None = None) -> None:
        """The full-text index of every label now; the vector indexes are the vector directory's, built when the
        store publishes the graph (the dimensions are the stored vectors' own)."""
        self.finish()
        for label in labels:
            self.indexed[label] = {q.NAME_EMB, q.DOC_EMB} if label in self.documents else {q.NAME_EMB}
            self._write(q.CREATE_TEXT_INDEX, {"label": label})
        if self.aliases:
            self.indexed[ALIAS_LABEL] = {q.NAME_EMB}


class _DocumentColumns(DocumentWriter):
    """The :class:`kgqa.runtime.store.protocols.DocumentWriter` of the embedded store: rows into a
    :class:`ColumnWriter`."""

    def __init__(self, columns: ColumnWriter) -> None:
        self._columns = columns

    def add(self, label: str, ids: Sequence[str], doc: np.ndarray, plain: np.ndarray | None = None) -> None:
        self._columns.add(label, ids, {q.DOC_EMB: doc, **({} if plain is None else {q.PLAIN_EMB: plain})})


def _alias_hit(row: Sequence[Any], similarity: float) -> AliasHit:
    """An alias-index hit from its row of ``ALIASES_BY_ROW`` (node id, label, name, alias)."""
    i, label, name, alias = row
    return AliasHit(str(i), str(label), str(name), str(alias), similarity)


def hnsw_indexed(indexed: Mapping[str, set[str]], candidate_types: Sequence[str]) -> set[tuple[str, str]]:
    """Which indexed vectors get an HNSW index when their label is large: every name index (step 4 searches them for
    each constant) and the document index of the candidate types (steps 6-7 search it for every question). A large
    label's other document index is searched exactly: only a question quoting a definition reads it, and its
    HNSW index would be most of a MAG-size load (1.1M authors)."""
    return {
        (label, prop)
        for label, props in indexed.items()
        for prop in props
        if prop == q.NAME_EMB or label in candidate_types
    }


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _graph_value(value: Any) -> Any:
    """A FalkorDB node, edge or path as :meth:`FalkorStore.read_records` returns it (see GraphStore.read_records)."""
    if isinstance(value, Node):
        return plain_node(value.properties)
    if isinstance(value, Edge):
        return value.relation
    if isinstance(value, GraphPath):
        parts: list[Any] = [plain_node(value.nodes()[0].properties)] if value.nodes() else []
        for edge, node in zip(value.edges(), value.nodes()[1:], strict=True):
            parts += [edge.relation, plain_node(node.properties)]
        return parts
    return value


def _order(rel: RelationshipInfo) -> tuple[str, str, str]:
    """EDGE_COUNTS' order: type, source, target."""
    return rel.type, rel.source, rel.target


class FalkorStore(CatalogueReads, GraphStore, ManagedServer):
    """One embedded FalkorDB server per data directory; use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        directory: Path,
        *,
        ef_runtime: int = 200,
        start_timeout: float = 120.0,
        query_timeout: float = 60.0,
        hang_timeout: float = HANG_TIMEOUT,
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.query_timeout = query_timeout
        self._server = EmbeddedServer(directory, start_timeout, query_timeout, hang_timeout)
        self.client: FalkorDB = self._server.start()
        """Loads and saves: no time limit (a save of a big graph is long), watched by the server's :class:`Stalls`."""
        self._reader: FalkorDB = self._server.reader()
        """Reads, metadata included: each waits ``query_timeout`` plus a grace at most."""
        self._restarts = Restarts(self._server, self._restarted, self._runaway, wait=query_timeout)
        self.publishing = ReadWriteLock()
        self._writing: set[str] = set()
        """The vector directories this process is writing (a load's, a documents writer's): never removed as
        unreferenced while they are written."""
        self._ef_runtime = ef_runtime
        self._vector_root = directory / VECTORS_DIR
        self._vectors: dict[str, VectorTables] = {}
        remove_unreferenced(self._vector_root, self._kept_tokens())

    def __enter__(self) -> FalkorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._restarts.close(lambda: self._server.stop(self.client))

    def _restarted(self, client: FalkorDB) -> None:
        """Take the restarted server's clients, and wait for its indexes as a load does (FalkorDB refuses index
        queries while it builds them, which a start from the RDB file does)."""
        old = (self.client, self._reader)
        self.client, self._reader = client, self._server.reader()
        for previous in old:
            with suppress(RedisError, OSError):
                previous.connection.close()
        # a load whose server died between publishing and saving left a vector directory no saved graph names
        remove_unreferenced(self._vector_root, self._kept_tokens())
        for graph in self._graph_names():
            self.await_indexes(graph, timeout=None, gated=False)

    def _runaway(self) -> bool:
        """Whether the server runs a query past the time limit (``GRAPH.INFO RunningQueries``). Asked on a client of
        its own that waits ``RUNAWAY_PROBE_TIMEOUT`` at most (the admin client waits forever): a server that does not
        answer in time, or whose reply cannot be read, counts as running one, since a restart is then the way back."""
        if self._server.exit_status() is not None:
            return True  # dead: a restart is the way back as well
        limit = timeout_ms(self.query_timeout)
        probe = self._server.probe(RUNAWAY_PROBE_TIMEOUT)
        try:
            _, running = probe.execute_command("GRAPH.INFO", "RunningQueries")  # type: ignore[no-untyped-call]
            return any(float(dict(zip(q[::2], q[1::2], strict=True))["Execution duration"]) > limit for q in running)
        except (RedisError, OSError, LookupError, TypeError, ValueError):
            return True
        finally:
            with suppress(RedisError, OSError):
                probe.close()

    def _gated(self, work: Callable[[], T]) -> T:
        """Run the read ``work`` once no restart is under way; run it again once if a restart closed the connection
        under it (another read ran past the time limit meanwhile), or if the server had died (its restart begins
        here unless a load writes)."""
        for attempt in (1, 2):
            generation = self._restarts.ready()
            try:
                with self._server.read_stalls.watching():  # a stopped server is restarted long before the limit
                    return work()
            except RedisConnectionError as exc:
                if attempt == 1 and self._restarts.generation != generation:
                    continue
                how = self._server.exit_status(wait=DEATH_WAIT)
                if attempt == 1 and how is not None:
                    self._restarts.after_exit(how)
                    # a restart began since this read started (here or in another read): wait for it (ready) and read
                    # again; not `restarting`, which a fast restart may have cleared already
                    if self._restarts.generation != generation:
                        continue
                raise StoreError(f"FalkorDB read failed: {self._connection_lost(exc, how)}") from exc
            except RedisTimeoutError:  # a metadata read (queries map their own)
                raise StoreTimeoutError(
                    f"the server did not answer within {self.query_timeout:g} s; {self._restarts.after_timeout()}"
                ) from None
            except ResponseError as exc:
                raise StoreError(f"FalkorDB read failed: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _connection_lost(self, exc: RedisError, how: str | None) -> str:
        """Why a call lost its connection, in the user's words (``how``: the server's end, None while it runs): the
        server was killed, by the stall watcher or from outside, or the connection failed with the server alive."""
        if how is None:
            return str(exc)
        killed = self._server.stalls.killed or self._server.read_stalls.killed
        what = f"stopped answering ({killed}) and was killed" if killed is not None else how
        return f"the FalkorDB server {what}; {self._restarts.after_exit(how)}"

    @contextmanager
    def writing_call(self, what: str) -> Iterator[None]:
        """One call of a load to the server: watched for stalls (:class:`Stalls`), its errors as StoreError."""
        try:
            with self._server.stalls.watching():
                yield
        except RedisConnectionError as exc:
            how = self._server.exit_status(wait=DEATH_WAIT)
            raise StoreError(f"FalkorDB {what} failed: {self._connection_lost(exc, how)}") from exc
        except RedisError as exc:
            raise StoreError(f"FalkorDB {what} failed: {exc}") from exc

    def supervise(self) -> None:
        """Start a server that died while nothing read, so that the next read finds it up (the worker calls this
        every half second)."""
        how = self._server.exit_status()
        if how is not None and not self._restarts.restarting:
            self._restarts.after_exit(how)

    @property
    def failure(self) -> str | None:
        """Why the watchdog's restart of the server failed; then every read fails until the store is reopened."""
        return self._restarts.failure

    @property
    def server_pid(self) -> int | None:
        process = self._server.process
        return None if process is None else process.pid

    def graphs(self) -> list[str]:
        return self._gated(self._graph_names)

    def _graph_names(self) -> list[str]:
        names = self._reader.connection.execute_command("GRAPH.LIST")
        return sorted(_text(n) for n in names if not _text(n).endswith(STAGING_SUFFIX))

    def meta(self, graph: str) -> SkbMeta | None:
        raw = self._gated(lambda: self._reader.connection.get(META_KEY.format(graph)))
        if raw is None or graph not in self.graphs():
            return None
        data = json.loads(raw)
        data["candidate_types"] = tuple(data["candidate_types"])
        return SkbMeta(**data)

    def check_names(
        self, labels: Sequence[str], relationship_types: Sequence[str], property_keys: Sequence[str] = ()
    ) -> None:
        refuse_names(q.name_problem, "FalkorDB", labels, relationship_types, property_keys)

    def _kept_tokens(self) -> set[str]:
        """The directories :func:`remove_unreferenced` keeps: those the published graphs name, and those being
        written here."""
        writing = {name for token in set(self._writing) for name in (token, token + PARTIAL)}
        return self._vector_tokens() | writing

    def _vector_tokens(self) -> set[str]:
        """The vector directories the published graphs name."""
        conn = self._reader.connection
        keys = list(conn.scan_iter(match=VECTORS_KEY.format("*"), count=1000))
        return {_text(token) for token in conn.mget(keys) if token is not None} if keys else set()

    @contextmanager
    def writer(self, graph: str, meta: SkbMeta, progress: ProgressSink | None = None) -> Iterator[FalkorWriter]:
        """Yield a writer on a fresh staging graph; on success write the vector directory (``progress`` hears its
        HNSW builds), publish the graph and the key naming that directory as ``graph`` atomically, and SAVE. The
        server is not restarted meanwhile (what is written is in memory only until the SAVE); the replaced graph's
        vectors are removed after the SAVE."""
        check_disk(self._vector_root, estimate_bytes(meta.node_count, meta.dimension, meta.doc_dim))
        with self._restarts.writing():
            staging = graph + STAGING_SUFFIX
            conn = self.client.connection
            with self.writing_call("write"):
                conn.delete(staging)  # leftovers of an interrupted load (only if it was saved, which loads never do)
            vectors = VectorWriter(self._vector_root, graph, self._ef_runtime)
            self._writing.add(vectors.token)
            try:
                writer = FalkorWriter(self, staging, vectors)
                yield writer
                writer.finish()
                self.await_indexes(staging, timeout=None)
                vectors.finish(writer.indexed, hnsw_indexed(writer.indexed, meta.candidate_types), progress)
            except OSError as exc:
                vectors.discard()
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise StoreError(
                        f"no space left on the data directory's disk ({self._vector_root}) for the vectors: free some "
                        "and load again; the graph loaded before is unchanged"
                    ) from exc
                raise
            except BaseException:
                vectors.discard()
                self._writing.discard(vectors.token)
                raise
            counts = {
                "labels": sorted(writer.labels.items()),
                "relationships": sorted([s, t, d, c] for (s, t, d), c in writer.relationships.items()),
            }
            with self.publishing.write(), self.writing_call("publish"), conn.pipeline(transaction=True) as tx:
                tx.rename(staging, graph)  # in one transaction: no answer straddles it
                tx.set(META_KEY.format(graph), json.dumps(dataclasses.asdict(meta), allow_nan=False))
                tx.set(SCHEMA_KEY.format(graph), json.dumps(counts, allow_nan=False))
                tx.set(VECTORS_KEY.format(graph), vectors.token)
                tx.execute()
            self._published(graph)
            self._writing.discard(vectors.token)
            try:
                with self.writing_call("save"):
                    conn.save()
            except StoreError as exc:
                self._restarts.after_failed_save()  # back to the saved graphs once this load has ended
                raise StoreError(f"{exc}; the graph loaded before is served again once the server restarts") from exc
            with suppress(RedisError):  # the load is complete; the next start removes what is left
                remove_unreferenced(self._vector_root, self._kept_tokens())

    @contextmanager
    def documents_writer(self, graph: str, progress: ProgressSink | None = None) -> Iterator[_DocumentColumns]:
        """Yield a writer of the document vectors of ``graph``; on success publish a new vector directory with them
        (:class:`ColumnWriter`: the old files linked, the new ones added) by switching the graph's key to it, then
        SAVE and remove the old directory. Refused where the graph was replaced meanwhile (a new load). Only the
        publication is a write the server's restarts wait for: the embedding before it touches no graph."""
        meta = self.meta(graph)
        if meta is None:
            raise StoreError(f"graph '{graph}' is not loaded")
        tables = self.vectors(graph)
        labels = sorted(label for label in tables.tables if label != ALIAS_LABEL)
        columns = {q.DOC_EMB: meta.doc_dim, **({q.PLAIN_EMB: meta.dimension} if meta.stark_documents else {})}
        rows = sum(tables.table(label).rows for label in labels)
        check_disk(self._vector_root, rows * sum(columns.values()) * 4)
        writer: ColumnWriter | None = None
        try:
            writer = ColumnWriter(self._vector_root, tables, labels, columns, {q.DOC_EMB}, self._ef_runtime)
            self._writing.add(writer.token)
            yield _DocumentColumns(writer)
            indexed = {label: {q.DOC_EMB} for label in labels}
            writer.finish(hnsw_indexed(indexed, meta.candidate_types), progress)
        except BaseException as exc:
            if writer is not None:
                writer.discard()
                self._writing.discard(writer.token)
            if isinstance(exc, OSError):
                raise StoreError(
                    f"the document vectors of graph '{graph}' could not be written in {self._vector_root} ({exc}); "
                    "free space there if it is full: the next start of the worker, or kgqa load, resumes them"
                ) from exc
            raise
        conn = self.client.connection
        try:
            with self._restarts.writing():
                with self.publishing.write(), self.writing_call("publish"):
                    # a new load meanwhile: the directory written here goes at the next open
                    if _text(conn.get(VECTORS_KEY.format(graph)) or b"") != tables.token:
                        raise StoreError(f"graph '{graph}' was loaded again meanwhile; its documents are embedded anew")
                    conn.set(VECTORS_KEY.format(graph), writer.token)
                try:
                    with self.writing_call("save"):
                        conn.save()
                except StoreError:
                    self._restarts.after_failed_save()  # the saved graph names the old directory, which stays
                    raise
        finally:
            self._writing.discard(writer.token)
        with suppress(RedisError):
            remove_unreferenced(self._vector_root, self._kept_tokens())

    def _published(self, graph: str) -> None:
        """A hook between the publishing transaction and the SAVE (tests kill the server here)."""

    def vectors(self, graph: str) -> VectorTables:
        """The vectors of the published ``graph``, opened once per publication (the key names its directory)."""
        found = self._vectors_or_none(graph)
        if found is None:
            raise StoreError(
                f"graph '{graph}' has no vector directory: it was loaded by an older kgqa (vectors inside the "
                f"graph); run `kgqa load` for it again"
            )
        return found

    def _vectors_or_none(self, graph: str) -> VectorTables | None:
        """None for a graph without the key: one not written by a load, or loaded by an older kgqa."""
        raw = self._gated(lambda: self._reader.connection.get(VECTORS_KEY.format(graph)))
        if raw is None:
            return None
        token = _text(raw)
        found = self._vectors.get(graph)
        if found is None or found.token != token:
            found = VectorTables(self._vector_root / token, graph, token, self._ef_runtime)
            self._vectors[graph] = found
        return found

    def await_indexes(self, graph: str, timeout: float | None = 300.0, *, gated: bool = True) -> None:
        """Block until every index of ``graph`` is OPERATIONAL (FalkorDB refuses index queries while building).
        ``timeout`` None: for as long as the server computes (a load's index build grows with the graph), failing
        only when it has used no CPU for ``INDEX_HANG_AFTER`` seconds with indexes still pending. ``gated`` False:
        within a restart (reads wait for the restart to end)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pid = self.server_pid
        watch = None if pid is None else IdleWatch(pid)
        while True:
            pending = [i for i in self._indexes(graph, gated=gated) if i.status != "OPERATIONAL"]
            if not pending:
                return
            names = ", ".join(f"{i.label}.{i.property}" for i in pending)
            if deadline is not None and time.monotonic() > deadline:
                raise StoreError(f"indexes of graph '{graph}' still building after {timeout:.0f} s: {names}")
            if deadline is None and watch is not None and watch.idle_for() > INDEX_HANG_AFTER:
                raise StoreError(f"the server stopped building the indexes of graph '{graph}' (no CPU use): {names}")
            time.sleep(0.05)

    def _indexes(self, graph: str, *, gated: bool = True) -> list[IndexInfo]:
        out: list[IndexInfo] = []
        rows = self.read(graph, q.LIST_INDEXES) if gated else self._read_ungated(graph, q.LIST_INDEXES)
        for label, props, types, status in rows:
            for prop in props:
                out.extend(IndexInfo(label, prop, kind, status) for kind in types.get(prop, []))
        return out

    def schema(self, graph: str) -> Schema:
        """Counts as the load wrote them (a scan of a big graph is slow); a scan for graphs loaded before."""
        raw = self._gated(lambda: self._reader.connection.get(SCHEMA_KEY.format(graph)))
        if raw is not None:
            counts = json.loads(raw)
            labels = tuple(LabelInfo(label, count) for label, count in counts["labels"])
            rels = tuple(sorted((RelationshipInfo(t, s, d, c) for s, t, d, c in counts["relationships"]), key=_order))
        else:
            labels = tuple(LabelInfo(label, count) for label, count in self.read(graph, q.NODE_COUNTS))
            rels = tuple(RelationshipInfo(t, s, d, c) for s, t, d, c in self.read(graph, q.EDGE_COUNTS))
        vectors = self._vectors_or_none(graph)
        tables = {} if vectors is None else vectors.tables
        indexed = tuple(
            IndexInfo(label, prop, "VECTOR", "OPERATIONAL")
            for label, table in sorted(tables.items())
            for prop in sorted(table.indexed)
        )
        return Schema(labels, rels, (*self._indexes(graph), *indexed))

    def vector_top_k(self, graph: str, label: str, index: VectorIndex, vector: np.ndarray, k: int) -> list[VectorHit]:
        return self.vector_top_k_many(graph, label, index, np.asarray(vector)[None, :], k)[0]

    def vector_top_k_many(
        self, graph: str, label: str, index: VectorIndex, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[VectorHit]]:
        table = self.vectors(graph).table(label)
        found = table.top_k_many(q.INDEX_PROPERTY[index], vectors, k, floor)
        ids = {row: str(table.ids[row]) for hits in found for row, _ in hits}
        wanted = sorted(set(ids.values()))
        names = {str(i): name for i, name in self.read(graph, q.names(label), {"ids": wanted})} if wanted else {}
        return [
            [VectorHit(ids[row], str(names.get(ids[row]) or ""), label, sim) for row, sim in hits] for hits in found
        ]

    def plain_similarities(self, graph: str, label: str, ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        table = self.vectors(graph).table(label)
        rows = table.rows_of(ids)
        prop = q.PLAIN_EMB if q.PLAIN_EMB in table.dims else q.DOC_EMB
        sims = table.similarities(prop, np.fromiter(rows.values(), dtype=np.int64, count=len(rows)), vector)
        return {node_id: float(sim) for node_id, sim in zip(rows, sims.tolist(), strict=True)}

    def plain_vectors(self, graph: str, label: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        table = self.vectors(graph).table(label)
        matrix = table.matrix(q.PLAIN_EMB if q.PLAIN_EMB in table.dims else q.DOC_EMB)
        return {node_id: np.array(matrix[row]) for node_id, row in table.rows_of(ids).items()}

    def node_rows(self, graph: str, label: str, ids: Sequence[str]) -> list[list[Any]]:
        table = self.vectors(graph).table(label)
        rows = table.rows_of(ids)
        props = (q.NAME_EMB, q.DOC_EMB, q.PLAIN_EMB)
        out = []
        for node_id, name, doc, rel_doc in self.read(graph, q.documents(label), {"ids": list(ids)}):
            row = rows.get(str(node_id))
            vectors = [None if row is None or p not in table.dims else table.matrix(p)[row].tolist() for p in props]
            out.append([node_id, name, doc, rel_doc, *vectors])
        return out

    def alias_rows(self, graph: str, label: str, ids: Sequence[str]) -> list[AliasRow]:
        table = self.vectors(graph).table(ALIAS_LABEL)
        found = self.read(graph, q.ALIASES_WITH_ROWS, {"label": label, "ids": list(ids)})
        rows = table.rows_of([str(r[0]) for r in found])
        matrix = table.matrix(q.NAME_EMB)
        return [
            AliasRow(str(i), label, str(name), str(alias), np.array(matrix[rows[str(row)]]))
            for row, i, name, alias in found
        ]

    def text_scores(self, graph: str, label: str, terms: Sequence[str], ids: Sequence[str]) -> dict[str, float]:
        if not terms or not ids:
            return {}
        params = {"label": label, "query": " | ".join(check_terms(terms)), "ids": list(ids)}
        return {str(i): float(score) for i, score in self.read(graph, q.TEXT_SCORES, params)}

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
        text = q.walk_degrees(label, types, direction, middle, next_direction)
        rows = self.read(graph, text, {"ids": list(ids), "next_types": list(next_types)})
        return {str(i): int(n) for i, n in rows}

    def text_top_k(self, graph: str, label: str, terms: Sequence[str], k: int) -> list[TextHit]:
        if not terms:
            return []
        params = {"label": label, "query": " | ".join(check_terms(terms)), "k": int(k)}
        rows = self.read(graph, q.TEXT_TOP_K, params)
        return [TextHit(str(i), str(name), label, float(score)) for i, name, score in rows]

    def alias_top_k(self, graph: str, vector: np.ndarray, k: int) -> list[AliasHit]:
        return self.alias_top_k_many(graph, np.asarray(vector)[None, :], k)[0]

    def alias_top_k_many(
        self, graph: str, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[AliasHit]]:
        table = self.vectors(graph).table(ALIAS_LABEL)
        found = table.top_k_many(q.NAME_EMB, vectors, k, floor)
        numbers = {row: str(table.ids[row]) for hits in found for row, _ in hits}
        wanted = sorted(set(numbers.values()))
        rows = {str(r[0]): r[1:] for r in self.read(graph, q.ALIASES_BY_ROW, {"rows": wanted})} if wanted else {}
        return [[_alias_hit(rows[numbers[row]], sim) for row, sim in hits] for hits in found]

    def read(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run a read-only query; the server itself rejects writes (GRAPH.RO_QUERY)."""
        rows: list[list[Any]] = self._ro_query(graph, query, params).result_set
        return rows

    def read_records(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        result = self._ro_query(graph, query, params)
        columns = [_text(column[1]) for column in result.header]
        return [
            dict(zip(columns, (plain_values(v, _graph_value) for v in row), strict=True)) for row in result.result_set
        ]

    def _ro_query(self, graph: str, query: str, params: Mapping[str, Any] | None) -> Any:
        return self._gated(lambda: self._ro_query_once(graph, query, params))

    def _read_ungated(self, graph: str, query: str) -> list[list[Any]]:
        """A read that does not wait for a restart: the restart's own."""
        rows: list[list[Any]] = self._ro_query_once(graph, query, None).result_set
        return rows

    def _ro_query_once(self, graph: str, query: str, params: Mapping[str, Any] | None) -> Any:
        """One read on the reader client; its connection errors are left to :meth:`_gated`."""
        seconds, limit = read_limit(self.query_timeout)  # an ask's budget may leave less than query_timeout
        try:
            return self._reader.select_graph(graph).ro_query(
                query, dict(params) if params else None, timeout=timeout_ms(seconds)
            )
        except RedisTimeoutError:
            raise StoreTimeoutError(
                f"query ran past {limit} and the server did not stop it; {self._restarts.after_timeout()}"
            ) from None
        except ResponseError as exc:
            if "timed out" in str(exc).lower():
                raise StoreTimeoutError(f"query ran past {limit}: {exc}") from exc
            raise StoreError(f"query refused by FalkorDB: {exc}") from exc
        except RedisConnectionError:
            raise
        except RedisError as exc:
            raise StoreError(f"FalkorDB read failed: {exc}") from exc
