"""An LLM only ever adds (issue 29): its type is one vote, its plan is grounded beside the linked entities' plan. Three
bad LLMs, scripted through the real openai client, on a small graph where a wrong plan can ground more targets than
k: in each, the answer the linked entities' plan finds stays in the top 3.

The graph: sumatriptan is the one drug indicated for migraine; eight anthelmintics are indicated for
strongyloidiasis and target CYP3A4; no drug targets HTR1B. ``l_max = 1`` keeps each plan to its first round (in so
small a graph the second candidate of any constant reaches everything)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kgqa.config import load_config
from kgqa.runtime.app import Kgqa
from kgqa.runtime.steps.s1_target_type import TargetType
from kgqa.types import Answer
from tests.helpers.environment import QUIET
from tests.helpers.scripted_llm import SCRIPTED_SETTINGS, ScriptedEndpoint
from tests.helpers.stark_fixture import Node, write_prime_fixture

WORMS = [f"anthelmintic {n}" for n in range(1, 9)]
NODES: list[Node] = [
    ("strongyloidiasis", 0, "MONDO", {"mondo_definition": "An intestinal infection by the roundworm Strongyloides."}),
    ("migraine", 0, "MONDO", {"mondo_definition": "A neurological disorder with recurrent headaches."}),
    ("sumatriptan", 1, "DrugBank", {"description": "A triptan that relieves migraine attacks."}),
    ("CYP3A4", 2, "NCBI", {"summary": "Enzyme that metabolises many drugs in the liver."}),
    ("HTR1B", 2, "NCBI", {"summary": "Serotonin receptor."}),
    *((name, 1, "DrugBank", {"description": "A drug against parasitic worms."}) for name in WORMS),
]
EDGES = [(2, 1, 0), *((5 + n, 0, 0) for n in range(8)), *((5 + n, 3, 1) for n in range(8))]
"""(head, tail, type): sumatriptan -indication-> migraine; each anthelmintic -indication-> strongyloidiasis and
-target-> CYP3A4."""
QUESTION = "Which drugs are indicated for migraine?"
SUMATRIPTAN = "2"
K = 5


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str) -> Path:
    home = tmp_path_factory.mktemp("evidence") / "home"
    source = write_prime_fixture(tmp_path_factory.mktemp("evidence-skb") / "processed", NODES, EDGES)
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        kg.load("prime", source)
    return home


@pytest.fixture
def ask(home: Path, tiny_embedder: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def run(replies: list[str], **settings: Any) -> Answer:
        endpoint = ScriptedEndpoint(list(replies))
        monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
        overrides = {
            "home": home,
            "embedder": tiny_embedder,
            **SCRIPTED_SETTINGS,
            "top_k": K,
            "l_max": 1,
            "link_threshold": 0.9999,  # the tiny model's vectors carry no meaning: only an exact name links
            "steps": "hybrid",
            **settings,
        }
        with Kgqa(load_config(overrides, env=QUIET, cwd=home.parent)) as kg:
            return kg.ask(QUESTION, "prime")

    yield run


def top(answer: Answer, n: int = 3) -> list[str]:
    return [c.id for c in answer.answers[:n]]


def test_without_an_llm_the_linked_plan_finds_sumatriptan(ask: Any) -> None:
    answer = ask([], llm="none")
    assert top(answer, 1) == [SUMATRIPTAN] and answer.answers[0].plans == ("linked",)


def test_an_llm_that_names_the_wrong_type(ask: Any) -> None:
    """It says the answers are diseases and writes Cypher for diseases, its constant an exact name that the question
    does not name: the question names drugs, which outvotes it and which no LLM plan overrules (with a reader, it
    must read drugs too). Its plan is grounded all the same (issue 69: a plan that grounds is never dropped), and it
    is strong: its disease ranks in the same round as the linked plan's drug, behind it (half its weight: even odds
    without a reader)."""
    wrong = 'MATCH (y:disease)<-[:indication]-(d:drug {name: "anthelmintic 1"}) RETURN y'
    answer = ask(["disease", wrong])
    step1 = answer.trace.record(1).detail
    assert answer.trace.target_type == "drug" and "outvoting the LLM's disease" in step1
    assert "drug stands: the question names it; no LLM plan overrules both" in step1
    assert "the LLM's plan answers disease, step 1 reads drug" in answer.trace.record(3).detail
    llm, linked = answer.trace.plans
    assert (llm["source"], llm["grounded"], llm["off_type"], llm["weight"]) == ("llm", 1, "split", 0.5)
    assert (linked["source"], linked["off_type"]) == ("linked", "")
    assert top(answer, 2) == [SUMATRIPTAN, "0"]  # strongyloidiasis follows, behind the drug
    assert answer.answers[1].type == "disease" and all(c.type == "drug" for c in answer.answers[2:])


def test_an_llm_plan_of_another_type_that_is_not_strong_is_ranked_behind(ask: Any) -> None:
    """The wrong type again, through a constant the graph does not hold as written: not strong, so its diseases are
    grounded and ranked but not kept ahead of the drugs' fill, and the answers are those without an LLM."""
    weak = 'MATCH (y:disease)<-[:indication]-(d:drug {name: "anthelmintic"}) RETURN y'
    answer = ask(["disease", weak])
    llm = answer.trace.plans[0]
    assert (llm["source"], llm["off_type"]) == ("llm", "behind") and llm["grounded"] > 0
    assert [c.id for c in answer.answers] == [c.id for c in ask([], llm="none").answers]


def test_a_strong_llm_plan_settles_the_type_a_reader_guessed(ask: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where step 1's type is a guess (here a learned reader sure of diseases, scripted) and the LLM votes drugs with
    a plan of drugs whose constant is an exact name and grounds at l = 1, the plan's evidence settles the type: the
    answers are drugs, and the trace names the evidence."""
    guessed = TargetType("disease", "outvoted", "the learned reader reads it (0.94), outvoting the LLM's drug")
    guessed = replace(guessed, vote="drug")
    monkeypatch.setattr("kgqa.runtime.pipeline.predict_target_type", lambda *args, **kwargs: guessed)
    right = 'MATCH (y:drug)-[:indication]->(d:disease {name: "migraine"}) RETURN y'
    answer = ask([right])  # step 1 is scripted above: the one reply is step 2's
    assert answer.trace.target_type == "drug" and answer.answers[0].id == SUMATRIPTAN
    assert "changed to drug: the LLM's vote and its plan agree" in answer.trace.record(1).detail
    assert (
        "('migraine' 1.00)" in answer.trace.record(1).detail and "1 answer(s) at l = 1" in answer.trace.record(1).detail
    )
    assert {c.type for c in answer.answers} == {"drug"} or answer.answers[0].type == "drug"


def test_an_answer_label_step_3_gave_is_no_evidence(ask: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A guess in no doubt (scripted: the question named it, so no other type's linked plan settles the type in its
    place: kgqa.runtime.steps.s1_type_evidence.rivals_of), and an LLM that writes its answer with a label the schema
    lacks (``y:medicine``): step 3 gives it the type the LLM was asked for, which says nothing of the LLM's reading,
    so the guess stands."""
    why = "the question names it ('diseases'), outvoting the LLM's drug"
    guessed = TargetType("disease", "outvoted", why, vote="drug", read="named")
    monkeypatch.setattr("kgqa.runtime.pipeline.predict_target_type", lambda *args, **kwargs: guessed)
    invented = 'MATCH (y:medicine)-[:indication]->(d:disease {name: "migraine"}) RETURN y'
    answer = ask([invented])
    assert "answer label '(y:medicine)' -> 'drug'" in answer.trace.record(3).detail
    assert answer.trace.target_type == "disease"
    assert "has a plan whose answer label is the type it was asked for" in answer.trace.record(1).detail


def test_a_weak_llm_plan_leaves_the_guessed_type(ask: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same guess in no doubt, and an LLM whose plan grounds nothing (no drug targets HTR1B): step 1's type
    stands, and the trace says why the plan was no evidence."""
    guessed = TargetType("disease", "outvoted", "the question names it ('diseases'), outvoting the LLM's drug")
    guessed = replace(guessed, vote="drug", read="named")
    monkeypatch.setattr("kgqa.runtime.pipeline.predict_target_type", lambda *args, **kwargs: guessed)
    nothing = 'MATCH (y:drug)-[:target]->(g:`gene/protein` {name: "HTR1B"}) RETURN y'
    answer = ask([nothing])
    assert answer.trace.target_type == "disease"
    assert "disease stands: the LLM's drug has a plan that grounds nothing" in answer.trace.record(1).detail


def test_an_llm_plan_that_grounds_nothing(ask: Any) -> None:
    nothing = 'MATCH (y:drug)-[:target]->(g:`gene/protein` {name: "HTR1B"}) RETURN y'
    answer = ask(["drug", nothing])
    assert [(p["source"], p["grounded"]) for p in answer.trace.plans] == [("llm", 0), ("linked", 1)]
    assert top(answer, 1) == [SUMATRIPTAN]
    alone = ask([], llm="none")
    assert [c.id for c in answer.answers] == [c.id for c in alone.answers]  # it cost nothing


def test_an_llm_plan_that_grounds_k_wrong_targets(ask: Any) -> None:
    """The wrong disease's eight drugs at l = 1, more than k: before, the linked plan was never grounded then."""
    wrong = 'MATCH (y:drug)-[:indication]->(d:disease {name: "strongyloidiasis"}) RETURN y'
    answer = ask(["drug", wrong])
    assert [(p["source"], p["grounded"]) for p in answer.trace.plans] == [("llm", 8), ("linked", 1)]
    assert SUMATRIPTAN in top(answer)
    sumatriptan = next(c for c in answer.answers if c.id == SUMATRIPTAN)
    assert sumatriptan.plans == ("linked",) and "turn 0" in sumatriptan.why
    scores = [c.fused for c in answer.answers]
    assert None not in scores and scores == sorted(scores, reverse=True)  # type: ignore[type-var]


def test_an_llm_plan_that_names_no_constant_is_not_grounded(ask: Any) -> None:
    """It matches every drug with an indication: beside the linked plan that says nothing about this question."""
    anything = "MATCH (y:drug)-[:indication]->(d:disease) RETURN y"
    answer = ask(["drug", anything])
    assert "names no constant" in answer.trace.record(3).detail
    assert [p["source"] for p in answer.trace.plans] == ["linked"]
    assert [c.id for c in answer.answers] == [c.id for c in ask([], llm="none").answers]


def test_an_llm_plan_whose_constants_name_no_node_is_not_grounded(ask: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its targets would go before the vector strand's through nodes the question does not name (a junk LLM's three
    words of the question): step 4 says so, and the answers are the linked plan's, as without an LLM. (The tiny
    model's similarities carry no meaning, so the test says which plan names no node.)"""
    monkeypatch.setattr("kgqa.runtime.pipeline.names_no_node", lambda found: "d" in found)
    textual = 'MATCH (y:drug)-[:indication]->(d:disease {name: "headache relief"}) RETURN y'
    answer = ask(["drug", textual])
    assert "llm: no constant names a node" in answer.trace.record(4).detail
    assert [p["source"] for p in answer.trace.plans] == ["linked"]
    assert [c.id for c in answer.answers] == [c.id for c in ask([], llm="none").answers]


def test_an_llm_plan_through_a_constant_the_graph_does_not_hold(ask: Any) -> None:
    """The textual condition turned into a disease: its best candidate is no match of 'headache relief', so the
    plan's targets count one round later and the linked plan's answer leads."""
    textual = 'MATCH (y:drug)-[:indication]->(d:disease {name: "headache relief"}) RETURN y'
    answer = ask(["drug", textual])
    llm = answer.trace.plans[0]
    assert llm["source"] == "llm" and llm["weak"] and llm["weak"][0].startswith("d (")
    assert "rounds counted one later" in answer.trace.record(5).detail
    assert top(answer, 1) == [SUMATRIPTAN]


def test_without_an_llm_a_type_in_doubt_is_settled_by_the_grounded_plans(
    ask: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without an LLM, where step 1 only guessed (here the subject phrase read as genes, scripted), each other type
    gets the linked entities' plan too: the drugs' joins 'migraine' (an exact name) and grounds sumatriptan at l = 1,
    the genes' grounds nothing, so the answers are drugs, and the trace says why."""
    guessed = TargetType("gene/protein", "subject", "no LLM; the question asks for 'ones' (0.420)")
    monkeypatch.setattr("kgqa.runtime.pipeline.predict_target_type", lambda *args, **kwargs: guessed)
    answer = ask([], llm="none")
    assert answer.trace.target_type == "drug" and answer.answers[0].id == SUMATRIPTAN
    detail = answer.trace.record(1).detail
    assert "changed to drug: linked (drug) joins 1 surely linked entit(ies) and grounds 1 answer(s) at l = 1" in detail
    assert "step 1's gene/protein was in doubt" in detail
    named = TargetType("gene/protein", "named", "no LLM; the question names it ('genes')")
    monkeypatch.setattr("kgqa.runtime.pipeline.predict_target_type", lambda *args, **kwargs: named)
    assert ask([], llm="none").trace.target_type == "gene/protein"  # a type the question names is in no doubt


def test_a_weak_llm_vote_leaves_a_type_in_doubt_to_the_grounded_plans(
    ask: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An LLM votes genes, step 1's own reading says nothing (scripted), and its plan grounds nothing: its vote is
    no evidence, so the linked entities' plans settle the type as they do without an LLM."""
    guessed = TargetType("gene/protein", "llm", "", vote="gene/protein")
    monkeypatch.setattr("kgqa.runtime.pipeline.predict_target_type", lambda *args, **kwargs: guessed)
    nothing = 'MATCH (y:`gene/protein`)<-[:target]-(d:drug {name: "sumatriptan"}) RETURN y'
    answer = ask([nothing])
    assert answer.trace.target_type == "drug" and answer.answers[0].id == SUMATRIPTAN
    assert "changed to drug: linked (drug) joins 1 surely linked entit(ies)" in answer.trace.record(1).detail


@pytest.mark.parametrize(
    ("cypher", "weight"),
    [
        ('MATCH (y:drug)-[:indication]->(d:disease {name: "migraine"}) RETURN y', 1.0),
        # step 3 drops the negation the LLM wrote: what is left asks less than the LLM did, a relaxation of it
        (
            'MATCH (y:drug)-[:indication]->(d:disease {name: "migraine"}) '
            'WHERE NOT (y)-[:target]->(:gene {name: "HTR1B"}) RETURN y',
            0.5,
        ),
    ],
)
def test_an_llm_plan_that_lost_a_part_in_step_3_weighs_as_a_relaxation(ask: Any, cypher: str, weight: float) -> None:
    answer = ask(["drug", cypher])
    llm = answer.trace.plans[0]
    assert (llm["source"], llm["weight"]) == ("llm", weight)
    assert ("weighed as a relaxation (0.5)" in answer.trace.record(3).detail) == (weight < 1)
    assert answer.answers[0].id == SUMATRIPTAN
