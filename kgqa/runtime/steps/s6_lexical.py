"""The lexical side of steps 6-7: which words of a question a full-text index should look for.

A question's textual condition ("... and mention 'glycinuria'") only entered through dense similarity, which MiniLM
blurs; the stores index every node's name and document in a full-text index (FalkorDB: RediSearch, which stems
English words; Neo4j: Lucene's standard analyzer, which does not), and the residual words of the question are
searched there. Residual: what remains after the plan's constants (the linked entities' names or aliases), the words
of labels, relationship types and answer types ("symptoms"), stop words and the words people use to introduce a
textual condition ("mention", "described", "word"). Terms are plain letters and digits, a prefix (``kcn*``) or a
quoted phrase of such words (``"related to infection"``), so no other index query syntax can come from a question;
each store joins them in its own syntax.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from kgqa.runtime import lexicon
from kgqa.runtime.reading import Reading
from kgqa.runtime.text import RELATIONAL, STOP_WORDS, plain_words, type_words

MAX_TERMS = 16
MIN_LENGTH = 3
FRAMING = lexicon.words("framing") | lexicon.words("relation_phrasing")
"""Words that introduce a condition or shape a question rather than say what the answer is about: framing words,
and the verbs and phrases people say a relation or a place in the hierarchy with ("directly related in the
hierarchy", "seen in", "characterised by"; the plan's pattern says those)."""


def residual_terms(
    question: str,
    covered: Iterable[str],
    labels: Sequence[str],
    relation_types: Sequence[str] = (),
    condition: Iterable[str] = (),
    prefixes: Iterable[str] = (),
) -> list[str]:
    """Lower-case words of ``question`` worth a full-text search, in order, without repeats: not in the ``covered``
    texts (linked spans, constants' search strings), not a word of a label or relationship type (the plan's
    pattern says those), not a stop, framing or relation word. The words of the question's textual ``condition``
    stay even where a constant or a type's name covers them: in "children of Seizure that mention seizure" the
    answers' documents must say "seizure" all the same, and in "terms characterised by the words 'protein'" the
    answers' must say "protein"; a word of a relationship type's name is the pattern's even there ("a 'phenotype
    present' link"). A word of ``prefixes`` ("symbol starts with KCN") is searched as a prefix,
    ``kcn*``, when it has three letters or more."""
    kept = {w for text in condition for w in plain_words(text)}
    starts = {w for text in prefixes for w in plain_words(text)}
    relational = _with_plurals({w for name in relation_types for w in plain_words(name.replace("_", " "))})
    skip = {w for text in covered for w in plain_words(text)}
    skip |= {w for name in labels for w in plain_words(name.replace("/", " ").replace("_", " "))}
    skip |= {w for label in labels for form in type_words(label) for w in plain_words(form)}
    skip = _with_plurals(skip) - kept | relational
    out: list[str] = []
    for word in plain_words(question):
        if len(word) < MIN_LENGTH or word in skip or word in STOP_WORDS or word in FRAMING or word in RELATIONAL:
            continue
        term = f"{word}*" if word in starts else word
        if term not in out:
            out.append(term)
    return out[:MAX_TERMS]


def _with_plurals(words: set[str]) -> set[str]:
    """``words`` and each with an "s" (what :func:`residual_terms` skips is skipped in the plural too)."""
    return words | {w + "s" for w in words}


def search_terms(
    reading: Reading,
    covered: Iterable[str],
    labels: Sequence[str],
    relation_types: Sequence[str],
    *,
    stated: Collection[int],
    prefixes: Collection[str],
) -> list[str]:
    """The full-text terms of the question (``reading``; :func:`residual_terms`): where the question says what the
    answers' text holds (``stated``: the word positions of a textual condition or a short quotation no constant
    covers; ``prefixes``: the beginnings of names; step 2 reads both, kgqa.runtime.steps.s2_conditions.read_conditions),
    those words alone, each run of two or more of them also as a quoted phrase (:func:`phrases`); the rest of such a
    question frames it ("Sorry if this is basic, but which ... whose description uses the word 'combined'") and its
    rare words would outweigh the condition's in the index's scores. Else every residual word."""
    words = reading.words
    condition = [words[i] for i in sorted(stated)]
    terms = residual_terms(reading.text, covered, labels, relation_types, condition, prefixes)
    said = set(residual_terms(" ".join([*condition, *prefixes]), (), labels, relation_types, condition, prefixes))
    kept = [t for t in terms if t in said] if said else terms
    return [*phrases(words, set(stated)), *kept][:MAX_TERMS]


MAX_PHRASE = 10


def phrases(words: Sequence[str], positions: set[int]) -> list[str]:
    """Each run of two or more words at consecutive ``positions`` of ``words`` as one quoted phrase term (``"related
    to infection"``, at most ``MAX_PHRASE`` words): where the question quotes what the answers' text says, the nodes
    whose text says it in that order match the phrase as well as its words, and rank above those that only share a
    word ("infection")."""
    runs: list[list[str]] = []
    for i in sorted(positions):
        if runs and i - 1 in positions:
            runs[-1] += plain_words(words[i])
        else:
            runs.append(plain_words(words[i]))
    return [f'"{" ".join(run)}"' for run in runs if 2 <= len(run) <= MAX_PHRASE]
