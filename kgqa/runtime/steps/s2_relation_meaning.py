"""Relationship types by meaning, without an LLM: which of the types between two labels a question means.

A hop of the no-LLM plan (kgqa.runtime.steps.s2_schema_plan) between two labels may have several relationship types
(HPO's disease and phenotype: 'phenotype present' and 'phenotype absent'); using all of them answers "Which diseases
lack seizures?" with every disease that has seizures. A hop's types are narrowed, first rule that applies:

1. the types the question names verbatim ("'phenotype absent'");
2. kinds of wording (:data:`KINDS`, a small table): a question word of a kind keeps the types whose own name has a
   word of that kind ("lacks" keeps 'phenotype absent'); without a negation word, negated types are dropped when
   others remain (people name an absence: "with seizures" means 'phenotype present');
3. meaning: each type's name is embedded (MAG's ``author___writes___paper`` as words); the types whose name is at
   least ``threshold`` similar to a question word are kept, when that keeps some but not all.

Every narrowing is recorded as which word chose which types, for the trace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from kgqa.runtime.embed import Embedder
from kgqa.runtime.reading import Reading
from kgqa.runtime.steps.s2_spans import CONJUNCTIONS
from kgqa.runtime.text import AMBIGUOUS, BROADER, HIERARCHY, KINDS, NARROWER, NEGATION, STEP_WORDS, STOP_WORDS


@dataclass(frozen=True)
class RelationChoice:
    """One narrowed hop: the types it kept of those the schema has, and the word (or rule) that chose them."""

    source: str
    target: str
    kept: tuple[str, ...]
    offered: tuple[str, ...]
    reason: str

    def describe(self) -> str:
        return f"{self.source}-{self.target}: {self.reason} -> {', '.join(self.kept)}"


Toward = Literal["narrower", "broader"]


def hierarchy_words(tokens: Sequence[str], positions: Sequence[int]) -> dict[Toward, str]:
    """The directions the words at ``positions`` of ``tokens`` (lower case) name in a hierarchy, each with the first
    word that names it (or a form of it: :func:`said_as`); "less" turns the next word round ("less specific than":
    broader), and so does an "of" that ends the question ("what is macroorchidism *a kind of*?": the entity is the
    kind, the answer what it is a kind of)."""
    said: dict[Toward, str] = {}
    for i in positions:
        word = tokens[i]
        toward: Toward | None = "narrower" if said_as(word, NARROWER) else "broader" if said_as(word, BROADER) else None
        if toward is not None and i > 0 and tokens[i - 1] == "less":
            toward = "broader" if toward == "narrower" else "narrower"
            word = f"less {word}"
        elif toward is not None and tokens[i + 1 : i + 2] == ["of"] and set(tokens[i + 2 :]) <= STOP_WORDS:
            toward = "broader" if toward == "narrower" else "narrower"
            word = f"{word} of"
        if toward is not None:
            said.setdefault(toward, word)
    return said


JOINED_WORDS = 3
"""Words after a conjunction that ends a hop's words that :meth:`RelationMeaning.toward` reads too."""
FORM_LETTERS = 7
"""Leading letters two words share to be forms of one ("specialise" and "specialisation", "narrowest" and
"narrower"), beside one being the other's beginning ("child", "children")."""


def says_hierarchy(tokens: Sequence[str]) -> bool:
    """Whether any of ``tokens`` (lower case) is a form of a word that says a hierarchy (:data:`KINDS`): a question
    without one walks none, whatever plan the schema allows."""
    said = KINDS[HIERARCHY][0]
    return any(
        w.startswith(h) or h.startswith(w) or (len(w) >= FORM_LETTERS and w[:FORM_LETTERS] == h[:FORM_LETTERS])
        for w in tokens
        if len(w) > 2
        for h in said
    )


FORM_ENDING = 3
"""Letters a word of the question may have past a kind's word, or lack of it, and still be a form of it: "rule
out" is "ruled out", "negatively annotated" says "negative", "lacking" "lack"; "nevertheless" is no "never"."""
SHORTEST_FORM = 4
"""Shorter words are read only as they are ("no", "not": "note" and "nor" are none of them)."""


def said_as(word: str, kind_words: frozenset[str]) -> bool:
    """Whether ``word`` (lower case) is one of ``kind_words`` or a form of one (:data:`FORM_ENDING`)."""
    if word in kind_words:
        return True
    if len(word) < SHORTEST_FORM:
        return False
    return any(
        len(h) >= SHORTEST_FORM and abs(len(word) - len(h)) <= FORM_ENDING and word[: len(h)] == h[: len(word)]
        for h in kind_words
    )


def contracted(word: str) -> str:
    """A negative contraction read as the word it contracts ("aren't", "doesn't", "can't" -> "not"), so that a
    negation typed so is said; any other word as it is."""
    return "not" if word.endswith("n't") and len(word) > 3 else word


def type_kinds(rel_type: str) -> set[str]:
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", rel_type)} | {rel_type.lower()}
    return {kind for kind, (_, marks) in KINDS.items() if words & marks}


@dataclass
class RelationMeaning:
    """The relationship types a question means, hop by hop; built once per question (``reading``)."""

    reading: Reading
    embedder: Embedder | None = None
    threshold: float = 0.6
    choices: list[RelationChoice] = field(default_factory=list)
    ignore: frozenset[str] = frozenset()
    """Lower-case words not to read as relation words (stop words)."""
    by_kind: bool = True
    """Rules 2 and 3 (wording and meaning); off: only types named verbatim (``relation_meaning = false``)."""
    skip: frozenset[int] = frozenset()
    """Word positions not to read (the linked spans, a textual condition: "and mention 'absence'")."""

    def __post_init__(self) -> None:
        self._lowered = self.reading.text.lower()
        tokens = [contracted(w) for w in self.reading.lowered]
        self._positions = [i for i, w in enumerate(tokens) if i not in self.skip and w not in self.ignore]
        self._tokens = tokens
        self._words: list[str] = []
        """The words the hop being narrowed reads (:meth:`types`)."""
        self._trailing: list[str] = []
        """The words after the hop's entity, read for a kind of wording its own words did not say."""
        self._vectors: dict[str, np.ndarray] = {}

    def types(
        self,
        source: str,
        target: str,
        offered: Sequence[str],
        within: range | None = None,
        trailing: range | None = None,
    ) -> tuple[str, ...]:
        """The types of ``offered`` (between ``source`` and ``target``) the question means, read from the words at
        positions ``within`` (a hop's stretch of the question: "... an abnormality *noted as absent in* the
        disorder X"; None: all), then from those at ``trailing`` (the words after the entity, up to the next one or
        a conjunction: "diseases with X *marked as absent*", "phenotypes X does *not* present") for a kind of wording
        the stretch did not say; all types when those words say nothing that narrows them."""
        offered = tuple(sorted(offered))
        if len(offered) < 2:
            return offered
        self._words = self._read(within)
        self._trailing = self._read(trailing) if trailing is not None else []
        kept, reason = self._narrow(offered)
        if kept != offered:
            choice = RelationChoice(source, target, kept, offered, reason)
            if choice not in self.choices:
                self.choices.append(choice)
        return kept

    def _read(self, positions: range | None) -> list[str]:
        return [self._tokens[i] for i in self._positions if positions is None or i in positions]

    def _narrow(self, offered: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
        named = tuple(t for t in offered if re.search(rf"(?<!\w){re.escape(t.lower())}(?!\w)", self._lowered))
        if named:
            return named, "named"
        if not self.by_kind:
            return offered, ""
        for words in (self._words, self._trailing):
            for kind, (question_words, _) in KINDS.items():
                said = next((w for w in words if said_as(w, question_words)), None)
                of_kind = tuple(t for t in offered if kind in type_kinds(t))
                if said is not None and of_kind:
                    return of_kind, f"'{said}' ({kind})"
        reasons = []
        negated = {t for t in offered if NEGATION in type_kinds(t)}
        if negated and len(negated) < len(offered):
            offered = tuple(t for t in offered if t not in negated)
            reasons.append("no negation word")
        kept, why = self._by_embedding(offered)
        return kept, "; ".join([*reasons, why] if why else reasons)

    def toward(
        self, source: str, target: str, types: Sequence[str], within: range | None, trailing: range | None = None
    ) -> Toward | None:
        """Which way a hierarchy hop from ``source`` (the answers' side) to ``target`` nodes of the same label goes,
        as the words at ``within`` (else ``trailing``) say: ``narrower`` (the answers are more specific: "subtypes
        of X", "under X"), ``broader`` ("parents of X", "more general than X"), or None when they name neither or
        both ("one level above or below X")."""
        if not self.by_kind or not any(HIERARCHY in type_kinds(t) for t in types):
            return None
        for positions in (within, trailing):
            if positions is None:
                continue
            said = hierarchy_words(self._tokens, [i for i in self._positions if i in positions])
            if positions.stop < len(self._tokens) and self._tokens[positions.stop] in CONJUNCTIONS:
                # "one level broader *or* more specific than X": the words the conjunction joins say a way too
                joined = range(positions.stop + 1, min(len(self._tokens), positions.stop + 1 + JOINED_WORDS))
                said = hierarchy_words(self._tokens, [i for i in self._positions if i in joined]) | said
            if len(said) == 1:
                ((toward, word),) = said.items()
                choice = RelationChoice(source, target, tuple(types), tuple(types), f"'{word}' ({toward})")
                if choice not in self.choices:
                    self.choices.append(choice)
                return toward
            if said:
                return None
        return None

    def says(self, kind: str, within: range, trailing: range | None = None) -> bool:
        """Whether the words at ``within`` (or ``trailing``) say a relation of ``kind`` (:data:`KINDS`)."""
        if not self.by_kind:
            return False
        words = self._read(within) + (self._read(trailing) if trailing is not None else [])
        return any(w in KINDS[kind][0] for w in words)

    def step(self, within: range) -> bool:
        """Whether the words at ``within`` name one step of a hierarchy by a word that says nothing else: "subtypes",
        "more specific", but "children", "parents" and "below" only before "of" (or one word that is no stop word
        and "of": "the *parent term of* X") or right before the entity that ends ``within`` (patients' "children with
        X" are no hierarchy; "one step above or *below* X" is)."""
        if not self.by_kind:
            return False
        tokens = [*self._tokens, "", ""]
        for i in (i for i in self._positions if i in within):
            word, after = tokens[i], tokens[i + 1]
            named = after == "of" or (tokens[i + 2] == "of" and after.isalpha() and after not in STOP_WORDS)
            if word in STEP_WORDS or (word in AMBIGUOUS and (named or i + 1 == within.stop)):
                return True
        return False

    def _by_embedding(self, offered: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
        if self.embedder is None or not self._words:
            return offered, ""
        missing = [w for w in dict.fromkeys(self._words) if w not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embedder.embed(missing), strict=True))
        descriptions = self.embedder.embed([" ".join(t.replace("_", " ").split()) for t in offered])
        similarity = np.stack([self._vectors[w] for w in self._words]) @ descriptions.T  # words x types
        best = similarity.max(axis=0)
        kept = tuple(t for t, s in zip(offered, best, strict=True) if s >= self.threshold)
        if not kept or len(kept) == len(offered):
            return offered, ""
        words = {t: self._words[int(similarity[:, i].argmax())] for i, t in enumerate(offered) if t in kept}
        reason = ", ".join(f"'{w}' ~ {t} ({best[offered.index(t)]:.2f})" for t, w in words.items())
        return kept, reason
