"""Step 1 settled by the grounded plans (issue 69): a strong LLM plan that agrees with its vote outweighs a reader's
guess, never the question's own words, and a junk plan outweighs nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgqa.runtime.steps.s1_target_type import TargetType
from kgqa.runtime.steps.s1_type_evidence import PlanEvidence, decide_type, off_type_weight

PHENOTYPE = "effect/phenotype"
READER = replace(
    TargetType(PHENOTYPE, "outvoted", "the learned reader reads it (0.94), outvoting the LLM's disease"),
    vote="disease",
    read_as="reader",
    prior={PHENOTYPE: 0.94, "disease": 0.05, "gene/protein": 0.01},
)
ORACLE = PlanEvidence.of("llm", "disease", [("KCNJ11", 1.0), ("Seizure", 1.0)], [1, 1, 1, 2])


def test_a_strong_plan_that_agrees_with_its_vote_outweighs_the_reader() -> None:
    decision = decide_type(READER, [ORACLE, PlanEvidence.of("linked", PHENOTYPE, [("KCNJ11", 1.0)], [1])])
    assert decision.label == "disease" and decision.changed
    assert "'KCNJ11' 1.00, 'Seizure' 1.00" in decision.detail and "3 answer(s) at l = 1" in decision.detail
    assert "step 1's effect/phenotype (the learned reader reads it (0.94)" in decision.detail


@pytest.mark.parametrize(
    ("evidence", "why"),
    [
        ([], "has no plan grounded beside it"),
        ([replace(ORACLE, answers=PHENOTYPE)], "is not what its own plan answers (effect/phenotype)"),
        ([replace(ORACLE, links=())], "names no constant"),
        ([replace(ORACLE, links=(("KCNJ11", 1.0), ("a list of", 0.47)))], "('a list of' 0.47 < 0.99)"),
        ([replace(ORACLE, first=None)], "grounds nothing"),
        ([replace(ORACLE, first=(2, 5))], "grounds nothing before l = 2"),
    ],
)
def test_a_plan_that_is_not_strong_leaves_step_1s_type(evidence: list[PlanEvidence], why: str) -> None:
    """A junk plan (three words of the question as a constant) links nothing exactly and grounds nothing at l = 1."""
    decision = decide_type(READER, evidence)
    assert decision.label == PHENOTYPE and not decision.changed
    assert decision.detail.startswith("effect/phenotype stands: the LLM's disease ") and why in decision.detail


def test_the_question_s_own_words_are_never_overruled() -> None:
    named = replace(READER, read_as="named", detail="the question names it ('phenotypes'), outvoting the LLM's disease")
    decision = decide_type(named, [ORACLE])
    assert decision.label == PHENOTYPE and "the question names it" in decision.detail


@pytest.mark.parametrize("vote", [None, PHENOTYPE])
def test_no_doubt_no_decision(vote: str | None) -> None:
    """Without an LLM vote, or where it is step 1's type, there is nothing to settle and nothing to say."""
    decision = decide_type(replace(READER, vote=vote), [ORACLE])
    assert decision.label == PHENOTYPE and decision.detail == ""


def test_a_plan_of_another_type_weighs_by_its_type_s_prior() -> None:
    prior = READER.prior
    assert off_type_weight(1.0, "disease", PHENOTYPE, prior) == pytest.approx(0.05 / 0.94)
    assert off_type_weight(1.0, PHENOTYPE, "disease", prior) == 1.0  # at most its own weight
    assert off_type_weight(0.5, "disease", PHENOTYPE, None) == 0.5  # no reader: its own
    assert off_type_weight(1.0, None, PHENOTYPE, prior) == 1.0  # an unlabelled answer: its own


def test_evidence_counts_the_first_round_that_grounded() -> None:
    evidence = PlanEvidence.of("llm", "disease", [("Seizure", 1.0)], [3, 2, 2, 5])
    assert evidence.first == (2, 2) and not evidence.strong
    assert PlanEvidence.of("llm", "disease", [("Seizure", 0.995)], [1]).strong  # at EXACT_LINK or above
    assert PlanEvidence.of("llm", "disease", [("Seizure", 1.0)], []).first is None
