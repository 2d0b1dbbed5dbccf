"""The plan of the entities linked in a question (kgqa.runtime.steps.s2_linking), in place of method steps 2-3 without
an LLM: a schema-guided QueryPlan.

For each link the plan gets a path from the answer ``y`` (of the target type) to the linked entity, in either
direction: one triplet over every relationship type the schema has between the two labels, or two through an
intermediate type when the question names one before the entity ("diseases with a *phenotype* that is associated with
the gene ERLIN2") or the schema offers exactly one when the two labels are not adjacent. A hop's relationship types are
those the question means (kgqa.runtime.steps.s2_relation_meaning: named verbatim, ``'phenotype present'``; or by
wording, "lacks"; or by meaning). A link that names the answers themselves ("symptoms also called X") is a condition on
``y``, not a hop.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import pairwise

from kgqa.cypher.plan import Condition, Direction, Dropped, QueryPlan, Symbol, Triplet
from kgqa.cypher.sanitize import MAX_TRIPLETS, GraphSchema
from kgqa.runtime import lexicon
from kgqa.runtime.reading import NO_QUESTION, Reading
from kgqa.runtime.steps.s2_conditions import naming_after, naming_words
from kgqa.runtime.steps.s2_linking import Link, describe
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning, Toward, said_as, type_kinds
from kgqa.runtime.steps.s2_spans import CLAUSE_ENDS, CONJUNCTIONS, DESCRIPTION_CUES, NAME_CUES, SOMETHING
from kgqa.runtime.steps.s2_type_nouns import ARTICLES, with_nouns
from kgqa.runtime.text import (
    BROADER,
    HIERARCHY,
    NARROWER,
    NEGATION,
    STEP_WORDS,
    STOP_WORDS,
    Mention,
    subject_start,
    type_mentions,
    words_of,
)

DESCRIPTION_CUE = 4
"""Words a quoted definition's cue may take after the noun that owns it ("the manifestation *whose definition
reads* '...'", "the trait *the HPO defines as* '...'"): that noun is the anchor, not a node to go through."""


def _offered(schema: GraphSchema, a: str, b: str) -> tuple[str, ...]:
    """Relationship types between labels ``a`` and ``b``, either direction."""
    return tuple(sorted({t for s, t, d in schema.relationships if {s, d} == {a, b}}))


OWN_LABEL_WORDS = 2
"""The entity's own type named this close before a linked span ("the gene/protein ERLIN2") is no hop (another type
is: "genes linked phenotype assoc TAF8")."""


Hop = tuple[tuple[str, ...], str, Direction]
"""One hop of a linked entity's path: (relationship types, the label it reaches, the direction from the answer's
side: ``out`` where a hierarchy edge points from the answers' side, ``in`` where it points to it, else ``both``)."""


def hierarchy_types(schema: GraphSchema, label: str) -> tuple[str, ...]:
    """The hierarchy types between nodes of ``label`` (HPO's 'parent-child'), by their names' kind."""
    return tuple(t for t in _offered(schema, label, label) if HIERARCHY in type_kinds(t))


_WAY: dict[Toward | None, Direction] = {"narrower": "out", "broader": "in", None: "both"}
"""A hierarchy hop's direction: its edges point from the more specific node to the broader one (an ontology's is_a,
as kgqa.loaders.hpo stores 'parent-child' and kgqa.runtime.reader.phrasing words it)."""


STEP_SPAN = 4
"""A hierarchy step between two labels is said right before the entity ("a *more specific form of* Seizure")."""


def hierarchy_answer(
    reading: Reading,
    links: Sequence[Link],
    schema: GraphSchema,
    nouns: Sequence[Mention] = (),
    by_kind: bool = True,
) -> tuple[str, str] | None:
    """The label whose hierarchy the question steps through, and the word that says so: a hierarchy step word
    (:meth:`RelationMeaning.step`) within :data:`STEP_SPAN` words before a linked entity ("subtypes of Hypotonia",
    "what falls under Scoliosis") or right after it ("Seizure subtypes"), where that entity's label (or that of a
    same-name stand-in: :attr:`Link.others`) has a hierarchy between its own nodes, and no type is named before
    the step outside the links (type words or ``nouns``: "genes linked to a *feature* one level broader than X" step
    from the feature, not to the answers). A step within a hierarchy ends at that label, so step 1 takes it where
    the question names no answer type and the reader reads none; None where no such step is said."""
    spans = frozenset(i for link in links for i in range(link.start, link.end))
    named = [m.position for m in [*type_mentions(reading.lowered, schema.labels), *nouns] if m.position not in spans]
    meaning = RelationMeaning(reading, by_kind=by_kind, skip=spans)
    for link in sorted(links, key=lambda link: link.start):
        labels = [candidate.label for candidate in (link, *link.others) if hierarchy_types(schema, candidate.label)]
        if not labels:
            continue
        before = range(max(0, link.start - STEP_SPAN), link.start)
        at = max((i for i in before if meaning.step(range(i, before.stop))), default=None)  # the last step word
        after = link.end  # right after it, or after its article: "Seizure subtypes", "macroorchidism a kind of"
        while after < min(len(reading.lowered), link.end + 2) and reading.lowered[after] in ARTICLES:
            after += 1
        if at is None and by_kind and after < len(reading.lowered) and after not in spans:
            at = after if said_as(reading.lowered[after], STEP_WORDS) else None
        if at is not None and not any(position < at for position in named):
            return labels[0], reading.lowered[at]
    return None


@dataclass(frozen=True)
class Family:
    """A family the question names as its answers ("which types of OI ..."): its label, its name's words and the ids
    of the nodes of that label whose names hold them; the answers are among those. ``link``: the linked entity that
    names it, if one does."""

    label: str
    words: tuple[str, ...]
    members: tuple[str, ...]
    link: Link | None = None


FAMILY_SAID = lexicon.words("family_said")
FAMILY_WORDS = 3
"""Words an unlinked family's name may have ("which *Charcot-Marie-Tooth* types", "types of *Bardet-Biedl*")."""


def family_answer(reading: Reading, links: Sequence[Link], schema: GraphSchema) -> tuple[range, Link | None] | None:
    """Where the question asks for the members of a named family (word positions), and the linked entity that names
    it, if any: "which *types of* OI ...", "which Charcot-Marie-Tooth *types* ...", "which spinocerebellar *ataxias*
    ..." (a name's word in the plural where the name goes on: 'Spinocerebellar ataxia 2'). It stands where the
    sentence that asks names what it asks for (:func:`kgqa.runtime.text.subject_start`, which reads past "types of"),
    with a :data:`FAMILY_SAID` word right before it (and "of") or right after it, or said in the plural. A linked
    entity names it only where its label has no hierarchy for a kind to step down (HPO's diseases: the answers are
    those whose names hold the family's name, kgqa.runtime.steps.s2_fallback.family_members); a label with one is
    :func:`hierarchy_answer`'s. Where none is linked there, the words up to the kind word or the first stop word
    (at most :data:`FAMILY_WORDS`): the graph tells whether any names hold them. None where no family is said, where
    a type word follows it ("types of Marfan *symptoms*"), or where the question names a type and links nothing
    but the family (then the family is the answers' topic: "types of Usher syndrome: which genes?")."""
    words, start = reading.lowered, reading.asking_start
    slot = start + subject_start(words[start:])
    typed = {m.position for m in type_mentions(words, schema.labels)}
    asked = _family_span(words, slot, start, links, schema, typed)
    if asked is None or any(i in typed for i in (asked[0].stop, asked[0].stop + 1)):  # "types of Marfan *symptoms*"
        return None
    inside = {i for link in links for i in range(link.start, link.end)}
    named = any(i >= start and i not in inside for i in typed)
    if named and all(link.start < asked[0].stop and asked[0].start < link.end for link in links):
        return None  # a type named, and nothing but the family to join its answers to: the family is their topic
    return asked


def _family_span(
    words: Sequence[str], slot: int, start: int, links: Sequence[Link], schema: GraphSchema, typed: set[int]
) -> tuple[range, Link | None] | None:
    """:func:`family_answer`'s reading of the words at ``slot`` (the asking sentence starts at ``start``; ``typed``:
    the positions of type words)."""

    def kind_before(at: int) -> bool:
        before = [w for w in words[max(start, at - 2) : at] if w not in ARTICLES]
        return len(before) == 2 and before[1] == "of" and said_as(before[0], FAMILY_SAID)

    for link in links:
        if any(hierarchy_types(schema, one.label) for one in (link, *link.others)):
            continue  # a step down a hierarchy (:func:`hierarchy_answer`) where one of the span's nodes has one
        kind_after = link.end < len(words) and said_as(words[link.end], FAMILY_SAID)
        if link.start == slot and (kind_before(link.start) or kind_after or _plural_of_name(link)):
            return range(link.start, link.end), link
        if kind_before(link.start) and link.start - 2 == slot:  # "subtypes of Usher syndrome linked to MYO7A"
            return range(link.start, link.end), link
    if any(link.start <= slot < link.end for link in links):
        return None
    run = [i for i in range(slot, min(len(words), slot + FAMILY_WORDS + 1))]
    end = next((i for i in run if words[i] in STOP_WORDS or said_as(words[i], FAMILY_SAID)), None)
    if end is None or end == slot or any(link.start < end and slot < link.end for link in links):
        return None
    if typed.intersection(range(slot, end)):  # "what kinds of genes ..."
        return None
    if said_as(words[end], FAMILY_SAID) or kind_before(slot):
        return range(slot, end), None
    return None


def _plural_of_name(link: Link) -> bool:
    """Whether the last word of ``link``'s span is the plural of its name's word there, and the name goes on
    ("spinocerebellar ataxias" for 'Spinocerebellar ataxia 2'): the span names the members, not one of them."""
    said, name = words_of(link.span.lower()), words_of(link.name.lower())
    at = len(said) - 1
    return 0 <= at < len(name) - 1 and plural_of(said[at], name[at])


def plural_of(said: str, word: str) -> bool:
    """Whether ``said`` is ``word`` in the plural, by an "s" or "es" ("ataxias", "syndromes")."""
    return said in (f"{word}s", f"{word}es")


def reachable_labels(
    reading: Reading, links: Sequence[Link], schema: GraphSchema, nouns: Sequence[Mention], floor: float
) -> frozenset[str]:
    """The labels an answer can have where the only type words of the question lie inside the names of entities
    linked at ``floor`` or more, of that type ("what does Williams *syndrome* present with"): those the schema joins
    to the linked labels (HPO joins no disease to a disease), so that a reader that read the name's word does not
    make the answers the entity's own kind. Empty (no bound) where a type is named outside the links in the sentence
    that asks (a lead-in's "I keep mixing up the *syndromes*" is context), or no sure
    link holds a word of its own type: there, a path through another type may be meant ("genes linked to a
    *condition* linked to TMEM237"). Where the sentence that asks says a negation, the labels joined to them by a
    negated type, if any ("what doesn't Marfan syndrome cause": HPO negates only a disease's phenotypes)."""
    sure = [one for link in links for one in (link, *link.others) if one.similarity >= floor]
    spans = {i for link in links for i in range(link.start, link.end)}
    mentions = [*type_mentions(reading.lowered, schema.labels), *nouns]
    if any(not spans.intersection(m.words) and m.position >= reading.asking_start for m in mentions):
        return frozenset()
    own = {m.label for m in mentions for link in sure if link.label == m.label and link.start <= m.position < link.end}
    if not own:
        return frozenset()
    labels = {link.label for link in sure}
    ends = [(b, t) for a, t, c in schema.relationships for x, b in ((a, c), (c, a)) if x in labels]
    joined = frozenset(b for b, _ in ends)
    asking = range(reading.asking_start, len(reading.lowered))
    if not RelationMeaning(reading, skip=frozenset(spans)).says(NEGATION, asking):
        return joined
    return frozenset(b for b, t in ends if NEGATION in type_kinds(t)) or joined


def _path(
    link: Link,
    target: str,
    schema: GraphSchema,
    meaning: RelationMeaning,
    mentions: Sequence[tuple[int, str]],
    after: int,
    trailing: range | None = None,
    naming: int = 0,
) -> list[Hop] | None:
    """The hops from the target type to the link's label, or None if the schema has none. An intermediate type
    counts when the question names it (``mentions``) between word ``after`` and the link; each hop's types are those
    the question means (kgqa.runtime.steps.s2_relation_meaning), the hop next to the link also reading the words after
    it (``trailing``); a hierarchy hop goes the way the question says ("subtypes of X"), and a question that says a
    way between two labels with no hierarchy between them ("diseases with a *subtype of* Seizure") goes through a
    node of the link's label that is one step from it in its hierarchy. ``naming``: the words right before the
    link that say it is a name ("the phenotype *known as* X": the phenotype is X, no hop) or quote its definition."""

    def joins(middle: str) -> bool:
        return bool(_offered(schema, target, middle)) and bool(_offered(schema, middle, link.label))

    def hop(a: str, b: str, within: range, trail: range | None = None) -> Hop:
        types = meaning.types(a, b, _offered(schema, a, b), within, trail)
        return types, b, _WAY[meaning.toward(a, b, types, within, trail) if a == b else None]

    named = [
        (label, position)
        for position, label in mentions
        if after <= position < link.start - (OWN_LABEL_WORDS + naming if label == link.label else 0)
    ]
    via = [(m, position) for m, position in reversed(named) if joins(m)]
    if not via and not _offered(schema, target, link.label):  # not adjacent: the one intermediate type there is
        only = [m for m in schema.labels if joins(m)]
        via = [(only[0], -1)] if len(only) == 1 else []
    stretch = range(after, link.start)
    hierarchy = hierarchy_types(schema, link.label)
    near = range(max(after, link.start - STEP_SPAN), link.start)
    if not via and target != link.label and hierarchy and _offered(schema, target, link.label) and meaning.step(near):
        via = [(link.label, -1)]
    if not via and target != link.label:
        via = [(m, -1) for m in _said_between(schema, target, link.label, meaning, stretch, trailing)]
    if via:  # each hop reads the words between its two ends ("... a symptom *absent in* X")
        middle, at = via[0]
        first, second = (range(after, at), range(at + 1, link.start)) if at >= 0 else (stretch, stretch)
        moved = _negation_moves(schema, target, middle, link.label, meaning, first, second, trailing, mentions)
        if moved is not None:
            second = range(moved, second.stop)
        return [hop(target, middle, first), hop(middle, link.label, second, trailing)]
    direct = hop(target, link.label, stretch, trailing)
    if direct[0] and target == link.label and direct[2] != "both" and _two_steps(meaning.reading, stretch, trailing):
        return [direct, direct]  # "the parent of its parents": through a node one step between
    return [direct] if direct[0] else None


def _two_steps(reading: Reading, stretch: range, trailing: range | None) -> bool:
    """Whether the words of a hierarchy hop chain two step words of one way by "of" ("the *parent of* its
    *parents*", "*children of* the *children* of X"): the answers are two steps from the entity. "A more specific
    child of X" is one step."""
    words = reading.lowered
    for span in (stretch, trailing or range(0)):
        for way in (NARROWER, BROADER):
            steps = [i for i in span if i < len(words) and said_as(words[i], way)]
            for a, b in pairwise(steps):
                between = words[a + 1 : b]
                if between and between[0] == "of" and all(w in STOP_WORDS for w in between):
                    return True
    return False


def _negation_moves(
    schema: GraphSchema,
    target: str,
    middle: str,
    label: str,
    meaning: RelationMeaning,
    first: range,
    second: range,
    trailing: range | None,
    mentions: Sequence[tuple[int, str]],
) -> int | None:
    """Where the second hop's words start when a negation said in the first hop's words is the second hop's: after
    an earlier noun of the middle's type in them, the negation that follows it ("genes linked to a *sign explicitly
    excluded* from the phenotype of X", where the later "phenotype" is the middle's noun), the first hop having no
    negated type and the second one, and saying no negation itself. A negation before the middle's only noun is the
    first hop's ("genes *not* associated with a sign present in X" keeps 'phenotype present'). None: nothing moves."""
    if any(NEGATION in type_kinds(t) for t in _offered(schema, target, middle)) or not any(
        NEGATION in type_kinds(t) for t in _offered(schema, middle, label)
    ):
        return None
    if meaning.says(NEGATION, second, trailing):
        return None
    noun = next((at for at, of in mentions if of == middle and at in first), None)
    if noun is None or not meaning.says(NEGATION, range(noun + 1, first.stop)):
        return None
    return noun + 1


def _said_between(
    schema: GraphSchema, target: str, label: str, meaning: RelationMeaning, stretch: range, trailing: range | None
) -> list[str]:
    """The one label to go through when the question says a negation no type between ``target`` and ``label`` has
    but one between that label and ``label`` does ("genes linked to a finding *noted as absent in* disease X": genes
    and diseases have no absent relation, phenotypes and diseases do); none otherwise."""
    direct = _offered(schema, target, label)
    if any(NEGATION in type_kinds(t) for t in direct) or not meaning.says(NEGATION, stretch, trailing):
        return []
    middles = [
        m
        for m in schema.labels
        if m not in (target, label)
        and _offered(schema, target, m)
        and any(NEGATION in type_kinds(t) for t in _offered(schema, m, label))
    ]
    return middles if len(middles) == 1 else []


COPULAS = lexicon.words("copulas")
RESTATED_MODIFIERS = 2


def _restated(words: Sequence[str], at: int, label: str, target: str) -> bool:
    """Whether the answer type named at ``at`` only restates the answer ("symptoms that *are features* of the
    condition X", "is a symptom of", "are *recognized* features of"): a predicate, not an intermediate node to go
    through. Between the copula and the noun: an article, and at most :data:`RESTATED_MODIFIERS` other words, none a
    stop word."""
    if label != target:
        return False
    modifiers, i = 0, at - 1
    while i >= 0 and words[i] not in COPULAS:
        if words[i] not in ARTICLES:
            modifiers += 1
            if words[i] in STOP_WORDS or modifiers > RESTATED_MODIFIERS:
                return False
        i -= 1
    return i >= 0


def _coordinated_type(words: Sequence[str], at: int, answer_end: int, label: str, target: str) -> bool:
    """Whether the type named at ``at`` is the answer's again, coordinated with it ("signs *or symptoms*")."""
    return label == target and at == answer_end + 1 and words[answer_end] in CONJUNCTIONS


def _named_types(reading: Reading, schema: GraphSchema) -> set[int]:
    """Positions of the words of a relationship type the question quotes ("a 'phenotype present' relation"): its
    "phenotype" names no node type to go through (unquoted, "a phenotype present in X" does)."""
    found: set[int] = set()
    for rel_type in {t for _, t, _ in schema.relationships}:
        size = len(words_of(rel_type))
        for match in re.finditer(rf"(['\"`]){re.escape(rel_type)}\1", reading.text, re.IGNORECASE):
            first = len(words_of(reading.text[: match.start()]))  # the words before the quote
            found |= set(range(first, first + size))
    return found


def _coordinated(words: Sequence[str], first: Link, second: Link) -> bool:
    """Whether ``second`` is joined to ``first`` by a conjunction alone ("lack X and Y", "X or Y"): it shares its
    hop."""
    between = [w for w in words[first.end : second.start] if w not in ARTICLES]
    return len(between) == 1 and between[0] in CONJUNCTIONS


def _shown(path: Sequence[Hop]) -> str:
    return " then ".join(f"{'|'.join(types)} ({label})" for types, label, _ in path)


NAME_FILLERS = lexicon.words("name_fillers")
"""Words between a naming cue and the name ("known *as the* X", "go *by the name* X")."""
NAME_OWNERS = lexicon.words("name_owners")
"""Words between a naming cue and the noun it names ("symptoms *that are also* called X")."""


def _naming_cue(words: Sequence[str], start: int, *, descriptions: bool = True) -> int:
    """How many words right before ``start`` say that what follows is a name ("known as", "called the"), or the
    node's text (at least :data:`DESCRIPTION_CUE`: "whose definition reads X"): 0 if none (or past the words: a
    link the question's words do not hold). Without ``descriptions``, names only: a node's text said is no other
    name of the answers ("findings more general than the manifestation whose definition *reads* X")."""
    if start > len(words):
        return 0
    i = start - 1
    while i >= 0 and start - i <= 3 and words[i] in NAME_FILLERS:
        i -= 1
    if descriptions and i >= 0 and words[i] in DESCRIPTION_CUES:
        return max(start - i, DESCRIPTION_CUE)
    return start - i if i >= 0 and words[i] in NAME_CUES else 0


def names_answer(words: Sequence[str], link: Link, target: str, mentions: Sequence[Mention], answer: int) -> bool:
    """Whether ``link`` is another name of the answers themselves ("symptoms that are sometimes called X"), not an
    entity they relate to: it has the answer type, a naming cue comes right before it, and no other type mention
    owns that cue ("the symptom known as X", "something called X" name an anchor), nor does a noun the question
    brings in with an article right before it ("the *health problem* known as X")."""
    if link.label == target and naming_after(words, link.end):
        return True  # "which signs list 'X' as an alternative name": their name, said after it
    cue = _naming_cue(words, link.start, descriptions=False)
    if link.label != target or not cue:
        return False
    j = link.start - cue - 1
    while j >= 0 and words[j] in NAME_OWNERS:
        j -= 1
    if j >= 0 and words[j] in SOMETHING:
        return False
    owner = next((m for m in mentions if j in m.words), None)
    if owner is None and j == link.start - cue - 1 and ARTICLES.intersection(words[max(0, j - 2) : j]):
        return False
    return owner is None or owner.position == answer


UNREACHED = "no"
"""How the reason of a link dropped because no answer reaches it starts (:func:`unreached`)."""


def unreached(dropped: Dropped) -> bool:
    """Whether ``dropped`` is a link no node of the answer type reaches (not a bound: nothing was lost)."""
    return dropped.reason.startswith(f"{UNREACHED} ")


Reaches = Callable[[Link, Sequence[Hop]], bool]
"""Whether a linked entity reaches a node of the answer type along its hops (one store read)."""
Rejoin = Callable[[Link], "Link | None"]
"""The longer name a link is the head of (:func:`kgqa.runtime.steps.s2_linking.compound_link`), or None."""


def schema_guided_plan(
    links: Sequence[Link],
    target_type: str,
    schema: GraphSchema,
    reading: Reading = NO_QUESTION,
    meaning: RelationMeaning | None = None,
    *,
    max_triplets: int = MAX_TRIPLETS,
    reaches: Reaches | None = None,
    nouns: Sequence[Mention] = (),
    rejoin: Rejoin | None = None,
    family: Family | None = None,
    by_name: Family | None = None,
) -> QueryPlan | None:
    """``(y:target)-[:t1|t2...]-(e_i:label_i {name: ...})`` for every link the schema connects to the target type,
    through ``(m_i:label)`` where the question names an intermediate type (see the module docstring). ``meaning``
    narrows each hop's types (default: only types the question names verbatim). A node linked again (the question
    names it twice) is joined once; links past ``max_triplets`` triplets are not joined, each in the plan's
    ``dropped`` with the reason: a question that repeats its entities must not multiply the plan's joins. With
    ``reaches``, a link no node of the target type reaches along its hops (HPO's root 'Onset', which no disease
    presents) is dropped too: as a required constant it would ground nothing until the scope expansion wandered off
    to its neighbours, and its words stay with the full-text strand, unless ``rejoin`` finds the longer name it heads
    and that name is reached. ``nouns``: the types the question names in words the lists lack
    (:func:`kgqa.runtime.steps.s2_type_nouns.type_nouns`). ``family``: the family the question names as the answers
    (:func:`family_answer`): where they are of its label, they are among its members, and the entity that names it is
    joined to nothing. ``by_name``: the nodes of another label the question names by what their names hold ("a disease
    *whose name mentions* Bardet-Biedl", kgqa.runtime.steps.s2_fallback.named_middle): the answers are joined to one
    of them."""
    meaning = meaning or RelationMeaning(reading, by_kind=False)
    if family is not None and family.label == target_type:
        links = [link for link in links if link is not family.link]
    else:
        family = None
    symbols = [Symbol("y", (target_type,))]
    triplets: list[Triplet] = []
    words = reading.lowered
    named_types = _named_types(reading, schema)
    named = {i for link in links for i in range(link.start, link.end)}  # "syndrome" in "Marfan syndrome" names none
    spans = [m for m in with_nouns(type_mentions(words, schema.labels), nouns) if m.position not in named]
    mentions = [(at, label) for at, label in sorted({(m.position, m.label) for m in spans}) if at not in named_types]
    answer = next((position for position, label in mentions if label == target_type), -1)
    answer_end = next((m.position - m.minus_size for m in spans if m.position == answer), answer + 1)
    mentions = [
        (at, label)
        for at, label in mentions
        if at <= answer
        or not (
            _restated(words, at, label, target_type) or _coordinated_type(words, at, answer_end, label, target_type)
        )
    ]
    after = answer + 1  # hops are named after the answer's type and after the previous linked entity
    named_at = {at for at, _ in mentions}
    naming = naming_words(reading)
    identity: Link | None = None
    joined: set[tuple[str, str]] = set()
    dropped: list[Dropped] = []
    excluded: list[QueryPlan] = []
    previous: tuple[Link, list[Hop]] | None = None
    unnegated: list[tuple[int, Link, list[Hop], QueryPlan | None]] = []  # negated hops reaching nothing, affirmed

    def join(number: int, link: Link, path: Sequence[Hop]) -> None:
        joined.add((link.label, link.id))
        name = f"e{number}"
        if len(path) == 2:
            middle = f"m{number}"
            symbols.append(Symbol(middle, (path[0][1],)))
            triplets.extend(
                [Triplet("y", path[0][0], middle, path[0][2]), Triplet(middle, path[1][0], name, path[1][2])]
            )
        else:
            triplets.append(Triplet("y", path[0][0], name, path[0][2]))
        symbols.append(Symbol(name, (link.label,), (Condition("name", "=", link.search),)))

    # the answers' own type word is no middle node of a hop, nor an entity's right after it ("the PMP22 *gene*")
    middles = [m for m in mentions if m[0] != answer and not any((link.end, link.label) == m for link in links)]
    for number, link in enumerate(links):
        following = min(links[number + 1].start if number + 1 < len(links) else len(words), len(words))
        # the words after the entity up to the next clause ("seizures since he was a baby, *he doesn't talk*" says
        # nothing of seizures); an entity said in the clause of the answers' type before it, or right before that
        # clause, is its topic ("X: which traits are negatively annotated?"), and that clause, up to the next
        # entity, says its hop
        between = [i for i in reading.clauses if link.end <= i <= answer]
        topic = answer >= 0 and link.end <= answer and between in ([], [link.end])
        start = answer_end if topic else link.end
        clause = min((i for i in reading.clauses if start < i < following), default=following)
        stops = (i for i in range(link.end, clause) if words[i] in CLAUSE_ENDS or i in named_at)
        trailing = range(link.end, clause if topic else next(stops, clause))
        if identity is None and names_answer(words, link, target_type, spans, answer):
            identity = link  # "symptoms also called X": the answers are X's node, or nodes named like it
            after = link.end
            continue
        if link.label != target_type and link.start in naming:  # no hop to read for it
            dropped.append(Dropped(describe(link), "another name of the answers, not an entity of theirs"))
            continue
        cue = DESCRIPTION_CUE if link.described else _naming_cue(words, link.start)
        path_of = partial(
            _path,
            target=target_type,
            schema=schema,
            meaning=meaning,
            mentions=middles,
            # an entity said before the answers' type reads the words before it ("*a specialisation of* X appears
            # in which diseases?"), from the previous entity on
            after=after if after <= link.start else (links[number - 1].end if number else 0),
            trailing=trailing,
            naming=cue,
        )
        link, path = _joined(link, path_of, reaches)
        if previous is not None and path is not None and _coordinated(words, previous[0], link):
            path = previous[1] if previous[0].label == link.label else path  # "lack X and Y": Y's hop is X's
        if path is None or (link.label, link.id) in joined:
            after = link.end
            continue
        reached = reaches is None or reaches(link, path)
        if not reached and reaches is not None and rejoin is not None:
            longer = rejoin(link)  # "their *onset* falling within the *young adult* category": 'Young adult onset'
            if longer is not None and reaches(longer, path):
                link, reached = longer, True
        middle_named = any(label == path[0][1] for at, label in mentions if after <= at < link.start)
        exclusion = _exclusion(link, path, target_type, schema, middle_named)
        excluded += [exclusion] if exclusion is not None else []
        if not reached:  # the next entity's hop reads the words before it too
            dropped.append(Dropped(describe(link), f"{UNREACHED} {target_type} reaches it along {_shown(path)}"))
            affirmed = _affirmed(path, target_type, link.label, schema)
            unnegated += [(number, link, affirmed, exclusion)] if affirmed is not None else []
            continue
        after = link.end
        if len(triplets) + len(path) > max_triplets:
            dropped.append(Dropped(describe(link), f"beyond max_triplets = {max_triplets}"))
            continue
        previous = (link, path)
        join(number, link, path)
    if not triplets and identity is None and family is None and by_name is None:
        # every hop a negation narrowed reaches nothing: "symptoms of cystic fibrosis if *not* treated" does not
        # ask for the findings annotated absent in it (none are), and answers held by absence alone are no answers
        taken = next((u for u in unnegated if reaches is None or reaches(u[1], u[2])), None)
        if taken is not None:
            excluded = [e for e in excluded if e is not taken[3]]
            dropped = [d for d in dropped if d.text != describe(taken[1])]
            join(*taken[:3])
    offered = _offered(schema, target_type, by_name.label) if by_name is not None else ()
    if by_name is not None and offered and by_name.label != target_type:  # "a disease *whose name mentions* X"
        types = meaning.types(target_type, by_name.label, offered, range(max(answer, 0), len(words)))
        symbols.append(Symbol("f", (by_name.label,), (Condition(schema.keys.id, "IN", by_name.members),)))
        triplets.append(Triplet("y", types, "f", "both"))
    if identity is not None:
        symbols[0] = Symbol("y", (target_type,), (Condition("name", "=", identity.search),))
    elif family is not None:
        symbols[0] = Symbol("y", (target_type,), (Condition(schema.keys.id, "IN", family.members),))
    if not triplets and identity is None and family is None:  # a family alone: its members are the answers
        return None
    return QueryPlan(tuple(symbols), tuple(triplets), "y", dropped=tuple(dropped), excluded=tuple(excluded))


def _affirmed(path: Sequence[Hop], target: str, label: str, schema: GraphSchema) -> list[Hop] | None:
    """``path`` with its last hop's negated types (HPO's 'phenotype absent') replaced by the types of no negation
    between the same labels; None where that hop is not all negated or nothing else joins them."""
    types, end, way = path[-1]
    if not types or not all(NEGATION in type_kinds(t) for t in types):
        return None
    kept = _unnegated(schema, path[-2][1] if len(path) > 1 else target, label)
    return [*path[:-1], (kept, end, way)] if kept else None


def _unnegated(schema: GraphSchema, source: str, target: str) -> tuple[str, ...]:
    """The relationship types between ``source`` and ``target`` that say no negation."""
    return tuple(t for t in _offered(schema, source, target) if NEGATION not in type_kinds(t))


def _exclusion(
    link: Link, path: Sequence[Hop], target: str, schema: GraphSchema, middle_named: bool
) -> QueryPlan | None:
    """The plan of the answers a negated link excludes: those joined to it directly by the types of no negation
    ("diseases with chorea but *no seizures*": those with Seizure present). A hop said with a negation keeps its
    negated type in the plan (HPO's 'phenotype absent'), but people mean "without": an annotation of absence is rare
    (a question of two findings and one absent grounds nothing) and never joins an answer that has the finding too,
    so excluding those that do is what both readings agree on. Where the negation led the path through a label the
    question did not name ("genes associated with X but *not with* Y" through a disease Y is absent in), what joins
    the answers to Y directly is excluded. None where the link's hop says no negation, or the path goes through a
    label the question names ("genes linked to diseases annotated as not having Y": genes of other diseases may
    well have Y)."""
    types = path[-1][0]
    if not types or not all(NEGATION in type_kinds(t) for t in types) or (len(path) == 2 and middle_named):
        return None
    kept = _unnegated(schema, target, link.label)
    if len(path) > 2 or not kept:
        return None
    entity = Symbol("e", (link.label,), (Condition("name", "=", link.search),))
    return QueryPlan((Symbol("y", (target,)), entity), (Triplet("y", kept, "e", "both"),), "y")


def _joined(
    link: Link, path_of: Callable[[Link], list[Hop] | None], reaches: Reaches | None
) -> tuple[Link, list[Hop] | None]:
    """``link`` and its path, or where the schema joins it to no answer (or no answer reaches it), the first of
    the links of other labels to its span (:attr:`Link.others`) that is joined and reached: "diseases with
    *ectopia lentis*" means HPO's phenotype, not the disease of that name."""
    path = path_of(link)
    if not link.others or (path is not None and (reaches is None or reaches(link, path))):
        return link, path
    for other in link.others:
        found = path_of(other)
        if found is not None and (reaches is None or reaches(other, found)):
            return other, found
    return link, path


def relaxations(plan: QueryPlan) -> list[tuple[str, QueryPlan]]:
    """The plan without each of its constants in turn, with the intermediate nodes joined only for it: (the
    constant's search string, the relaxed plan); none for a plan of fewer than two constants. A question's linked
    entities are each evidence; where the plan that joins them all grounds too little, the answers that meet all
    but one of them are the next best (a linked span that is really part of a textual condition, or a hop the
    question words loosely, no longer empties the graph strand)."""
    constants = [c.name for c in plan.constants]
    if len(constants) < 2:
        return []
    out = []
    for name in constants:
        if name == plan.target:  # the answers' own name ("also called X") relaxed: the relations alone
            if plan.triplets:
                bare = tuple(replace(s, conditions=()) if s.name == name else s for s in plan.symbols)
                out.append((plan.symbol(name).search_string or name, replace(plan, symbols=bare)))
            continue
        triplets = [t for t in plan.triplets if name not in (t.head, t.tail)]
        while True:  # intermediates left hanging (joined to one node only) go too
            degree: dict[str, int] = {}
            for t in triplets:
                degree[t.head] = degree.get(t.head, 0) + 1
                degree[t.tail] = degree.get(t.tail, 0) + 1
            hanging = {s for s, n in degree.items() if n == 1 and s != plan.target and s not in constants}
            if not hanging:
                break
            triplets = [t for t in triplets if not hanging & {t.head, t.tail}]
        used = {plan.target} | {s for t in triplets for s in (t.head, t.tail)}
        symbols = tuple(s for s in plan.symbols if s.name in used)
        out.append((plan.symbol(name).search_string or name, replace(plan, symbols=symbols, triplets=tuple(triplets))))
    return out
