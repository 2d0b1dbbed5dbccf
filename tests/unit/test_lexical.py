"""The words of a question that step 6 searches in the full-text index (kgqa.lexical)."""

from __future__ import annotations

import pytest

from kgqa.lexical import MAX_TERMS, residual_terms
from kgqa.store.base import TEXT_TERM

LABELS = ("disease", "effect/phenotype", "gene/protein")


@pytest.mark.parametrize(
    ("question", "covered", "terms"),
    [
        (
            'Which diseases present with Seizure and are described with the word "mastocytosis"?',
            ["Seizure"],
            ["present", "mastocytosis"],
        ),
        (
            "disorders linked to the protein BAAT that have 'conjugation' in their description",
            ["BAAT"],
            ["conjugation"],
        ),
        ("Which phenotypes lack seizures and mention epilepsy?", ["Seizure"], ["epilepsy"]),
        ("genes of a gene/protein", [], []),
        ("Find diseases with an enlarged liver involving glycogen", ["Enlarged liver"], ["glycogen"]),
        ("x'); DROP | @title:{abc} -bcd* ~cde", [], ["drop", "title", "abc", "bcd", "cde"]),
        ("Which symptoms and clinical features mention Sjögren café?", [], ["sjögren", "café"]),
        (
            "phenotypes directly related in the hierarchy to a symptom seen in Li-Fraumeni syndrome; mention resemble",
            ["Li-Fraumeni syndrome"],
            ["resemble"],
        ),
    ],
)
def test_residual_terms(question: str, covered: list[str], terms: list[str]) -> None:
    got = residual_terms(question, covered, LABELS)
    assert got == terms
    assert all(TEXT_TERM.fullmatch(t) for t in got)  # nothing an index's query syntax could read


def test_words_of_relationship_types_are_the_patterns_not_the_texts() -> None:
    question = "Which diseases have phenotype present relations with Seizure and mention glycogen?"
    assert residual_terms(question, ["Seizure"], LABELS, ["phenotype present", "parent-child"]) == ["glycogen"]


def test_terms_are_capped_and_not_repeated() -> None:
    question = " ".join(f"word{i} word{i}" for i in range(40))
    got = residual_terms(question, [], LABELS)
    assert got == [f"word{i}" for i in range(MAX_TERMS)]
