"""Text helpers the steps share: a question's words as every step counts them, its quotations, the stop words, how a
question may name a type (and where it names one: step 1 reads the answer type there, step 2 links no entity there),
and the words that say a relation's kind (negation, a place in a hierarchy). One module, so that a step reads a
question the way the others do without importing another step."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from kgqa.runtime import lexicon

WORD = re.compile(r"[\w][\w'/-]*")
"""A word as the linker counts it (positions of links and spans are in these words)."""
LOWER_WORD = re.compile(r"[\w][\w/-]*")
"""A word as step 1 reads a type's name in a question: an apostrophe ends it ("son's" is "son", "s"), unlike
:data:`WORD`."""
PART = re.compile(r"[^\W_]+")
"""A run of letters and digits: the words a full-text index sees, a name's words as linking compares them, the type
head's hashed words."""
LETTERS = re.compile(r"[^\W\d_]+")
"""A run of letters: the words a correction may replace (digits and symbols are ids, never typos)."""


def words_of(question: str) -> list[str]:
    """The question's words as the linker counts them (positions of links and spans are in these words)."""
    return WORD.findall(question)


CLAUSE_MARK = re.compile(r"[,;:.!?()]")
"""Punctuation that ends a clause between two words."""


def clause_starts(question: str) -> frozenset[int]:
    """The word positions (:func:`words_of`) that begin a clause: the words after a comma, semicolon, colon, full
    stop, question or exclamation mark, or bracket ("... since he was a baby, *he* doesn't talk")."""
    found = list(WORD.finditer(question))
    return frozenset(
        i for i in range(1, len(found)) if CLAUSE_MARK.search(question, found[i - 1].end(), found[i].start())
    )


def plain_words(text: str) -> list[str]:
    """The lower-case runs of letters and digits of ``text``: the words a full-text index sees."""
    return PART.findall(text.lower())


QUOTED = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|\u2018([^\u2019]+)\u2019|(?<![\w'/-])'([^']+)'(?![\w'/-])")
"""A quotation: in double or single quotes, straight or curly (a single quote inside or after a word is an
apostrophe)."""


def quoted_runs(question: str) -> list[range]:
    """The word positions (:func:`words_of`) of each quotation in ``question``: the words that begin inside it."""
    return [run for run, _ in quotations(question)]


def quotations(question: str) -> list[tuple[range, str]]:
    """Each quotation in ``question``: its word positions (:func:`quoted_runs`) and its text, without the quotes."""
    starts = [found.start() for found in WORD.finditer(question)]
    out = []
    for found in QUOTED.finditer(question):
        inside = [i for i, at in enumerate(starts) if found.start() <= at < found.end()]
        if inside:
            text = next(group for group in found.groups() if group is not None)
            out.append((range(inside[0], inside[-1] + 1), text.strip()))
    return out


STOP_WORDS = lexicon.words("stop_words")
"""Words that carry no entity and no answer type."""


LAY_WORDS = lexicon.table("lay_words")
"""Everyday words for the types of the STaRK SKBs and HPO ("symptoms" for phenotypes, "disorders" for diseases):
analysts seldom type a label's own name."""


def type_words(label: str) -> set[str]:
    """How a question may name a type: ``gene/protein`` -> gene(s), protein(s), gene/protein(s);
    ``field_of_study`` -> field_of_study(s), field of study(s); plus its :data:`LAY_WORDS`."""
    forms = singular_type_words(label)
    plurals = {f + "s" for f in forms} | {f + "es" for f in forms} | {f[:-1] + "ies" for f in forms if f.endswith("y")}
    plurals |= {f[:-2] + "es" for f in forms if f.endswith("sis")}  # "diagnoses"
    return {f for f in forms | plurals if f}


def singular_type_words(label: str) -> set[str]:
    """A type's own words, singular: ``gene/protein`` -> gene/protein, gene, protein; ``field_of_study`` ->
    field_of_study, field of study; plus its :data:`LAY_WORDS`."""
    forms = {label.lower(), re.sub(r"[_]+", " ", label.lower()), *LAY_WORDS.get(label, ())}
    return forms | (set(re.split(r"[/_\s]+", label.lower())) if "/" in label else set())


NEGATION, HIERARCHY = "negation", "hierarchy"
NARROWER, BROADER = lexicon.words("narrower_said"), lexicon.words("broader_said")
"""Words that say the answers sit below the entity in a hierarchy ("more specific than X", "subtypes of X"), or
above it ("broader than X"); "less" before one turns it round ("less specific than X")."""
AMBIGUOUS = lexicon.words("ambiguous_steps")
"""Hierarchy words with an everyday sense ("in children", "under 5 years"): read as a step only before "of"."""
STEP_WORDS = (NARROWER | BROADER) - AMBIGUOUS
KINDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    NEGATION: (lexicon.words("negation_said"), lexicon.words("negation_type")),
    HIERARCHY: (lexicon.words("hierarchy_said") | NARROWER | BROADER, lexicon.words("hierarchy_type")),
}
"""kind -> (words of a question that mean it, words of a relationship type's name that say it is of that kind)."""


RELATIONAL = frozenset(word for said, _ in KINDS.values() for word in said)
"""The words that say a relation's kind ("excluded", "absent", "subtypes"): never an entity on their own (HPO has a
term 'Excluded'), they are the hop's."""


NAMED_WITHIN = 8
"""A type counts as named by the question when one of its words is among the question's first 8 words."""


class Mention(NamedTuple):
    """Where a question names a type: ordered by position, then the longer form (so sorting picks the first)."""

    position: int
    minus_size: int
    label: str
    form: str

    @property
    def words(self) -> range:
        """The word positions the mention takes."""
        return range(self.position, self.position - self.minus_size)


@functools.lru_cache(maxsize=64)
def _forms_by_size(types: tuple[str, ...]) -> dict[int, dict[str, tuple[tuple[str, str], ...]]]:
    """Words in a form -> form -> the (type, form) pairs it names: a question is read once per form length, not once
    per form (every step reads type mentions, several times an ask)."""
    out: dict[int, dict[str, tuple[tuple[str, str], ...]]] = {}
    for label in types:
        for form in sorted(type_words(label)):
            same = out.setdefault(len(form.split()), {})
            same[form] = (*same.get(form, ()), (label, form))
    return out


def type_mentions(words: Sequence[str], types: Sequence[str]) -> list[Mention]:
    """Every place the lower-cased ``words`` name one of ``types`` (see :func:`type_words`), sorted; a form inside
    a longer one is not a mention of its own ("features" in "clinical features" names one type, once)."""
    found = set()
    for size, forms in _forms_by_size(tuple(types)).items():
        for i in range(len(words) - size + 1):
            found |= {Mention(i, -size, label, form) for label, form in forms.get(" ".join(words[i : i + size]), ())}

    def inside(m: Mention, other: Mention) -> bool:
        end, other_end = m.position - m.minus_size, other.position - other.minus_size
        return other.minus_size < m.minus_size and other.position <= m.position and end <= other_end

    return sorted(m for m in found if not any(inside(m, other) for other in found))


ASKING = lexicon.words("asking")
"""Words after which a question says what it asks for ("what *bits of DNA* ...", "list all *diagnoses* ...")."""


LEADING = lexicon.words("leading")
"""Words skipped between an asking word and what it asks for ("list *all the* diagnoses")."""


DETERMINERS = lexicon.words("determiners")
"""Asking words that are determiners too ("any", "every"): after a type word that opens the question ("*Diseases*
caused by *any* gene ...") they ask nothing."""


def subject_start(words: Sequence[str], within: int = NAMED_WITHIN) -> int:
    """Where the lower-case ``words`` of a question name what it asks for: right after its first asking word among
    the first ``within`` words (articles and "all the" skipped), else at its start."""
    start = next((i + 1 for i, w in enumerate(words[:within]) if w in ASKING), 0)
    while start < len(words) and words[start] in LEADING:
        start += 1
    return start


def type_forms(types: Sequence[str]) -> list[tuple[str, str]]:
    """(type, word) for every singular word of every type (:func:`singular_type_words`): what a phrase is embedded
    against to read which type it means."""
    return [(label, form) for label in types for form in sorted(singular_type_words(label))]


def meant_type(
    forms: Sequence[tuple[str, str]], row: np.ndarray, similarity: float, margin: float, *, one_word: bool = False
) -> tuple[str, float] | None:
    """The type a text means, with its similarity: the type of ``forms`` (:func:`type_forms`) whose best word the
    text is at least ``similarity`` similar to (``row``: its similarity to each of ``forms``), and ``margin`` more
    than to any other type's; ``one_word``: its one-word forms only. None: no type is meant clearly enough."""
    best: dict[str, float] = {}
    for (label, form), score in zip(forms, row, strict=True):
        if not one_word or len(form.split()) == 1:
            best[label] = max(best.get(label, -1.0), float(score))
    ranked = sorted(best.items(), key=lambda item: -item[1])
    if not ranked:
        return None
    clear = ranked[0][1] - (ranked[1][1] if len(ranked) > 1 else 0.0)
    return ranked[0] if ranked[0][1] >= similarity and clear >= margin else None
