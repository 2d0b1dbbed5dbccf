"""The sanitizer: identifiers only from the schema, near misses repaired and recorded, the rest dropped."""

import pytest

from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.parser import parse
from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import LENIENT_FLOOR, GraphSchema, sanitize, similarity
from tests.helpers.hpo_schema import HPO

MAG = GraphSchema(
    ("author", "paper", "institution", "field_of_study"),
    (
        ("author", "author___writes___paper", "paper"),
        ("paper", "paper___cites___paper", "paper"),
        ("paper", "paper___has_topic___field_of_study", "field_of_study"),
        ("author", "author___affiliated_with___institution", "institution"),
    ),
    NodeKeys("id", "name"),
)


def test_near_misses_are_repaired_and_recorded() -> None:
    result = sanitize(
        parse("MATCH (p:Paper)-[:has_field_of_study]->(f:field_of_study {name: 'Physics'}) RETURN p"), MAG
    )
    assert [(r.kind, r.original, r.replacement) for r in result.repairs] == [
        ("label", "Paper", "paper"),
        ("type", "has_field_of_study", "paper___has_topic___field_of_study"),
    ]
    assert result.plan.triplets[0].types == ("paper___has_topic___field_of_study",)


def test_wrong_direction_is_flipped_when_the_schema_has_it_the_other_way() -> None:
    result = sanitize(parse("MATCH (p:paper)-[:writes]->(a:author {name: 'Ann Lee'}) RETURN p"), MAG)
    triplet = result.plan.triplets[0]
    assert (triplet.head, triplet.types, triplet.tail) == ("a", ("author___writes___paper",), "p")
    assert any(r.kind == "direction" for r in result.repairs)


def test_unknown_properties_extend_a_constant_or_are_dropped() -> None:
    plan = sanitize(
        parse(
            "MATCH (f:field_of_study {name: 'Physics', area: 'optics'})<-[:has_topic]-(p:paper) "
            "WHERE p.year > 2000 RETURN p"
        ),
        MAG,
    ).plan
    assert plan.symbol("f").search_string == "Physics optics"
    assert plan.symbol("p").conditions == ()
    assert any(d.text == "p.year" and d.reason == "property not in the schema" for d in plan.dropped)


def test_strict_drops_what_lenient_maps() -> None:
    query = "MATCH (x:planet)-[:authored]->(y:paper {name: 'A'}) RETURN y"
    strict = sanitize(parse(query), MAG)
    assert strict.plan.triplets == () and [s.name for s in strict.plan.symbols] == ["y"]
    lenient = sanitize(parse(query), MAG, mode="lenient")
    assert lenient.plan.triplets[0].types == ("author___writes___paper",)
    assert lenient.plan.symbol("x").labels == ("paper",)


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        ("(n:gene/protein)-[:author___writes___paper]->(m:paper {name: 'A'})", "label"),  # nothing like it
        ("(n:paper)-[:orbits]->(m:author {name: 'A'})", "type"),
        ("(n:_KgqaMeta)-[:author___writes___paper]->(m:paper {name: 'A'})", "label"),  # kgqa's own
        ("(n:author)-[:_KgqaAlias]->(m:paper {name: 'A'})", "type"),
    ],
)
def test_lenient_repairs_need_a_floor(written: str, kind: str) -> None:
    """A name like nothing in the schema (kgqa's internal labels included) is dropped, not mapped to the best of
    bad choices."""
    result = sanitize(parse(f"MATCH {written} RETURN m"), MAG, mode="lenient")
    assert all(r.similarity >= LENIENT_FLOOR for r in result.repairs)
    reason = "label not in the schema" if kind == "label" else "relationship type not in the schema"
    assert any(d.reason == reason for d in result.plan.dropped)


def test_nothing_matching_the_schema_is_an_error() -> None:
    with pytest.raises(CypherSyntaxError, match="nothing of the query matches the schema"):
        sanitize(parse("MATCH (x:planet)-[:orbits]->(y:star) RETURN x"), MAG)


def test_identifiers_in_the_output_come_only_from_the_schema() -> None:
    result = sanitize(
        parse("MATCH (a:`author) DETACH DELETE n //`)-[:`x``y`]->(p:paper {title: 'T'}) RETURN p"), MAG, mode="lenient"
    )
    assert result.plan.triplets == ()  # no type like `x``y`: the pattern is the constant alone
    for symbol in result.plan.symbols:
        assert set(symbol.labels) <= set(MAG.labels)
    for triplet in result.plan.triplets:
        assert set(triplet.types) <= set(MAG.types)


@pytest.mark.parametrize(
    ("a", "b", "low"), [("gene_protein", "gene/protein", 0.8), ("writes", "author___writes___paper", 0.7)]
)
def test_similarity(a: str, b: str, low: float) -> None:
    assert similarity(a, b) >= low
    assert similarity(a, "completely different") < 0.6


def test_an_unlabelled_constant_gets_the_one_label_the_schema_allows_beside_its_neighbour() -> None:
    """Issue 68: an LLM's ``(v1 {name: "Seizure"})`` was searched in every label and looked up without an index, a
    scan of every node for each disease of a hub (12 s a question on HPO)."""
    result = sanitize(
        parse(
            "MATCH (y:disease)-[:`phenotype present`]->(v1 {name: 'Seizure'}), "
            "(y)-[:`phenotype absent`]->(v2 {name: 'Fever'}) RETURN y"
        ),
        HPO,
    )
    assert result.plan.symbol("v1").labels == ("effect/phenotype",)
    assert result.plan.symbol("v2").labels == ("effect/phenotype",)
    assert ("label", "(v1) without a label", "effect/phenotype") in [
        (r.kind, r.original, r.replacement) for r in result.repairs
    ]


def test_a_label_is_inferred_across_a_chain_and_against_a_written_direction() -> None:
    chain = sanitize(parse("MATCH (y:author)-[:writes]->(p)-[:has_topic]->(f {name: 'Physics'}) RETURN y"), MAG).plan
    assert (chain.symbol("p").labels, chain.symbol("f").labels) == (("paper",), ("field_of_study",))
    flipped = sanitize(parse("MATCH (y:paper)-[:writes]->(a {name: 'Ann Lee'}) RETURN y"), MAG)
    assert flipped.plan.symbol("a").labels == ("author",)
    assert (flipped.plan.triplets[0].head, flipped.plan.triplets[0].tail) == ("a", "y")


def test_a_node_the_schema_allows_several_labels_stays_unlabelled() -> None:
    """A gene is associated with phenotypes and with diseases: nothing tells which the constant is."""
    plan = sanitize(parse("MATCH (y:`gene/protein`)-[:`associated with`]->(x {name: 'Seizure'}) RETURN y"), HPO).plan
    assert plan.symbol("x").labels == ()


def test_the_answer_is_left_for_step_1_s_type() -> None:
    """sanitize leaves the answer unlabelled: kgqa.runtime.steps.s2_text2cypher.plan_from_reply gives it step 1's
    type first, then labels the rest from it."""
    plan = sanitize(parse("MATCH (y)-[:`phenotype present`]->(v {name: 'Seizure'}) RETURN y"), HPO).plan
    assert plan.symbol("y").labels == ()


def test_a_label_not_in_the_schema_is_replaced_by_the_one_the_schema_allows() -> None:
    result = sanitize(parse("MATCH (y:disease)-[:`phenotype present`]->(v:symptom {name: 'Seizure'}) RETURN y"), HPO)
    assert result.plan.symbol("v").labels == ("effect/phenotype",)
    assert ("label", "(v:symptom)", "effect/phenotype") in [(r.kind, r.original, r.replacement) for r in result.repairs]
