""" "X but not Y": a negated link also excludes the answers joined to it without negation (kgqa.cypher.plan.QueryPlan
.excluded), where both readings of the negation agree on that; never where a path through a named type is meant."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kgqa.cypher.compile import pattern_query
from kgqa.cypher.plan import QueryPlan
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s2_conditions import not_entities
from kgqa.runtime.steps.s2_linking import Link
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import Hop, relaxations, schema_guided_plan
from kgqa.runtime.steps.s4_grounding import Excluded, Grounded, GroundingResult, PlanGrounding
from kgqa.runtime.store.base import NODE_KEYS
from kgqa.runtime.text import STOP_WORDS
from tests.helpers.hpo_schema import HPO, PHENOTYPE, link


def plan_of(question: str, spans: Sequence[tuple[str, str]], target: str, unreached: str = "") -> QueryPlan:
    links = [link(question, span, label) for span, label in spans]
    reading = read_question(question)
    _, textual = not_entities(reading, ("disease", "gene/protein", PHENOTYPE))
    skip = frozenset({i for one in links for i in range(one.start, one.end)} | textual)
    meaning = RelationMeaning(reading, ignore=STOP_WORDS, skip=skip)

    def reaches(found: Link, path: Sequence[Hop]) -> bool:
        return found.name != unreached

    plan = schema_guided_plan(links, target, HPO, reading, meaning, reaches=reaches)
    assert plan is not None
    return plan


def excluded(plan: QueryPlan) -> list[tuple[str, str, tuple[str, ...]]]:
    """(the excluded entity's name, its label, the types that join the answers to it)."""
    out = []
    for e in plan.excluded:
        (constant,) = e.constants
        (triplet,) = e.triplets
        assert (triplet.head, triplet.tail, e.target) == (e.target, constant.name, "y")
        out.append((constant.search_string or "", constant.labels[0], triplet.types))
    return out


@pytest.mark.parametrize(
    ("question", "spans", "target", "expected"),
    [
        (
            "chorea and dementia but no Seizure - which disorders?",
            [("chorea", PHENOTYPE), ("dementia", PHENOTYPE), ("Seizure", PHENOTYPE)],
            "disease",
            [("Seizure", PHENOTYPE, ("phenotype present",))],
        ),
        (
            "Which diseases lack Seizure?",
            [("Seizure", PHENOTYPE)],
            "disease",
            [("Seizure", PHENOTYPE, ("phenotype present",))],
        ),
        # genes have no negated type toward phenotypes: the negation went through a disease the question did not name
        (
            "Which genes are associated with Hypsarrhythmia but not with Microcephaly?",
            [("Hypsarrhythmia", PHENOTYPE), ("Microcephaly", PHENOTYPE)],
            "gene/protein",
            [("Microcephaly", PHENOTYPE, ("associated with",))],
        ),
        # a path through a type the question names means that type's absence, not the answers'
        (
            "Which genes are linked to diseases that are explicitly annotated as not having Seizure?",
            [("Seizure", PHENOTYPE)],
            "gene/protein",
            [],
        ),
        (
            "Which genes are linked to a finding on record as not part of Gaucher disease?",
            [("Gaucher disease", "disease")],
            "gene/protein",
            [],
        ),
        ("Which diseases present with Seizure?", [("Seizure", PHENOTYPE)], "disease", []),
    ],
)
def test_a_negated_link_excludes_the_answers_it_joins_without_negation(
    question: str, spans: list[tuple[str, str]], target: str, expected: list[tuple[str, str, tuple[str, ...]]]
) -> None:
    assert excluded(plan_of(question, spans, target)) == expected


def test_a_negated_link_no_answer_reaches_still_excludes() -> None:
    """'Tuberous sclerosis-1' has no absent phenotype: its negated hop is not joined, but the phenotypes it presents
    are still no answers of "features of X that aren't annotated for Y"."""
    question = "features of Tuberous sclerosis-2 that aren't annotated for Tuberous sclerosis-1"
    spans = [("Tuberous sclerosis-2", "disease"), ("Tuberous sclerosis-1", "disease")]
    plan = plan_of(question, spans, PHENOTYPE, unreached="Tuberous sclerosis-1")
    assert [c.search_string for c in plan.constants] == ["Tuberous sclerosis-2"]
    assert excluded(plan) == [("Tuberous sclerosis-1", "disease", ("phenotype present",))]


def test_a_relaxation_keeps_the_exclusions() -> None:
    plan = plan_of(
        "chorea and dementia but no Seizure - which disorders?",
        [("chorea", PHENOTYPE), ("dementia", PHENOTYPE), ("Seizure", PHENOTYPE)],
        "disease",
    )
    assert all(relaxed.excluded == plan.excluded for _, relaxed in relaxations(plan))


def test_a_plan_that_holds_the_excluded_entity_keeps_its_answers() -> None:
    """ "features explicitly absent in Legius syndrome": Orphanet's entry has them absent, OMIM's of the same name may
    have them present; what the plan holding the negated hop grounded stays, the rest joined to it go."""
    plan = plan_of(
        "chorea and dementia but no Seizure - which disorders?",
        [("chorea", PHENOTYPE), ("dementia", PHENOTYPE), ("Seizure", PHENOTYPE)],
        "disease",
    )
    holding = grounding(plan, ["d1"])
    relaxed = grounding(next(r for name, r in relaxations(plan) if name == "Seizure"), ["d1", "d2", "d3"])
    excluded = Excluded(((("effect/phenotype", "Seizure"), frozenset({"d1", "d2"})),), ())
    assert excluded.ruled_out([holding, relaxed]) == {"d2"}
    assert excluded.ruled_out([relaxed]) == {"d1", "d2"}


def grounding(plan: QueryPlan, targets: list[str]) -> PlanGrounding:
    result = GroundingResult(pattern_query(plan, NODE_KEYS), {})
    result.targets = [Grounded(t, t, "disease", 1) for t in targets]
    return PlanGrounding("linked", plan, result)


def test_a_plan_that_joins_the_excluded_entity_through_another_node_spares_nothing() -> None:
    plan = plan_of(
        "Which genes are associated with Hypsarrhythmia but not with Microcephaly?",
        [("Hypsarrhythmia", PHENOTYPE), ("Microcephaly", PHENOTYPE)],
        "gene/protein",
    )
    excluded = Excluded(((("effect/phenotype", "Microcephaly"), frozenset({"g1"})),), ())
    assert excluded.ruled_out([grounding(plan, ["g1", "g2"])]) == {"g1"}


def test_a_negation_whose_hop_reaches_nothing_is_not_the_only_reading() -> None:
    """Symptoms "of cystic fibrosis if *not* treated": no phenotype is annotated absent in it, and answers held by
    absence alone are none; the hop is read without the negation, and nothing is excluded."""
    question = "what are the symptoms of Cystic fibrosis if not treated"
    links = [link(question, "Cystic fibrosis", "disease")]
    reading = read_question(question)
    meaning = RelationMeaning(reading, ignore=STOP_WORDS, skip=frozenset(range(links[0].start, links[0].end)))

    def reaches(found: Link, path: Sequence[Hop]) -> bool:
        return "phenotype absent" not in path[-1][0]

    plan = schema_guided_plan(links, PHENOTYPE, HPO, reading, meaning, reaches=reaches)
    assert plan is not None
    (triplet,) = plan.triplets
    assert triplet.types == ("phenotype present",)
    assert plan.excluded == () and plan.dropped == ()
    # where the negated hop does reach answers, it is read as written
    negated = schema_guided_plan(links, PHENOTYPE, HPO, reading, meaning, reaches=lambda found, path: True)
    assert negated is not None and negated.triplets[0].types == ("phenotype absent",)
