"""One reading of a question: what steps 1-3 and step 6's lexical side take from its string alone (its words, its
quotations, the sentence that asks), made once per ask (:func:`read_question`) so that every step counts the same
words at the same positions and none splits the string again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kgqa.runtime.reader.types import asking_sentence
from kgqa.runtime.text import LOWER_WORD, clause_starts, quotations, words_of


@dataclass(frozen=True)
class Reading:
    """A question as the steps read it; every word position (links, spans, conditions) is in :attr:`words`."""

    text: str
    """The question as asked: what is embedded, sent to an LLM, and searched for phrases."""
    words: tuple[str, ...]
    """Its words as the linker counts them (:func:`kgqa.runtime.text.words_of`)."""
    lowered: tuple[str, ...]
    """:attr:`words` in lower case, as the word lists (kgqa/runtime/lexicon.toml) hold them."""
    quotations: tuple[tuple[range, str], ...]
    """Each quotation: its word positions and its text without the quotes (:func:`kgqa.runtime.text.quotations`)."""
    quoted_runs: tuple[range, ...]
    """The word positions of each quotation (:func:`kgqa.runtime.text.quoted_runs`)."""
    clauses: frozenset[int]
    """The word positions that begin a clause (:func:`kgqa.runtime.text.clause_starts`)."""
    asking: str
    """The sentence that asks (:func:`kgqa.runtime.reader.types.asking_sentence`: the last one that ends in a question
    mark, else the last one), so that neither a lead-in nor a trailer sets the answer type."""
    lower_words: tuple[str, ...]
    """The lower-case words of :attr:`text` as step 1 reads a type name or a subject phrase in them
    (:data:`LOWER_WORD`)."""
    asking_words: tuple[str, ...]
    """:attr:`lower_words` of :attr:`asking` alone."""
    asking_start: int = 0
    """The position in :attr:`words` where :attr:`asking` starts (0 without a lead-in)."""


Respell = Callable[[str], "str | None"]
"""The word of the reader's own (a cue: "subtypes", "without") a lower-case question word misspells, or None
(kgqa.runtime.reader.spelling.Spelling.cue_of)."""


def read_question(question: str, respell: Respell | None = None) -> Reading:
    """The one reading of ``question`` that the steps of one ask share; with ``respell``, its lower-case words read
    each misspelt cue word as the cue ("subtyeps of hypotonia" steps down a hierarchy), its :attr:`Reading.words`
    and :attr:`Reading.text` as typed (the linker reads names, its own way)."""

    def lower(words: list[str]) -> tuple[str, ...]:
        lowered = [word.lower() for word in words]
        return tuple((respell(w) or w) if respell is not None else w for w in lowered)

    words = tuple(words_of(question))
    quoted = tuple(quotations(question))
    asking = asking_sentence(question)
    lower_words = lower(LOWER_WORD.findall(question.lower()))
    at = question.rfind(asking)
    return Reading(
        text=question,
        words=words,
        lowered=lower(list(words)),
        quotations=quoted,
        quoted_runs=tuple(run for run, _ in quoted),
        clauses=clause_starts(question),
        asking=asking,
        lower_words=lower_words,
        asking_words=lower_words if asking == question else lower(LOWER_WORD.findall(asking.lower())),
        asking_start=len(words_of(question[:at])) if at > 0 else 0,
    )


NO_QUESTION = read_question("")
"""The reading of no question: a plan of links alone (tests build one so) reads no words around them."""
