"""Step 1 learned: which type answers a question, as a confidence.

A softmax regression over two views of the sentence that asks (:func:`asking_sentence`: the last one, so that a
lead-in full of findings does not make the question about findings): the embedder's vector of it, which generalises
to words never seen, and its hashed words and word pairs (:func:`hashed_words`), which keep the few words that say
the type ("subtypes of", "look like") from being drowned by a long name. Trained on the SKB's own generated
questions (``kgqa train-reader``), it reads what the question asks for where a type word is missing ("what could
she have?") or is a word no list holds ("disorders", "bits of DNA"); its probability says how sure it is, so one LLM
vote does not override a confident reader. Measured in docs/results.md (``natural_hpo``).
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgqa.runtime.text import PART

L2 = 1e-5
STEPS = 3000
RATE = 2.0
"""Full-batch gradient descent on the mean cross-entropy with an L2 penalty: both views are normalised, so one rate
serves every SKB. Chosen by the log-loss on generated HPO questions of three phrasing families left out (0.22, against
0.25 at 2,000 steps and 1e-4, 0.37 at 600 and 1e-3): the reader's probability is a confidence step 1 weighs."""
BUCKETS = 4096
"""Hash buckets of the words view: collisions among a few thousand training words cost little."""
SENTENCE_END = re.compile(r"(?<=[.?!:;])\s+")
SYMBOL_PREFIX = re.compile(r"\b[A-Z0-9][A-Z0-9-]*\.\.\.$")
"""A symbol typed as a prefix ("genes with symbols of the form *CDH...* link to"): its dots end no sentence where
the next word starts in lower case."""


def asking_sentence(question: str) -> str:
    """The question's last sentence of two or more words that ends in a question mark, else its last sentence of two
    or more words (the whole question when it is one sentence): a trailer ("... in MORM syndrome? Asking ahead of
    clinic.") says nothing of the type asked for."""
    parts = [part for part in sentences(question.strip()) if len(part.split()) >= 2]
    asking = [part for part in parts if part.rstrip().endswith("?")]
    return asking[-1] if asking else parts[-1] if parts else question


def sentences(text: str) -> list[str]:
    """``text`` cut at each :data:`SENTENCE_END` but after a symbol prefix (:data:`SYMBOL_PREFIX`)."""
    parts, start = [], 0
    for end in SENTENCE_END.finditer(text):
        if SYMBOL_PREFIX.search(text[start : end.start()]) and text[end.end() : end.end() + 1].islower():
            continue
        parts.append(text[start : end.start()])
        start = end.end()
    return [*parts, text[start:]]


def hashed_words(sentence: str) -> np.ndarray:
    """The sentence's lower-case words and pairs of neighbouring words, counted in :data:`BUCKETS` buckets by a
    stable hash (crc32), normalised."""
    out: np.ndarray = hashed_matrix([sentence]).toarray()[0]
    return out


def hashed_matrix(sentences: Sequence[str]) -> sparse.csr_matrix:
    """:func:`hashed_words` of every sentence, as rows of a sparse matrix (a few dozen buckets of 4,096 are set)."""
    rows, cols, values = [], [], []
    for row, sentence in enumerate(sentences):
        words = PART.findall(sentence.lower())
        counts: dict[int, float] = {}
        for feature in [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]:
            bucket = zlib.crc32(feature.encode("utf-8")) % BUCKETS
            counts[bucket] = counts.get(bucket, 0.0) + 1.0
        norm = float(np.sqrt(sum(v * v for v in counts.values())))
        for bucket, count in counts.items():
            rows.append(row)
            cols.append(bucket)
            values.append(count / norm)
    return sparse.csr_matrix((values, (rows, cols)), shape=(len(sentences), BUCKETS))


def features(sentences: Sequence[str], vectors: np.ndarray) -> np.ndarray:
    """Each asking sentence's two views side by side: its vector and :func:`hashed_words`."""
    words = hashed_matrix(sentences).toarray()
    return np.hstack([np.asarray(vectors, dtype=np.float64).reshape(len(sentences), -1), words])


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    out: np.ndarray = p / p.sum(axis=1, keepdims=True)
    return out


def _with_bias(x: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((len(x), 1))])


@dataclass(frozen=True)
class TypeHead:
    """The type probabilities of an asking sentence: ``weights`` is (features + 1) x len(``labels``)."""

    labels: tuple[str, ...]
    weights: np.ndarray

    @classmethod
    def fit(
        cls, sentences: Sequence[str], vectors: np.ndarray, targets: Sequence[str], labels: Sequence[str]
    ) -> TypeHead:
        """Trained on asking ``sentences`` (and their embedder ``vectors``) whose answer types are ``targets``."""
        index = {label: i for i, label in enumerate(labels)}
        truth = np.eye(len(labels))[[index[t] for t in targets]]
        # the columns of features() and a bias: the vectors (and the bias) dense, the hashed words sparse (a few
        # dozen of 4,096 set), so that a step reads a few megabytes, not a dense 100 MB
        dense = _with_bias(np.asarray(vectors, dtype=np.float64).reshape(len(sentences), -1))
        words = hashed_matrix(sentences)
        words_t = words.T.tocsr()
        split = dense.shape[1] - 1  # the bias is the last row of the weights, after the words' rows
        weights = np.zeros((dense.shape[1] + BUCKETS, len(labels)))
        for _ in range(STEPS):
            w_dense = np.vstack([weights[:split], weights[-1:]])
            error = (_softmax(dense @ w_dense + words @ weights[split:-1]) - truth) / len(sentences)
            from_dense = dense.T @ error
            gradient = np.vstack([from_dense[:split], words_t @ error, from_dense[-1:]]) + L2 * weights
            weights -= RATE * gradient
        return cls(tuple(labels), weights)

    def probabilities(self, sentence: str, vector: np.ndarray, among: Sequence[str]) -> dict[str, float]:
        """Each of ``among`` (the question's candidate types) with its probability for the asking ``sentence``
        (embedded as ``vector``), renormalised over them; a type the head was not trained on gets none."""
        p = _softmax(_with_bias(features([sentence], vector)) @ self.weights)[0]
        known = {label: float(p[i]) for i, label in enumerate(self.labels) if label in among}
        total = sum(known.values())
        return {label: value / total for label, value in known.items()} if total > 0 else {}
