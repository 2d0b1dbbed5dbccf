"""Entities linked only in a lead-in are context (kgqa.runtime.steps.s2_fallback.lead_in): the linked plan's
relaxations drop them first."""

from __future__ import annotations

from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s2_fallback import QuestionLinks, lead_in
from kgqa.runtime.steps.s2_linking import Link
from kgqa.runtime.text import words_of
from tests.helpers.hpo_schema import PHENOTYPE, link

QUESTION = "The scan showed short long bones and the lab offers FGFR3 testing. Diseases associated with the gene FGFR3?"


def test_an_entity_linked_only_before_the_asking_sentence_is_context() -> None:
    reading = read_question(QUESTION)
    bones = link(QUESTION, "short long bones", PHENOTYPE)
    again = link(QUESTION, "FGFR3", "gene/protein")  # the lead-in's mention of the asked entity is no context
    last = len(words_of(QUESTION)) - 1
    gene = Link("FGFR3", last, last + 1, "gene/protein", "g", "FGFR3", 1.0)
    assert again.end <= reading.asking_start <= gene.start
    assert lead_in(reading, QuestionLinks((bones, again, gene), ())) == {
        "short long bones"
    }  # Link.search: the linked name


def test_without_an_entity_in_the_asking_sentence_nothing_is_context() -> None:
    question = "My son has seizures and low muscle tone. What could it be?"
    reading = read_question(question)
    links = (link(question, "seizures", PHENOTYPE), link(question, "low muscle tone", PHENOTYPE))
    assert lead_in(reading, QuestionLinks(links, ())) == frozenset()
    assert lead_in(reading, None) == frozenset()


def test_a_sentence_end_inside_parentheses_starts_no_question() -> None:
    question = "all phenotypes in Solar urticaria (syn. Skin writing)"
    reading = read_question(question)
    assert reading.asking_start > 0  # "syn." ends the reader's sentence
    links = (link(question, "Solar urticaria", "disease"), link(question, "Skin writing", PHENOTYPE))
    assert lead_in(reading, QuestionLinks(links, ())) == frozenset()
