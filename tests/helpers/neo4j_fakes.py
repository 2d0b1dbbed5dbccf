"""The records and results of the Neo4j driver as the unit tests' fake drivers return them (test_store_neo4j records
what the store sends; test_neo4j_errors injects the driver's failures), and the recording fake driver and a
:class:`Neo4jStore` on it (test_store_neo4j, test_identifiers, test_neo4j_lint)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kgqa.runtime.store.base import SkbMeta
from kgqa.runtime.store.neo4j import Neo4jStore


@dataclass
class Summary:
    query_type: str


@dataclass
class Record:
    row: list[Any]

    def values(self) -> list[Any]:
        return self.row


@dataclass
class Result:
    rows: list[list[Any]]
    query_type: str = "r"

    def __iter__(self) -> Iterator[Any]:
        return iter(Record(r) for r in self.rows)

    def keys(self) -> list[str]:
        return [f"c{i}" for i in range(len(self.rows[0]))] if self.rows else []

    def consume(self) -> Summary:
        return Summary(self.query_type)


META = SkbMeta("prime", "fixture", "1", "st:tiny", 4, ("drug",), 2, 1, "f", "now")


@dataclass
class FakeDriver:
    """Answers by the first matching (text fragment -> rows); records (mode, text, params) of every query."""

    answers: list[tuple[str, list[list[Any]]]] = field(default_factory=list)
    sent: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    writes_in_reads: bool = False
    read_error: Exception | None = None
    timeouts: list[float | None] = field(default_factory=list)
    """The transaction timeout of every read's unit of work."""

    def session(self, database: str) -> FakeSession:
        return FakeSession(self)

    def close(self) -> None:
        pass

    def respond(self, mode: str, text: str, params: dict[str, Any]) -> Result:
        self.sent.append((mode, text, dict(params)))
        kind = "w" if self.writes_in_reads or mode != "read" else "r"
        if "EXPLAIN" in text:
            return Result([], kind)
        for fragment, rows in self.answers:
            if fragment in text:
                return Result(rows, kind)
        return Result([], kind)


@dataclass
class FakeTx:
    driver: FakeDriver
    mode: str

    def run(self, text: str, params: dict[str, Any] | None = None) -> Result:
        return self.driver.respond(self.mode, text, params or {})


@dataclass
class FakeSession:
    driver: FakeDriver

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def execute_read(self, work: Callable[[FakeTx], Any]) -> Any:
        self.driver.timeouts.append(getattr(work, "timeout", None))
        if self.driver.read_error is not None:
            raise self.driver.read_error
        return work(FakeTx(self.driver, "read"))

    def execute_write(self, work: Callable[[FakeTx], Any]) -> Any:
        return work(FakeTx(self.driver, "write"))

    def run(self, text: str) -> Result:
        return self.driver.respond("autocommit", text, {})


def store_with(driver: FakeDriver, version: str = "2025.05.0", **kwargs: Any) -> Neo4jStore:
    driver.answers.insert(0, ("dbms.components", [[version]]))
    return Neo4jStore("bolt://fake", ("neo4j", "x"), driver=driver, **kwargs)
