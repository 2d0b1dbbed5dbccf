"""Where a question names a type in words the type lists lack ("a *characteristic* annotated to X", "the *phenotypic
abnormality* referred to as X"), read by meaning: such a word is no entity to link (kgqa.runtime.steps.s2_linking) and
may be the intermediate type of a hop (kgqa.runtime.steps.s2_schema_plan)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgqa.runtime import lexicon
from kgqa.runtime.embed import Embedder
from kgqa.runtime.reading import Reading
from kgqa.runtime.steps.s2_conditions import participle
from kgqa.runtime.text import (
    STOP_WORDS,
    Mention,
    meant_type,
    subject_start,
    type_forms,
    type_mentions,
)

TYPE_NOUN_SIMILARITY = 0.6
TYPE_NOUN_MARGIN = 0.1
"""A phrase names a type by meaning when it is this similar to one of the type's words, and this much more similar
than to any other type's (measured in docs/results.md: "characteristic" 0.63, "phenotypic abnormality" 0.68;
"seizure" 0.50 and "affected" 0.57 stay below)."""
ARTICLES = lexicon.words("articles")
DETERMINERS = ARTICLES | lexicon.words("determiners")


def type_nouns(reading: Reading, labels: Sequence[str], embedder: Embedder) -> list[Mention]:
    """Where the question names a type in words its lists lack (:func:`kgqa.runtime.text.type_words`):
    "a *characteristic* annotated to X", "the *phenotypic abnormality* referred to as X", "name all *characteristics*
    ...". The candidates are the lower-case word right after an article (an entity is named, an unnamed node of a type
    is introduced: "a finding absent in X") or where the question names what it asks for
    (:func:`kgqa.runtime.text.subject_start`): with the listed type word after it ("phenotypic
    abnormality"), else alone where no other content word but a participle follows ("a characteristic *connected* to",
    not "a *genetic* basis"). One that is :data:`TYPE_NOUN_SIMILARITY` similar to one type's words by embedding (a
    single word to its one-word forms: "clinical" is like "clinical feature" and means no type), and
    :data:`TYPE_NOUN_MARGIN` clear of the others, is a mention of that type; a pair only where its first word alone
    means the same type ("phenotypic abnormality", not "the marfan syndrome", a name in lower case)."""
    words, lowered = reading.words, reading.lowered
    listed = {i for m in type_mentions(lowered, labels) for i in m.words}
    starts = {i + 1 for i, word in enumerate(lowered) if word in DETERMINERS} | {subject_start(lowered)}

    def content(i: int) -> bool:
        return i < len(words) and words[i].isalpha() and words[i].islower() and lowered[i] not in STOP_WORDS

    candidates: list[tuple[int, int]] = []
    for at in sorted(i for i in starts if content(i) and i not in listed):
        if at + 1 in listed:  # "phenotypic abnormality": a modifier and a listed noun, one mention
            candidates.append((at, 2))
        elif not content(at + 1) or participle(lowered[at + 1]):  # a noun its clause follows
            candidates.append((at, 1))
    if not candidates or len(labels) < 2:
        return []
    forms = type_forms(labels)
    words_alone = sorted({lowered[at] for at, _ in candidates})
    phrases = [" ".join(lowered[at : at + size]) for at, size in candidates]
    vectors = embedder.embed([*words_alone, *phrases])
    scores = vectors @ embedder.embed([form for _, form in forms]).T

    def meant(row: np.ndarray, one_word: bool) -> str | None:  # a word means a type's noun, not a modifier of it
        found = meant_type(forms, row, TYPE_NOUN_SIMILARITY, TYPE_NOUN_MARGIN, one_word=one_word)
        return found[0] if found is not None else None

    alone = {word: meant(row, True) for word, row in zip(words_alone, scores, strict=False)}
    nouns = []
    for (at, size), phrase, row in zip(candidates, phrases, scores[len(words_alone) :], strict=True):
        label = alone[lowered[at]] if size == 1 else meant(row, False)
        if label is not None and (size == 1 or alone[lowered[at]] == label):  # "the *marfan* syndrome" is a name
            nouns.append(Mention(at, -size, label, phrase))
    return nouns


def with_nouns(mentions: Sequence[Mention], nouns: Sequence[Mention]) -> list[Mention]:
    """``mentions`` and type ``nouns`` together, sorted, without a mention inside a longer one ("abnormality" in
    the noun "phenotypic abnormality")."""
    within = {i for n in nouns for i in n.words}
    return sorted({*nouns, *(m for m in mentions if m.position not in within)})
