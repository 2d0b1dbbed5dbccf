"""Step 1 learned: which type answers a question, as a confidence, from the question's own vector.

A softmax regression over the embedder's vector of the sentence that asks (:func:`asking_sentence`: the last one,
so that a lead-in full of findings does not make the question about findings), trained on the SKB's own generated
questions (``kgqa train-reader``). It reads what the question asks for where a type word is missing ("what could
she have?") or is a word no list holds ("disorders", "bits of DNA"); its probability says how sure it is, so one LLM
vote does not override a confident reader. On the natural dev half the last sentence read the type better than the
whole question (49 against 45 of 60 alone; docs/results.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

L2 = 1e-3
STEPS = 600
RATE = 2.0
"""Full-batch gradient descent on the mean cross-entropy with an L2 penalty: the question vectors are normalised,
so one rate serves every SKB."""


SENTENCE_END = re.compile(r"(?<=[.?!:;])\s+")


def asking_sentence(question: str) -> str:
    """The question's last sentence of two or more words (the whole question when it is one sentence)."""
    parts = [part for part in SENTENCE_END.split(question.strip()) if len(part.split()) >= 2]
    return parts[-1] if parts else question


def _probabilities(weights: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    z = np.hstack([vectors, np.ones((len(vectors), 1), dtype=vectors.dtype)]) @ weights
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    out: np.ndarray = p / p.sum(axis=1, keepdims=True)
    return out


@dataclass(frozen=True)
class TypeHead:
    """The type probabilities of a question vector: ``weights`` is (dimension + 1) x len(``labels``)."""

    labels: tuple[str, ...]
    weights: np.ndarray

    @classmethod
    def fit(cls, vectors: np.ndarray, targets: Sequence[str], labels: Sequence[str]) -> TypeHead:
        """Trained on question ``vectors`` whose answer types are ``targets`` (each one of ``labels``)."""
        index = {label: i for i, label in enumerate(labels)}
        truth = np.eye(len(labels))[[index[t] for t in targets]]
        x = np.hstack([vectors, np.ones((len(vectors), 1), dtype=vectors.dtype)]).astype(np.float64)
        weights = np.zeros((x.shape[1], len(labels)))
        for _ in range(STEPS):
            gradient = x.T @ (_probabilities(weights, x[:, :-1]) - truth) / len(x) + L2 * weights
            weights -= RATE * gradient
        return cls(tuple(labels), weights)

    def probabilities(self, vector: np.ndarray, among: Sequence[str]) -> dict[str, float]:
        """Each of ``among`` (the question's candidate types) with its probability, renormalised over them; a
        type the head was not trained on gets none."""
        p = _probabilities(self.weights, np.asarray(vector, dtype=np.float64).reshape(1, -1))[0]
        known = {label: float(p[i]) for i, label in enumerate(self.labels) if label in among}
        total = sum(known.values())
        return {label: value / total for label, value in known.items()} if total > 0 else {}
