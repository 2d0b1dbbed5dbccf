"""The Neo4j store's bounds against a live server's faults: a read past its transaction timeout, a paused server
(``docker pause``: it accepts connections and answers nothing) and a stopped one. Each call must end within the
store's bound with a one-line error, and a paused server must serve again once unpaused. These need a container they
may pause and stop, so they run only where Docker does (testcontainers, the image of tests/e2e/test_neo4j.py), never
against ``NEO4J_URI``; elsewhere they skip and say why. Run: ``python -m pytest tests/e2e/test_neo4j_faults.py -rs``.
The same cases without a server: tests/unit/test_neo4j_errors.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from kgqa.errors import StoreError, StoreTimeoutError
from kgqa.runtime.store.neo4j import RETRY_TIME, Neo4jStore
from tests.helpers.neo4j_server import IMAGE, docker_reason

pytestmark = pytest.mark.neo4j
PASSWORD = "kgqa-test-password"
SLOW = "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS pairs"
"""A read-only query of 10^10 rows: minutes of work, so it is the transaction timeout that ends it."""
SLACK = 5.0
"""Seconds a call may take beyond its bound on a loaded CI machine."""


@contextmanager
def _container() -> Iterator[Any]:
    if (reason := docker_reason()) is not None:
        pytest.skip(reason.replace("NEO4J_URI is not set and ", ""))
    from testcontainers.community.neo4j import Neo4jContainer

    with Neo4jContainer(IMAGE, password=PASSWORD) as container:
        yield container


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[Any, str]]:
    """A container and its Bolt URL (read while it runs: testcontainers waits for a running container to give it)."""
    with _container() as container:
        yield container, container.get_connection_url()


@pytest.fixture
def doomed_server() -> Iterator[tuple[Any, str]]:
    """A container of its own, for the test that stops it."""
    with _container() as container:
        yield container, container.get_connection_url()


def _store(url: str, **settings: Any) -> Neo4jStore:
    return Neo4jStore(url, ("neo4j", PASSWORD), **settings)


def _one_line(error: BaseException) -> str:
    message = str(error)
    assert "\n" not in message and message
    return message


def test_a_read_past_the_transaction_timeout_is_a_store_timeout(server: tuple[Any, str]) -> None:
    _, url = server
    with _store(url, query_timeout=1.0) as store:
        started = time.monotonic()
        with pytest.raises(StoreTimeoutError) as timed_out:
            store._read_rows(SLOW, {})
        took = time.monotonic() - started
        assert _one_line(timed_out.value).startswith("query ran past 1 s: ")
        assert took < 1.0 + SLACK
        assert store._read_rows("RETURN 1 AS one", {}) == [[1]]  # the store reads on


def test_a_paused_server_is_given_up_within_the_bound_and_serves_again_unpaused(server: tuple[Any, str]) -> None:
    container, url = server
    with _store(url, query_timeout=2.0) as store:
        assert store.graphs() == []  # a pooled connection, which the next read reuses
        container.get_wrapped_container().pause()
        try:
            started = time.monotonic()
            with pytest.raises(StoreError) as unanswered:
                store.graphs()
            took = time.monotonic() - started
            message = _one_line(unanswered.value)
            assert not isinstance(unanswered.value, StoreTimeoutError)  # not a query too broad: the server is gone
            assert message.startswith(f"Neo4j at {url} ") and took <= store.read_bound + SLACK
            started = time.monotonic()
            with pytest.raises(StoreError) as unopened:  # a new connection: handshake unanswered
                _store(url, query_timeout=2.0)
            assert _one_line(unopened.value).startswith(f"Neo4j at {url} ")
            assert time.monotonic() - started <= store.read_bound + SLACK
        finally:
            container.get_wrapped_container().unpause()
        assert store.graphs() == []


def test_a_stopped_server_is_a_one_line_store_error(doomed_server: tuple[Any, str]) -> None:
    container, url = doomed_server
    with _store(url, query_timeout=2.0) as store:
        assert store.graphs() == []
        container.get_wrapped_container().stop()
        started = time.monotonic()
        with pytest.raises(StoreError) as gone:
            store.graphs()
        message = _one_line(gone.value)
        assert message.startswith(f"Neo4j at {url} ") and "is the server running" in message
        assert time.monotonic() - started <= 3 * RETRY_TIME + SLACK  # retried, not waited out
    with pytest.raises(StoreError, match=r"is unavailable: .*; is the server running, and neo4j_uri right\?$"):
        _store(url)
