"""The attack corpus (tests/fixtures/attacks.csv: one hostile Cypher text per row, with its expected outcome) against
the parser, sanitizer and compiler, in both dialects' compiled text. Whatever survives is rebuilt from the schema as
valid Cypher: one WHERE per MATCH, filters only on bound variables, the answer's part of the pattern only, bounded
by max_triplets and a LIMIT. That the store stays unchanged: tests/integration/test_explain.py (in-process) and
tests/integration/test_attack_cli.py (subprocesses)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgqa.cypher.compile import pattern_query
from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.parser import parse
from kgqa.cypher.plan import Condition, QueryPlan, Symbol, Triplet
from kgqa.cypher.sanitize import MAX_TRIPLETS, Mode, sanitize
from kgqa.runtime.store.base import NODE_KEYS
from kgqa.runtime.store.neo4j import browser_statement
from tests.helpers.attacks import CASES, FIXTURE_SCHEMA, LIMIT, Case, compile_case

WRITES = ("DELETE", "CREATE", "MERGE", "SET ", "REMOVE", "CALL", "LOAD", "FOREACH", "USE ", "INSERT", "DROP")
NEO4J_RELEASES = ("2025.05", "2026.01")


def assert_valid_cypher(text: str) -> None:
    """The compiled text's shape: MATCH clauses, each with at most one WHERE naming only variables bound so far, a
    WITH between two MATCHes that passes on every variable bound so far (no more), then one RETURN of bound
    variables and ``LIMIT $limit``."""
    match_part, _, returned = text.rpartition(" RETURN ")
    assert match_part.startswith("MATCH ") and returned.endswith(" LIMIT $limit"), text
    bound: set[str] = set()
    for clause in match_part.split("MATCH ")[1:]:
        found = re.fullmatch(r"(.*?)(?: WITH ((?:v\d+, )*v\d+))?", clause.strip())
        assert found is not None, clause
        clause, carried = found[1], found[2]
        pattern, *where = clause.split(" WHERE ")
        assert len(where) <= 1, f"two WHERE in one MATCH: {clause}"
        bound |= set(re.findall(r"\((v\d+)", pattern))
        for condition in where:
            assert set(re.findall(r"\b(v\d+)\.", condition)) <= bound, f"filter on an unbound variable: {clause}"
        if carried:
            names = carried.split(", ")
            assert len(names) == len(set(names)) and set(names) == bound, f"WITH {carried} after {sorted(bound)}"
    assert set(re.findall(r"\b(v\d+)\b", returned)) <= bound, text


def assert_safe(text: str, case_absent: tuple[str, ...] = ()) -> None:
    for word in WRITES + case_absent:
        assert word not in text, word
    names = set(FIXTURE_SCHEMA.labels) | set(FIXTURE_SCHEMA.types) | set(FIXTURE_SCHEMA.properties)
    assert set(text.split("`")[1::2]) <= names


def test_corpus_size_and_names() -> None:
    assert len(CASES) >= 100
    assert len({case.case for case in CASES}) == len(CASES)
    assert sum(case.cli for case in CASES) >= 8


@pytest.mark.parametrize("case", CASES, ids=[case.case for case in CASES])
def test_attack(case: Case) -> None:
    try:
        sanitized, query = compile_case(case.cypher, case.mode)
    except CypherSyntaxError as exc:
        assert case.outcome in ("rejected", "any"), f"rejected: {exc}"
        assert case.error in str(exc)
        return
    assert case.outcome in ("compiled", "any"), f"compiled: {query.text}"
    plan = sanitized.plan
    assert len(plan.triplets) <= MAX_TRIPLETS
    if case.dropped:
        assert any(case.dropped in d.reason for d in plan.dropped), [d.reason for d in plan.dropped]
    json.dumps(query.params, allow_nan=False)
    assert_valid_cypher(query.text)
    assert_safe(query.text, case.absent)
    for release in NEO4J_RELEASES:
        statement, browser = browser_statement(query.text, dict(query.params), release)
        assert_safe(statement, case.absent)
        assert_valid_cypher(statement.removeprefix("CYPHER 25 "))
        assert "NaN" not in browser and "Infinity" not in browser


@pytest.mark.parametrize("max_triplets", [1, 3, 8])
def test_a_long_chain_keeps_the_triplets_nearest_the_answer(max_triplets: int) -> None:
    chain = "MATCH (a:`gene/protein`)" + "".join(f"-[:`associated with`]-(x{i})" for i in range(300)) + " RETURN a"
    plan = sanitize(parse(chain), FIXTURE_SCHEMA, max_triplets=max_triplets).plan
    assert [(t.head, t.tail) for t in plan.triplets] == [
        ("a" if i == 0 else f"x{i - 1}", f"x{i}") for i in range(max_triplets)
    ]
    reasons = [d for d in plan.dropped if "max_triplets" in d.reason]
    assert len(reasons) == 6 and reasons[-1].text == f"{300 - max_triplets - 5} more like these"


def test_the_issue_examples_compile_to_valid_cypher() -> None:
    """Issue 18's two: two WHERE in a row with a filter on ``v1``, and a filter on a variable no MATCH binds."""
    _, one = compile_case("MATCH (d:disease {name: 'migraine'}), (x:disease) WHERE x.id = '1' RETURN d")
    assert one.text == (
        "MATCH (v0:`disease`) WHERE v0.`id` IN $c0 "
        "RETURN DISTINCT v0.`id` AS id, v0.`name` AS name, labels(v0)[0] AS label LIMIT $limit"
    )
    _, two = compile_case(
        "MATCH (d:disease)-[:`phenotype present`]->(e:`effect/phenotype`), (y) WHERE y.name CONTAINS 'x' "
        "WITH e MATCH (e)<-[:`phenotype present`]-(f:disease {name: 'migraine'}) WHERE e.name <> 'y' RETURN e"
    )
    assert two.text.count("WHERE") == 2 and "CONTAINS" not in two.text
    assert_valid_cypher(two.text)


# --- fuzzing: any plan the sanitizer lets through compiles to valid Cypher --------------------------------------

_VARIABLES = [f"s{i}" for i in range(8)]
_triplets = st.lists(
    st.builds(
        Triplet,
        st.sampled_from(_VARIABLES),
        st.tuples(st.sampled_from(FIXTURE_SCHEMA.types)),
        st.sampled_from(_VARIABLES),
        st.sampled_from(["out", "both"]),
    ),
    max_size=14,
)


@st.composite
def _plans(draw: st.DrawFn) -> QueryPlan:
    triplets = tuple(dict.fromkeys(draw(_triplets)))
    symbols = []
    for name in _VARIABLES:
        labels = draw(st.lists(st.sampled_from(FIXTURE_SCHEMA.labels), max_size=1))
        conditions = draw(
            st.lists(
                st.builds(
                    Condition,
                    st.sampled_from(["name", "id", "title", "unknown"]),
                    st.sampled_from(["=", "CONTAINS", "<>", "IN"]),
                    st.one_of(st.text(max_size=5), st.integers(), st.tuples(st.integers())),
                ),
                max_size=2,
            )
        )
        symbols.append(Symbol(name, tuple(labels), tuple(conditions)))
    return QueryPlan(tuple(symbols), triplets, draw(st.sampled_from([*_VARIABLES, None])))


@settings(max_examples=300, deadline=None)
@given(plan=_plans(), max_triplets=st.integers(1, 10), mode=st.sampled_from(["strict", "lenient"]))
def test_any_sanitized_plan_compiles_to_valid_cypher(plan: QueryPlan, max_triplets: int, mode: Mode) -> None:
    try:
        sanitized = sanitize(plan, FIXTURE_SCHEMA, mode, max_triplets=max_triplets).plan
        query = pattern_query(sanitized, NODE_KEYS, limit=LIMIT)
    except CypherSyntaxError:
        return
    assert len(sanitized.triplets) <= max_triplets
    assert_valid_cypher(query.text)
    ends = {end for t in sanitized.triplets for end in (t.head, t.tail)}
    assert {s.name for s in sanitized.symbols} <= ends | {sanitized.target}
