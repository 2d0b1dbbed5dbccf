"""Phrasing families of generated questions, and the textual conditions they word.

The natural wording of :mod:`kgqa.runtime.reader.phrasing` was read while the no-LLM linker was tuned, so figures on it
flatter
the linker. A family is one register with its own words for the types, the relations, the conditions and the
sentence shapes, written apart from the linker: ``analyst`` (the phrasing tables, tuned) and ``template`` (the
plain template sentence, tuned) beside ``clinical``, ``conversational``, ``terse``, ``lay`` and ``student`` (their
misses since read) and the blind ones, unseen by development: ``counselor`` (a genetic counsellor's notes to
colleagues and families) and ``esl`` (a researcher typing English as a second language: unidiomatic but true), so a
benchmark can report quality per family and leave one family out.

Every wording stays true of the exact answer set :func:`kgqa.runtime.reader.questions.generate` computes: a hierarchy
hop is one
level ("direct", "immediate", "children", "parents"), a negation is an explicit annotation ("documented as absent",
"ruled out"), a synonym is one of the answer's own aliases, an onset or inheritance is the answer's annotation with
that term or a narrower one of its branch (a disease annotated "Infantile onset" has pediatric onset too).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kgqa.loaders.hpo import ABSENT, ASSOCIATED, DISEASE, GENE, PARENT_CHILD, PHENOTYPE, PRESENT
from kgqa.runtime.reader.phrasing import (
    OBJ,
    Direction,
    MentionStyle,
    Noun,
    Wording,
    hop_wording,
    natural,
    plural,
    relation_key,
    type_nouns,
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

# ---------------------------------------------------------------------------------------------------------------------
# clinical: a clinician's or curator's register
# ---------------------------------------------------------------------------------------------------------------------

CLINICAL = FamilyWords(
    types={
        D: (*_n("disorder", "condition", "disease"), Noun("diagnosis", "diagnoses")),
        P: _n("clinical finding", "sign", "manifestation", "phenotypic feature", "HPO term"),
        G: _n("gene", "disease gene"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            ["present with", "manifest with", "are characterized by", "list {obj} among their features", "feature"],
            ["presenting with", "manifesting with", "featuring", "in which patients present with"],
        ),
        (PRESENT, P, D, ""): _w(
            ["are documented in", "are reported in", "are recognized features of", "occur in patients with"],
            ["documented in", "reported in", "seen in patients with", "described in"],
        ),
        (ABSENT, D, P, ""): _w(
            ["have {obj} documented as absent", "are annotated as lacking", "explicitly exclude"],
            ["in which {obj} has been documented as absent", "with {obj} recorded as explicitly absent"],
        ),
        (ABSENT, P, D, ""): _w(
            ["are documented as absent in", "have been explicitly excluded in", "are recorded as not present in"],
            ["documented as absent in", "explicitly excluded in", "recorded as absent in patients with"],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["are implicated in", "are associated with", "have been linked to"],
            ["implicated in", "associated with", "linked to"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["are implicated in", "are linked to", "have been associated with"],
            ["implicated in", "associated with", "linked to"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["are caused by variants in", "have been associated with", "are linked to"],
            ["caused by variants in", "associated with", "linked to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are associated with variants in", "have been linked to", "are associated with"],
            ["associated with variants in", "linked to", "associated with"],
        ),
        (H, P, P, "to_anchor"): _w(
            ["are direct subclasses of", "are immediate subtypes of", "fall directly under", "are one level below"],
            ["classified directly under", "that are immediate subtypes of", "one level more specific than"],
        ),
        (H, P, P, "from_anchor"): _w(
            ["are the direct parent terms of", "directly subsume", "are one level more general than"],
            ["directly subsuming", "one level more general than", "immediately above"],
        ),
        (H, P, P, ""): _w(
            ["are directly above or below", "are one step above or below"],
            ["directly above or below", "one step above or below"],
        ),
    },
    shapes=(
        Shape("Which {subj} {pred}{cond}?", "verb", "post"),
        Shape("Which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Identify the {subj} that {pred}{cond}.", "verb", "post"),
        Shape("Please list all {subj} {pred}{cond}.", "modifier", "post"),
        Shape("What are the {subj} {pred}{cond}?", "modifier", "post"),
        Shape("Retrieve {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Which {cond} {subj} {pred}?", "verb", "lead"),
        Shape("Looking for {cond} {subj} {pred}.", "modifier", "lead"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose entry mentions {w}", "documented with the term {w}"),
            (" and reference {w} in their description", " and mention {w}"),
            (", with {w} mentioned in their description", ", whose descriptions reference {w}"),
        ),
        "name-word": ConditionWords(
            ("whose name contains the word {w}", "with {w} in the name"),
            (" and carry {w} in their name", " and have {w} in their name"),
            (", with {w} in their names", ", whose names contain the word {w}"),
        ),
        "synonym": ConditionWords(
            ("also termed {w}", "also known as {w}"),
            (" and are also termed {w}", " and are also known as {w}"),
            (", also termed {w}", ", synonym {w}"),
        ),
        "definition": ConditionWords(
            ("whose definition mentions {w}", "whose HPO definition includes {w}"),
            (" and include {w} in their definition", " and have {w} in their definition"),
            (", whose definitions mention {w}", ", with {w} in their definition"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol starts with {w}", "with gene symbols beginning with {w}"),
            (" and have a symbol beginning with {w}",),
            (", whose symbols start with {w}", ", symbol beginning with {w}"),
        ),
        "onset": ConditionWords(
            ("with {w} onset", "with onset recorded as {w}"),
            (" and have {w} onset", " and have onset recorded as {w}"),
            (", with {w} onset", ", with onset recorded as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("inherited in {a} {w} manner", "with {w} inheritance", "inherited as {w}"),
            (" and are inherited in {a} {w} manner", " and show {w} inheritance"),
            (", inherited in {a} {w} manner", ", with {w} inheritance", ", inherited as {w}"),
            ("{w}",),
        ),
    },
    quotes=("'{w}'", "{w}"),
    named=("{m}", "{m}", "the {noun} {m}", "the {noun} '{m}'"),
    described=("the {noun} defined as '{m}'", "the {noun} whose definition reads '{m}'"),
)

# ---------------------------------------------------------------------------------------------------------------------
# conversational: a casual user typing to an assistant
# ---------------------------------------------------------------------------------------------------------------------

CONVERSATIONAL = FamilyWords(
    types={
        D: _n("condition", "illness", "disease", "disorder"),
        P: _n("symptom", "sign", "feature", "trait"),
        G: _n(
            "gene",
        ),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            ["come with", "cause", "involve", "show up with", "have"],
            ["with", "involving", "causing", "that can come with"],
        ),
        (PRESENT, P, D, ""): _w(
            ["show up in", "happen in", "are part of", "come with", "go along with"],
            ["you see in", "showing up in", "seen in people with", "that can show up in"],
        ),
        (ABSENT, D, P, ""): _w(
            ["are known not to come with", "have {obj} listed as absent", "definitely don't involve"],
            ["where {obj} was ruled out", "where {obj} is listed as absent", "known not to involve"],
        ),
        (ABSENT, P, D, ""): _w(
            ["are ruled out in", "are listed as absent in", "are known not to happen in"],
            ["ruled out in", "listed as absent in", "known not to happen in"],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["are tied to", "are connected to", "have been linked to"], ["tied to", "connected to", "linked to"]
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["are tied to", "are behind", "have been linked to"], ["tied to", "connected to", "linked to"]
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["come from changes in", "are tied to", "have been linked to"],
            ["caused by changes in", "tied to", "linked to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are tied to", "are connected to", "have been linked to"], ["tied to", "connected to", "linked to"]
        ),
        (H, P, P, "to_anchor"): _w(
            ["sit right under", "are the direct sub-types of", "are one level down from"],
            ["right under", "one level down from", "directly under"],
        ),
        (H, P, P, "from_anchor"): _w(
            ["sit right above", "are one level up from", "are the direct parent categories of"],
            ["right above", "one level up from", "directly above"],
        ),
        (H, P, P, ""): _w(
            ["are one level up or down from", "sit right above or right below"],
            ["one level up or down from", "right above or right below"],
        ),
    },
    shapes=(
        Shape("I'm trying to find {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Can you list the {subj} that {pred}{cond}?", "verb", "post"),
        Shape("Which {subj} {pred}{cond}, do you know?", "verb", "post"),
        Shape("Do you know which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("What {subj} {pred}{cond}?", "verb", "post"),
        Shape("Got a list of {subj} {pred}{cond}?", "modifier", "post"),
        Shape("So which {cond} {subj} {pred}?", "verb", "lead"),
        Shape("Hi! Looking for {subj} {pred}{cond}, thanks.", "modifier", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("that mention {w}", "with {w} in the description"),
            (" and mention {w}", " and have {w} somewhere in their description"),
            (" - the ones that mention {w}", ", ones that mention {w}"),
        ),
        "name-word": ConditionWords(
            ("with {w} in their name", "that have {w} in the name"),
            (" and have {w} in their name",),
            (", ones with {w} in the name", " - the ones with {w} in their names"),
        ),
        "synonym": ConditionWords(
            ("also called {w}", "that also go by {w}"),
            (" and also go by {w}", " and are also called {w}"),
            (", also called {w}", " - they're also known as {w}"),
        ),
        "definition": ConditionWords(
            ("whose definition says {w}", "defined with the words {w}"),
            (" and whose definition mentions {w}", " and are defined with the phrase {w}"),
            (", ones whose definition mentions {w}", " - their definitions say {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol starts with {w}", "with symbols beginning {w}"),
            (" and have symbols starting with {w}",),
            (", ones whose symbol starts with {w}", " - symbols starting with {w}"),
        ),
        "onset": ConditionWords(
            ("with {w} onset", "where onset is listed as {w}"),
            (" and have {w} onset", " and have their onset listed as {w}"),
            (", ones with {w} onset", " - onset listed as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("that are inherited in {a} {w} way", "passed down in {a} {w} pattern"),
            (" and are inherited in {a} {w} way", " and get passed down in {a} {w} pattern"),
            (", ones inherited in {a} {w} pattern", " - {w} ones"),
            ("{w}",),
        ),
    },
    quotes=('"{w}"', "{w}"),
    named=("{m}", "{m}", '"{m}"', "something called {m}", "the {noun} {m}"),
    described=('the {noun} described as "{m}"', 'the one that\'s described as "{m}"'),
    lower_start=0.15,
)

# ---------------------------------------------------------------------------------------------------------------------
# terse: keywords typed into a search box
# ---------------------------------------------------------------------------------------------------------------------

TERSE = FamilyWords(
    types={D: _n("disease", "disorder", "condition"), P: _n("phenotype", "symptom", "hpo term"), G: _n("gene")},
    relations={
        (PRESENT, D, P, ""): _w([], ["with", "presenting", "w/", "featuring"]),
        (PRESENT, P, D, ""): _w([], ["in", "of", "seen in"]),
        (ABSENT, D, P, ""): _w([], ["absent", "explicitly absent", "with absent", "negative for"]),
        (ABSENT, P, D, ""): _w([], ["absent in", "excluded in", "annotated absent in"]),
        (ASSOCIATED, G, P, ""): _w([], ["assoc", "associated", "linked"]),
        (ASSOCIATED, G, D, ""): _w([], ["assoc", "for", "linked"]),
        (ASSOCIATED, D, G, ""): _w([], ["assoc", "linked", "caused by"]),
        (ASSOCIATED, P, G, ""): _w([], ["assoc", "linked"]),
        (H, P, P, "to_anchor"): _w([], ["children of", "child terms of", "direct subtypes of", "direct subterms of"]),
        (H, P, P, "from_anchor"): _w([], ["parents of", "parent terms of", "direct parents of"]),
        (H, P, P, ""): _w([], ["parents or children of", "parent/child terms of", "one level up/down from"]),
    },
    shapes=(
        Shape("{subj} {pred}{cond}", "modifier", "post"),
        Shape("{subj} {pred}{cond}?", "modifier", "post"),
        Shape("list {subj} {pred}{cond}", "modifier", "post"),
        Shape("all {subj} {pred}{cond}", "modifier", "post"),
        Shape("{subj} {cond} {pred}", "modifier", "pre"),
        Shape("{cond} {subj} {pred}", "modifier", "lead"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("mentioning {w}", "containing {w}"), (), (" mentioning {w}", " containing {w}", " +{w}", ' "{w}"')
        ),
        "name-word": ConditionWords(
            ("named *{w}*", "name:{w}"), (), (" name:{w}", " named *{w}*", " with {w} in name")
        ),
        "synonym": ConditionWords(("aka {w}",), (), (" aka {w}", " a.k.a. {w}", " (syn. {w})")),
        "definition": ConditionWords(('def "{w}"',), (), (' def "{w}"', ' definition: "{w}"')),
        "symbol-prefix": ConditionWords(
            ("symbol {w}*",), (), (" symbol {w}*", " {w}*", " starting {w}"), ("{w}*", "{w}-")
        ),
        "onset": ConditionWords(("{w} onset",), (), (" {w} onset", " onset {w}", " onset: {w}"), ("{w} onset",)),
        "inheritance": ConditionWords(("{w}",), (), (" {w}", " inheritance {w}", " {w} inheritance"), ("{w}",)),
    },
    quotes=("{w}", '"{w}"'),
    named=("{m}", "{m}", '"{m}"'),
    described=('def:"{m}"',),
    inner="{noun} {mod}",
)

# ---------------------------------------------------------------------------------------------------------------------
# lay: a patient or caregiver asking in plain words
# ---------------------------------------------------------------------------------------------------------------------

LAY = FamilyWords(
    types={
        D: _n("health problem", "illness", "medical condition", "disease"),
        P: (
            *_n("symptom", "warning sign"),
            Noun("thing you might notice", "things you might notice"),
            Noun("sign or symptom", "signs or symptoms"),
        ),
        G: _n("gene", "bit of DNA"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            [
                "can give you",
                "can bring on",
                "are known to bring about",
                "count {obj} among their symptoms",
                "can lead to",
            ],
            ["that can give you", "that can bring on", "where you might get", "known to bring about"],
        ),
        (PRESENT, P, D, ""): _w(
            ["can be part of", "can happen to people with", "can come along with", "are known to go with"],
            ["that can be part of", "that people with {obj} can get", "that can happen with", "known to go with"],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "have {obj} noted by doctors as not being there",
                "are on record as not including",
                "have {obj} written down as not present",
            ],
            [
                "where doctors have noted that {obj} is not there",
                "where {obj} is on record as not present",
                "on record as not including",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            [
                "are noted by doctors as not happening in",
                "are on record as not part of",
                "are written down as not present in",
            ],
            ["noted by doctors as not happening in", "on record as not part of", "written down as not present in"],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["have a known link to", "can play a part in", "have something to do with"],
            ["with a known link to", "that can play a part in", "that have something to do with"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["can go wrong in", "have a known link to", "can play a part in"],
            ["that can go wrong in", "with a known link to", "that can play a part in"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["can come from problems with", "have a known link to", "can be traced back to"],
            ["that can come from problems with", "with a known link to", "traced back to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["have a known link to", "can come from problems with", "can be traced back to"],
            ["with a known link to", "that can come from problems with", "traced back to"],
        ),
        (H, P, P, "to_anchor"): _w(
            [
                "are the more specific kinds filed directly under",
                "are one step more specific than",
                "sit one level below",
            ],
            ["one step more specific than", "filed directly under", "sitting one level below"],
        ),
        (H, P, P, "from_anchor"): _w(
            [
                "are the broader categories {obj} falls directly into",
                "are one step more general than",
                "sit one level above",
            ],
            [
                "one step more general than",
                "that {obj} falls directly into as a broader category",
                "sitting one level above",
            ],
        ),
        (H, P, P, ""): _w(
            ["sit one step above or below", "are one level broader or more specific than"],
            ["one step above or below", "one level broader or more specific than"],
        ),
    },
    shapes=(
        Shape("Asking for my kid: which {subj} {pred}{cond}?", "verb", "post"),
        Shape("Could someone explain which {subj} {pred}{cond}?", "verb", "post"),
        Shape("I'd like to know which {subj} {cond} {pred}.", "verb", "pre"),
        Shape("Please tell me all the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Just wondering which {subj} {pred}{cond}.", "verb", "post"),
        Shape("Is there a list of {subj} {pred}{cond}?", "modifier", "post"),
        Shape("Sorry if this is basic, but which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Which {cond} {subj} {pred}, if you know?", "verb", "lead"),
        Shape("In plain words, what {subj} {pred}{cond}?", "verb", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose summary mentions {w}", "where the description uses the word {w}"),
            (" and have {w} in their summary", " and whose description uses the word {w}"),
            (" - ones whose summary mentions {w}", ", and whose description uses the word {w}"),
        ),
        "name-word": ConditionWords(
            ("whose name has the word {w} in it", "that have {w} as part of their name"),
            (" and have the word {w} in their name", " and have {w} as part of their name"),
            (" - ones whose name has {w} in it", ", and with the word {w} in their name"),
        ),
        "synonym": ConditionWords(
            ("that are sometimes called {w}", "that also go by the name {w}", "otherwise known as {w}"),
            (" and are sometimes called {w}", " and also go by the name {w}"),
            (" - ones sometimes called {w}", ", and otherwise known as {w}"),
        ),
        "definition": ConditionWords(
            ("whose explanation includes {w}", "explained using the words {w}"),
            (" and are explained using the words {w}", " and whose explanation includes {w}"),
            (" - ones whose explanation includes {w}", ", and explained using the words {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose short name starts with the letters {w}", "with a short name beginning {w}"),
            (" and have a short name starting with the letters {w}",),
            (" - ones whose short name starts with the letters {w}", ", and with a short name beginning {w}"),
        ),
        "onset": ConditionWords(
            ("with {a} {w} start", "whose start is listed as {w}"),
            (" and have {a} {w} start", " and have their start listed as {w}"),
            (" - ones with {a} {w} start", ", and with the start listed as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("that run in families in {a} {w} way", "passed on in families the {w} way"),
            (" and run in families in {a} {w} way", " and are passed on in families the {w} way"),
            (" - ones that run in families in {a} {w} way", ", and passed on in families the {w} way"),
            ("{w}",),
        ),
    },
    quotes=('"{w}"', "{w}", "'{w}'"),
    named=("{m}", "{m}", "{m}", "what doctors call {m}", "the {noun} known as {m}"),
    described=('the {noun} that\'s explained as "{m}"', "the {noun} whose meaning is '{m}'"),
    lower_start=0.1,
)

# ---------------------------------------------------------------------------------------------------------------------
# student: a biology or medical student (or a science writer) asking a study question or drafting notes
# ---------------------------------------------------------------------------------------------------------------------

STUDENT = FamilyWords(
    types={
        D: _n("disorder", "genetic disease", "syndrome", "condition"),
        P: _n("trait", "clinical sign", "characteristic", "phenotypic abnormality"),
        G: (*_n("gene", "human gene"), Noun("locus", "loci")),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            [
                "exhibit",
                "display",
                "are annotated with",
                "have {obj} as part of their clinical picture",
                "include {obj} in their phenotypic spectrum",
            ],
            [
                "exhibiting",
                "displaying",
                "annotated with",
                "whose phenotype includes",
                "whose clinical picture takes in",
            ],
        ),
        (PRESENT, P, D, ""): _w(
            [
                "are exhibited in",
                "are annotated to",
                "form part of the phenotype of",
                "are observed in individuals with",
                "belong to the clinical picture of",
            ],
            [
                "exhibited in",
                "annotated to",
                "forming part of the phenotype of",
                "observed in individuals affected by",
                "belonging to the clinical picture of",
            ],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "are explicitly annotated as not exhibiting",
                "carry an explicit NOT annotation for",
                "have {obj} excluded in their annotations",
            ],
            [
                "explicitly annotated as not exhibiting",
                "with a NOT annotation for",
                "recorded in the annotations as lacking",
                "in which {obj} is annotated as not occurring",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            [
                "are explicitly excluded from the phenotype of",
                "are annotated as not occurring in",
                "carry a NOT annotation in",
                "are marked as not part of the phenotype of",
            ],
            [
                "explicitly excluded from the phenotype of",
                "annotated as not occurring in",
                "marked as not seen in",
                "that the annotations exclude for",
            ],
        ),
        (ASSOCIATED, G, P, ""): _w(
            [
                "have a documented association with",
                "are genetically associated with",
                "are connected in the annotations to",
            ],
            ["with a documented association to", "genetically associated with", "known to be associated with"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            [
                "are genetically associated with",
                "are mapped to",
                "have been reported for",
                "are on record as genes for",
            ],
            ["genetically associated with", "mapped to", "reported for", "on record for"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["map to", "are genetically associated with", "have been attributed to variation in"],
            [
                "mapping to",
                "genetically associated with",
                "attributed to variation in",
                "with a documented association to",
            ],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are genetically associated with", "have a documented association with", "are attributed to variation in"],
            ["genetically associated with", "with a documented association to", "connected in the annotations to"],
        ),
        (H, P, P, "to_anchor"): _w(
            [
                "are each a direct subclass of",
                "are nested immediately beneath",
                "sit one rung down the ontology from",
                "are child classes of",
            ],
            [
                "nested immediately beneath",
                "one rung down the ontology from",
                "classed directly beneath",
                "that are child classes of",
            ],
        ),
        (H, P, P, "from_anchor"): _w(
            ["are the immediate parent classes of", "sit one rung up the ontology from", "are direct superclasses of"],
            [
                "one rung up the ontology from",
                "that are immediate parent classes of",
                "serving as direct superclasses of",
            ],
        ),
        (H, P, P, ""): _w(
            [
                "are one rung up or down the ontology from",
                "are immediate parent or child classes of",
                "are direct superclasses or subclasses of",
            ],
            [
                "one rung up or down the ontology from",
                "that are immediate parent or child classes of",
                "one rung either way in the ontology from",
            ],
        ),
    },
    shapes=(
        Shape("For my genetics coursework: which {subj} {pred}{cond}?", "verb", "post"),
        Shape("Name the {subj} that {pred}{cond}.", "verb", "post"),
        Shape("For my notes, I need the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("List the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Study question: which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Revision check - which {cond} {subj} {pred}?", "verb", "lead"),
        Shape("Drafting a review: what {subj} {pred}{cond}?", "verb", "post"),
        Shape("Quiz prep: name all {cond} {subj} {pred}.", "modifier", "lead"),
        Shape("In the HPO, which {subj} {pred}{cond}?", "verb", "post"),
        Shape("According to the ontology, what are the {subj} {cond} {pred}?", "modifier", "pre"),
        Shape("Give the complete set of {subj} {pred}{cond}.", "modifier", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose ontology entry contains the word {w}", "with {w} appearing in their entry"),
            (" and have an entry that contains {w}", " and contain {w} in their entry text"),
            (", with the word {w} in their entry", ", whose entry text includes {w}"),
        ),
        "name-word": ConditionWords(
            ("whose label contains {w}", "with {w} as a word of their label"),
            (" and carry the word {w} in their label", " and have labels containing {w}"),
            (", labelled with the word {w}", ", whose labels include {w}"),
        ),
        "synonym": ConditionWords(
            ("with {w} listed among their synonyms", "having {w} as a synonym"),
            (" and have {w} as one of their synonyms", " and list {w} as an alternative name"),
            (", with {w} as a recorded synonym", ", which also appear under the synonym {w}"),
        ),
        "definition": ConditionWords(
            ("whose formal definition contains {w}", "whose ontology definition uses the phrase {w}"),
            (" and have the phrase {w} in their formal definition", " and carry a definition that uses {w}"),
            (", with {w} in the wording of their definition", ", whose formal definition contains {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol opens with {w}", "with symbols that begin {w}"),
            (" and have symbols opening with {w}",),
            (", their symbols opening with {w}", ", symbol prefix {w}"),
            ("{w}-prefixed",),
        ),
        "onset": ConditionWords(
            ("whose onset is classed as {w}", "annotated with {w} onset or a narrower onset class"),
            (" and have their onset classed as {w}", " and carry an onset annotation of {w} or a narrower class"),
            (", with onset classed as {w}", ", their onset falling within the {w} category"),
        ),
        "inheritance": ConditionWords(
            (
                "transmitted in {a} {w} fashion",
                "that follow {a} {w} pattern of inheritance",
                "whose mode of inheritance is {w}",
            ),
            (" and are transmitted in {a} {w} fashion", " and follow {a} {w} pattern of inheritance"),
            (
                ", transmitted in {a} {w} fashion",
                ", following {a} {w} inheritance pattern",
                ", whose mode of inheritance is classed as {w}",
            ),
            ("{w}",),
        ),
    },
    quotes=("'{w}'", '"{w}"', "'{w}'", '"{w}"', "{w}"),
    named=("{m}", "{m}", "{m}", "the {noun} {m}", "the {noun} referred to as {m}"),
    described=("the {noun} whose definition opens with '{m}'", 'the {noun} the HPO defines as "{m}"'),
)

# ---------------------------------------------------------------------------------------------------------------------
# counselor: a genetic counsellor writing to colleagues or preparing for a family session (blind)
# ---------------------------------------------------------------------------------------------------------------------

COUNSELOR = FamilyWords(
    types={
        D: (*_n("condition", "genetic condition", "disorder"), Noun("diagnosis", "diagnoses")),
        P: _n("feature", "clinical feature", "finding", "sign"),
        G: _n("gene", "candidate gene"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            [
                "can present with",
                "list {obj} among their recognised features",
                "are known to involve",
                "have {obj} as a recognised feature",
            ],
            [
                "that can present with",
                "where {obj} is a recognised feature",
                "known to involve",
                "in which affected relatives may show",
            ],
        ),
        (PRESENT, P, D, ""): _w(
            [
                "are a recognised part of",
                "might be noticed by a family in someone with",
                "can be seen in people affected by",
                "belong to the clinical spectrum of",
            ],
            [
                "that a family might notice in someone with",
                "seen in people affected by",
                "recognised as part of",
                "known to occur in",
            ],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "have {obj} recorded as absent",
                "have had {obj} specifically ruled out",
                "list {obj} as an excluded feature",
                "have {obj} documented as not part of the picture",
            ],
            [
                "in which {obj} has been specifically excluded",
                "where {obj} is documented as not part of the picture",
                "with {obj} ruled out on examination",
                "with a documented absence of",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            [
                "are documented as not a feature of",
                "have been ruled out in",
                "are recorded as absent in",
                "are explicitly excluded in people with",
            ],
            [
                "documented as not part of the picture in",
                "ruled out on examination in people with",
                "recorded as absent in",
                "specifically excluded in",
            ],
        ),
        (ASSOCIATED, G, P, ""): _w(
            [
                "have been reported in connection with",
                "are known to be connected with",
                "have a reported association with",
            ],
            ["reported in connection with", "known to be connected with", "with a reported link to"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["would belong on a gene panel for", "are recognised genes for", "have a reported link to"],
            ["on a panel for", "that would go on a testing panel for", "with a recognised role in"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["have been linked to changes in", "have a known genetic link to", "are linked to variants in"],
            ["linked to changes in", "with a known genetic link to", "that a positive result in {obj} would point to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["have been reported with changes in", "are seen with variants in", "have a reported link to"],
            ["reported with changes in", "seen with variants in", "with a reported link to"],
        ),
        (H, P, P, "to_anchor"): _w(
            ["are the immediate subtypes of", "are filed one level beneath", "are direct, more specific forms of"],
            ["exactly one level more specific than", "sitting directly beneath", "that count as immediate subtypes of"],
        ),
        (H, P, P, "from_anchor"): _w(
            [
                "are the immediate broader terms for",
                "are filed one level above",
                "are exactly one step more general than",
            ],
            [
                "exactly one step more general than",
                "sitting directly above",
                "that are the immediate broader terms for",
            ],
        ),
        (H, P, P, ""): _w(
            ["sit one level above or below", "are one step more general or more specific than"],
            ["exactly one level above or below", "immediately broader or more specific than"],
        ),
    },
    shapes=(
        Shape("Preparing for a family session: which {subj} {pred}{cond}?", "verb", "post"),
        Shape("For a referral letter - which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Could a colleague point me to the {subj} that {pred}{cond}?", "verb", "post"),
        Shape("Note to self: check {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Before we discuss testing, I need the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Which {cond} {subj} {pred}? Asking ahead of clinic.", "verb", "lead"),
        Shape("Pre-clinic prep - list the {cond} {subj} {pred}.", "modifier", "lead"),
        Shape("Quick question for the team: what {subj} {pred}{cond}?", "verb", "post"),
        Shape("For the family letter, please list {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Can anyone confirm which {subj} {cond} {pred}?", "verb", "pre"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose record mentions {w}", "with {w} mentioned in their entry"),
            (" and mention {w} in their record", " and have {w} in their entry"),
            (", each with a record that mentions {w}", " - ones whose entry mentions {w}"),
        ),
        "name-word": ConditionWords(
            ("with {w} as part of their name", "whose name includes the word {w}"),
            (" and include {w} in their name",),
            (", each named with the word {w}", " - ones with {w} in the name"),
        ),
        "synonym": ConditionWords(
            ("also referred to as {w}", "listed with the alternative name {w}"),
            (" and are also referred to as {w}", " and have {w} as an alternative name"),
            (", each also referred to as {w}", " - ones with the alternative name {w}"),
        ),
        "definition": ConditionWords(
            ("whose definition includes the words {w}", "whose formal definition reads in part {w}"),
            (" and use the words {w} in their definition",),
            (", each with a definition that includes the phrase {w}", " - ones defined with the words {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol begins with {w}", "with a gene symbol starting {w}"),
            (" and have symbols beginning with {w}",),
            (", each with a symbol beginning {w}", " - ones whose symbol starts {w}"),
        ),
        "onset": ConditionWords(
            ("where onset is given as {w}", "whose onset is recorded as {w}"),
            (" and have an onset given as {w}", " and have their onset recorded as {w}"),
            (", each with an onset given as {w}", " - ones with onset recorded as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("that run in families in {a} {w} pattern", "passed on as {a} {w} trait", "showing {w} inheritance"),
            (" and run in families in {a} {w} pattern", " and are passed on as {a} {w} trait"),
            (", each running in families in {a} {w} pattern", " - ones with {w} inheritance"),
            ("{w}",),
        ),
    },
    quotes=("'{w}'", "{w}", '"{w}"'),
    named=("{m}", "{m}", "{m}", "the {noun} {m}", "the {noun} called {m}"),
    described=('the {noun} HPO explains as "{m}"', "the {noun} summarised as '{m}'"),
)

# ---------------------------------------------------------------------------------------------------------------------
# esl: a researcher whose first language is not English, typing into a search tool (blind)
# ---------------------------------------------------------------------------------------------------------------------

ESL = FamilyWords(
    types={
        D: _n("disease", "illness", "pathology"),
        P: _n("symptom", "phenotype", "clinical sign"),
        G: _n("gene"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            ["are having", "are presenting", "are coming with", "are manifesting"],
            ["having", "which have", "with presence of", "what are presenting"],
        ),
        (PRESENT, P, D, ""): _w(
            ["are present at patients with", "appear in", "are found at patients of", "are manifested in"],
            ["present at patients with", "appearing in", "which one observe in", "what one can find in"],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "have {obj} marked like absent",
                "have annotation that {obj} is not present",
                "are annotated with absence of",
            ],
            [
                "where {obj} is noted absent",
                "for which is written that {obj} is not present",
                "with annotated absence of",
                "in which {obj} is excluded explicitly",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            ["are marked absent for", "are excluded explicitly in", "are noted like not present at"],
            [
                "which {obj} don't have according to the annotation",
                "marked absent for",
                "excluded explicitly in",
                "noted like not present at",
            ],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["are related with", "have relation with", "are in connection with"],
            ["related with", "what are related with", "having relation with"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["are related with", "are implied in", "have association with"],
            ["related with", "implied in", "what have association with"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["are related with", "come from mutations in", "have association with"],
            ["related with", "caused from mutations in", "which have association with"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are related with", "are associated to", "have link with"],
            ["related with", "associated to", "which have link with"],
        ),
        (H, P, P, "to_anchor"): _w(
            [
                "are direct children of",
                "are one level more deep than {obj} in the tree",
                "stay immediately under",
                "are in the level directly under",
            ],
            [
                "immediately under",
                "one level more deep than",
                "which are the direct children from",
                "what stay one level below",
            ],
        ),
        (H, P, P, "from_anchor"): _w(
            [
                "are the parents direct of",
                "are one level more high than {obj} in the tree",
                "stay immediately above",
                "are in the level directly above",
            ],
            [
                "in the level immediately above",
                "one level more high than",
                "which are the direct parents from",
                "what stay one level above",
            ],
        ),
        (H, P, P, ""): _w(
            [
                "are one level more high or more deep than",
                "are direct parent or child of",
                "stay one level above or under",
            ],
            [
                "at distance of one level (up or down) from",
                "directly above or under",
                "which are direct parent or child from",
            ],
        ),
    },
    shapes=(
        Shape("Please give me {subj} {pred}{cond}.", "modifier", "post"),
        Shape("give me all {subj} {pred}{cond}", "modifier", "post"),
        Shape("Which are the {subj} that {pred}{cond}?", "verb", "post"),
        Shape("I search {subj} {pred}{cond}.", "modifier", "post"),
        Shape("I am searching which {subj} {cond} {pred}.", "verb", "pre"),
        Shape("Which {subj} {pred}{cond}, please?", "verb", "post"),
        Shape("Is possible to have the list of {subj} {pred}{cond}?", "modifier", "post"),
        Shape("What {cond} {subj} {pred}?", "verb", "lead"),
        Shape("I need to know the {cond} {subj} {pred}.", "modifier", "lead"),
        Shape("Which {subj} {cond} {pred}, I want to know.", "verb", "pre"),
        Shape("Tell me please what {subj} {pred}{cond}.", "verb", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("which have word {w} in the description", "where description contains {w}"),
            (" and are mentioning {w}", " and have in description the word {w}"),
            (", with word {w} in their description", " (their description is containing {w})"),
        ),
        "name-word": ConditionWords(
            ("with {w} inside the name", "which name contain {w}"),
            (" and have {w} in the name",),
            (", with word {w} in their name", " (their name contains {w})"),
        ),
        "synonym": ConditionWords(
            ("known also as {w}", "which have other name {w}"),
            (" and are called also {w}", " and have other name {w}"),
            (", they are called also {w}", " (their other name: {w})"),
        ),
        "definition": ConditionWords(
            ("which definition say {w}", "with definition containing {w}"),
            (" and in their definition is written {w}",),
            (", with their definition containing {w}", " (in their definition: {w})"),
        ),
        "symbol-prefix": ConditionWords(
            ("which symbol start with {w}", "with symbol beginning from {w}"),
            (" and their symbol start with {w}",),
            (", with their symbol beginning from {w}", " (their symbol begin {w})"),
        ),
        "onset": ConditionWords(
            ("with onset {w}", "with the onset of type {w}"),
            (" and have the onset {w}", " and their onset is {w}"),
            (", with their onset {w}", " (their onset: {w})"),
            ("{w} onset",),
        ),
        "inheritance": ConditionWords(
            ("with inheritance {w}", "which inherit in {w} way", "transmitted in {w} mode"),
            (" and are inherited in {w} way", " and have inheritance of type {w}"),
            (", they are inherited in {w} way", " (their inheritance: {w})"),
            ("{w}",),
        ),
    },
    quotes=("{w}", '"{w}"', "'{w}'"),
    named=("{m}", "{m}", "the {noun} {m}", "{noun} {m}", "the {noun} with name {m}", "{noun} named {m}"),
    described=("the {noun} which definition is '{m}'", '{noun} with the definition "{m}"'),
    inner="some {noun} {mod}",
    lower_start=0.15,
)

ANALYST_MENTIONS: dict[MentionStyle, int] = {"name": 4, "lower": 2, "alias": 3, "description": 1}
"""The analyst family's anchor mentions: those of the tuned generator
(``kgqa.runtime.reader.questions.MENTION_WEIGHTS``)."""
DOC_WORD: dict[ConditionKind, int] = {"doc-word": 1}
NEW_CONDITIONS: dict[ConditionKind, int] = {
    "doc-word": 3,
    "name-word": 2,
    "synonym": 2,
    "definition": 2,
    "symbol-prefix": 3,
    "onset": 2,
    "inheritance": 2,
}
STUDENT_CONDITIONS: dict[ConditionKind, int] = {
    "doc-word": 2,
    "name-word": 2,
    "synonym": 2,
    "definition": 2,
    "symbol-prefix": 2,
    "onset": 3,
    "inheritance": 3,
}
"""The student family's draws: onset and inheritance more often than the other kinds."""
FAMILIES: dict[str, Family] = {
    "analyst": Family(
        "analyst", True, "the natural phrasing tables the linker was developed on", DOC_WORD, ANALYST_MENTIONS
    ),
    "template": Family("template", True, "the plain template sentence", DOC_WORD, {"name": 1}),
    "clinical": Family(
        "clinical",
        False,
        "a clinician's register: findings, 'presenting with', 'documented as absent', 'caused by variants in'",
        NEW_CONDITIONS,
        {"name": 4, "lower": 1, "alias": 2, "description": 2, "dropped-word": 2},
        undirected=0.2,
        read=True,
        words=CLINICAL,
    ),
    "conversational": Family(
        "conversational",
        False,
        "a casual user: 'I'm trying to find ...', 'come with', 'ruled out', 'one level up from'",
        NEW_CONDITIONS,
        {"name": 3, "lower": 3, "alias": 2, "description": 1, "dropped-word": 2},
        undirected=0.2,
        read=True,
        words=CONVERSATIONAL,
    ),
    "terse": Family(
        "terse",
        False,
        "search-box keywords: 'diseases absent X', 'children of X mentioning W'",
        NEW_CONDITIONS,
        {"name": 2, "lower": 4, "alias": 2, "dropped-word": 2},
        undirected=0.2,
        read=True,
        words=TERSE,
    ),
    "lay": Family(
        "lay",
        False,
        "a patient or caregiver in plain words: 'which illnesses can give you X', 'noted by doctors as not there'",
        NEW_CONDITIONS,
        {"name": 2, "lower": 4, "alias": 3, "description": 1, "dropped-word": 2},
        undirected=0.2,
        read=True,
        words=LAY,
    ),
    "student": Family(
        "student",
        False,
        "a biology student's study question: 'Name the disorders that exhibit X', 'one rung up the ontology from'",
        STUDENT_CONDITIONS,
        {"name": 3, "lower": 3, "alias": 2, "description": 1, "dropped-word": 2},
        undirected=0.2,
        read=True,
        words=STUDENT,
    ),
    "counselor": Family(
        "counselor",
        False,
        "a genetic counsellor's notes: 'run in families', 'on a panel for', 'ruled out on examination'",
        NEW_CONDITIONS,
        {"name": 4, "lower": 1, "alias": 2, "description": 2, "dropped-word": 2},
        undirected=0.2,
        words=COUNSELOR,
    ),
    "esl": Family(
        "esl",
        False,
        "a researcher writing English as a second language: 'diseases are having X', 'one level more deep than'",
        NEW_CONDITIONS,
        {"name": 3, "lower": 3, "alias": 2, "description": 1, "dropped-word": 2},
        undirected=0.2,
        words=ESL,
    ),
}
"""Every family by name; ``analyst`` and ``template`` are the tuned ones; ``student``, ``counselor`` and ``esl`` are
blind (written apart from the linker, their misses never read)."""
TUNED = tuple(name for name, family in FAMILIES.items() if family.tuned)


def as_families(names: Sequence[str]) -> tuple[Family, ...]:
    """The families named (each once, in the order given), or a ValueError naming the choices."""
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise ValueError(f"families must be among {', '.join(FAMILIES)}, got '{','.join(names)}'")
    return tuple(FAMILIES[n] for n in dict.fromkeys(names))


# ---------------------------------------------------------------------------------------------------------------------
# onset and inheritance terms in words
# ---------------------------------------------------------------------------------------------------------------------

ABBREVIATIONS = {
    "autosomal recessive": "AR",
    "autosomal dominant": "AD",
    "X-linked recessive": "XLR",
    "X-linked dominant": "XLD",
}
"""What a search box types for the commonest modes of inheritance."""


def onset_word(term_name: str) -> str | None:
    """'Infantile onset' -> 'infantile'; None for a name that is not '<age> onset'."""
    if not term_name.lower().endswith(" onset"):
        return None
    return term_name[: -len(" onset")].strip().lower() or None


def inheritance_word(term_name: str) -> str | None:
    """'Autosomal recessive inheritance' -> 'autosomal recessive', 'X-linked inheritance' -> 'X-linked'; None for a
    name that is not '<mode> inheritance'."""
    if not term_name.lower().endswith(" inheritance"):
        return None
    mode = term_name[: -len(" inheritance")].strip()
    if not mode:
        return None
    return mode if re.match(r"[XY]-", mode) else mode[0].lower() + mode[1:]


def _article(word: str) -> str:
    """'an' before a vowel sound: 'an autosomal', 'an X-linked', 'an HPO term'; else 'a'."""
    return "an" if re.match(r"[aeiouAEIOU]|[FHLMNRSX](?:-|[A-Z]{1,4}\b)", word) else "a"


# ---------------------------------------------------------------------------------------------------------------------
# wording
# ---------------------------------------------------------------------------------------------------------------------


def _fill(phrase: str, obj: str) -> str:
    return phrase.replace(OBJ, obj) if OBJ in phrase else f"{phrase} {obj}"


def family_hop(words: FamilyWords, rel_type: str, subject: str, obj: str, direction: Direction | None) -> Wording:
    """A hop's wording in a family; a hop its tables lack gets the analyst wording (another SKB's relations)."""
    side: Side = direction if subject == obj and direction is not None else ""
    found = words.relations.get((relation_key(rel_type), subject, obj, side))
    return found if found is not None else hop_wording(rel_type, subject, obj, direction)


def condition_word(condition: Condition, terse: bool, rng: random.Random) -> str | None:
    """The word a condition phrase puts at ``{w}``: the onset's age, the inheritance mode (a search box may use its
    abbreviation), else the condition's text; None for an onset or inheritance term not worded as such."""
    if condition.kind == "onset":
        return onset_word(condition.text)
    if condition.kind == "inheritance":
        mode = inheritance_word(condition.text)
        if terse and mode in ABBREVIATIONS and rng.random() < 0.4:
            return ABBREVIATIONS[mode]
        return mode
    return condition.text


def _anchor(words: FamilyWords, label: str, mention: str, style: MentionStyle, rng: random.Random) -> str:
    noun = rng.choice(words.types.get(label) or type_nouns(label)).singular
    forms = words.described if style == "description" else words.named
    return rng.choice(forms).format(m=mention, noun=noun)


def _lead_ok(condition: Condition, word: str) -> bool:
    """An onset or inheritance word reads before the noun ('infantile-onset disorders', 'autosomal recessive
    conditions') only when it is short and means the mode (not 'mitochondrial disorders'); prefixes always do."""
    if condition.kind == "onset":
        return " " not in word
    if condition.kind == "inheritance":
        return word.split()[0].lower() in {"autosomal", "x-linked", "y-linked", "ar", "ad", "xlr", "xld"}
    return True


def word(
    family: Family,
    target: str,
    hops: Sequence[tuple[str, str]],
    mention: str,
    condition: Condition,
    rng: random.Random,
    *,
    style: MentionStyle = "name",
    direction: Direction | None = None,
) -> str:
    """The question in ``family``'s words: answers of type ``target`` reaching the anchor (``mention``, as
    ``style`` says) along ``hops``, under ``condition``. ``analyst`` is :func:`kgqa.runtime.reader.phrasing.natural` (a
    doc-word
    condition only); ``template`` is worded by :func:`kgqa.runtime.reader.questions.phrase`, not here."""
    if family.words is None:
        if family.name != "analyst" or condition.kind != "doc-word":
            raise ValueError(f"family '{family.name}' words only doc-word conditions here")
        style = "name" if style == "dropped-word" else style
        return natural(target, hops, mention, condition.text, rng, style=style, direction=direction)
    words = family.words
    subject = rng.choice(words.types.get(target) or type_nouns(target)).plural
    anchor = _anchor(words, hops[-1][1], mention, style, rng)
    if len(hops) == 1:
        wording = family_hop(words, hops[0][0], target, hops[0][1], direction)
        obj = anchor
    else:
        (first, middle), (second, label) = hops
        noun = rng.choice(words.types.get(middle) or type_nouns(middle)).singular
        inner = family_hop(words, second, middle, label, None)
        modifier = _fill(rng.choice(inner.modifiers), anchor)
        obj = words.inner.format(a=_article(noun), noun=noun, mod=modifier)
        wording = family_hop(words, first, target, middle, None)
    shapes = [s for s in words.shapes if (wording.verbs if s.clause == "verb" else wording.modifiers)]
    shape = rng.choice(shapes)
    predicate = _fill(rng.choice(wording.verbs if shape.clause == "verb" else wording.modifiers), obj)
    cond_words = words.conditions[condition.kind]
    value = condition_word(condition, words is TERSE, rng) or condition.text
    text_shape = shape.text
    slot = shape.condition
    if slot == "lead" and not (cond_words.lead and _lead_ok(condition, value)):
        slot, text_shape = "pre", text_shape.replace("{cond} {subj}", "{subj} {cond}")
    if slot == "lead":
        phrase = rng.choice(cond_words.lead)
    elif slot == "pre":
        phrase = rng.choice(cond_words.pre)
    else:
        phrase = rng.choice((cond_words.verb if shape.clause == "verb" else ()) or cond_words.modifier)
    if condition.kind in ("onset", "inheritance") or re.search(r"['\"]\{w\}|\{w\}[*-]", phrase):
        shown = value  # an age or a mode reads bare; a phrase that quotes its word is not quoted twice
    else:
        shown = rng.choice(words.quotes).format(w=value)
    condition_text = phrase.replace("{a}", _article(value)).replace("{w}", shown)
    text = text_shape.format(subj=subject, pred=predicate, cond=condition_text)
    if words.lower_start and text_shape[:1].isalpha() and rng.random() < words.lower_start:
        text = text[0].lower() + text[1:]  # as typed: the shape's first word, never a name
    return text
