"""The Neo4j store's bounds and error mapping, without a socket: the driver's own exception classes (built as the
driver builds them from a server's answer), a recording fake driver, and the real driver where its retry loop and
configuration are what is tested (its connection pool replaced). A live server's faults: tests/e2e/test_neo4j_faults.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import neo4j
import numpy as np
import pytest
from neo4j.exceptions import (
    ConfigurationError,
    ConnectionAcquisitionTimeoutError,
    DriverError,
    IncompleteCommit,
    Neo4jError,
    ResultConsumedError,
    ServiceUnavailable,
    SessionExpired,
)

from kgqa.errors import ConfigError, KgqaError, StoreError, StoreTimeoutError
from kgqa.runtime.store import neo4j as store_module
from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.neo4j import (
    ACQUIRE_TIMEOUT,
    CONNECT_TIMEOUT,
    RETRY_TIME,
    WRITE_TIMEOUT,
    Neo4jStore,
    kgqa_error,
)
from tests.helpers.neo4j_fakes import Result

SERVER = "Neo4j at bolt://localhost:7687"
META = SkbMeta("prime", "fixture", "1", "st:tiny", 4, ("drug",), 2, 1, "f", "now")
REFUSED = (
    "Couldn't connect to localhost:7687 (resolved to ('127.0.0.1:7687',)):\n"
    "Failed to establish connection to ResolvedIPv4Address(('127.0.0.1', 7687)) (reason [Errno 111] Connection refused)"
)
REFUSED_LINE = " ".join(REFUSED.split())
DEFUNCT = "Failed to read from defunct connection IPv4Address(('localhost', 7687))"


def server_error(code: str, message: str) -> Neo4jError:
    """An error as the driver makes it from a server's FAILURE (its class chosen by the code)."""
    return Neo4jError._hydrate_neo4j(code=code, message=message)


SYNTAX = server_error(
    "Neo.ClientError.Statement.SyntaxError",
    "Invalid input 'MATCHH': expected 'MATCH' (line 1, column 1 (offset: 0))\n\"MATCHH (n) RETURN n\"\n ^",
)

# (the driver's error, kgqa's class, kgqa's message): a read (action "query") with a 2.5 s transaction timeout
TABLE: list[tuple[Neo4jError | DriverError, type[KgqaError], str]] = [
    (
        server_error("Neo.ClientError.Transaction.TransactionTimedOut", "The transaction has been terminated."),
        StoreTimeoutError,
        "query ran past 2.5 s: The transaction has been terminated.",
    ),
    (
        server_error(
            "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
            "The transaction has not completed within the timeout specified at its start by the client.",
        ),
        StoreTimeoutError,
        "query ran past 2.5 s: The transaction has not completed within the timeout specified at its start by the "
        "client.",
    ),
    (
        SYNTAX,
        StoreError,
        "query refused by Neo4j: Invalid input 'MATCHH': expected 'MATCH' (line 1, column 1 (offset: 0)) "
        "(Neo.ClientError.Statement.SyntaxError)",
    ),
    (
        server_error(
            "Neo.ClientError.Security.Unauthorized", "The client is unauthorized due to authentication failure."
        ),
        ConfigError,
        f"{SERVER} refused the credentials (Neo.ClientError.Security.Unauthorized): The client is unauthorized due to "
        "authentication failure.; check neo4j_user and neo4j_password (or NEO4J_AUTH=user/password)",
    ),
    (
        server_error("Neo.ClientError.Database.DatabaseNotFound", "Database does not exist. Database name: 'skbs'."),
        ConfigError,
        f"{SERVER} has no such database (Neo.ClientError.Database.DatabaseNotFound): Database does not exist. "
        "Database name: 'skbs'.; check neo4j_database",
    ),
    (
        server_error("Neo.ClientError.Security.Forbidden", "Read operations are not allowed for user 'bob'."),
        StoreError,
        f"{SERVER} does not allow the query to this user (Neo.ClientError.Security.Forbidden): Read operations are "
        "not allowed for user 'bob'.; grant it",
    ),
    (
        server_error("Neo.TransientError.Transaction.DeadlockDetected", "ForsetiClient can't acquire lock"),
        StoreError,
        f"{SERVER} could not serve the query, retried for 5 s (Neo.TransientError.Transaction.DeadlockDetected): "
        "ForsetiClient can't acquire lock; try again later",
    ),
    (
        server_error("Neo.DatabaseError.General.UnknownError", "Something went wrong"),
        StoreError,
        f"{SERVER} failed (Neo.DatabaseError.General.UnknownError): Something went wrong; see the server's debug.log",
    ),
    (
        ServiceUnavailable(REFUSED),
        StoreError,
        f"{SERVER} is unavailable: {REFUSED_LINE}; is the server running, and neo4j_uri right?",
    ),
    (
        SessionExpired(DEFUNCT),
        StoreError,
        f"{SERVER} dropped the connection: {DEFUNCT}; is the server running?",
    ),
    (
        IncompleteCommit(DEFUNCT),
        StoreError,
        f"{SERVER} lost the connection while committing a query, which may or may not be applied: {DEFUNCT}; "
        "load again",
    ),
    (
        ConnectionAcquisitionTimeoutError("failed to obtain a connection from the pool within 15.0s (timeout)"),
        StoreError,
        f"{SERVER} gave no connection within 15 s: failed to obtain a connection from the pool within 15.0s "
        "(timeout); is the server paused or overloaded?",
    ),
    (
        ConfigurationError("URI scheme 'localhost' is not supported."),
        ConfigError,
        f"{SERVER}: URI scheme 'localhost' is not supported.; check neo4j_uri",
    ),
    (
        ResultConsumedError(None, "The result has been consumed."),
        StoreError,
        f"{SERVER}: the query failed: The result has been consumed.",
    ),
]


@pytest.mark.parametrize(("error", "kind", "message"), TABLE, ids=[type(e).__name__ for e, _, _ in TABLE])
def test_each_driver_error_is_one_kgqa_error_of_one_line(
    error: Neo4jError | DriverError, kind: type[KgqaError], message: str
) -> None:
    got = kgqa_error(error, server=SERVER, action="query", limit=2.5)
    assert type(got) is kind
    assert str(got) == message and "\n" not in str(got)


def test_the_table_covers_the_driver_classes_it_names() -> None:
    """The server's errors arrive as these subclasses (chosen by code): the mapping sees what a live server sends."""
    kinds = [type(error) for error, _, _ in TABLE]
    for name in ("ClientError", "CypherSyntaxError", "AuthError", "Forbidden", "TransientError", "DatabaseError"):
        assert getattr(neo4j.exceptions, name) in kinds
    assert type(SYNTAX) is neo4j.exceptions.CypherSyntaxError


# -- a recording fake driver -----------------------------------------------------------------------------------------


@dataclass
class Fake:
    """Answers by the first matching (text fragment -> rows); records every unit of work's transaction timeout by
    mode, and raises ``error`` from the next call of ``fail_mode`` (``read``, ``write`` or ``autocommit``) once."""

    answers: list[tuple[str, list[list[Any]]]] = field(default_factory=list)
    timeouts: dict[str, list[float | None]] = field(default_factory=lambda: {"read": [], "write": []})
    error: Exception | None = None
    fail_mode: str = "read"
    gate: threading.Event | None = None
    """A server that stopped answering: reads wait until it is set (unpaused)."""
    closed: bool = False

    def session(self, database: str) -> FakeSession:
        return FakeSession(self)

    def close(self) -> None:
        self.closed = True

    def answer(self, text: str) -> Result:
        for fragment, rows in self.answers:
            if fragment in text:
                return Result(rows)
        return Result([])

    def fail(self, mode: str) -> None:
        if self.error is not None and mode == self.fail_mode:
            error, self.error = self.error, None
            raise error


@dataclass
class FakeTx:
    fake: Fake

    def run(self, text: str, params: dict[str, Any] | None = None) -> Result:
        return Result([]) if text.startswith("EXPLAIN") else self.fake.answer(text)


@dataclass
class FakeSession:
    fake: Fake

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def execute_read(self, work: Callable[[FakeTx], Any]) -> Any:
        self.fake.timeouts["read"].append(getattr(work, "timeout", None))  # where the real session reads it
        if self.fake.gate is not None:
            self.fake.gate.wait()
        self.fake.fail("read")
        return work(FakeTx(self.fake))

    def execute_write(self, work: Callable[[FakeTx], Any]) -> Any:
        self.fake.timeouts["write"].append(getattr(work, "timeout", None))
        self.fake.fail("write")
        return work(FakeTx(self.fake))

    def run(self, text: str) -> Result:
        self.fake.fail("autocommit")
        return Result([])


def fake_store(fake: Fake, **settings: Any) -> Neo4jStore:
    fake.answers.insert(0, ("dbms.components", [["2025.05.0"]]))
    return Neo4jStore("bolt://localhost:7687", ("neo4j", "x"), driver=fake, **settings)


def test_every_read_and_write_has_its_transaction_timeout() -> None:
    """Reads: ``query_timeout``; a load's writes: ``WRITE_TIMEOUT``. The real session takes a unit of work's
    ``timeout`` attribute as the transaction's timeout, which Neo4j then enforces."""
    fake = Fake([("SHOW VECTOR INDEXES", []), ("count(n)", [[0]])])
    store = fake_store(fake, query_timeout=7.5)
    v = np.ones(4, dtype=np.float32)
    with store.writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow("2", "ivermectin", "d", v, v)])
        writer.create_vector_indexes(["drug"], 4)
    fake.answers.insert(0, ("_KgqaMeta", [["prime", "{}"]]))
    store.schema("prime")
    store.vector_top_k("prime", "drug", "name", v, 3)
    assert len(fake.timeouts["read"]) >= 8 and set(fake.timeouts["read"]) == {7.5}
    assert len(fake.timeouts["write"]) >= 6 and set(fake.timeouts["write"]) == {WRITE_TIMEOUT}


def test_the_driver_bounds_connecting_and_retrying(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store opens its driver with the three bounds; the real driver is built with them too (it refuses a key it
    does not know), then the fake stands in for it."""
    made: list[dict[str, Any]] = []
    real = neo4j.GraphDatabase.driver
    fake = Fake([("dbms.components", [["2025.05.0"]])])

    def driver(uri: str, **config: Any) -> Fake:
        real(uri, **config).close()  # no socket before the first query
        made.append(config)
        return fake

    monkeypatch.setattr(neo4j.GraphDatabase, "driver", driver)
    store = Neo4jStore("bolt://localhost:7687", ("neo4j", "x"))
    assert made == [
        {
            "auth": ("neo4j", "x"),
            "connection_timeout": CONNECT_TIMEOUT,
            "connection_acquisition_timeout": ACQUIRE_TIMEOUT,
            "max_transaction_retry_time": RETRY_TIME,
        }
    ]
    assert CONNECT_TIMEOUT < ACQUIRE_TIMEOUT < store.read_bound - store.query_timeout
    store.close()
    assert fake.closed


def test_a_bad_uri_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^Neo4j at localhost:7687: URI scheme 'localhost' is not supported\..*"):
        Neo4jStore("localhost:7687", ("neo4j", "x"))


def test_a_store_that_cannot_reach_the_server_says_so_and_closes_its_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = Fake(error=ServiceUnavailable(REFUSED))
    monkeypatch.setattr(neo4j.GraphDatabase, "driver", lambda uri, **config: fake)
    with pytest.raises(StoreError) as refused:
        Neo4jStore("bolt://localhost:7687", ("neo4j", "x"))
    assert str(refused.value) == f"{SERVER} is unavailable: {REFUSED_LINE}; is the server running, and neo4j_uri right?"
    assert fake.closed


@pytest.mark.parametrize(
    ("mode", "error", "message"),
    [
        (
            "write",
            ServiceUnavailable(REFUSED),
            f"{SERVER} is unavailable: {REFUSED_LINE}; is the server running, and neo4j_uri right?",
        ),
        ("autocommit", SessionExpired(DEFUNCT), f"{SERVER} dropped the connection: {DEFUNCT}; is the server running?"),
        (
            "write",
            server_error("Neo.ClientError.Schema.ConstraintValidationFailed", "Node(3) already exists"),
            "write refused by Neo4j: Node(3) already exists (Neo.ClientError.Schema.ConstraintValidationFailed)",
        ),
    ],
    ids=["write-unavailable", "clear-expired", "write-refused"],
)
def test_a_load_reports_a_failed_write_as_a_store_error(mode: str, error: Exception, message: str) -> None:
    """Before, a write's connection failure escaped as the driver's own exception."""
    fake = Fake([("SHOW VECTOR INDEXES", []), ("count(n)", [[0]])], error=error, fail_mode=mode)
    v = np.ones(4, dtype=np.float32)
    with pytest.raises(StoreError) as failed, fake_store(fake).writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow("2", "ivermectin", "d", v, v)])
    assert str(failed.value) == message and failed.value.__cause__ is error


def test_a_server_that_stops_answering_is_given_up_at_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A paused server: the driver would wait for its answer for ever; kgqa stops waiting ``WATCHDOG_GRACE`` after the
    transaction timeout with a StoreError (not a StoreTimeoutError: the steps that narrow a query on a timeout would
    only wait again), and reads work again once the server answers."""
    monkeypatch.setattr(store_module, "WATCHDOG_GRACE", 0.3)
    fake = Fake([("_KgqaMeta", [["prime", "{}"]])])
    store = fake_store(fake, query_timeout=0.2)
    assert store.read_bound == pytest.approx(0.5)
    fake.gate = threading.Event()
    threading.Timer(5.0, fake.gate.set).start()  # if kgqa waited for ever, the test fails instead of hanging
    started = time.monotonic()
    with pytest.raises(StoreError) as unanswered:
        store.graphs()
    took = time.monotonic() - started
    assert type(unanswered.value) is StoreError
    assert str(unanswered.value) == (
        f"{SERVER} did not answer a query within 0.5 s (0.2 s timeout + 0.3 s); is the server paused or overloaded?"
    )
    assert 0.5 <= took < 3.0
    fake.gate.set()
    assert store.graphs() == ["prime"]


def test_errors_raised_by_kgqa_inside_a_call_pass_unchanged() -> None:
    """The row cap and the read-only check raise StoreError inside the transaction: not the driver's, not remapped."""
    fake = Fake([("_KgqaMeta", [["prime", "{}"]]), ("RETURN n.id", [["1"], ["2"]])])
    with pytest.raises(StoreError, match=r"^query returned more than row_cap = 1 rows$"):
        fake_store(fake, row_cap=1).read("prime", "MATCH (n) RETURN n.id")


# -- the real driver's retry loop --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (
            server_error("Neo.TransientError.Transaction.DeadlockDetected", "deadlock\nwith details"),
            f"{SERVER} could not serve the query, retried for 5 s (Neo.TransientError.Transaction.DeadlockDetected): "
            "deadlock; try again later",
        ),
        (ServiceUnavailable(REFUSED), f"{SERVER} is unavailable: {REFUSED_LINE}; is the server running, and "),
        (SessionExpired(DEFUNCT), f"{SERVER} dropped the connection: {DEFUNCT}; is the server running?"),
    ],
    ids=["TransientError", "ServiceUnavailable", "SessionExpired"],
)
def test_the_driver_retries_a_transient_failure_for_retry_time_then_it_is_mapped(
    monkeypatch: pytest.MonkeyPatch, error: Exception, message: str
) -> None:
    """The real driver and session: its pool (the one part that would open a socket) fails every connection with a
    retryable error; the managed transaction tries again, asking each time for a connection within
    ACQUIRE_TIMEOUT, until RETRY_TIME has passed (on a fake clock), and kgqa maps the last error."""
    from neo4j._sync.work import session as driver_session

    clock = [0.0]
    monkeypatch.setattr(driver_session, "sleep", lambda seconds: clock.__setitem__(0, clock[0] + seconds))
    monkeypatch.setattr(driver_session, "monotonic", lambda: clock[0])
    driver = store_module._driver("bolt://localhost:7687", ("neo4j", "x"))
    asked: list[float] = []

    def acquire(**request: Any) -> Any:
        asked.append(request["timeout"].original_timeout)
        raise error

    monkeypatch.setattr(driver._pool, "acquire", acquire)
    try:
        with pytest.raises(StoreError) as failed:
            Neo4jStore("bolt://localhost:7687", ("neo4j", "x"), driver=driver)
    finally:
        driver.close()
    assert len(asked) >= 3 and set(asked) == {ACQUIRE_TIMEOUT}
    assert RETRY_TIME < clock[0] < 3 * RETRY_TIME
    assert str(failed.value).startswith(message) and "\n" not in str(failed.value)
    assert not isinstance(failed.value, StoreTimeoutError) and failed.value.__cause__ is error
