"""Typo-tolerant linking: a misspelt name ("marfans syndrom", "hypotonai") reaches its node.

The embedder reads a misspelt word as other word pieces, and the span falls under the link threshold. So the reader
keeps the SKB's own vocabulary (every word of its names and aliases, with how many hold it) and the words the
embedder's tokenizer knows whole; a question word that neither knows is replaced by the most common SKB word within
two edits (symmetric deletes, one on each side: a deletion, insertion, substitution or swap of neighbours), and the
span is looked up both ways. Nothing here knows a language: the vocabulary is the SKB's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

MIN_LETTERS = 4
"""Shorter words are not corrected: within two edits of a three-letter word lies half the vocabulary."""
TOKEN = re.compile(r"[^\W\d_]+")
"""The words a correction may replace: runs of letters (digits and symbols are ids, never typos)."""


def vocabulary(texts: Iterable[str]) -> Counter[str]:
    """How many of ``texts`` (names and aliases) hold each lower-case word."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(TOKEN.findall(text.lower())))
    return counts


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein with swaps of neighbours)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, previous2[j - 2] + 1)
            row.append(cost)
        previous2, previous = previous, row
    return previous[-1]


@dataclass
class Spelling:
    """The SKB's words (``counts``) and the other words known whole (``known``: the tokenizer's), and the index of
    their one-letter deletions, built once."""

    counts: Mapping[str, int]
    known: frozenset[str] = frozenset()
    _index: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for word in self.counts:
            if len(word) >= MIN_LETTERS:
                for key in {word, *_deletes(word)}:
                    self._index.setdefault(key, []).append(word)

    def unknown(self, word: str) -> bool:
        lowered = word.lower()
        return len(lowered) >= MIN_LETTERS and lowered not in self.counts and lowered not in self.known

    def correct(self, word: str) -> str | None:
        """The SKB word ``word`` most likely misspells: the nearest within two edits, the most common of those;
        None for a known word, or when none is near."""
        if not TOKEN.fullmatch(word) or not self.unknown(word):
            return None
        lowered = word.lower()
        near = {c for key in {lowered, *_deletes(lowered)} for c in self._index.get(key, ())}
        scored = [(edit_distance(lowered, c), -self.counts[c], c) for c in near]
        scored = [s for s in scored if s[0] <= 2]
        return min(scored)[2] if scored else None

    def variants(self, words: Sequence[str]) -> dict[int, str]:
        """Position -> correction of each misspelt word of a question (:func:`correct`)."""
        out = {}
        for i, word in enumerate(words):
            fixed = self.correct(word)
            if fixed is not None:
                out[i] = fixed
        return out
