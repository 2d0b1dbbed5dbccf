"""The attack corpus (tests/fixtures/attacks.csv: one hostile Cypher text per row, with its expected outcome), read as
cases, and its compilation against the PRIME fixture's schema."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from kgqa.cypher.compile import PatternQuery, pattern_query
from kgqa.cypher.parser import parse
from kgqa.cypher.sanitize import GraphSchema, Mode, SanitizedPlan, sanitize
from kgqa.runtime.store.base import NODE_KEYS
from tests.helpers.stark_fixture import EDGE_TYPES, EDGES, NODE_TYPES, NODES

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "attacks.csv"
FIXTURE_SCHEMA = GraphSchema(
    tuple(NODE_TYPES.values()),
    tuple(sorted({(NODE_TYPES[NODES[h][1]], EDGE_TYPES[e], NODE_TYPES[NODES[t][1]]) for h, t, e in EDGES})),
    NODE_KEYS,
)
LIMIT = 1000


@dataclass(frozen=True)
class Case:
    """A row of attacks.csv."""

    case: str
    mode: Mode
    outcome: str
    """``rejected`` (CypherSyntaxError), ``compiled``, or ``any`` (either, the compiled text still checked)"""
    error: str
    """rejected: a fragment of the error message"""
    absent: tuple[str, ...]
    """compiled: fragments no dialect's compiled text may contain"""
    dropped: str
    """compiled: a fragment of one reason in the plan's dropped list"""
    cli: bool
    """also run through the CLI in a subprocess (tests/integration/test_attack_cli.py)"""
    cypher: str


def read_corpus(path: Path = CORPUS) -> list[Case]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    cases = []
    for row in rows:
        assert row["mode"] in ("strict", "lenient") and row["outcome"] in ("rejected", "compiled", "any"), row["case"]
        absent = tuple(part for part in row["absent"].split("|") if part)
        mode: Mode = "lenient" if row["mode"] == "lenient" else "strict"
        cli = row["cli"] == "yes"
        cases.append(Case(row["case"], mode, row["outcome"], row["error"], absent, row["dropped"], cli, row["cypher"]))
    return cases


CASES = read_corpus()
ATTACKS = [case.cypher for case in CASES] + [
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d" + " " * 100_000 + "DETACH DELETE d",
    "MATCH (d:drug {name: '" + "x" * 100_000 + "'})-[:indication]->(x:disease) RETURN d",
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d" + " " * 200_001,
]
"""Every text of the corpus, and three too large for a CSV cell (tests/integration/test_explain.py runs them all)."""


def compile_case(cypher: str, mode: Mode = "strict") -> tuple[SanitizedPlan, PatternQuery]:
    sanitized = sanitize(parse(cypher), FIXTURE_SCHEMA, mode)
    return sanitized, pattern_query(sanitized.plan, NODE_KEYS, limit=LIMIT)
