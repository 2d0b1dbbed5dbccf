"""Which spans of a question may name an entity (method step 2 without an LLM): word n-grams that neither start nor
end on a stop word, hold no word of a textual condition (kgqa.runtime.steps.s2_conditions) and are not only the words
of an answer type or of a relation. kgqa.runtime.steps.s2_linking looks them up in the name index.

A question's spans are capped (``max_link_ngrams``, :func:`link_spans`): each costs an embedding and a vector query per
label, so a long question's spans cost without bound. The cap keeps the spans of the question's first words, in
order of appearance (every length at a word before the next word), so that the part that is linked is linked exactly as
without the cap; the trace says how far linking read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgqa.runtime import lexicon
from kgqa.runtime.reader.spelling import designation
from kgqa.runtime.reading import Reading
from kgqa.runtime.steps.s2_conditions import (
    NAMING_WORDS,
    OWN_TEXT_PHRASES,
    RELATIVE_PRONOUNS,
    TEXT_CUES,
    not_entities,
    prefix_words,
)
from kgqa.runtime.text import RELATIONAL, STOP_WORDS, WORD, Mention

MAX_NGRAM = 10
SHORT_NGRAM = 6
"""Spans of up to ``SHORT_NGRAM`` words link at the threshold; longer ones (HPO's "Abnormality of the epiphyses of
the 3rd finger") only when all but exactly a name (kgqa.runtime.steps.s2_linking's ``JOINED_SPAN_SIMILARITY``) and
holding no word that says a relation, a name or an untyped anchor: a long span must not swallow its hop ("absent in the
disorder X")."""
CONJUNCTIONS = lexicon.words("conjunctions")
"""Words that join two phrases (a span joined by one is no name of its own: kgqa.runtime.steps.s2_linking)."""
MAX_LINK_SPANS = 1000
"""Most spans one question's linking embeds and searches when the caller passes no ``max_link_ngrams``."""

Span = tuple[int, int, str]
"""(start, end, text): words [start, end) of the question"""


CLAUSE_WORDS = lexicon.words("clause_words")
"""Words that start a clause and stand in no name (HPO has two names with "that", none with these)."""
CLAUSE_ENDS = CONJUNCTIONS | CLAUSE_WORDS | RELATIVE_PRONOUNS
"""Words after an entity that start another clause: the words after the entity that its hop reads stop there (and
at a type the question names: "... involving X, which have an *abnormality* noted as absent in Y")."""


NAME_CUES = lexicon.words("name_cues")
"""Words that say the span after them is a name ("sometimes called X", "known as X", "go by the name X",
"a.k.a. X", "referred to as X")."""
DESCRIPTION_CUES = lexicon.words("description_cues")
"""Words that say the span after them is a node's text ("the sign defined as 'Inflammation of the thyroid gland'",
"whose definition reads X"): as a name does, it says the noun before is that node
(:data:`kgqa.runtime.steps.s2_schema_plan.DESCRIPTION_CUE`)."""
SOMETHING = lexicon.words("something")
"""Nouns that stand for an anchor not typed ("a gene linked to *something* called X")."""
LONG_SPAN_BREAKS = RELATIONAL | NAME_CUES | DESCRIPTION_CUES | SOMETHING | CLAUSE_ENDS
"""Words no span longer than ``SHORT_NGRAM`` holds (:func:`ngrams`)."""


def ngrams(reading: Reading, labels: Sequence[str] = (), nouns: Sequence[Mention] = ()) -> list[Span]:
    """Word n-grams that may name an entity: not starting or ending with a stop word, not only an answer type's words
    (or type ``nouns``), not only words that say a relation's kind, no word of a textual condition
    (:func:`kgqa.runtime.steps.s2_conditions.not_entities`) but another name of the answers
    (:data:`kgqa.runtime.steps.s2_conditions.NAMING_PHRASES`, which
    :func:`kgqa.runtime.steps.s2_schema_plan.schema_guided_plan` reads), no word that starts a clause ("coursework
    *which* clinical") and not ending on a condition's cue ("dislocation with the *word*")."""
    return typed_ngrams(reading, labels, nouns)[0]


def typed_ngrams(reading: Reading, labels: Sequence[str], nouns: Sequence[Mention]) -> tuple[list[Span], set[int]]:
    """:func:`ngrams`, and the positions of the words that name a type
    (:func:`kgqa.runtime.steps.s2_conditions.not_entities`)."""
    words = reading.words
    named = proper_starts(reading)
    types, textual = not_entities(reading, labels, OWN_TEXT_PHRASES, nouns)
    starts = prefix_words(reading)  # "MFN*": the beginning of the answers' symbol, no entity
    textual |= {i for i, w in enumerate(words) if w.lower().strip("'").removesuffix("-prefixed") in starts}
    out = []
    for n in range(1, MAX_NGRAM + 1):
        for start in range(len(words) - n + 1):
            gram = words[start : start + n]
            if gram[0].lower() in STOP_WORDS and start not in named:
                continue
            if gram[-1].lower() in STOP_WORDS and not (n > 1 and numbered_end(gram)):
                continue
            span = range(start, start + n)
            if textual.intersection(span) or types.issuperset(span) or all(w.lower() in RELATIONAL for w in gram):
                continue
            if all(w.lower() in NAMING_WORDS for w in gram):
                continue
            if gram[-1].lower() in TEXT_CUES or any(w.lower() in CLAUSE_WORDS for w in gram):
                continue
            if n > SHORT_NGRAM and any(w.lower() in LONG_SPAN_BREAKS for w in gram):
                continue
            out.append((start, start + n, " ".join(gram)))
    return out, types


def numbered_end(gram: Sequence[str]) -> bool:
    """Whether the stop word ending ``gram`` is a roman number typed in capitals after a name's word ("OI type *I*"),
    not the pronoun after a verb ("can *I*")."""
    return gram[-1].isupper() and designation(gram[-1]) is not None and gram[-2].lower() not in STOP_WORDS


SENTENCE_END = re.compile(r"[.?!:;]")


def proper_starts(reading: Reading) -> set[int]:
    """Positions of words typed with a capital inside a sentence, not at its start: a stop word so typed begins a
    name ("my son has *Down* syndrome")."""
    found = list(WORD.finditer(reading.text))
    return {
        i
        for i, match in enumerate(found)
        if i > 0
        and match.group()[0].isupper()
        and not SENTENCE_END.search(reading.text[found[i - 1].end() : match.start()])
    }


@dataclass(frozen=True)
class SpanCap:
    """How far linking read a question whose spans the cap cut: the spans of its first ``words`` words."""

    words: int
    total_words: int
    kept: int
    spans: int
    limit: int

    def describe(self) -> str:
        return (
            f"linked the first {self.words:,} of {self.total_words:,} words only ({self.kept:,} of {self.spans:,} "
            f"spans; max_link_ngrams = {self.limit:,})"
        )


def link_spans(
    reading: Reading, labels: Sequence[str], limit: int, nouns: Sequence[Mention] = ()
) -> tuple[list[Span], SpanCap | None]:
    """The spans linking looks up (:func:`ngrams`), at most ``limit`` of them: those that start earliest, shorter
    first at the same word; the cut when there were more. In :func:`ngrams`' order, so that linking a question under
    the cap is unchanged."""
    return capped(reading, ngrams(reading, labels, nouns), limit)


def capped(reading: Reading, grams: list[Span], limit: int) -> tuple[list[Span], SpanCap | None]:
    """``grams`` cut as :func:`link_spans` cuts them."""
    if len(grams) <= limit:
        return grams, None
    first = sorted(grams, key=lambda gram: (gram[0], gram[1]))[:limit]
    kept = {(start, end) for start, end, _ in first}
    cap = SpanCap(first[-1][0] + 1, len(reading.words), limit, len(grams), limit)
    return [gram for gram in grams if (gram[0], gram[1]) in kept], cap


def span_cap(reading: Reading, labels: Sequence[str], limit: int) -> SpanCap | None:
    """Where :func:`link_spans` cuts the question (None: it does not), for the trace."""
    return link_spans(reading, labels, limit)[1]
