"""The records and results of the Neo4j driver as the unit tests' fake drivers return them (test_store_neo4j records
what the store sends; test_neo4j_errors injects the driver's failures)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


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
