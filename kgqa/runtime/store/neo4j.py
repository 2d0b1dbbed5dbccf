"""The Neo4j store (production): the same :class:`~kgqa.runtime.store.protocols.GraphStore` interface over the official
driver.

One SKB per Neo4j database (``neo4j_database``; Community Edition has one, ``neo4j``). Every query text comes from
``kgqa/runtime/store/neo4j_queries.py``; values are always driver parameters. Reads run only in managed read
transactions (``session.execute_read``), each after an ``EXPLAIN`` preflight that must report query type ``r`` (read
only), with a per-query timeout and a row cap, so even a text that slipped through could not write. Loads: uniqueness
constraints first, batched ``UNWIND`` writes, vector and full-text indexes created after the data and awaited until
ONLINE, and the metadata node written last (its presence means the load completed). Big graphs go through ``kgqa export
--format neo4j-admin`` instead (kgqa/runtime/export.py).

Every call is bounded (docs/neo4j.md, Timeouts and failures): the server ends a transaction past its timeout
(``query_timeout`` for reads, ``WRITE_TIMEOUT`` for writes), the driver gives up connecting and retrying after
``CONNECT_TIMEOUT``, ``ACQUIRE_TIMEOUT`` and ``RETRY_TIME``, and since the driver has no read timeout of its own, kgqa
stops waiting ``WATCHDOG_GRACE`` after the transaction timeout for a server that stopped answering. Every driver error
becomes one of kgqa's, a line that says what happened and what to do (:func:`kgqa_error`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from kgqa.errors import ConfigError, KgqaError, StoreError, StoreTimeoutError
from kgqa.runtime.locks import ReadWriteLock
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.store import neo4j_queries as q
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
    at_least,
    batched,
    check_terms,
    doc_matrix,
    plain_matrix,
    refuse_names,
)
from kgqa.runtime.store.deadline import read_limit
from kgqa.runtime.store.protocols import DocumentWriter, GraphStore, GraphWriter
from kgqa.runtime.store.reads import CatalogueReads, plain_node, plain_values

if TYPE_CHECKING:
    from neo4j.exceptions import DriverError, Neo4jError

__all__ = ["Neo4jStore", "Neo4jWriter", "browser_statement", "kgqa_error", "post_import_script", "syntax_for"]

T = TypeVar("T")

CONNECT_TIMEOUT = 10.0
"""The driver's ``connection_timeout`` (s): opening a TCP connection. A running server accepts in milliseconds; one
that does not within this is down or unreachable."""
ACQUIRE_TIMEOUT = 15.0
"""The driver's ``connection_acquisition_timeout`` (s): getting a connection for a call, from the pool or new
(connect, handshake, log in); above ``CONNECT_TIMEOUT``, as the driver asks."""
RETRY_TIME = 5.0
"""The driver's ``max_transaction_retry_time`` (s): how long a managed transaction is tried again after a transient
failure (a dropped connection, a deadlock) before the error is reported: with the driver's backoff (1, 2, 4 s) a
stopped server is reported after about 8 s, not the default 30 s of retries."""
WRITE_TIMEOUT = 3600.0
"""The transaction timeout (s) of a load's writes, FalkorDB's write limit too: generous, since one batch may take
minutes on a slow disk, yet a write the server cannot finish (or a server that stopped answering) ends the load."""
WATCHDOG_GRACE = ACQUIRE_TIMEOUT + 5.0
"""How long after a call's transaction timeout kgqa stops waiting for it (s): time to get a connection, and slack.
Neo4j ends a transaction past its timeout itself and says so; the driver has no read timeout of its own (only
connect and socket-write timeouts, and a receive timeout if the server hints one), so without this a server that
stops answering (SIGSTOP, ``docker pause``) would hang the call."""
TIMEOUT_CODES = frozenset(
    {
        "Neo.ClientError.Transaction.TransactionTimedOut",
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
    }
)
"""The codes of a transaction Neo4j ended at its timeout (the second: at the client's timeout, Neo4j 5 and later)."""

# The driver logs each retry of a transaction as a multi-line warning; with no logging configured (the CLI in-process)
# Python would print it to the terminal ahead of kgqa's one-line error. Logging that is configured (the worker's
# log) still gets it.
logging.getLogger("neo4j").addHandler(logging.NullHandler())

syntax_for = q.syntax_for
"""The dialect's version switch (config validation and ``kgqa explain --dialect neo4j`` use it)."""


def browser_statement(text: str, params: dict[str, Any], version: str) -> tuple[str, str]:
    """A compiled pattern query as sent to Neo4j release ``version``, and the block that runs it in Neo4j Browser
    (``:params {...};`` then the query) with the same parameters."""
    statement = q.statement(text, q.syntax_for(version))
    return statement, q.browser_block(statement, params)


def post_import_script(labels: Sequence[str], meta: SkbMeta, *, aliases: bool = False) -> str:
    """The cypher-shell script to run after ``neo4j-admin database import`` (kgqa/runtime/export.py): what the importer
    cannot do, i.e. the id constraints, the vector and full-text indexes (with ``aliases``, the alias nodes' too)
    and, last, kgqa's metadata node."""
    statements = [q.create_id_constraint(label) for label in labels]
    statements += [q.create_property_index(label, q.NAME_KEY) for label in labels]
    dimensions = {q.NAME_EMB: meta.dimension, q.DOC_EMB: meta.doc_dim}
    statements += [q.create_vector_index(label, prop, dim) for label in labels for prop, dim in dimensions.items()]
    statements += [q.create_text_index(label) for label in labels]
    if aliases:
        statements += [q.create_property_index(ALIAS_LABEL, prop) for prop in (q.ALIAS_OF, q.ALIAS_KEY)]
        statements.append(q.create_vector_index(ALIAS_LABEL, q.NAME_EMB, meta.dimension))
    params = {"name": meta.name, "json": json.dumps(asdict(meta), allow_nan=False)}
    return (
        "// Run with: cypher-shell -u neo4j -p PASSWORD -f post_import.cypher (after neo4j-admin import)\n"
        + "".join(f"{s};\n" for s in statements)
        + "".join(f":param {key} => {q.cypher_literal(value)}\n" for key, value in params.items())
        + f"{q.WRITE_META};\n"
    )


def _driver(uri: str, auth: tuple[str, str]) -> Any:
    """A driver whose connecting and retrying are bounded (the module's constants say how and why)."""
    try:
        import neo4j
    except ImportError as exc:
        raise ConfigError("store 'neo4j' needs the extra: pip install 'kgqa[neo4j]'") from exc
    try:
        return neo4j.GraphDatabase.driver(
            uri,
            auth=auth,
            connection_timeout=CONNECT_TIMEOUT,
            connection_acquisition_timeout=ACQUIRE_TIMEOUT,
            max_transaction_retry_time=RETRY_TIME,
        )
    except neo4j.exceptions.DriverError as exc:  # an unsupported URI scheme, a bad TLS setting
        raise kgqa_error(exc, server=f"Neo4j at {uri}", action="connection", limit=0.0) from exc


def _one_line(text: str) -> str:
    return " ".join(text.split())


def kgqa_error(exc: Neo4jError | DriverError, *, server: str, action: str, limit: float, named: str = "") -> KgqaError:
    """The kgqa error for an error of the Neo4j driver: one line naming what happened and what to do. ``server``
    names the server (``Neo4j at bolt://...``), ``action`` what failed (``query``, ``write``), ``limit`` its
    transaction timeout (``named``: how to say it, where not in seconds alone). The table is docs/neo4j.md's
    (Timeouts and failures)."""
    from neo4j import exceptions as ne

    if isinstance(exc, ne.Neo4jError):  # the server's answer: its message's first line (a syntax error's next
        message = _one_line((exc.message or "").split("\n", 1)[0])  # lines repeat the query, with a caret)
        code = exc.code
        if code in TIMEOUT_CODES:
            return StoreTimeoutError(f"{action} ran past {named or f'{limit:g} s'}: {message}")
        if isinstance(exc, ne.AuthError):
            return ConfigError(
                f"{server} refused the credentials ({code}): {message}; check neo4j_user and neo4j_password "
                "(or NEO4J_AUTH=user/password)"
            )
        if code == "Neo.ClientError.Database.DatabaseNotFound":
            return ConfigError(f"{server} has no such database ({code}): {message}; check neo4j_database")
        if isinstance(exc, ne.Forbidden):
            return StoreError(f"{server} does not allow the {action} to this user ({code}): {message}; grant it")
        if isinstance(exc, ne.TransientError):  # retried for RETRY_TIME already (managed transactions)
            return StoreError(
                f"{server} could not serve the {action}, retried for {RETRY_TIME:g} s ({code}): {message}; try "
                "again later"
            )
        if isinstance(exc, ne.ClientError):
            return StoreError(f"{action} refused by Neo4j: {message} ({code})")
        if isinstance(exc, ne.DatabaseError):
            return StoreError(f"{server} failed ({code}): {message}; see the server's debug.log")
        return StoreError(f"{server} failed the {action} ({code}): {message}")
    message = _one_line(str(exc))  # a connection failure says why on its second line
    if isinstance(exc, ne.IncompleteCommit):
        return StoreError(
            f"{server} lost the connection while committing a {action}, which may or may not be applied: "
            f"{message}; load again"
        )
    if isinstance(exc, ne.ServiceUnavailable):
        return StoreError(f"{server} is unavailable: {message}; is the server running, and neo4j_uri right?")
    if isinstance(exc, ne.SessionExpired):
        return StoreError(f"{server} dropped the connection: {message}; is the server running?")
    if isinstance(exc, ne.ConnectionAcquisitionTimeoutError):
        return StoreError(
            f"{server} gave no connection within {ACQUIRE_TIMEOUT:g} s: {message}; is the server paused or overloaded?"
        )
    if isinstance(exc, ne.ConfigurationError):
        return ConfigError(f"{server}: {message}; check neo4j_uri")
    return StoreError(f"{server}: the {action} failed: {message}")


def _settle(future: Future[T], call: Callable[[], T]) -> None:
    """Runs in the call's thread: ``future`` gets what ``call`` returns or raises."""
    try:
        future.set_result(call())
    except BaseException as exc:  # handed to the waiting thread, which raises it
        future.set_exception(exc)


def _vector_lists(vectors: np.ndarray) -> list[list[float]]:
    """Vectors as the driver sends them: lists of Python floats."""
    return [[float(x) for x in vector] for vector in np.asarray(vectors)]


def _graph_value(value: Any) -> Any:
    """A driver's node, relationship or path as :meth:`Neo4jStore.read_records` returns it (see
    GraphStore.read_records)."""
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, Node):
        return plain_node(dict(value))
    if isinstance(value, Relationship):
        return value.type
    if isinstance(value, Path):
        parts: list[Any] = [plain_node(dict(value.start_node))]
        for rel, node in zip(value.relationships, value.nodes[1:], strict=True):
            parts += [rel.type, plain_node(dict(node))]
        return parts
    return value


class Neo4jStore(CatalogueReads, GraphStore):
    """A Neo4j database holding one SKB; ``driver`` may be injected (tests use a recording fake), and a driver the
    store did not open is the caller's to close (:meth:`borrow`)."""

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str],
        *,
        database: str = "neo4j",
        version: str | None = None,
        query_timeout: float = 60.0,
        row_cap: int = 100_000,
        batch_size: int = 2000,
        driver: Any = None,
    ) -> None:
        self.driver = driver if driver is not None else _driver(uri, auth)
        self.server = f"Neo4j at {uri}" if uri else "Neo4j"  # as errors name it (a borrowed driver's is unknown)
        self.database = database
        self.publishing = ReadWriteLock()
        self.query_timeout = query_timeout
        self.row_cap = row_cap
        self.batch_size = batch_size
        self._known: set[str] = set()
        self._owns_driver = driver is None
        try:
            self.syntax: q.Syntax = q.syntax_for(version or self._server_version())
        except BaseException:
            self.close()  # the server is down or refused us: the caller gets no store to close
            raise

    @classmethod
    def borrow(cls, driver: Any, database: str, **settings: Any) -> Neo4jStore:
        """A store over someone else's driver (a ``langchain_neo4j.Neo4jGraph``'s): closing the store leaves it
        open."""
        return cls("", ("", ""), database=database, driver=driver, **settings)

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_driver:
            self.driver.close()

    def _server_version(self) -> str:
        rows = self._read_rows(q.SERVER_VERSION, {})
        return str(rows[0][0])

    @property
    def read_bound(self) -> float:
        """The longest any read call waits (s): its transaction timeout, then ``WATCHDOG_GRACE``."""
        return self.query_timeout + WATCHDOG_GRACE

    def _call(self, action: str, limit: float, call: Callable[[], T], named: str = "") -> T:
        """``call()`` (a session's work) with ``limit`` as its transaction timeout, waited for at most ``limit +
        WATCHDOG_GRACE`` s: in a daemon thread, since the driver cannot stop waiting for a server that stopped
        answering. Past the bound that thread is left to end when the driver does (a read's result is dropped; a
        write may still commit, after its load has failed)."""
        from neo4j import exceptions as ne

        future: Future[T] = Future()
        threading.Thread(target=_settle, args=(future, call), name="kgqa-neo4j-call", daemon=True).start()
        bound = limit + WATCHDOG_GRACE
        if not wait([future], timeout=bound).done:
            raise StoreError(
                f"{self.server} did not answer a {action} within {bound:g} s ({limit:g} s timeout + "
                f"{WATCHDOG_GRACE:g} s); is the server paused or overloaded?"
            )
        try:
            return future.result()
        except (ne.Neo4jError, ne.DriverError) as exc:
            raise kgqa_error(exc, server=self.server, action=action, limit=limit, named=named) from exc

    # -- reads ---------------------------------------------------------------------------------------------------

    def _read_rows(self, text: str, params: Mapping[str, Any]) -> list[list[Any]]:
        return self._read_table(text, params)[1]

    def _read_table(self, text: str, params: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of a read in a managed read transaction, after an EXPLAIN that must plan it read-only."""
        import neo4j

        def work(tx: Any) -> tuple[list[str], list[list[Any]]]:
            kind = tx.run(q.explain(text), params).consume().query_type
            if kind != "r":
                raise StoreError(f"refused: Neo4j plans this query as type {kind!r}, not read-only")
            result = tx.run(text, params)
            rows: list[list[Any]] = []
            for record in result:
                if len(rows) == self.row_cap:
                    raise StoreError(f"query returned more than row_cap = {self.row_cap} rows")
                rows.append(list(record.values()))
            return list(result.keys()), rows

        limit, named = read_limit(self.query_timeout)  # an ask's budget may leave less than query_timeout
        work = neo4j.unit_of_work(timeout=limit)(work)  # Neo4j ends the transaction at the timeout

        def call() -> tuple[list[str], list[list[Any]]]:
            with self.driver.session(database=self.database) as session:
                table: tuple[list[str], list[list[Any]]] = session.execute_read(work)
                return table

        return self._call("query", limit, call, named)

    def read(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        self._check(graph)
        return self._read_rows(q.statement(query, self.syntax), dict(params or {}))

    def read_records(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        self._check(graph)  # sent as written, in the server's default Cypher, as Neo4jGraph.query sends it
        columns, rows = self._read_table(query, dict(params or {}))
        return [dict(zip(columns, (plain_values(v, _graph_value) for v in row), strict=True)) for row in rows]

    def _check(self, graph: str) -> None:
        """The SKB must be in this database; checked once per store (a load in progress is not an SKB yet)."""
        if graph in self._known:
            return
        if graph not in self.graphs():
            raise StoreError(f"SKB '{graph}' is not in Neo4j database '{self.database}'")
        self._known.add(graph)

    def graphs(self) -> list[str]:
        return [str(name) for name, raw in self._read_rows(q.READ_META, {}) if raw]

    def meta(self, graph: str) -> SkbMeta | None:
        for name, raw in self._read_rows(q.READ_META, {}):
            if name == graph and raw:
                data = json.loads(raw)
                data["candidate_types"] = tuple(data["candidate_types"])
                return SkbMeta(**data)
        return None

    def _indexes(self) -> list[IndexInfo]:
        """kgqa's own vector and full-text indexes (a database may hold others: they are not this SKB's)."""
        found = []
        for query, kind in ((q.LIST_INDEXES, "VECTOR"), (q.LIST_TEXT_INDEXES, "FULLTEXT")):
            for name, labels, props, state in self._read_rows(query, {}):
                if labels and q.is_kgqa_index(str(name)):
                    found += [IndexInfo(labels[0], prop, kind, state) for prop in props]
        return found

    def schema(self, graph: str) -> Schema:
        self._check(graph)
        labels = tuple(LabelInfo(label, count) for label, count in self._read_rows(q.NODE_COUNTS_NEO4J, {}))
        rels = tuple(RelationshipInfo(t, s, d, c) for s, t, d, c in self._read_rows(q.EDGE_COUNTS, {}))
        return Schema(labels, rels, tuple(self._indexes()))

    def vector_top_k(self, graph: str, label: str, index: VectorIndex, vector: np.ndarray, k: int) -> list[VectorHit]:
        return self.vector_top_k_many(graph, label, index, np.asarray(vector)[None, :], k)[0]

    def vector_top_k_many(
        self, graph: str, label: str, index: VectorIndex, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[VectorHit]]:
        found = self._searches(graph, q.vector_top_k(label, q.INDEX_PROPERTY[index], self.syntax), vectors, k)
        return at_least([[VectorHit(i, name, label, float(sim)) for i, name, sim in rows] for rows in found], floor)

    def _searches(self, graph: str, query: q.VectorQuery, vectors: np.ndarray, k: int) -> list[list[list[Any]]]:
        """The rows of each vector's search, in one query whatever their number (``UNWIND``: the rows name their
        vector first, dropped here)."""
        self._check(graph)
        found: list[list[list[Any]]] = [[] for _ in range(len(vectors))]
        if found:
            rows = self._read_rows(query.text, {**query.params, "k": int(k), "vectors": _vector_lists(vectors)})
            for at, *row in rows:
                found[int(at)].append(row)
        return found

    def plain_similarities(self, graph: str, label: str, ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        self._check(graph)
        params = {"ids": list(ids), "vector": [float(x) for x in vector]}
        rows = self._read_rows(q.plain_similarities(label, self.syntax), params)
        return {str(i): float(sim) for i, sim in rows if sim is not None}

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
        text = q.walk_degrees(label, types, direction, middle, next_types, next_direction)
        return {str(i): int(n) for i, n in self.read(graph, text, {"ids": list(ids)})}

    def text_scores(self, graph: str, label: str, terms: Sequence[str], ids: Sequence[str]) -> dict[str, float]:
        self._check(graph)
        if not terms or not ids:
            return {}
        query = q.text_scores(label, self.syntax)
        params = {**query.params, "query": " OR ".join(check_terms(terms)), "ids": list(ids)}
        return {str(i): float(score) for i, score in self._read_rows(query.text, params)}

    def text_top_k(self, graph: str, label: str, terms: Sequence[str], k: int) -> list[TextHit]:
        self._check(graph)
        if not terms:
            return []
        query = q.text_top_k(label, self.syntax)
        params = {**query.params, "query": " OR ".join(check_terms(terms)), "k": int(k)}
        rows = self._read_rows(query.text, params)
        return [TextHit(str(i), str(name), label, float(score)) for i, name, score in rows]

    def alias_top_k(self, graph: str, vector: np.ndarray, k: int) -> list[AliasHit]:
        return self.alias_top_k_many(graph, np.asarray(vector)[None, :], k)[0]

    def alias_top_k_many(
        self, graph: str, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[AliasHit]]:
        found = self._searches(graph, q.alias_top_k(self.syntax), vectors, k)
        return at_least(
            [
                [AliasHit(str(i), str(lab), str(name), str(alias), float(sim)) for i, lab, name, alias, sim in rows]
                for rows in found
            ],
            floor,
        )

    def await_indexes(self, graph: str, timeout: float = 300.0) -> None:
        """Wait until every vector and full-text index is ONLINE: Neo4j populates them in the background, and a query
        against a POPULATING index fails, so the SKB is only marked loaded (metadata node) once they are all usable."""
        deadline = time.monotonic() + timeout
        while True:
            indexes = self._indexes()
            failed = [f"{i.label}.{i.property}" for i in indexes if i.status == "FAILED"]
            if failed:  # a failed population never comes ONLINE: say so now instead of waiting out the timeout
                raise StoreError(
                    f"Neo4j index population FAILED for {', '.join(failed)}; see SHOW "
                    "INDEXES (failureMessage) and the server's debug.log, then load again"
                )
            pending = [i for i in indexes if i.status != "ONLINE"]
            if not pending:
                return
            if time.monotonic() > deadline:
                names = ", ".join(f"{i.label}.{i.property}" for i in pending)
                raise StoreError(f"Neo4j indexes still populating after {timeout:.0f} s: {names}")
            time.sleep(0.5)

    # -- writes --------------------------------------------------------------------------------------------------

    def _write(self, text: str, params: Mapping[str, Any]) -> None:
        import neo4j

        @neo4j.unit_of_work(timeout=WRITE_TIMEOUT)
        def work(tx: Any) -> None:
            tx.run(q.statement(text, self.syntax), params).consume()

        def call() -> None:
            with self.driver.session(database=self.database) as session:
                session.execute_write(work)

        self._call("write", WRITE_TIMEOUT, call)

    def _autocommit(self, text: str) -> None:
        """An auto-commit write (``CALL ... IN TRANSACTIONS``), with no transaction timeout: it commits batch by
        batch, and stopping it part-way would leave half of what it does. kgqa's watchdog still bounds the wait."""

        def call() -> None:
            with self.driver.session(database=self.database) as session:
                session.run(text).consume()

        self._call("write", WRITE_TIMEOUT, call)

    def check_names(
        self, labels: Sequence[str], relationship_types: Sequence[str], property_keys: Sequence[str] = ()
    ) -> None:
        refuse_names(q.name_problem, "Neo4j", labels, relationship_types, property_keys)

    @contextmanager
    def writer(self, graph: str, meta: SkbMeta, progress: ProgressSink | None = None) -> Iterator[Neo4jWriter]:
        """Load into the database (emptied first if it held this SKB); the metadata node is written last, once
        Neo4j's indexes are online (``progress`` shows that wait, of unknown length).

        A database with data kgqa did not load, or another SKB, is refused: kgqa never deletes data it did not write.
        """
        with self.publishing.write():  # loads write in place: answers wait for the whole load
            present = {str(name) for name, _ in self._read_rows(q.READ_META, {})}
            if present - {graph}:
                raise StoreError(
                    f"Neo4j database '{self.database}' holds SKB '{sorted(present)[0]}'; use another "
                    "database (neo4j_database)"
                )
            if not present and self._read_rows(q.NODE_TOTAL, {})[0][0] > 0:
                raise StoreError(
                    f"Neo4j database '{self.database}' holds data kgqa did not load; use an empty database"
                )
            self._known.discard(graph)
            listed = [*self._read_rows(q.LIST_INDEXES, {}), *self._read_rows(q.LIST_TEXT_INDEXES, {})]
            for name, *_ in listed:
                if q.is_kgqa_index(str(name)):  # this SKB's own indexes: rebuilt after the new data, for its embedder
                    self._write(q.drop_vector_index(str(name)), {})
            self._autocommit(q.CLEAR_GRAPH)
            self._write(q.WRITE_META, {"name": graph, "json": ""})  # marks the data as kgqa's while it loads
            writer = Neo4jWriter(self)
            yield writer
            task = None if progress is None else progress.add_task("building indexes", total=None)
            self.await_indexes(graph)
            if progress is not None:
                progress.update(task, total=1, completed=1)
            self._write(q.WRITE_META, {"name": graph, "json": json.dumps(asdict(meta), allow_nan=False)})

    @contextmanager
    def documents_writer(self, graph: str, progress: ProgressSink | None = None) -> Iterator[Neo4jDocuments]:
        """Yield a writer that sets the document vectors on the nodes of ``graph``; on success create their index
        on every label (:attr:`Schema.has_documents` holds once every one is ONLINE: until then steps 6-7 run
        without them). Refused where the graph was loaded again meanwhile (its metadata changed)."""
        meta = self.meta(graph)
        if meta is None:
            raise StoreError(f"graph '{graph}' is not loaded")
        writer = Neo4jDocuments(self)
        yield writer
        now = self.meta(graph)
        if now is None or (now.fingerprint, now.loaded_at) != (meta.fingerprint, meta.loaded_at):
            raise StoreError(f"graph '{graph}' was loaded again meanwhile; its documents are embedded anew")
        labels = [label.name for label in self.schema(graph).labels]
        missing = sorted(set(labels) - writer.labels)
        if missing:
            raise StoreError(f"graph '{graph}': no document vectors were given for label {missing[0]!r}")
        for label in labels:
            self._write(q.create_vector_index(label, q.DOC_EMB, meta.doc_dim), {})
        task = None if progress is None else progress.add_task("building indexes", total=None)
        self.await_indexes(graph)
        if progress is not None:
            progress.update(task, total=1, completed=1)


class Neo4jDocuments(DocumentWriter):
    """The :class:`kgqa.runtime.store.protocols.DocumentWriter` of Neo4j: the vectors set on the nodes batch by batch,
    invisible to answers until :meth:`Neo4jStore.documents_writer` creates their index."""

    def __init__(self, store: Neo4jStore) -> None:
        self._store = store
        self.labels: set[str] = set()

    def add(self, label: str, ids: Sequence[str], doc: np.ndarray, plain: np.ndarray | None = None) -> None:
        columns = [(q.DOC_EMB, doc), *(() if plain is None else ((q.PLAIN_EMB, plain),))]
        for prop, matrix in columns:
            if matrix.shape[0] != len(ids) or not np.isfinite(matrix).all():
                raise StoreError(f"label {label!r}: {prop} must be one finite vector per id")
        query = q.set_documents(label, plain=plain is not None)
        for start in range(0, len(ids), self._store.batch_size):
            stop = start + self._store.batch_size
            rows: list[dict[str, Any]] = [{"id": str(i)} for i in ids[start:stop]]
            for prop, matrix in columns:
                for row, vector in zip(rows, _vector_lists(matrix[start:stop]), strict=True):
                    row[prop] = vector
            self._store._write(query, {"rows": rows})
        self.labels.add(label)


class Neo4jWriter(GraphWriter):
    def __init__(self, store: Neo4jStore) -> None:
        self._store = store
        self._constrained: set[str] = set()
        self.aliases = 0
        self.documents: set[str] = set()
        """The labels written with their document vectors."""

    def add_nodes(self, label: str, rows: Sequence[NodeRow]) -> None:
        if label not in self._constrained:
            self._store._write(q.create_id_constraint(label), {})
            self._store._write(q.create_property_index(label, q.NAME_KEY), {})
            self._constrained.add(label)
        for batch in batched(rows, self._store.batch_size):
            payload: list[dict[str, Any]] = [
                {
                    "id": str(r.id),
                    "name": r.name,
                    q.NAME_KEY: q.name_key(r.name),
                    "doc": r.doc,
                    "rel_doc": r.rel_doc,
                    "name_emb": [float(x) for x in r.name_emb],
                }
                for r in batch
            ]
            doc, plain = doc_matrix(label, batch), plain_matrix(label, batch)
            for prop, matrix in ((q.DOC_EMB, doc), (q.PLAIN_EMB, plain)):
                if matrix is not None:
                    self.documents.add(label)
                    for row, vector in zip(payload, matrix.tolist(), strict=True):
                        row[prop] = vector
            query = q.create_nodes(label, plain=plain is not None, doc=doc is not None)
            self._store._write(query, {"rows": payload})

    def add_edges(self, source: str, rel_type: str, target: str, pairs: Sequence[tuple[NodeId, NodeId]]) -> None:
        for batch in batched(pairs, self._store.batch_size * 10):
            self._store._write(q.create_edges(source, rel_type, target), {"rows": [[str(a), str(b)] for a, b in batch]})

    def add_aliases(self, rows: Sequence[AliasRow]) -> None:
        if rows and not self.aliases:
            for prop in (q.ALIAS_OF, q.ALIAS_KEY):
                self._store._write(q.create_property_index(ALIAS_LABEL, prop), {})
        for batch in batched(rows, self._store.batch_size):
            payload = [
                {
                    q.ALIAS_OF: str(r.of),
                    q.ALIAS_OF_LABEL: r.label,
                    q.ALIAS_OF_NAME: r.name,
                    q.NAME: r.alias,
                    q.ALIAS_KEY: r.alias.strip().lower(),
                    q.NAME_EMB: [float(x) for x in r.emb],
                }
                for r in batch
            ]
            self._store._write(q.create_aliases(), {"rows": payload})
        self.aliases += len(rows)

    def create_vector_indexes(self, labels: Sequence[str], dimension: int, doc_dimension: int | None = None) -> None:
        """The document index only for the labels written with their document vectors (the others get it from
        :meth:`Neo4jStore.documents_writer`)."""
        for label in labels:
            self._store._write(q.create_vector_index(label, q.NAME_EMB, dimension), {})
            if label in self.documents:
                self._store._write(q.create_vector_index(label, q.DOC_EMB, doc_dimension or dimension), {})
            self._store._write(q.create_text_index(label), {})
        if self.aliases:
            self._store._write(q.create_vector_index(ALIAS_LABEL, q.NAME_EMB, dimension), {})
