"""Method step 1: which node type answers the question.

With one candidate type there is nothing to choose. Otherwise, in this order: the type the question itself names near
its start ("Which *drugs* target CYP3A4", "What are the *genes* ..."), the label whose hierarchy it steps through from
a linked entity ("*subtypes of* Hypotonia": in HPO only phenotypes have one), the LLM's reply, the type the phrase it
asks for means by embedding ("what *bits of DNA* ...": :func:`type_by_subject`), and the type whose name is most
similar to the whole question. The question's own words win over the LLM: an LLM that names another type than the
question does is wrong far more often than the question (measured in docs/results.md), and a wrong type loses every
answer. A reply that is not exactly one known type (after stripping quotes, backticks, punctuation and case) is no
vote. The trace records which way it went.

With a question reader trained for the SKB (kgqa.runtime.reader), its type is a confidence: it reads the type where
the question names none (:data:`READ_FLOOR`), unless the subject phrase means another type and the reader is not sure
(:data:`SUBJECT_STANDS`), sets a named type aside that it all but rules out (:data:`NAMED_FLOOR`), or that only a
lead-in before the asking sentence names, where it reads another, and outvotes an LLM where it reads a type, unless
the LLM says the type the question names and the reader has not set that type aside. Where it reads none, an LLM's
type that it all but rules out (:data:`NAMED_FLOOR`) is no vote either: one vote does not beat the reader; nor does
it beat a subject phrase that means another type at :data:`SUBJECT_OVER_READER` or more ("which
*bits of DNA* ..."), which stands against the reader too. Where step 1 outvotes the LLM, the LLM's grounded plan may
still settle the type (kgqa.runtime.steps.s1_type_evidence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from kgqa.runtime.embed import Embedder
from kgqa.runtime.llm import ChatModel, Completion, Message
from kgqa.runtime.reading import Reading
from kgqa.runtime.text import (
    ASKING,
    DETERMINERS,
    LOWER_WORD,
    NAMED_WITHIN,
    Mention,
    meant_type,
    subject_start,
    type_forms,
    type_mentions,
)

Method = Literal["only", "given", "llm", "named", "outvoted", "subject", "embedding", "reader", "hierarchy", "family"]
"""How step 1 chose: ``named`` (no LLM vote) and ``outvoted`` (the question names another type than the LLM's, or the
learned reader is sure of another) both take the question's type; ``reader``: the learned reader's type;
``hierarchy``: the label whose hierarchy the question steps through from a linked entity ("subtypes of Hypotonia");
``family``: the label of a linked family whose members the question asks for ("which types of OI")."""

NAMED_FLOOR = 0.02
"""The least probability the learned reader gives a type the question names for that type to be taken: below it,
the type word is context ("my son's *gene* test ... which disorders"). At 0.1 the reader set aside "syndromes" and
"loci" in phrasing families it never saw (docs/reader.md)."""
READ_FLOOR = 0.6
"""The learned reader's probability at which its type is taken where the question names none, and stands against an
LLM's vote; below it, the LLM's vote, else the type the subject phrase means, as without a reader. On the natural
dev half the reader was right on 49 of 52 questions it read at 0.6 or more, on 4 of 8 below."""
SUBJECT_STANDS = 0.98
"""Under this probability the reader's type gives way to another type that the question's subject phrase means
(:func:`type_by_subject`): on phrasing it never saw ("what bits of DNA ...", read as diseases at 0.91 and 0.97 by a
reader trained without the lay family) the phrase's meaning is right more often (docs/reader.md)."""
SUBJECT_OVER_READER = 0.44
"""The least similarity of the subject phrase to its type for it to set the reader's type aside: the bare
:data:`SUBJECT_SIMILARITY` is too weak ("parents of" Lisch nodules reads as genes at 0.40, "bits of DNA" at 0.45).
Chosen from the few such questions of the natural dev half and the left-out families."""


@dataclass(frozen=True)
class Linked:
    """What the entities linked in the question (step 2's name index, read before step 1) tell step 1."""

    names: tuple[tuple[str, str], ...] = ()
    """Each linked span as typed, with its node's label: a type word inside one is that entity's name ("what does
    Fragile X *syndrome* look like?"), not the type asked for."""
    hierarchy: tuple[str, str] | None = None
    """The label whose hierarchy the question steps through from a linked entity, and the word that says so
    (kgqa.runtime.steps.s2_schema_plan.hierarchy_answer)."""
    reachable: frozenset[str] = frozenset()
    """The labels an answer can have where the question's only type words are inside names linked at
    :data:`SURE_LINK` or more (kgqa.runtime.steps.s2_schema_plan.reachable_labels); empty: no bound."""
    family: tuple[str, str] | None = None
    """The label of a linked family whose members the question asks for, and the family's name
    (kgqa.runtime.steps.s2_schema_plan.family_answer: "which *types of OI*")."""

    def open_to(self, types: Sequence[str]) -> list[str]:
        """The ``types`` an answer can have that the question does not name: those a surely linked entity reaches
        ("what does Williams syndrome present with": not diseases, which HPO joins to no disease); all where
        none does."""
        return [t for t in types if t in self.reachable] or list(types)


NO_LINKS = Linked()
SURE_LINK = 0.95
"""The least similarity of a link whose neighbours in the schema bound the answer type (:attr:`Linked.reachable`): a
weaker one may be a wrong node ("SCA3" as the gene SCN3A at 0.90), whose label says nothing of the answers."""


@dataclass(frozen=True)
class TargetType:
    label: str
    method: Method
    detail: str = ""
    completion: Completion | None = None
    vote: str | None = None
    """The LLM's type, where its reply named one (it may differ from ``label``): step 2 asks the LLM for a plan of
    this type, and that plan may settle the type once grounded (kgqa.runtime.steps.s1_type_evidence)."""
    prior: Mapping[str, float] | None = None
    """The learned reader's probability of each type, where there is a reader: the type's confidence that weighs a
    plan of another type (kgqa.runtime.steps.s1_type_evidence.off_type_weight)."""
    read: Method | None = None
    """Where the LLM voted: how the question's own reading chose (``named``, ``reader``, ...; None where it read no
    type), the evidence of step 1 apart from the LLM (kgqa.runtime.steps.s1_type_evidence.rivals_of)."""
    rivals: tuple[str, ...] = ()
    """The types step 1 is unsure against (:func:`kgqa.runtime.steps.s1_type_evidence.rivals_of`): each gets the
    linked entities' plan too, and the grounded plans settle the type where no LLM plan does."""
    unwalked: bool = False
    """The question says no hierarchy, in any form of its words
    (:func:`kgqa.runtime.steps.s2_relation_meaning.says_hierarchy`): a plan joining its constants only through one
    is the schema's doing, no reading of the question (kgqa.runtime.steps.s1_type_evidence.PlanEvidence.walks)."""
    walked: str | None = None
    """The label whose hierarchy the question steps through from a linked entity (:attr:`Linked.hierarchy`): of two
    equally supported plans, the one of that label takes the step the question says
    (kgqa.runtime.steps.s1_type_evidence)."""
    firm: bool = False
    """Two readings of the question agree on ``label`` against the LLM's vote: the question names the type and the
    learned reader (where there is one) reads it too. No LLM plan overrules them (an LLM sure of the wrong type
    writes a coherent plan for it: kgqa.runtime.steps.s1_type_evidence)."""


def type_messages(question: str, types: Sequence[str]) -> list[Message]:
    listing = "\n".join(f"- {t}" for t in types)
    return [
        Message(
            "user",
            (
                "A knowledge graph has nodes of these types:\n"
                f"{listing}\n"
                "Which type of node is the answer to the question below? Reply with the type name only.\n\n"
                f"Question: {question}\n"
            ),
        )
    ]


def parse_type(reply: str, types: Sequence[str]) -> str | None:
    """The one known type the reply names, or None: exact (normalised) match first, else a single mention."""

    def norm(text: str) -> str:
        return re.sub(r"\s+", " ", text.strip().strip("`'\"*.:;!").strip().lower())

    by_norm = {norm(t): t for t in types}
    answer = norm(reply.splitlines()[0]) if reply.strip() else ""
    if answer in by_norm:
        return by_norm[answer]
    lowered = f" {reply.lower()} "
    mentioned = [t for t in types if re.search(rf"(?<![\w/]){re.escape(t.lower())}(?![\w/])", lowered)]
    return mentioned[0] if len(mentioned) == 1 else None


def type_named_in_question(
    reading: Reading, types: Sequence[str], names: Sequence[tuple[str, str]] = ()
) -> tuple[str, str] | None:
    """The type whose name (or a word of it, singular or plural) comes first among the first ``NAMED_WITHIN`` words
    of the sentence that asks (:attr:`Reading.asking`: "... was confirmed to have Kleefstra syndrome. *Which gene*
    is involved?"), else of the question, with the words that named it; None if no type is named there. Of two type
    words in a row the second is the noun ("disease genes" are genes). A type word right after the asking word
    (:func:`subject_start`) comes first whatever precedes it ("across the disorders of GANAB, *which findings*
    ..."). Where none is named there, a type word an asking word asks for later in the asking sentence ("Decreased
    motor nerve conduction velocity is documented in *which disorders*?"). A type word inside a linked entity's name
    of that type (``names``: span, label) is its name ("what are the hallmarks of Prader-Willi *syndrome*")."""
    for words in dict.fromkeys((reading.asking_words, reading.lower_words)):
        mentions = _type_words(words, types, names)
        if mentions:
            start = subject_start(words)
            if start and _determined(words, start, mentions[0]):
                start = 0
            first = next((m for m in mentions if start and m.position == start), mentions[0])
            return _head(first, mentions)
    words = reading.asking_words  # later, where an asking word asks for it: "... is documented in *which disorders*"
    mentions = _type_words(words, types, names, within=len(words))
    asked = {subject_start(words[i:], within=1) + i for i, w in enumerate(words) if w in ASKING}
    later = next((m for m in mentions if m.position in asked), None)
    return None if later is None else _head(later, mentions)


def _determined(words: Sequence[str], start: int, first: Mention) -> bool:
    """Whether the asking word before ``start`` is a determiner (:data:`DETERMINERS`) after a type word that opens
    the question (``first``, with only leading words before it): "*Diseases* caused by *any* gene linked to X" asks
    for diseases."""
    asked = next((i for i, w in enumerate(words[:start]) if w in ASKING), None)
    opening = subject_start(words, within=0)  # no asking word looked for: past the leading words alone
    return asked is not None and words[asked] in DETERMINERS and first.position == opening < asked


def _head(first: Mention, mentions: Sequence[Mention]) -> tuple[str, str]:
    """The type and words of ``first``, or of the type word right after it (its noun: "disease *genes*")."""
    head = next((m for m in mentions if m.position == first.position - first.minus_size), first)
    return head.label, head.form


def _type_words(
    words: Sequence[str], types: Sequence[str], names: Sequence[tuple[str, str]], within: int = NAMED_WITHIN
) -> list[Mention]:
    """The type mentions among the first ``within`` of ``words`` but those inside a linked span of their type
    (``names``)."""
    inside = _linked_words(words, names)
    mentions = type_mentions(words[:within], types)
    return [m for m in mentions if not set(m.words) <= inside.get(m.label, set())]


def _linked_words(words: Sequence[str], names: Sequence[tuple[str, str]]) -> dict[str, set[int]]:
    """Label -> the positions of ``words`` (lower case, :data:`LOWER_WORD`) that a linked span of that label takes."""
    inside: dict[str, set[int]] = {}
    for span, label in names:
        parts = tuple(LOWER_WORD.findall(span.lower()))
        for i in range(len(words) - len(parts) + 1):
            if parts and tuple(words[i : i + len(parts)]) == parts:
                inside.setdefault(label, set()).update(range(i, i + len(parts)))
    return inside


SUBJECT_WORDS = 4
SUBJECT_SIMILARITY = 0.4
SUBJECT_MARGIN = 0.1
"""The subject phrase names a type when it is this similar to one of the type's words, and this much more similar
than to any other type's."""


def subject_phrases(reading: Reading, names: Sequence[tuple[str, str]] = ()) -> list[str]:
    """The 1..``SUBJECT_WORDS``-word phrases where the question names what it asks for (:func:`subject_start`), up
    to the first word of a linked entity (``names``: "what's above *ataxia*" asks for what is above, not for ataxia)."""
    words = reading.lower_words
    start = subject_start(words)
    linked = set().union(*_linked_words(words, names).values())
    end = next((i for i in range(start, len(words)) if i in linked), len(words))
    return [" ".join(words[start : start + n]) for n in range(1, SUBJECT_WORDS + 1) if start + n <= end]


def type_by_subject(
    reading: Reading, types: Sequence[str], embedder: Embedder, names: Sequence[tuple[str, str]] = ()
) -> tuple[str, float, str] | None:
    """The type the question's subject phrase means ("bits of DNA" -> gene/protein, "diagnoses" -> disease) by
    embedding against every word of every type (:func:`type_words`, singular forms): the shortest phrase that is
    similar enough to one type and clear of the others ("diagnoses", not "diagnoses manifesting"); else None."""
    phrases = subject_phrases(reading, names)
    if not phrases:
        return None
    forms = type_forms(types)
    scores = embedder.embed(phrases) @ embedder.embed([f for _, f in forms]).T
    for i, phrase in enumerate(phrases):
        meant = meant_type(forms, scores[i], SUBJECT_SIMILARITY, SUBJECT_MARGIN)
        if meant is not None:
            return meant[0], meant[1], phrase
    return None


def type_by_embedding(question_vector: np.ndarray, types: Sequence[str], embedder: Embedder) -> tuple[str, float]:
    """The type whose name (``gene/protein`` read as "gene protein") is closest to the question."""
    names = [re.sub(r"[_/]+", " ", t) for t in types]
    vectors = embedder.embed(names)
    scores = vectors @ question_vector
    best = int(np.argmax(scores))
    return types[best], float(scores[best])


def predict_target_type(
    reading: Reading,
    types: Sequence[str],
    *,
    llm: ChatModel | None,
    embedder: Embedder,
    question_vector: np.ndarray,
    temperature: float = 0.0,
    learned: Mapping[str, float] | None = None,
    linked: Linked = NO_LINKS,
) -> TargetType:
    """The question's answer type (``reading``: kgqa.runtime.reading.read_question); ``learned``: the trained
    reader's probability of each type (kgqa.runtime.reader.types), when there is one; ``linked``: what the entities
    linked in the question say."""
    if len(types) == 1:
        return TargetType(types[0], "only")
    if llm is None:
        return fallback_type(reading, types, embedder, question_vector, "no LLM", learned, linked)
    completion = llm.complete(type_messages(reading.text, types), max_tokens=16, temperature=temperature)
    chosen = parse_type(completion.text, types)
    if chosen is None:
        why = f"LLM reply {completion.text.strip()[:80]!r} names no single known type"
        fallback = fallback_type(reading, types, embedder, question_vector, why, learned, linked)
        return replace(fallback, completion=completion)
    own = question_type(reading, types, learned, embedder, linked)
    named = type_named_in_question(reading, types, linked.names)
    # the LLM says the type the question names: it stands, unless the reader set that type word aside as context
    # ("the cardiologist suspects long QT *syndrome* 1 ... which part of the DNA is involved?")
    backed = named is not None and named[0] == chosen
    backed = backed and not sets_aside(chosen, learned, lead_in=named_in_lead_in(reading, types, linked.names))
    if own is not None and own[0] != chosen and not backed:  # the question's own reading is sure enough
        why = f"{own[2]}, outvoting the LLM's {chosen}"
        firm = own[1] == "named" and (not learned or max(learned, key=lambda t: learned[t]) == own[0])
        return TargetType(own[0], "outvoted", why, completion, chosen, read=own[1], firm=firm)
    if own is None and not backed and learned:  # the reader reads no type: the LLM's vote against the rest
        subject = type_by_subject(reading, types, embedder, linked.names)
        if subject is not None and subject[0] != chosen and subject[1] >= SUBJECT_OVER_READER:  # as without an LLM
            why = f"the question asks for {subject[2]!r} ({subject[1]:.3f}), outvoting the LLM's {chosen}"
            return TargetType(subject[0], "outvoted", why, completion, chosen, read="subject")
        if learned.get(chosen, 1.0) < NAMED_FLOOR:
            why = f"the LLM's {chosen}, which the learned reader all but rules out ({learned[chosen]:.2f})"
            fallback = fallback_type(reading, types, embedder, question_vector, why, learned, linked)
            return replace(fallback, completion=completion, vote=chosen, read=fallback.method)
    read: Method | None = "named" if backed else own[1] if own is not None else None
    return TargetType(chosen, "llm", "", completion, chosen, read=read)


def sets_aside(named: str, learned: Mapping[str, float] | None, *, lead_in: bool = False) -> bool:
    """Whether the learned reader sets aside the type the question names: it all but rules that type out
    (:data:`NAMED_FLOOR`) and reads another at :data:`READ_FLOOR` or more. A reader that reads no type vetoes
    nothing: on a second SKB, a reader sure of nothing gave "among *proteins* ... which metabolise ..." 0.01.
    A type named only in a lead-in (``lead_in``: :func:`named_in_lead_in`) is context wherever the reader reads
    another type at :data:`READ_FLOOR` or more ("my brother has Wilson *disease*. what causes that?")."""
    if not learned:
        return False
    best = max(learned, key=lambda label: learned[label])
    if lead_in:
        return best != named and learned[best] >= READ_FLOOR
    return learned.get(named, 0.0) < NAMED_FLOOR and learned[best] >= READ_FLOOR


def named_in_lead_in(reading: Reading, types: Sequence[str], names: Sequence[tuple[str, str]] = ()) -> bool:
    """Whether the question has a sentence before the one that asks and that asking sentence names no type (but in
    a linked name: ``names``): a type named then (:func:`type_named_in_question`) comes from the lead-in."""
    return reading.asking_words != reading.lower_words and not _type_words(reading.asking_words, types, names)


def question_type(
    reading: Reading,
    types: Sequence[str],
    learned: Mapping[str, float] | None,
    embedder: Embedder,
    linked: Linked = NO_LINKS,
) -> tuple[str, Method, str] | None:
    """The type the question itself asks for, how it was read and what says so: the label of a linked family whose
    members it asks for (:attr:`Linked.family`: "which spinocerebellar ataxias list dystonia as a *feature*?"), else
    the type it names (unless the learned reader sets it aside: :func:`sets_aside`), else the learned reader's most
    likely type where it is likely enough (:data:`READ_FLOOR`) and, under :data:`SUBJECT_STANDS`, the subject phrase
    means no other type, else the label whose hierarchy it steps through (:attr:`Linked.hierarchy`: "what falls under
    Scoliosis and is annotated for Marfan syndrome", where the reader, unsure, reads diseases); None otherwise."""
    if linked.family is not None and linked.family[0] in types:  # where it names what it asks for
        return linked.family[0], "family", f"the question asks for the members of the family {linked.family[1]!r}"
    named = type_named_in_question(reading, types, linked.names)
    if named is not None and not sets_aside(named[0], learned, lead_in=named_in_lead_in(reading, types, linked.names)):
        return named[0], "named", f"the question names it ({named[1]!r})"
    narrowed = open_types(reading, types, embedder, linked)
    among = f" among {', '.join(narrowed)}, which the linked entities reach" if len(narrowed) < len(types) else ""
    types = narrowed
    if learned:  # the reader's reading, given that the answers are of a type the linked entities reach
        total = sum(learned.get(t, 0.0) for t in types)
        learned = {t: learned.get(t, 0.0) / total for t in types} if total > 0 else None
    best = max(learned, key=lambda label: learned[label]) if learned else None
    if best is None or learned is None or learned[best] < READ_FLOOR:
        if linked.hierarchy is None or linked.hierarchy[0] not in types:
            return None
        label, word = linked.hierarchy
        return label, "hierarchy", f"{word!r} says a step in the {label} hierarchy"
    subject = type_by_subject(reading, types, embedder, linked.names) if learned[best] < SUBJECT_STANDS else None
    if subject is not None and subject[0] != best and subject[1] >= SUBJECT_OVER_READER:
        why = f"the question asks for {subject[2]!r} ({subject[1]:.3f}); the learned reader reads {best} at only"
        return subject[0], "subject", f"{why} {learned[best]:.2f}"
    return best, "reader", f"the learned reader reads it ({learned[best]:.2f}{among})"


def open_types(reading: Reading, types: Sequence[str], embedder: Embedder, linked: Linked) -> list[str]:
    """The ``types`` step 1 reads among where the question names none: those the linked entities reach
    (:meth:`Linked.open_to`), unless the subject phrase asks for one they do not reach at
    :data:`SUBJECT_OVER_READER` or more ("a list of *health problems* with a known link to a bit of DNA with a known
    link to ... syndrome, finnish type")."""
    narrowed = linked.open_to(types)
    if len(narrowed) < len(types):
        subject = type_by_subject(reading, types, embedder, linked.names)
        if subject is not None and subject[0] not in narrowed and subject[1] >= SUBJECT_OVER_READER:
            return list(types)
    return narrowed


def fallback_type(
    reading: Reading,
    types: Sequence[str],
    embedder: Embedder,
    question_vector: np.ndarray,
    why: str,
    learned: Mapping[str, float] | None = None,
    linked: Linked = NO_LINKS,
) -> TargetType:
    """Without a usable LLM answer: the type the question asks for (:func:`question_type`), else the type its
    subject phrase means, else the closest type name by embedding."""
    own = question_type(reading, types, learned, embedder, linked)
    if own is not None:
        return TargetType(own[0], own[1], f"{why}; {own[2]}")
    types = open_types(reading, types, embedder, linked)
    subject = type_by_subject(reading, types, embedder, linked.names)
    if subject is not None:
        return TargetType(subject[0], "subject", f"{why}; the question asks for {subject[2]!r} ({subject[1]:.3f})")
    fallback, score = type_by_embedding(question_vector, types, embedder)
    return TargetType(fallback, "embedding", f"{why}; closest type name ({score:.3f})")
