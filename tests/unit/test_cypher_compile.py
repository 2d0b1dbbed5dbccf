"""The pattern compiler: golden text and parameters only (execution on the embedded FalkorDB:
tests/integration/test_cypher_compile_falkordb.py)."""

from __future__ import annotations

import pytest

from kgqa.cypher.compile import Step, binding_order, pattern_query
from kgqa.cypher.errors import CypherError, CypherSyntaxError, CypherValueError
from kgqa.cypher.parser import parse
from kgqa.cypher.plan import Condition, NodeKeys, QueryPlan, Symbol, Triplet
from kgqa.cypher.sanitize import GraphSchema, sanitize
from tests.helpers.cypher_compile import QUESTION, SCHEMA, compiled


def test_golden_text_and_parameters() -> None:
    q = compiled()
    assert q.text == (
        "MATCH (v1:`gene/protein`) WHERE v1.`id` IN $c0 WITH v1 "
        "MATCH (v0:`drug`)-[:`target`]->(v1:`gene/protein`) WHERE v0.`name` CONTAINS $p0 WITH v1, v0 "
        "MATCH (v2:`disease`) WHERE v2.`id` IN $c1 WITH v1, v0, v2 "
        "MATCH (v0:`drug`)-[:`indication`]->(v2:`disease`) "
        "RETURN v0.`id` AS id, v0.`name` AS name, labels(v0)[0] AS label, "
        "collect(DISTINCT v1.`id`) AS m0, collect(DISTINCT v2.`id`) AS m1"
    )
    assert q.params == {"p0": "mec"}
    assert q.constant_params == {"g": "c0", "d": "c1"}


def order(query: str) -> list[tuple[tuple[str, ...], str]]:
    return [
        (step.binds, f"{step.triplet.head}-{step.triplet.tail}" if step.triplet else "by id" if step.by_id else "label")
        for step in binding_order(sanitize(parse(query), SCHEMA).plan)
    ]


def test_the_cheaper_constant_bound_first_changes_the_text_not_the_rows() -> None:
    """Step 5 binds a join's cheapest side first (kgqa.runtime.steps.s4_grounding.round_order): another order of the
    MATCHes, with the same parameters and the same row columns, so a round's rows do not depend on it."""
    plan = sanitize(parse(QUESTION), SCHEMA).plan
    default, swapped = pattern_query(plan, SCHEMA.keys), pattern_query(plan, SCHEMA.keys, first=("d",))
    assert swapped.text.startswith("MATCH (v2:`disease`) WHERE v2.`id` IN $c1 WITH v2 ")
    assert swapped.text != default.text
    assert (swapped.params, swapped.constant_params) == (default.params, default.constant_params)
    assert swapped.text.split(" RETURN ")[1] == default.text.split(" RETURN ")[1]


def test_answers_restricted_to_given_ids_are_bound_first() -> None:
    """A relaxation whose lone constant is a hub is grounded among the nodes step 6 would rank first: the walk goes
    out from those ids and the constant's candidates filter its end, never a cartesian of ids and candidates."""
    plan = sanitize(parse("MATCH (y:drug)-[:target]->(g:`gene/protein` {name: 'CYP3A4'}) RETURN y"), SCHEMA).plan
    q = pattern_query(plan, SCHEMA.keys, first=("y", "g"))
    assert q.text == (
        "MATCH (v0:`drug`) WHERE v0.`id` IN $targets WITH v0 "
        "MATCH (v0:`drug`)-[:`target`]->(v1:`gene/protein`) WHERE v1.`id` IN $c0 "
        "RETURN v0.`id` AS id, v0.`name` AS name, labels(v0)[0] AS label, collect(DISTINCT v1.`id`) AS m0"
    )
    assert q.constant_params == {"g": "c0"}


def test_given_ids_walk_out_through_a_middle_node_to_the_constant() -> None:
    """Papers of authors at an institution, grounded among given papers: paper -> author -> institution, the
    institution's candidates at the end (MAG's worst case walked every author of 100 institutions per given id)."""
    text = "MATCH (y:drug)-[:target]->(g:`gene/protein`)<-[:target]-(o:drug {name: 'aspirin'}) RETURN y"
    plan = sanitize(parse(text), SCHEMA).plan
    assert [(s.binds, s.triplet is not None) for s in binding_order(plan, ("y", "o"))] == [
        (("y",), False),
        (("g",), True),
        (("o",), True),
    ]
    q = pattern_query(plan, SCHEMA.keys, first=("y", "o"))
    assert "WHERE v2.`id` IN $c0 RETURN" in q.text and q.text.count("MATCH") == 3


def test_ids_only_returns_the_distinct_targets_alone() -> None:
    q = pattern_query(sanitize(parse(QUESTION), SCHEMA).plan, SCHEMA.keys, limit=5, ids_only=True)
    assert q.text.endswith(" RETURN DISTINCT v0.`id` AS id LIMIT $limit")


def test_constants_are_met_from_their_own_side() -> None:
    """Each constant walks its own path toward the target, and the paths close where they meet: a path through a
    hub (the drug o, between the gene and the disease) is never walked into the second constant."""
    assert order(
        "MATCH (y:drug)-[:target]->(g:`gene/protein` {name: 'CYP3A4'})<-[:target]-(o:drug)"
        "-[:indication]->(d:disease {name: 'worms'}) RETURN y"
    ) == [(("g",), "by id"), (("y",), "y-g"), (("d",), "by id"), (("o",), "o-d"), ((), "o-g")]


def test_a_plan_without_constants_starts_from_its_first_triplet() -> None:
    assert order("MATCH (y:drug)-[:target]->(g:`gene/protein`) WHERE g.name CONTAINS 'CYP' RETURN y") == [
        (("y", "g"), "y-g")
    ]
    lone = QueryPlan((Symbol("y", ("drug",), (Condition("name", "CONTAINS", "mec"),)),), (), "y")
    assert binding_order(lone) == [Step(("y",), by_id=False)]
    assert pattern_query(lone, SCHEMA.keys).text == (
        "MATCH (v0:`drug`) WHERE v0.`name` CONTAINS $p0 "
        "RETURN DISTINCT v0.`id` AS id, v0.`name` AS name, labels(v0)[0] AS label"
    )


def test_values_never_reach_the_text() -> None:
    q = compiled(
        'MATCH (y:drug)-[:target]->(g:`gene/protein` {name: "x\' }) DETACH DELETE y //"}) '
        "WHERE y.name CONTAINS 'a\\\"b' RETURN y"
    )
    assert "DETACH" not in q.text and 'a"b' not in q.text
    assert q.params == {"p0": 'a"b'}


def test_plan_without_a_returned_node_is_an_error() -> None:
    with pytest.raises(CypherSyntaxError, match="returns no node variable"):
        compiled("MATCH (y:drug)-[:target]->(g:`gene/protein` {name: 'x'}) RETURN count(*)")


def test_a_limit_below_one_is_the_front_ends_own_error() -> None:
    plan = sanitize(parse(QUESTION), SCHEMA).plan
    with pytest.raises(CypherValueError, match="limit must be >= 1, got 0") as caught:
        pattern_query(plan, SCHEMA.keys, limit=0)
    assert isinstance(caught.value, CypherError)
    assert issubclass(CypherSyntaxError, CypherError)  # one root for everything the front end raises


def test_an_unlabelled_constant_is_reached_by_its_edge_not_looked_up_by_id() -> None:
    """No index finds a node without a label by id: bound by id after a WITH, it was a scan of every node for each
    row bound so far (issue 68). Reached by the edge from the bound side, its ids filter the walk's end."""
    ambiguous = GraphSchema(
        ("drug", "gene/protein", "disease"),
        (("drug", "target", "gene/protein"), ("drug", "target", "disease"), ("drug", "indication", "disease")),
        NodeKeys("id", "name"),
    )
    plan = sanitize(
        parse(
            "MATCH (y:drug)-[:indication]->(d:disease {name: 'worms'}), (y)-[:target]->(g {name: 'CYP3A4'}) RETURN y"
        ),
        ambiguous,
    ).plan
    assert plan.symbol("g").labels == ()
    q = pattern_query(plan, ambiguous.keys, first=("d", "g"))
    assert q.text.startswith(
        "MATCH (v1:`disease`) WHERE v1.`id` IN $c0 WITH v1 MATCH (v0:`drug`)-[:`indication`]->(v1:`disease`) "
        "WITH v1, v0 MATCH (v0:`drug`)-[:`target`]->(v2) WHERE v2.`id` IN $c1 RETURN "
    )
    assert "MATCH (v2) WHERE" not in q.text


@pytest.mark.parametrize(
    ("direction", "arrow"), [("out", "-[:`target`]->"), ("in", "<-[:`target`]-"), ("both", "-[:`target`]-")]
)
def test_a_triplet_compiles_in_the_direction_it_was_written(direction: str, arrow: str) -> None:
    """A schema-guided plan writes a hierarchy hop 'in' ("parents of X": the edges point from X to the answers);
    read as 'both', "what is macroorchidism a kind of?" answered its children beside its parent."""
    symbols = (Symbol("y", ("drug",)), Symbol("g", ("gene/protein",), (Condition("name", "=", "CYP3A4"),)))
    plan = QueryPlan(symbols, (Triplet("y", ("target",), "g", direction),), "y")  # type: ignore[arg-type]
    assert f"(v0:`drug`){arrow}(v1:`gene/protein`)" in pattern_query(plan, SCHEMA.keys).text
