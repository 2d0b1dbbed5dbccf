"""An embedder whose meanings are set by hand, for the unit tests of reading a type by meaning
(kgqa.runtime.steps.s1_target_type's asked-for phrase, kgqa.runtime.steps.s2_type_nouns' type nouns): each type of
HPO's three lies on an axis of its own."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgqa.runtime.text import singular_type_words

TYPES = ("disease", "effect/phenotype", "gene/protein")
AXES = {"gene/protein": 0, "disease": 1, "effect/phenotype": 2}


class MeaningTable:
    """Every word of a type points along that type's axis, each listed text along its type's axis scaled to the
    similarity wanted (the rest on an axis of its own); anything else is the zero vector, similar to nothing. The
    texts embedded are kept in ``asked``."""

    def __init__(self, meanings: dict[str, tuple[str, float]]) -> None:
        self.meanings = meanings
        self.forms = {form: label for label in TYPES for form in singular_type_words(label)}
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        self.asked += texts
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for row, text in enumerate(texts):
            if text in self.forms:
                out[row, AXES[self.forms[text]]] = 1.0
            elif text in self.meanings:
                label, similarity = self.meanings[text]
                out[row, AXES[label]] = similarity
                out[row, 3] = float(np.sqrt(max(0.0, 1 - similarity**2)))
        return out
