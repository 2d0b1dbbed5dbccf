"""Step 1 settled by the grounded plans (issue 69): a strong LLM plan that agrees with its vote settles the type where
the question's entities back it, or where step 1 only guessed and nothing of its type is strong; a junk plan settles
nothing; and a plan of another type is ranked, never dropped."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgqa.cypher.plan import QueryPlan, Symbol, Triplet
from kgqa.runtime.pipeline.grounding import settle_type
from kgqa.runtime.steps.s1_target_type import TargetType
from kgqa.runtime.steps.s1_type_evidence import PlanEvidence, decide_type, off_type, off_type_weight, rivals_of
from kgqa.runtime.steps.s4_grounding import Grounded, GroundingResult, NodeMatch, PlanGrounding
from kgqa.runtime.trace import Trace

PHENOTYPE = "effect/phenotype"
READER = replace(
    TargetType(PHENOTYPE, "outvoted", "the learned reader reads it (0.94), outvoting the LLM's disease"),
    vote="disease",
    prior={PHENOTYPE: 0.94, "disease": 0.05, "gene/protein": 0.01},
)
ORACLE = PlanEvidence.of(
    "llm", "disease", [("KCNJ11", 1.0), ("Seizure", 1.0)], [("d1", 1), ("d2", 1), ("d3", 1), ("d4", 2)]
)
BACKING = PlanEvidence.of("linked (disease)", "disease", [("KCNJ11", 1.0)], [("d2", 1), ("d5", 1)])
RIVAL = PlanEvidence.of("linked", PHENOTYPE, [("KCNJ11", 1.0)], [("p1", 1)])


def test_a_strong_plan_backed_by_the_question_s_entities_outweighs_the_reader() -> None:
    decision = decide_type(READER, [ORACLE, BACKING, RIVAL])
    assert decision.label == "disease" and decision.changed
    assert "'KCNJ11' 1.00, 'Seizure' 1.00" in decision.detail and "3 answer(s) at l = 1" in decision.detail
    assert "linked (disease) grounds 1 of them at l = 1 too" in decision.detail
    assert "step 1's effect/phenotype (the learned reader reads it (0.94)" in decision.detail


def test_a_strong_plan_alone_outweighs_step_1_where_nothing_of_its_type_is_strong() -> None:
    decision = decide_type(READER, [ORACLE, replace(RIVAL, first=None, at_first=frozenset())])
    assert decision.label == "disease" and "no plan of effect/phenotype grounds at l = 1" in decision.detail


def test_split_evidence_leaves_step_1s_type_and_ranks_both() -> None:
    """A junk LLM whose three words of the question happen to be a phenotype's exact name: its plan is strong, but
    the linked plan for step 1's type is as strong and the question's entities do not back the LLM's type."""
    decision = decide_type(READER, [ORACLE, RIVAL])
    assert decision.label == PHENOTYPE and not decision.changed
    assert "the evidence split" in decision.detail and "linked for effect/phenotype is as strong" in decision.detail
    assert off_type(ORACLE, PHENOTYPE) == "split" and off_type(RIVAL, PHENOTYPE) == ""


@pytest.mark.parametrize(
    ("evidence", "why", "ranked"),
    [
        ([], "has no plan grounded beside it", ""),
        ([replace(ORACLE, answers=PHENOTYPE)], "is not what its own plan answers (effect/phenotype)", ""),
        ([replace(ORACLE, given=True)], "whose answer label is the type it was asked for, not one it wrote", "split"),
        ([replace(ORACLE, links=())], "names no constant", "behind"),
        ([replace(ORACLE, links=(("KCNJ11", 1.0), ("a list of", 0.47)))], "('a list of' 0.47 < 0.99)", "behind"),
        ([replace(ORACLE, first=None, at_first=frozenset())], "grounds nothing", "behind"),
        ([replace(ORACLE, first=(2, 5), at_first=frozenset())], "grounds nothing before l = 2", "behind"),
    ],
)
def test_a_plan_that_is_no_evidence_leaves_step_1s_type(evidence: list[PlanEvidence], why: str, ranked: str) -> None:
    """A junk plan (three words of the question as a constant) links nothing exactly and grounds nothing at l = 1:
    it is ranked behind. A strong plan whose answer label step 3 gave is ranked in its rounds (the evidence split)."""
    decision = decide_type(READER, [*evidence, BACKING])
    assert decision.label == PHENOTYPE and not decision.changed
    assert decision.detail.startswith("effect/phenotype stands: the LLM's disease ") and why in decision.detail
    assert [off_type(e, PHENOTYPE) for e in evidence] == ([ranked] if evidence else [])


def test_a_type_the_question_names_and_the_reader_reads_is_firm() -> None:
    """An LLM sure of the wrong type writes a coherent plan for it, which the question's entities back too (they join
    that type as well): where the question names its type and the reader reads it too, no plan overrules them."""
    firm = replace(READER, firm=True, detail="the question names it ('phenotypes'), outvoting the LLM's disease")
    decision = decide_type(firm, [ORACLE, BACKING, RIVAL])
    assert decision.label == PHENOTYPE
    assert "the question names it and the learned reader reads it too" in decision.detail
    assert decide_type(replace(firm, firm=False), [ORACLE, BACKING, RIVAL]).label == "disease"  # a type word alone


def test_backing_must_share_answers_at_l_1() -> None:
    apart = replace(BACKING, at_first=frozenset({"d9"}))
    assert decide_type(READER, [ORACLE, apart, RIVAL]).label == PHENOTYPE


@pytest.mark.parametrize("vote", [None, PHENOTYPE])
def test_no_doubt_no_decision(vote: str | None) -> None:
    """Without an LLM vote, or where it is step 1's type, there is nothing to settle and nothing to say."""
    decision = decide_type(replace(READER, vote=vote), [ORACLE])
    assert decision.label == PHENOTYPE and decision.detail == ""


def test_a_split_plan_weighs_by_its_type_s_probability_among_the_two() -> None:
    prior = READER.prior
    assert off_type_weight(1.0, "disease", PHENOTYPE, prior) == pytest.approx(0.05 / 0.99)
    assert off_type_weight(1.0, PHENOTYPE, "disease", prior) == pytest.approx(0.94 / 0.99)
    assert off_type_weight(1.0, "disease", PHENOTYPE, None) == 0.5  # no reader: even odds, under its own weight
    assert off_type_weight(1.0, None, PHENOTYPE, prior) == 0.5  # an unlabelled answer


def test_evidence_counts_the_first_round_that_grounded() -> None:
    evidence = PlanEvidence.of("llm", "disease", [("Seizure", 1.0)], [("a", 3), ("b", 2), ("c", 2), ("d", 5)])
    assert evidence.first == (2, 2) and not evidence.strong and evidence.at_first == frozenset()
    assert PlanEvidence.of("llm", "disease", [("Seizure", 0.995)], [("a", 1)]).strong  # at EXACT_LINK or above
    assert PlanEvidence.of("llm", "disease", [("Seizure", 1.0)], []).first is None


def _grounded(source: str, answers: str, ids: str) -> PlanGrounding:
    plan = QueryPlan((Symbol("y", (answers,)),), (), "y")
    targets = [Grounded(i, i, answers, 1, (), source) for i in ids]
    return PlanGrounding(source, plan, GroundingResult(query=None, candidates={}, targets=targets))  # type: ignore[arg-type]


FOUND = {"a": [NodeMatch("n1", "KCNJ11", "", 1.0, exact=True)]}


@pytest.mark.parametrize(("given", "settled"), [(frozenset(), "disease"), (frozenset({"llm"}), PHENOTYPE)])
def test_settling_marks_each_plan_of_another_type(given: frozenset[str], settled: str) -> None:
    """The LLM's strong plan backed by the linked plan for its type settles diseases, and step 1's linked plan,
    strong too, is ranked in its rounds at its type's share. Where step 3 gave the LLM's answer its label, phenotypes
    stand: the LLM's plan is ranked in its rounds at diseases' share, and the linked plan for diseases, a witness for
    them and no voter, behind."""
    sources = (("llm", "disease", "d"), ("linked (disease)", "disease", "d"), ("linked", PHENOTYPE, "p"))
    groundings = [_grounded(*source) for source in sources]
    found = {g.source: ({}, FOUND) for g in groundings}
    trace = Trace("hpo", "hybrid", "scripted", "none", 20, 0.67, 3, "tiny", (PHENOTYPE, "disease"))
    trace.plans = [{"source": g.source, "weight": 1.0, "off_type": ""} for g in groundings]
    marked, decision = settle_type(groundings, found, READER, trace, given)  # type: ignore[arg-type]
    assert decision.label == settled
    how = {g.source: (g.off_type, round(g.weight, 3)) for g in marked}
    if settled == "disease":
        assert how == {"llm": ("", 1.0), "linked (disease)": ("", 1.0), "linked": ("split", round(0.94 / 0.99, 3))}
    else:
        split = round(0.05 / 0.99, 3)
        assert how == {"llm": ("split", split), "linked (disease)": ("behind", 1.0), "linked": ("", 1.0)}
    assert [p["off_type"] for p in trace.plans] == [off for off, _ in how.values()]


TYPES = ("disease", PHENOTYPE, "gene/protein")
IN_DOUBT = TargetType(
    PHENOTYPE, "subject", "no LLM; the question asks for 'entities' (0.418)", prior={PHENOTYPE: 0.5, "disease": 0.4}
)


@pytest.mark.parametrize(
    ("step1", "rivals"),
    [
        (IN_DOUBT, ("disease", "gene/protein")),
        (replace(IN_DOUBT, method="reader", prior={PHENOTYPE: 0.74}), ("disease", "gene/protein")),
        (replace(IN_DOUBT, method="reader", prior={PHENOTYPE: 0.8}), ()),  # the reader is sure enough
        (replace(IN_DOUBT, method="named"), ()),  # the question names its type
        (replace(IN_DOUBT, method="hierarchy"), ()),  # it walks a hierarchy of its type
        (replace(IN_DOUBT, vote="disease", read="named"), ()),  # beside an LLM, the question's own reading counts
        (replace(IN_DOUBT, vote="disease", read=None), ("disease", "gene/protein")),
    ],
)
def test_a_type_in_doubt_has_rivals(step1: TargetType, rivals: tuple[str, ...]) -> None:
    assert rivals_of(step1, TYPES) == rivals


def _linked(answers: str, constants: int, first: int | None, matches: int | None = None) -> PlanEvidence:
    source = "linked" if answers == PHENOTYPE else f"linked ({answers})"
    targets = [(f"{answers}{i}", first) for i in range(3)] if first is not None else []
    return PlanEvidence.of(source, answers, [(f"c{i}", 1.0) for i in range(constants)], targets, matches=matches)


@pytest.mark.parametrize(
    ("evidence", "decided", "why"),
    [
        # delayed skeletal maturation and microcephaly together: only diseases join both at l = 1
        ([_linked(PHENOTYPE, 2, None), _linked("disease", 2, 1)], "disease", "grounds nothing"),
        # autosomal dominant inheritance and GJB2: the genes' plan joins one of them, the diseases' both
        ([_linked(PHENOTYPE, 1, 1), _linked("disease", 2, 1)], "disease", "its plan joins 1 and grounds 3"),
        # "entities whose label includes 'facies'": both join one; only the diseases hold the word
        ([_linked(PHENOTYPE, 1, 1, 0), _linked("disease", 1, 1, 2)], "disease", "none with them"),
        ([_linked(PHENOTYPE, 1, 1, 1), _linked("disease", 1, 1, 2)], PHENOTYPE, ""),  # as much support: it stands
        ([_linked(PHENOTYPE, 2, 1), _linked("disease", 2, 2)], PHENOTYPE, ""),  # the rival grounds later
        ([_linked("disease", 1, 1)], "disease", "no linked plan answers it"),
    ],
)
def test_a_type_in_doubt_is_settled_by_the_plan_the_graph_supports(
    evidence: list[PlanEvidence], decided: str, why: str
) -> None:
    step1 = replace(IN_DOUBT, rivals=rivals_of(IN_DOUBT, TYPES))
    decision = decide_type(step1, evidence)
    assert decision.label == decided and decision.changed == (decided != PHENOTYPE)
    assert why in decision.detail and (not why or "step 1's effect/phenotype was in doubt" in decision.detail)


def test_a_type_whose_hierarchy_the_question_walks_is_not_in_doubt() -> None:
    """ "Which specialisations of neurodevelopmental delay ...": the answers are phenotypes under it."""
    assert rivals_of(IN_DOUBT, TYPES, walked=PHENOTYPE) == ()
    assert rivals_of(IN_DOUBT, TYPES, walked="disease") == ("disease", "gene/protein")


def test_only_surely_linked_entities_support_a_rival() -> None:
    """ "What does aars1 cause, restricted to diseases titled with 'Charcot-Marie-Tooth'?": the condition's words
    linked as a disease at 0.91 let the phenotypes' plan join two entities: one surely, as the diseases' plan does."""
    step1 = replace(IN_DOUBT, label="disease", rivals=(PHENOTYPE, "gene/protein"))
    own = PlanEvidence.of("linked", "disease", [("AARS1", 0.99)], [("d1", 1)])
    rival = PlanEvidence.of(
        f"linked ({PHENOTYPE})",
        PHENOTYPE,
        [("AARS1", 0.99), ("Charcot-marie-tooth disease, type 4H", 0.91)],
        [("p", 1)],
    )
    assert decide_type(step1, [own, rival]).label == "disease"
    assert decide_type(step1, [own, replace(rival, links=(("AARS1", 0.99), ("CMT4H", 0.96)))]).label == PHENOTYPE


def test_an_llm_plan_that_is_no_evidence_leaves_a_type_in_doubt_to_the_grounded_plans() -> None:
    """A junk LLM votes disease for every question: beside a reading in doubt its vote adds nothing, so the linked
    entities' plans settle the type as they do without an LLM; a strong LLM plan of step 1's type keeps it."""
    step1 = replace(IN_DOUBT, method="llm", vote=PHENOTYPE, rivals=("disease", "gene/protein"))
    plans = [_linked(PHENOTYPE, 2, None), _linked("disease", 2, 1)]
    junk = PlanEvidence.of("llm", PHENOTYPE, [("three words of", 0.47)], [])
    assert decide_type(step1, [junk, *plans]).label == "disease"
    oracle = PlanEvidence.of("llm", PHENOTYPE, [("Seizure", 1.0)], [("p1", 1)])
    assert decide_type(step1, [oracle, *plans]).label == PHENOTYPE
    outvoted = replace(step1, method="outvoted", vote="gene/protein")  # step 1 set a weak LLM's type aside
    decision = decide_type(outvoted, [replace(junk, answers="gene/protein"), *plans])
    assert decision.label == "disease" and "changed to disease" in decision.detail
    alone = decide_type(outvoted, [replace(junk, answers="gene/protein"), _linked(PHENOTYPE, 2, 1)])
    assert alone.label == PHENOTYPE and "stands: the LLM's gene/protein has a plan whose constants" in alone.detail


def test_a_plan_that_only_walks_a_hierarchy_the_question_does_not_walk_supports_nothing() -> None:
    """ "Hepatosplenomegaly and a cherry-red spot, what should I be thinking of?": the reader reads phenotypes from
    the frame, sure of it, but every entity is a phenotype and no hierarchy is walked: its own plan joins them only
    through parent-child, so it is in doubt, and the diseases' and the genes' plans, as well supported, go to the
    reader's likelier of them."""
    sure = replace(IN_DOUBT, method="reader", prior={PHENOTYPE: 0.96, "disease": 0.03, "gene/protein": 0.01})
    assert rivals_of(sure, TYPES) == ()  # sure, and its entities are of other types
    assert rivals_of(sure, TYPES, own_only=True) == ("disease", "gene/protein")
    # a step word walks another type's hierarchy: in doubt against it, whatever the reader reads
    assert rivals_of(sure, TYPES, walked="disease") == ("disease", "gene/protein")
    assert rivals_of(sure, TYPES, walked=PHENOTYPE, own_only=True) == ()  # it walks the reader's own type's
    step1 = replace(sure, rivals=("disease", "gene/protein"), unwalked=True)
    walking = replace(_linked(PHENOTYPE, 1, 1), walks=True)
    plans = [walking, _linked("gene/protein", 1, 1), _linked("disease", 1, 1)]
    decision = decide_type(step1, plans)
    assert decision.label == "disease" and "only through a hierarchy the question does not walk)" in decision.detail
    genes = replace(step1, prior={PHENOTYPE: 0.96, "disease": 0.01, "gene/protein": 0.03})
    assert decide_type(genes, plans).label == "gene/protein"
    assert decide_type(step1, [_linked(PHENOTYPE, 1, 1), *plans[1:]]).label == PHENOTYPE  # a plan of its own
    # a sure reader's own plan that grounds nothing (a bogus link) leaves it its type: only a walk puts it in doubt
    assert decide_type(step1, [_linked(PHENOTYPE, 2, None), *plans[1:]]).label == PHENOTYPE


@pytest.mark.parametrize(("types", "walks"), [(("parent-child",), True), (("phenotype present",), False)])
def test_settling_reads_which_linked_plans_only_walk_a_hierarchy(types: tuple[str, ...], walks: bool) -> None:
    symbols = (Symbol("y", (PHENOTYPE,)), Symbol("e0", (PHENOTYPE,)))
    plan = QueryPlan(symbols, (Triplet("y", types, "e0", "both"),), "y")
    walking = replace(_grounded("linked", PHENOTYPE, "p"), plan=plan)
    groundings = [walking, _grounded("linked (disease)", "disease", "d")]
    found = {g.source: ({}, FOUND) for g in groundings}
    trace = Trace("hpo", "hybrid", "none", "none", 20, 0.67, 3, "tiny", (PHENOTYPE, "disease"))
    step1 = replace(IN_DOUBT, rivals=("disease",), unwalked=True)
    _, decision = settle_type(groundings, found, step1, trace)  # type: ignore[arg-type]
    assert decision.label == ("disease" if walks else PHENOTYPE)
    # a question that says a hierarchy ("narrower terms", "specialise") walks it: the plan is its reading
    _, said = settle_type(groundings, found, replace(step1, unwalked=False), trace)  # type: ignore[arg-type]
    assert said.label == PHENOTYPE


def test_a_plan_that_grounds_in_a_later_round_beats_one_that_grounds_nothing() -> None:
    """ "... extra fingers, a cleft lip and his eyes are very small. ... a trisomy. Which one?": one finding linked
    loosely, so no plan grounds at l = 1; the diseases' plan grounds at l = 2, the phenotypes' nothing at all."""
    step1 = replace(IN_DOUBT, rivals=("disease", "gene/protein"))
    nothing = _linked(PHENOTYPE, 2, None)
    later = [_linked("disease", 2, 2), _linked("gene/protein", 2, 2)]
    decision = decide_type(step1, [nothing, *later])
    assert decision.label == "disease" and "grounds 3 answer(s) at l = 2" in decision.detail
    assert decide_type(step1, [_linked(PHENOTYPE, 2, 2), *later]).label == PHENOTYPE  # as well grounded: it stands


def test_a_sure_reader_against_a_walked_hierarchy_is_settled_by_the_plans() -> None:
    """ "Which specialisations of autoimmune antibody positivity ... belong to Systemic sclerosis?" read as diseases
    at 0.95: the phenotypes' plan joins both entities at l = 1, the diseases' only one."""
    sure = replace(IN_DOUBT, label="disease", method="reader", prior={"disease": 0.95, PHENOTYPE: 0.04})
    step1 = replace(sure, rivals=rivals_of(sure, TYPES, walked=PHENOTYPE))
    own = PlanEvidence.of("linked", "disease", [("Systemic sclerosis", 1.0)], [("d1", 1)])
    walked = PlanEvidence.of(
        f"linked ({PHENOTYPE})", PHENOTYPE, [("Systemic sclerosis", 1.0), ("AAP", 1.0)], [("p", 1)]
    )
    assert decide_type(step1, [own, walked]).label == PHENOTYPE
    assert decide_type(step1, [own, replace(walked, links=(("AAP", 1.0),))]).label == "disease"  # as well joined


def test_of_equally_supported_plans_the_one_that_takes_the_walked_step_answers() -> None:
    """ "more specific terms for hypotonai", read as diseases at 0.89: the phenotypes' plan takes the step the
    question says and is as well supported as the diseases' (one sure entity, answers at l = 1); it answers. A tie
    of plans that ground nothing changes nothing."""
    sure = replace(IN_DOUBT, label="disease", method="reader", prior={"disease": 0.89, PHENOTYPE: 0.08})
    step1 = replace(sure, rivals=rivals_of(sure, TYPES, walked=PHENOTYPE), walked=PHENOTYPE)
    own = PlanEvidence.of("linked", "disease", [("Hypotonia", 0.99)], [("d1", 1), ("d2", 1)])
    walked = PlanEvidence.of(f"linked ({PHENOTYPE})", PHENOTYPE, [("Hypotonia", 0.99)], [("p1", 1)])
    genes = PlanEvidence.of("linked (gene/protein)", "gene/protein", [("Hypotonia", 0.99)], [("g1", 1)])
    decision = decide_type(step1, [own, walked, genes])
    assert decision.label == PHENOTYPE and decision.changed
    assert decide_type(replace(step1, walked=None), [own, walked, genes]).label == "disease"  # no step said: it stands
    nothing = [replace(e, first=None, at_first=frozenset()) for e in (own, walked, genes)]
    assert decide_type(step1, nothing).label == "disease"
