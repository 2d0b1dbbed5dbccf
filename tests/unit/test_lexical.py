"""The words of a question that step 6 searches in the full-text index (kgqa.runtime.steps.s6_lexical)."""

from __future__ import annotations

import pytest

from kgqa.runtime.scoring import lexical_scores
from kgqa.runtime.steps.s6_lexical import MAX_TERMS, phrases, residual_terms
from kgqa.runtime.store.base import TEXT_TERM

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


def test_a_type_word_the_condition_states_is_searched() -> None:
    """ "characterised by the words 'protein'": the answers' text must say it, though it names a type too."""
    question = 'Which terms characterised by the words "protein" describe disorders caused by tlr3?'
    assert residual_terms(question, ["tlr3"], LABELS, condition=["protein"]) == ["protein", "caused"]
    assert "protein" not in residual_terms(question, ["tlr3"], LABELS)
    relation = "Which diseases have a 'phenotype present' link to erythroderma?"
    assert residual_terms(relation, [], LABELS, ["phenotype present"], condition=["phenotype present"]) == [
        "link",
        "erythroderma",
    ]


def test_terms_are_capped_and_not_repeated() -> None:
    question = " ".join(f"word{i} word{i}" for i in range(40))
    got = residual_terms(question, [], LABELS)
    assert got == [f"word{i}" for i in range(MAX_TERMS)]


def test_a_phrase_term_is_two_or_more_plain_words_in_double_quotes() -> None:
    assert TEXT_TERM.fullmatch('"related to infection"') and TEXT_TERM.fullmatch('"type 2 diabetes"')
    for bad in ['"related"', '"Related to"', '"a | b"', '"a" OR "b"', '"a  b"', '"a b', '"a b"~2', '"a:b c"']:
        assert not TEXT_TERM.fullmatch(bad), bad


def test_runs_of_stated_words_are_phrases() -> None:
    words = ["with", "dot-like", "calcifications", "in", "the", "heel", "and", "X"]
    assert phrases(words, {1, 2, 3, 4, 5, 7}) == ['"dot like calcifications in the heel"']
    assert phrases(words, {1, 7}) == ['"dot like"']  # a hyphened word is two words of the index
    assert phrases(words, {2, 7}) == []


class _Scores:
    """A full-text index set by hand: per query (its terms joined), each node's score."""

    def __init__(self, scores: dict[tuple[str, ...], dict[str, float]]) -> None:
        self.scores = scores
        self.reads = 0

    def text_scores(self, graph: str, label: str, terms: list[str], ids: list[str]) -> dict[str, float]:
        self.reads += 1
        return {i: s for i, s in self.scores.get(tuple(terms), {}).items() if i in ids}


def test_a_quoted_phrase_adds_its_own_scaled_score_to_the_words() -> None:
    # 'Sepsis' says "infection" ten times; 'EBV meningitis' says "related to infection" once
    store = _Scores({("infection",): {"sepsis": 10.0, "ebv": 4.0}, ('"related to infection"',): {"ebv": 3.0}})
    keys = [("effect/phenotype", "sepsis"), ("effect/phenotype", "ebv")]
    words_only = lexical_scores(store, "hpo", keys, ["infection"])  # type: ignore[arg-type]
    assert list(words_only) == [1.0, 0.4]
    both = lexical_scores(store, "hpo", keys, ['"related to infection"', "infection"])  # type: ignore[arg-type]
    assert list(both) == [1.0, 1.4]
    assert store.reads == 3  # one read for the words alone; then one for the words and one for the phrases
