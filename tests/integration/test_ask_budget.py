"""``ask_budget`` on the real HPO graph in the embedded FalkorDB (issue 68): an LLM plan that walks every disease
sharing a phenotype with one of Seizure's 2,439 diseases (far past the budget: its one query returns the LIMIT's 10,000
rows) ends with its budget, the linked plan still grounded beside it, and the trace says which bound ended it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import kgqa
from tests.helpers.environment import QUIET
from tests.helpers.scripted_llm import ScriptedEndpoint
from tests.helpers.shared import copy_home

BROAD = (
    "```cypher\nMATCH (y:disease)-[:`phenotype present`]->(p:`effect/phenotype`)<-[:`phenotype present`]-(d:disease)"
    '-[:`phenotype present`]->(s {name: "Seizure"})\nRETURN y\n```'
)
QUESTION = "Which diseases share a phenotype with a disease that has seizures?"
BUDGET = 1.0


@pytest.fixture(scope="module")
def hpo_home(tmp_path_factory: pytest.TempPathFactory, hpo_template: Path) -> Path:
    return copy_home(hpo_template, tmp_path_factory.mktemp("budget") / "home")


@pytest.fixture(scope="module")
def asked(hpo_home: Path, tiny_embedder: str) -> Iterator[kgqa.Answer]:
    endpoint = ScriptedEndpoint(["disease", BROAD])
    settings = {"home": hpo_home, "embedder": tiny_embedder, "ask_budget": BUDGET, "llm_cache": False}
    config = kgqa.load_config(settings, env=QUIET, cwd=hpo_home.parent)
    with kgqa.Kgqa(config, llm=endpoint.chat()) as kg:
        yield kg.ask(QUESTION, "hpo", steps="hybrid")


def test_a_plan_that_would_take_longer_ends_with_the_budget(asked: kgqa.Answer) -> None:
    seconds = sum(record.seconds for record in asked.trace.steps if record.step in (4, 5, 6, 7))
    assert seconds <= BUDGET + 0.1, asked.trace.steps
    step5 = asked.trace.record(5)
    assert step5.status == "degraded"
    assert "llm: l=1 ran past the time limit (query ran past the " in step5.detail
    assert " s left of ask_budget" in step5.detail
    assert any(bound.startswith(f"ask_budget: steps 4-7 may take {BUDGET:g} s") for bound in asked.trace.bounds)


def test_the_linked_plan_keeps_its_share_and_the_answers_come(asked: kgqa.Answer) -> None:
    """The LLM's plan spends its own share of the budget: the linked plan of 'seizures' still grounds."""
    linked = next(plan for plan in asked.trace.plans if plan["source"] == "linked")
    assert linked["grounded"] > 0
    assert len(asked.answers) == 20
