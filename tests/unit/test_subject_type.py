"""Step 1 without an LLM, where the question names no type word: the phrase it asks for ("what *bits of DNA* ...")
is read by meaning (embedding) against each type's words."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from kgqa.embed import Embedder
from kgqa.target_type import fallback_type, singular_type_words, subject_phrases, type_by_subject

TYPES = ("disease", "effect/phenotype", "gene/protein")
AXES = {"gene/protein": 0, "disease": 1, "effect/phenotype": 2}


class MeaningTable:
    """An embedder whose vectors are set by hand: every word of a type points along that type's axis, each listed
    text along its type's axis scaled to the similarity wanted (the rest on an axis of its own); anything else is
    the zero vector, similar to nothing."""

    def __init__(self, meanings: dict[str, tuple[str, float]]) -> None:
        self.meanings = meanings
        self.forms = {form: label for label in TYPES for form in singular_type_words(label)}

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for row, text in enumerate(texts):
            if text in self.forms:
                out[row, AXES[self.forms[text]]] = 1.0
            elif text in self.meanings:
                label, similarity = self.meanings[text]
                out[row, AXES[label]] = similarity
                out[row, 3] = float(np.sqrt(max(0.0, 1 - similarity**2)))
        return out


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
    assert subject_phrases(question)[: len(phrases)] == phrases


def test_the_shortest_subject_phrase_that_means_one_type_names_it() -> None:
    meanings = {"bits of dna": ("gene/protein", 0.6), "bits of dna can": ("disease", 0.9)}
    found = type_by_subject("What bits of DNA can cause Seizure?", TYPES, embedder(meanings))
    assert found is not None and found[0] == "gene/protein" and found[2] == "bits of dna"
    # too weak, or too close to two types: no reading (step 1 falls back to the whole question)
    assert (
        type_by_subject("What bits of DNA cause it?", TYPES, embedder({"bits of dna": ("gene/protein", 0.3)})) is None
    )


def test_fallback_names_the_subject_before_the_whole_question() -> None:
    meanings = {"bits of dna": ("gene/protein", 0.7)}
    question = "In plain words, what bits of DNA can play a part in a disease?"
    vector = np.array([0.0, 1.0, 0.0, 0.0], dtype=np.float32)  # the whole question reads as a disease one
    chosen = fallback_type(question, TYPES, embedder(meanings), vector, "no LLM")
    assert (chosen.label, chosen.method) == ("gene/protein", "subject")
    assert "'bits of dna'" in chosen.detail
    plain = fallback_type("In plain words, what can play a part?", TYPES, embedder({}), vector, "no LLM")
    assert (plain.label, plain.method) == ("disease", "embedding")
