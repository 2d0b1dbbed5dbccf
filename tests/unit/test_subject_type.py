"""Step 1 without an LLM, where the question names no type word: the phrase it asks for ("what *bits of DNA* ...")
is read by meaning (embedding) against each type's words."""

from __future__ import annotations

import numpy as np
import pytest

from kgqa.runtime.embed import Embedder
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s1_target_type import fallback_type, subject_phrases, type_by_subject
from tests.helpers.meaning_table import TYPES, MeaningTable


def embedder(meanings: dict[str, tuple[str, float]]) -> Embedder:
    return MeaningTable(meanings)  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("question", "phrases"),
    [
        (
            "In plain words, what bits of DNA can play a part in X?",
            ["bits", "bits of", "bits of dna", "bits of dna can"],
        ),
        ("Is there a list of health problems linked to X?", ["health", "health problems", "health problems linked"]),
        ("Please tell me all the bits of DNA", ["bits", "bits of", "bits of dna"]),
        ("hpo terms def X", ["hpo", "hpo terms", "hpo terms def", "hpo terms def x"]),
    ],
)
def test_the_subject_phrase_follows_the_asking_word(question: str, phrases: list[str]) -> None:
    assert subject_phrases(read_question(question))[: len(phrases)] == phrases


def test_the_shortest_subject_phrase_that_means_one_type_names_it() -> None:
    meanings = {"bits of dna": ("gene/protein", 0.6), "bits of dna can": ("disease", 0.9)}
    found = type_by_subject(read_question("What bits of DNA can cause Seizure?"), TYPES, embedder(meanings))
    assert found is not None and found[0] == "gene/protein" and found[2] == "bits of dna"
    # too weak, or too close to two types: no reading (step 1 falls back to the whole question)
    assert (
        type_by_subject(
            read_question("What bits of DNA cause it?"), TYPES, embedder({"bits of dna": ("gene/protein", 0.3)})
        )
        is None
    )


def test_fallback_names_the_subject_before_the_whole_question() -> None:
    meanings = {"bits of dna": ("gene/protein", 0.7)}
    question = "In plain words, what bits of DNA can play a part in a disease?"
    vector = np.array([0.0, 1.0, 0.0, 0.0], dtype=np.float32)  # the whole question reads as a disease one
    chosen = fallback_type(read_question(question), TYPES, embedder(meanings), vector, "no LLM")
    assert (chosen.label, chosen.method) == ("gene/protein", "subject")
    assert "'bits of dna'" in chosen.detail
    plain = fallback_type(read_question("In plain words, what can play a part?"), TYPES, embedder({}), vector, "no LLM")
    assert (plain.label, plain.method) == ("disease", "embedding")
