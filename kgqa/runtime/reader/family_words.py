"""What a phrasing family is made of (:mod:`kgqa.runtime.reader.families`): its words for the types, the relations,
the textual conditions and the sentence shapes; the families' own words are in :mod:`.registers_read` and
:mod:`.registers_blind`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kgqa.loaders.hpo import DISEASE, GENE, PARENT_CHILD, PHENOTYPE
from kgqa.runtime.reader.phrasing import (
    MentionStyle,
    Noun,
    Wording,
    plural,
)

ConditionKind = Literal["doc-word", "name-word", "synonym", "definition", "symbol-prefix", "onset", "inheritance"]
CONDITION_KINDS: tuple[ConditionKind, ...] = (
    "doc-word",
    "name-word",
    "synonym",
    "definition",
    "symbol-prefix",
    "onset",
    "inheritance",
)
"""doc-word: a word of the answer's document; name-word: a word of its name; synonym: one of its aliases;
definition: a 3-6 word phrase of its definition; symbol-prefix: the first letters of a gene's symbol; onset and
inheritance: a disease's annotation under HPO's Onset or Mode of inheritance branch."""


@dataclass(frozen=True)
class Condition:
    """A question's textual condition: its kind, its text (the word, alias, phrase, prefix, or the onset or
    inheritance term's name) and, for onset and inheritance, the term's id."""

    kind: ConditionKind
    text: str
    term_id: str | None = None


@dataclass(frozen=True)
class Shape:
    """A sentence: ``{subj}`` the answer type (plural), ``{pred}`` the relation to the object, ``{cond}`` the
    condition: after the subject (``pre``), after the predicate (``post``) or before the subject (``lead``, which
    falls back to ``pre`` for a condition with no leading form)."""

    text: str
    clause: Literal["verb", "modifier"]
    condition: Literal["pre", "post", "lead"]


@dataclass(frozen=True)
class ConditionWords:
    """How a family words one condition kind: after the subject noun (``pre``), after a finite plural predicate
    (``verb``: the plural ties it to the answers), after a modifier that ends in the object (``modifier``) and
    before the subject as an adjective (``lead``; none: never). ``{w}`` is the condition's word, ``{a}`` its
    article."""

    pre: tuple[str, ...]
    verb: tuple[str, ...]
    modifier: tuple[str, ...]
    lead: tuple[str, ...] = ()


Side = Literal["", "to_anchor", "from_anchor"]


@dataclass(frozen=True)
class FamilyWords:
    """A family's tables. ``relations`` is keyed by (relation in words, answer label, object label, side), side
    ``to_anchor`` / ``from_anchor`` for a hierarchy hop that names its direction, '' otherwise; a hop missing there
    gets :func:`kgqa.runtime.reader.phrasing.hop_wording`'s (other SKBs)."""

    types: Mapping[str, tuple[Noun, ...]]
    relations: Mapping[tuple[str, str, str, Side], Wording]
    shapes: tuple[Shape, ...]
    conditions: Mapping[ConditionKind, ConditionWords]
    quotes: tuple[str, ...]
    """How the condition's word is set off, ``{w}`` the word, drawn per question."""
    named: tuple[str, ...]
    """How a named anchor reads: ``{m}`` the mention, ``{noun}`` its type word."""
    described: tuple[str, ...]
    """How an anchor mentioned by its definition reads: ``{m}`` the description, ``{noun}`` its type word."""
    inner: str = "{a} {noun} {mod}"
    """The object of a 2-hop question's outer hop: ``{a}`` the article, ``{noun}`` the intermediate type."""
    lower_start: float = 0.0


@dataclass(frozen=True)
class Family:
    name: str
    tuned: bool
    """Whether development saw it (its figures flatter the linker)."""
    about: str
    conditions: Mapping[ConditionKind, int]
    """The condition kinds it words, with the weight each is drawn by among those the answer has."""
    mentions: Mapping[MentionStyle, int]
    """How often it names its anchor each way, among the ways the anchor has."""
    undirected: float = 0.0
    """Share of 1-hop hierarchy questions worded without a direction (their answers are both sides)."""
    read: bool = False
    """Whether development read its questions' misses after it was written (the linker's fixes of issue 30 were
    found on ``clinical``, ``conversational`` and ``terse``; ``lay``'s misses were read after it, ``student``'s in the
    seventh session): not tuned on, but no longer unseen either."""
    words: FamilyWords | None = field(default=None, repr=False)
    """None: ``analyst`` (:func:`kgqa.runtime.reader.phrasing.natural`) or ``template``
    (:func:`kgqa.runtime.reader.questions.phrase`)."""


def _n(*words: str) -> tuple[Noun, ...]:
    return tuple(Noun(w, plural(w)) for w in words)


def _w(verbs: Sequence[str], modifiers: Sequence[str]) -> Wording:
    return Wording(tuple(verbs), tuple(modifiers))


D, P, G, H = DISEASE, PHENOTYPE, GENE, PARENT_CHILD
