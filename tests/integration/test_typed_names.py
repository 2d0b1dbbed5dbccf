"""What people type that no embedding links (issue 70): a node's id ("OMIM:154700", "HP_0001250") and a symbol glued
to a word ("KCNJ11-linked"), each found by exact lookup on the real HPO graph, without an LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kgqa
from tests.helpers.environment import QUIET
from tests.helpers.shared import copy_home


@pytest.fixture(scope="module")
def ask(tmp_path_factory: pytest.TempPathFactory, hpo_template: Path, tiny_embedder: str) -> Iterator[Any]:
    home = copy_home(hpo_template, tmp_path_factory.mktemp("typed") / "home")
    # the tiny model's vectors carry no meaning: only an exact name links by the name index
    settings = {"home": home, "embedder": tiny_embedder, "llm": "none", "link_threshold": 0.9999}
    with kgqa.Kgqa(kgqa.load_config(settings, env=QUIET, cwd=home.parent)) as kg:
        yield lambda question: kg.ask(question, "hpo", steps="hybrid")


def test_an_id_links_its_node(ask: Any) -> None:
    answer = ask("Which gene goes with OMIM:154700?")
    assert "'OMIM:154700' -> disease 'Marfan syndrome' (1.00)" in answer.trace.record(2).detail
    assert answer.answers[0].id == "NCBIGene:2200"  # FBN1


def test_ids_in_either_form_and_case_link_and_hp_is_no_syndrome(ask: Any) -> None:
    """ "HP" alone is Hermansky-Pudlak syndrome's abbreviation; inside an id it is the ontology's prefix."""
    detail = ask("which diseases have hp_0001250 and HP:0000957?").trace.record(2).detail
    assert "'hp_0001250' -> effect/phenotype 'Seizure' (1.00)" in detail
    assert "'HP:0000957' -> effect/phenotype 'Cafe-au-lait spot' (1.00)" in detail
    assert "Hermansky" not in detail


@pytest.mark.parametrize(
    ("typed", "node"),
    [
        ("OMIM 154700", "disease 'Marfan syndrome'"),  # a space
        ("MIM #154700", "disease 'Marfan syndrome'"),  # OMIM's own notation: a prefix that ends the SKB's
        ("Orphanet:558", "disease 'Marfan syndrome'"),  # a prefix the SKB's begins
        ("HP0001250", "effect/phenotype 'Seizure'"),  # nothing between
        ("HP 1250", "effect/phenotype 'Seizure'"),  # the number without HPO's leading zeros
    ],
)
def test_an_id_typed_another_way_links_its_node_as_the_skb_writes_it(ask: Any, typed: str, node: str) -> None:
    detail = ask(f"Which genes go with {typed}?").trace.record(2).detail
    assert f"'{typed}' -> {node} (1.00)" in detail


def test_an_id_no_node_has_links_nothing(ask: Any) -> None:
    assert "HP:9999999" not in ask("Which diseases have HP:9999999?").trace.record(2).detail


def test_a_symbol_glued_to_a_word_links_its_node(ask: Any) -> None:
    detail = ask("Which KCNJ11-linked diseases show Hyperglycemia?").trace.record(2).detail
    assert "'KCNJ11-linked' -> gene/protein 'KCNJ11' (1.00)" in detail


def test_a_name_that_holds_a_glued_symbol_links_whole(ask: Any) -> None:
    detail = ask("SIM1-related Prader-Willi-like syndrome: which findings?").trace.record(2).detail
    assert "-> disease 'SIM1-related Prader-Willi-like syndrome' (1.00)" in detail
    assert "gene/protein 'SIM1'" not in detail
