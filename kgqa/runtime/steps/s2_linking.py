"""The graph strand without an LLM (``--llm none``): a schema-guided plan in place of method steps 2-3.

Entities are linked by the name index: every word n-gram of the question (1-6 words, not starting or ending with a stop
word) is embedded and looked up in the name vector index of each label; n-grams whose best match is at least
``threshold`` similar are links, taken greedily without overlapping: well-matching longer spans first, then by
similarity (see ``_priority``). For each link the plan gets a path from the answer ``y`` (of the target type) to the
linked entity, in either direction: one triplet over every relationship type the schema has between the two labels, or
two through an intermediate type when the question names one before the entity ("diseases with a *phenotype* that is
associated with the gene ERLIN2") or the schema offers exactly one when the two labels are not adjacent. A hop's
relationship types are those the question means (kgqa.runtime.steps.s2_relation_meaning: named verbatim, ``'phenotype
present'``; or by wording, "lacks"; or by meaning). Where the graph has aliases (HPO synonyms, gene names), spans are
looked up in the alias index too, so "enlarged liver" links to 'Hepatomegaly'. The linked entity becomes a constant
whose search string is the node's own name, or the alias that matched, so an exact match puts it first in step 4 (an
alias two nodes share puts both there, in id order) and scope expansion still works.

A question's spans are capped (``max_link_ngrams``, :func:`link_spans`): each costs an embedding and a vector query per
label, so a long question's spans cost without bound. The cap keeps the spans of the question's first words, in
order of appearance (every length at a word before the next word), so that the part that is linked is linked exactly as
without the cap; the trace says how far linking read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kgqa.cypher.plan import Condition, Direction, Dropped, QueryPlan, Symbol, Triplet
from kgqa.cypher.sanitize import MAX_TRIPLETS, GraphSchema
from kgqa.runtime.embed import Embedder
from kgqa.runtime.reader.spelling import Spelling
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning, Toward, type_kinds
from kgqa.runtime.store.base import GraphStore
from kgqa.runtime.text import (
    HIERARCHY,
    KINDS,
    NEGATION,
    RELATIONAL,
    STOP_WORDS,
    Mention,
    meant_type,
    plain_words,
    quotations,
    quoted_runs,
    subject_start,
    type_forms,
    type_mentions,
    type_words,
    words_of,
)

MAX_NGRAM = 10
SHORT_NGRAM = 6
"""Spans of up to ``SHORT_NGRAM`` words link at the threshold; longer ones (HPO's "Abnormality of the epiphyses of
the 3rd finger") only when all but exactly a name (``JOINED_SPAN_SIMILARITY``) and holding no word that says a
relation, a name or an untyped anchor: a long span must not swallow its hop ("absent in the disorder X")."""
CONJUNCTIONS = frozenset({"and", "or", "but", "nor"})
LONG_SPAN_SIMILARITY = 0.9
JOINED_SPAN_SIMILARITY = 0.97
"""A span joining phrases by a conjunction counts as one name only this similar to it (punctuation aside)."""
MAX_LINK_SPANS = 1000
"""Most spans one question's linking embeds and searches when the caller passes no ``max_link_ngrams``."""

Span = tuple[int, int, str]
"""(start, end, text): words [start, end) of the question"""


@dataclass(frozen=True)
class Link:
    span: str
    start: int
    end: int
    """word positions [start, end) in the question"""
    label: str
    id: str
    name: str
    similarity: float
    alias: str = ""
    """the node's alias that matched the span ('' when its name did)"""
    described: bool = False
    """the span is a quotation of the node's definition (:func:`described_anchors`), not a name of it"""

    @property
    def search(self) -> str:
        """The linked constant's search string: the name or alias that matched, so that step 4 finds the node by
        an exact match first (and its evidence says which alias matched)."""
        return self.alias or self.name


def describe(link: Link) -> str:
    """How the trace shows a link: span -> label 'name' (via which alias) (similarity)."""
    via = f" via alias '{link.alias}'" if link.alias else " by its document" if link.described else ""
    return f"'{link.span}' -> {link.label} '{link.name}'{via} ({link.similarity:.2f})"


ALIAS_HITS = 10
"""Alias-index hits read per n-gram: the index spans every label, so the best of each label needs a few."""


_CUES = "mention mentions mentioning mentioned word words"
TEXT_CUES = frozenset(_CUES.split())
"""Words after which a question states a textual condition ("... and mention 'glycinuria'", "with the word X"), not
an entity ("involving" and "containing" introduce entities as often: "pathways involving TP53")."""
NAMING_PHRASES = (
    "also called",
    "also known as",
    "otherwise known as",
    "also named",
    "aka",
    "a k a",
    "the synonym",
    "a synonym",
    "syn",
)
"""Phrases after which the question gives another name of the answers ("phenotypes also called 'X'"): a span there
is linked only to find the answer it names (:func:`names_answer`), never joined as an entity of another type."""
NAMING_WORDS = frozenset(word for phrase in NAMING_PHRASES for word in phrase.split() if len(word) > 1) - STOP_WORDS
"""The words of a naming cue: a span of them alone names nothing ("syn." is no gene 'SYN2')."""
TEXT_PHRASES = (
    *NAMING_PHRASES,
    "name contains",
    "name includes",
    "names contain",
    "names include",
    "name containing",
    "symbol starts with",
    "symbol starting with",
    "symbol begins with",
    "symbols start with",
    "symbols begin with",
    "starts with",
    "begins with",
    "starting with",
)
"""Phrases after which the question says what the answers' own text holds: another name of theirs, a part of their
name or symbol. The words that follow reach the full-text strand and are no entity to join ("phenotypes whose name
contains 'X'" are not linked to X); after :data:`NAMING_PHRASES` they may name the answer itself."""
OWN_TEXT_PHRASES = tuple(p for p in TEXT_PHRASES if p not in NAMING_PHRASES)
"""The :data:`TEXT_PHRASES` whose words are never linked (another name may be: it finds the answer it names)."""
DOC_NOUNS = frozenset(
    {"description", "descriptions", "definition", "definitions", "summary", "entry", "text", "explanation"}
    | {"name", "names", "label", "labels"}
)
"""Nouns for a node's own text: "with 'X' *in their summary*", "whose *descriptions* reference X"."""
TEXT_AFTER = tuple(
    f"in {owner} {noun}"
    for owner in ("their", "its", "the")
    for noun in sorted(DOC_NOUNS - {"text", "explanation", "label", "labels"})
)
CONTAIN_VERBS = frozenset(
    {"contain", "contains", "include", "includes", "reference", "references", "use", "uses", "cite", "cites"}
)
"""Verbs after a :data:`DOC_NOUNS` noun that give what the text holds ("whose descriptions *reference* X", "an entry
that *contains* X"); "reads" and "is" give the whole text, a definition that names an anchor."""
CONDITION_WORDS = 3
"""Words a textual condition runs for after its cue (or before ``TEXT_AFTER``), up to a stop word."""


def _phrase_starts(lowered: Sequence[str], phrase: str) -> list[int]:
    """Word positions where ``phrase`` (words) starts in ``lowered``."""
    parts = phrase.split()
    return [i for i in range(len(lowered) - len(parts) + 1) if list(lowered[i : i + len(parts)]) == parts]


INNER = frozenset({"of", "the", "a", "an"})
"""Stop words a condition's phrase runs on through ("tumor of the uterine cervix"), when a word follows."""


def _run(lowered: Sequence[str], positions: range) -> set[int]:
    """The positions of ``positions`` up to the first stop word or the end of the question; going forward, a phrase
    that goes on after "of" or an article keeps going ("tumor of the uterine cervix"), for as many words again. A
    word that says a relation's kind ends it ("the word 'combined' *lack* Seizure"), and so does a closing quote."""
    out: set[int] = set()
    allowed, extended = len(positions), False
    i, step = positions.start, positions.step
    while 0 <= i < len(lowered) and len(out) < allowed:
        if out and lowered[i] in RELATIONAL:
            break
        if step > 0 and lowered[i].endswith("'"):
            out.add(i)
            break
        if lowered[i] in STOP_WORDS:
            j = i
            while step > 0 and j < len(lowered) and lowered[j] in INNER:
                j += 1
            if step < 0 or not out or j == i or j >= len(lowered) or lowered[j] in STOP_WORDS:
                break
            if not extended:
                allowed, extended = allowed + len(positions), True
            i = j
            continue
        out.add(i)
        i += step
    return out


def _phrase_ends(lowered: Sequence[str], phrases: Sequence[str]) -> set[int]:
    """The positions right after each place one of ``phrases`` is said."""
    return {at + len(phrase.split()) for phrase in phrases for at in _phrase_starts(lowered, phrase)}


def _runs_from(lowered: Sequence[str], starts: set[int]) -> set[int]:
    """The condition's words (:func:`_run`) from each of ``starts``."""
    return {i for start in starts for i in _run(lowered, range(start, start + CONDITION_WORDS))}


def naming_words(words: Sequence[str], question: str | None = None) -> set[int]:
    """Positions of the words after a :data:`NAMING_PHRASES` phrase, or before a naming cue of the answers
    (:func:`named_before`): another name of the answers."""
    lowered = [w.lower() for w in words]
    runs = quoted_runs(question) if question is not None else []
    return _runs_from(lowered, _phrase_ends(lowered, NAMING_PHRASES)) | named_before(lowered, runs)


SYNONYM_WORDS = frozenset({"synonym", "synonyms", "alias", "aliases"})
OTHER_WORDS = frozenset({"alternative", "alternate", "another", "other", "additional"})
NAMED_AFTER_FILLERS = frozenset({"as", "a", "an", "one", "of", "their", "its", "listed", "among"}) | OTHER_WORDS
NAMED_AFTER_WORDS = 5
"""Words a naming cue said after the name may take before its noun ("'X' *as one of their* synonyms")."""


def naming_after(lowered: Sequence[str], end: int) -> int:
    """How many words right after ``end`` say that the words before are another name of the answers ("list 'X'
    as an alternative name", "with X listed among their synonyms", "with X as a recorded synonym"): 0 if none, or
    if the name is the anchor's ("a sign with X among *its* synonyms")."""
    i = end
    while i < len(lowered) and i - end < NAMED_AFTER_WORDS:
        if not (
            lowered[i] in NAMED_AFTER_FILLERS or (i > end and _participle(lowered[i]))
        ):  # "as a *recorded* synonym"
            break
        i += 1
    if i == end or i >= len(lowered) or "its" in lowered[end:i]:
        return 0
    if lowered[i] in SYNONYM_WORDS or (lowered[i] in ("name", "names") and i > end and lowered[i - 1] in OTHER_WORDS):
        return i + 1 - end
    return 0


def named_before(lowered: Sequence[str], runs: Sequence[range] = ()) -> set[int]:
    """The positions of another name of the answers said before its cue (:func:`naming_after`): the quotation
    (``runs``: :func:`quoted_runs`) that ends there, else the words before it up to a stop word
    (:data:`CONDITION_WORDS`)."""
    out: set[int] = set()
    for end in range(1, len(lowered)):
        if not naming_after(lowered, end) or (end < len(lowered) and lowered[end - 1] in NAMED_AFTER_FILLERS):
            continue
        quoted = next((run for run in runs if run.stop == end), None)
        out |= set(quoted) if quoted is not None else _run(lowered, range(end - 1, end - 1 - CONDITION_WORDS, -1))
    return out


TYPE_NOUN_SIMILARITY = 0.6
TYPE_NOUN_MARGIN = 0.1
"""A phrase names a type by meaning when it is this similar to one of the type's words, and this much more similar
than to any other type's (measured in docs/results.md: "characteristic" 0.63, "phenotypic abnormality" 0.68;
"seizure" 0.50 and "affected" 0.57 stay below)."""
ARTICLES = frozenset({"a", "an", "the"})
DETERMINERS = ARTICLES | {"each", "any", "every", "some"}


def type_nouns(question: str, labels: Sequence[str], embedder: Embedder) -> list[Mention]:
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
    words = words_of(question)
    lowered = [w.lower() for w in words]
    listed = {i for m in type_mentions(lowered, labels) for i in m.words}
    starts = {i + 1 for i, word in enumerate(lowered) if word in DETERMINERS} | {subject_start(lowered)}

    def content(i: int) -> bool:
        return i < len(words) and words[i].isalpha() and words[i].islower() and lowered[i] not in STOP_WORDS

    candidates: list[tuple[int, int]] = []
    for at in sorted(i for i in starts if content(i) and i not in listed):
        if at + 1 in listed:  # "phenotypic abnormality": a modifier and a listed noun, one mention
            candidates.append((at, 2))
        elif not content(at + 1) or _participle(lowered[at + 1]):  # a noun its clause follows
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


def _participle(word: str) -> bool:
    """Whether ``word`` reads as a participle ("connected", "mapping", "seen", "shown", "found") that starts the
    clause after a noun."""
    return word.endswith(("ed", "ing", "en", "wn")) or word in ("found", "made", "put", "set", "kept", "held")


def with_nouns(mentions: Sequence[Mention], nouns: Sequence[Mention]) -> list[Mention]:
    """``mentions`` and type ``nouns`` together, sorted, without a mention inside a longer one ("abnormality" in
    the noun "phenotypic abnormality")."""
    within = {i for n in nouns for i in n.words}
    return sorted({*nouns, *(m for m in mentions if m.position not in within)})


def not_entities(
    words: Sequence[str],
    labels: Sequence[str],
    phrases: Sequence[str] = TEXT_PHRASES,
    question: str | None = None,
    nouns: Sequence[Mention] = (),
) -> tuple[set[int], set[int]]:
    """Positions of words that name no entity: (the answer types' words, "symptoms", "disorders", and the type
    ``nouns`` read by meaning (:func:`type_nouns`); the words of a textual condition after ``phrases`` and the other
    cues, which steps 6-7 match against documents instead: kgqa.runtime.steps.s6_lexical). Given the ``question`` the
    words are of, a condition that reaches into a quotation takes all of it: quoted, its stop and relation words are the
    condition's own ("mentions 'originating in the ventricles'")."""
    lowered = [w.lower() for w in words]
    types = {i for m in [*type_mentions(lowered, labels), *nouns] for i in m.words}
    textual: set[int] = set()
    runs = quoted_runs(question) if question is not None else []
    after_cue = {i + 1 for i, word in enumerate(lowered) if word in TEXT_CUES} | _phrase_ends(lowered, phrases)
    after_cue |= _contained(lowered, runs)
    textual |= _runs_from(lowered, after_cue - {run.start for run in runs})  # a quotation is all the condition
    for phrase in TEXT_AFTER:
        for start in _phrase_starts(lowered, phrase):
            textual |= _run(lowered, range(start - 1, start - 1 - CONDITION_WORDS, -1))
    for run in runs:
        if textual.intersection(run) or run.start in after_cue:  # also one that opens on a stop word
            textual |= set(run)
    if set(NAMING_PHRASES) <= set(phrases):  # another name of the answers said before its cue, too
        textual |= named_before(lowered, runs)
    return types, textual


def _contained(lowered: Sequence[str], runs: Sequence[range]) -> set[int]:
    """Where a node's text is said to hold what follows: right after a :data:`CONTAIN_VERBS` verb that follows a
    :data:`DOC_NOUNS` noun (with "that" between or not), unless a quotation (``runs``) of more than
    :data:`QUOTED_CONDITION` words starts there (a definition, which names an anchor: :func:`described_anchors`)."""
    long = {run.start for run in runs if len(run) > QUOTED_CONDITION}
    starts = set()
    for i, word in enumerate(lowered):
        if word not in CONTAIN_VERBS:
            continue
        before = [w for w in lowered[max(0, i - 2) : i] if w not in ("that", "which")]
        if before and before[-1] in DOC_NOUNS and i + 1 not in long:
            starts.add(i + 1)
    return starts


OPEN_VERBS = frozenset({"opens", "open", "opening"})
"""Prefix verbs that also have an everyday sense ("drugs that open the CFTR channel"): a prefix only after "with" or
quoted."""
PREFIX_VERBS = OPEN_VERBS | {"starts", "start", "starting", "started", "begins", "begin", "beginning", "prefix"}
"""Words after which a question gives the beginning of the answers' name or symbol, not a whole word ("starts with
KCN", "beginning RASG", "the prefix MYO", "symbols opening with JAK"); "KCN*" and "KCN-prefixed" say it too."""
PREFIX_FILLERS = INNER | frozenset({"with", "by", "letter", "letters", "characters", "string", "prefix"})
"""Words between a prefix verb and the prefix itself ("starting with the letters MYO")."""
PREFIX_WORDS = 3


def prefix_words(question: str) -> set[str]:
    """Lower-case words the question gives as the beginning of a name ("whose symbol starts with KCN", "KCN*",
    "with a short name beginning 'RASG'"): the full-text strand searches them as prefixes. After a prefix verb and
    its fillers ("with the letters"), the next word is a prefix where the question sets it off: "with" said, or
    written quoted or in capitals."""
    words = words_of(question)
    lowered = [w.lower() for w in words]
    found = {m.lower() for m in re.findall(r"(\w+)(?:\*|-prefixed\b)", question, re.IGNORECASE)}
    runs = quoted_runs(question)
    for at, word in enumerate(lowered):
        if word not in PREFIX_VERBS:
            continue
        i = at + 1
        while i < len(lowered) and i <= at + PREFIX_WORDS and lowered[i] in PREFIX_FILLERS:
            i += 1
        if i >= len(lowered) or lowered[i] in STOP_WORDS:
            continue
        if any(run.start == i and len(run) > 1 for run in runs):
            continue  # "whose definition opens with 'Presence of elevated levels ...'": a text, not a prefix
        bare = words[i].strip("'")
        quoted = re.search(rf"['\"`]{re.escape(bare)}\b", question) is not None
        capitals = bare.isupper() and bare.isalnum() and word not in OPEN_VERBS  # "drugs that open the CFTR channel"
        if "with" in lowered[at + 1 : i] or quoted or capitals:
            found.add(bare.lower())
    return found


@dataclass(frozen=True)
class Conditions:
    """What the question says the answers' own text holds, as step 2 reads it; steps 6-7 search those words
    (kgqa.runtime.steps.s6_lexical.search_terms)."""

    stated: frozenset[int]
    """Word positions (:func:`words_of`) of a textual condition, and of a short quotation no constant covers."""
    prefixes: frozenset[str]
    """Lower-case beginnings of names (:func:`prefix_words`)."""


def read_conditions(question: str, labels: Sequence[str], covered: Iterable[str]) -> Conditions:
    """The textual conditions of ``question`` (:func:`condition_words`), with each quotation of at most
    :data:`QUOTED_CONDITION` words that says a word none of the ``covered`` texts (the plan's constants) says: a short
    quotation no constant covers is what the answers' text says."""
    words = words_of(question)
    covered_words = {w for text in covered for w in plain_words(text)}
    stated = condition_words(words, labels, question)
    for run in quoted_runs(question):
        said = {w for i in run for w in plain_words(words[i])}
        if len(run) <= QUOTED_CONDITION and said - covered_words - STOP_WORDS:
            stated |= set(run)
    return Conditions(frozenset(stated), frozenset(prefix_words(question)))


def condition_words(words: Sequence[str], labels: Sequence[str], question: str | None = None) -> set[int]:
    """Positions of the words of a textual condition (:func:`not_entities`): they reach the full-text strand even
    where a constant's name covers them ("children of Seizure that mention seizure")."""
    return not_entities(words, labels, question=question)[1]


def ngrams(question: str, labels: Sequence[str] = (), nouns: Sequence[Mention] = ()) -> list[Span]:
    """Word n-grams that may name an entity: not starting or ending with a stop word, not only an answer type's words
    (or type ``nouns``), not only words that say a relation's kind, no word of a textual condition
    (:func:`not_entities`) but another name of the answers (:data:`NAMING_PHRASES`, which :func:`schema_guided_plan`
    reads), no word that starts a clause ("coursework *which* clinical") and not ending on a condition's cue
    ("dislocation with the *word*")."""
    return _typed_ngrams(question, labels, nouns)[0]


def _typed_ngrams(question: str, labels: Sequence[str], nouns: Sequence[Mention]) -> tuple[list[Span], set[int]]:
    """:func:`ngrams`, and the positions of the words that name a type (:func:`not_entities`)."""
    words = words_of(question)
    types, textual = not_entities(words, labels, OWN_TEXT_PHRASES, question, nouns)
    starts = prefix_words(question)  # "MFN*": the beginning of the answers' symbol, no entity
    textual |= {i for i, w in enumerate(words) if w.lower().strip("'").removesuffix("-prefixed") in starts}
    out = []
    for n in range(1, MAX_NGRAM + 1):
        for start in range(len(words) - n + 1):
            gram = words[start : start + n]
            if gram[0].lower() in STOP_WORDS or gram[-1].lower() in STOP_WORDS:
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
    question: str, labels: Sequence[str], limit: int, nouns: Sequence[Mention] = ()
) -> tuple[list[Span], SpanCap | None]:
    """The spans linking looks up (:func:`ngrams`), at most ``limit`` of them: those that start earliest, shorter
    first at the same word; the cut when there were more. In :func:`ngrams`' order, so that linking a question under
    the cap is unchanged."""
    return _capped(question, ngrams(question, labels, nouns), limit)


def _capped(question: str, grams: list[Span], limit: int) -> tuple[list[Span], SpanCap | None]:
    if len(grams) <= limit:
        return grams, None
    first = sorted(grams, key=lambda gram: (gram[0], gram[1]))[:limit]
    kept = {(start, end) for start, end, _ in first}
    cap = SpanCap(first[-1][0] + 1, len(words_of(question)), limit, len(grams), limit)
    return [gram for gram in grams if (gram[0], gram[1]) in kept], cap


def span_cap(question: str, labels: Sequence[str], limit: int) -> SpanCap | None:
    """Where :func:`link_spans` cuts ``question`` (None: it does not), for the trace."""
    return link_spans(question, labels, limit)[1]


def link_entities(
    question: str,
    store: GraphStore,
    skb: str,
    labels: Sequence[str],
    embedder: Embedder,
    *,
    threshold: float,
    aliases: bool = False,
    limit: int = MAX_LINK_SPANS,
    nouns: Sequence[Mention] = (),
    documents: bool = False,
    spelling: Spelling | None = None,
) -> list[Link]:
    """Non-overlapping question spans whose best match by the name index (and, with ``aliases``, the alias index)
    is at least ``threshold`` similar; a name beats an alias of equal similarity. Answer-type words (and type
    ``nouns``) and textual conditions are not looked up (:func:`not_entities`); at most ``limit`` spans are
    (``max_link_ngrams``, :func:`link_spans`). With ``documents`` (the document index holds the embedder's vectors),
    a quoted definition links the node it describes (:func:`described_anchors`). With ``spelling``, a span with a
    misspelt word or an abbreviation is also looked up respelled (:func:`respellings`) where the words as written
    link nothing; a link keeps the words as written."""
    every, types = _typed_ngrams(question, labels, nouns)
    grams, _ = _capped(question, every, limit)
    if not grams:
        return []
    respelled = respellings(grams, words_of(question), spelling)
    vectors = embedder.embed([text for _, _, text in grams] + [text for _, text in respelled])
    by_label = {label: store.vector_top_k_many(skb, label, "name", vectors, 1) for label in labels}
    by_alias = store.alias_top_k_many(skb, vectors, ALIAS_HITS) if aliases else []
    found: list[Link] = []
    rows = [*((number, number) for number in range(len(grams))), *enumerate((n for n, _ in respelled), len(grams))]
    for row, number in rows:
        start, end, text = grams[number]
        if row >= len(grams) and any((link.start, link.end) == (start, end) for link in found):
            continue  # the words as typed link: a respelling only fills in where they do not ("PTEN" is PTEN)
        floor = threshold if end - start <= SHORT_NGRAM else max(threshold, JOINED_SPAN_SIMILARITY)
        for label in labels:
            for hit in by_label[label][row]:
                if hit.similarity >= floor:
                    found.append(Link(text, start, end, label, str(hit.id), hit.name, hit.similarity))
        if aliases:
            best: dict[str, Link] = {}
            for alias in by_alias[row]:
                if alias.label in labels and alias.similarity >= floor and alias.label not in best:
                    best[alias.label] = Link(
                        text, start, end, alias.label, alias.id, alias.name, alias.similarity, alias.alias
                    )
            found += best.values()
    words = words_of(question)
    found = [link for link in found if not (_type_named(link, types) or _not_a_name(link, words))]
    if spelling is not None:
        found = [link for link in found if not word_not_symbol(link, found, quoted_runs(question), spelling)]
    found = tightest(found, labels)
    anchors = described_anchors(question, store, skb, labels, embedder, found, nouns) if documents else []
    found = [link for link in found if not any(a.start < link.end and link.start < a.end for a in anchors)]
    found.sort(key=_priority)
    taken: list[Link] = list(anchors)
    for link in found:
        if all(link.end <= t.start or link.start >= t.end for t in taken):
            taken.append(link)
    return sorted(taken, key=lambda link: link.start)


def word_not_symbol(link: Link, found: Sequence[Link], quoted: Sequence[range], spelling: Spelling) -> bool:
    """Whether ``link`` is a common word in small letters taken for a symbol in capitals ("my son's exome ... COL1A1"
    is no gene SON): only where the question links something else, and the word is not quoted ("linked to 'sry'")."""
    if not (link.search.isupper() and spelling.dictionary_word(link.span)):
        return False
    if any(link.start in run for run in quoted):
        return False
    return any(other.end <= link.start or other.start >= link.end for other in found)


def respellings(grams: Sequence[Span], words: Sequence[str], spelling: Spelling | None) -> list[tuple[int, str]]:
    """(gram number, the gram's text with each misspelt word replaced by the SKB word it misspells) for every gram
    of at most :data:`SHORT_NGRAM` words that holds one (:meth:`Spelling.variants`); none without ``spelling``."""
    if spelling is None:
        return []
    fixes = spelling.variants(words)
    out = []
    for number, (start, end, _) in enumerate(grams):
        if end - start <= SHORT_NGRAM and any(i in fixes for i in range(start, end)):
            out.append((number, " ".join(fixes.get(i, words[i]) for i in range(start, end))))
    return out


QUOTED_CONDITION = 6
"""Words a quotation without a cue may have to be a condition ("def 'related to infection'"); a longer one
describes an anchor ("the term described as 'An anomaly of visually evoked potentials, which ...'")."""
DESCRIBED_SIMILARITY = 0.65
DESCRIBED_MARGIN = 0.02
"""A long quotation names the node whose document is at least this similar to it, and this much more similar than
the next node's (measured on the read families' definitions, often cut short with "...": the anchor is first by
the document index in 19 of 23, at 0.62-0.85, and its lead is at least 0.024 where it is first; the misses lead by
0.002-0.06 at 0.60-0.70)."""


DESCRIPTION_CUE = 4
"""Words a quoted definition's cue may take after the noun that owns it ("the manifestation *whose definition
reads* '...'", "the trait *the HPO defines as* '...'"): that noun is the anchor, not a node to go through."""


def described_anchors(
    question: str,
    store: GraphStore,
    skb: str,
    labels: Sequence[str],
    embedder: Embedder,
    found: Sequence[Link],
    nouns: Sequence[Mention] = (),
) -> list[Link]:
    """The nodes the question names by their definition: "the manifestation whose definition reads 'Intense or
    prolonged psychological distress occurs when ...'". A quotation of more than :data:`QUOTED_CONDITION` words that
    states no condition of the answers (no cue: :func:`not_entities`) and that no link of ``found`` names whole is
    looked up in the document index of every label; the best node links it when it is clear
    (:data:`DESCRIBED_SIMILARITY`, :data:`DESCRIBED_MARGIN`). Its words are then no names of their own: the name
    index linked "prolonged" inside it to HPO's modifier 'Prolonged'."""
    long = [(run, text) for run, text in quotations(question) if len(run) > QUOTED_CONDITION]
    if not long:
        return []
    textual = not_entities(words_of(question), labels, question=question, nouns=nouns)[1]
    anchors: list[Link] = []
    for run, text in long:
        if textual.intersection(run):
            continue
        if any(link.start <= run.start and run.stop <= link.end for link in found):
            continue  # a long name quoted whole ("Shortening of all innermost bones of the fingers")
        vector = embedder.embed_one(text)
        hits = sorted(
            (hit for label in labels for hit in store.vector_top_k(skb, label, "doc", vector, 2)),
            key=lambda hit: -hit.similarity,
        )
        if not hits or hits[0].similarity < DESCRIBED_SIMILARITY:
            continue
        if len(hits) > 1 and hits[0].similarity - hits[1].similarity < DESCRIBED_MARGIN:
            continue
        best = hits[0]
        anchors.append(
            Link(text, run.start, run.stop, best.label, str(best.id), best.name, best.similarity, described=True)
        )
    return anchors


COMPOUND_WINDOW = 6
COMPOUND_WORDS = 3
COMPOUND_TIE = 0.01
"""Words either side of a link that :func:`compound_link` reads, words it joins to the link at most, and how much
less similar a longer compound may be and still win ("young adult onset" over "adult onset")."""


def compound_link(
    question: str,
    link: Link,
    store: GraphStore,
    skb: str,
    embedder: Embedder,
    threshold: float,
    taken: set[int],
) -> Link | None:
    """The longer name of ``link``'s label that the question splits around it: "their *onset* falling within the
    *young adult* category" and "onset recorded as *infantile*" say 'Young adult onset' and 'Infantile onset', where
    'Onset' alone is a root no disease presents. Each run of up to :data:`COMPOUND_WORDS` content words within
    :data:`COMPOUND_WINDOW` words (none of another link, a type's noun: ``taken``) is joined before and after the
    span and looked up in the name index; the best at least ``threshold`` similar, longer at a tie, links it."""
    words = words_of(question)
    lowered = [w.lower() for w in words]
    near = range(max(0, link.start - COMPOUND_WINDOW), min(len(words), link.end + COMPOUND_WINDOW))
    free = [
        i
        for i in near
        if i not in taken
        and not link.start <= i < link.end
        and lowered[i] not in STOP_WORDS | RELATIONAL | CLAUSE_WORDS
        and words[i].isalpha()
    ]
    runs = [
        [words[i] for i in range(a, b + 1)]
        for a in free
        for b in free
        if 0 <= b - a < COMPOUND_WORDS and all(j in free for j in range(a, b + 1))
    ]
    texts = [text for run in runs for text in (f"{' '.join(run)} {link.span}", f"{link.span} {' '.join(run)}")]
    if not texts:
        return None
    found: list[tuple[float, int, Link]] = []
    hits = store.vector_top_k_many(skb, link.label, "name", embedder.embed(texts), 1)
    for text, best_hits in zip(texts, hits, strict=True):
        for hit in best_hits:
            if hit.similarity >= threshold and str(hit.id) != link.id:
                joined = Link(text, link.start, link.end, link.label, str(hit.id), hit.name, hit.similarity)
                found.append((hit.similarity, len(text.split()), joined))
    if not found:
        return None
    best = max(similarity for similarity, _, _ in found)
    return max((f for f in found if f[0] >= best - COMPOUND_TIE), key=lambda f: (f[1], f[0]))[2]


def _type_named(link: Link, types: set[int]) -> bool:
    """Whether ``link`` matched only the type words inside its span: "classes of the *phenotypic abnormality*"
    (or "which *phenotypic abnormalities* are ...") finding HPO's node 'Phenotypic abnormality' is the type named,
    not that node."""
    typed = {
        _singular(w.lower()) for i, w in zip(range(link.start, link.end), link.span.split(), strict=False) if i in types
    }
    return bool(typed) and {_singular(w) for w in _lower(link.search)} <= typed


PLACES = frozenset({"above", "below", "under", "beneath", "underneath"})
"""Words that place a node in a hierarchy: a word right before one modifies it ("*right* above")."""


def _not_a_name(link: Link, words: Sequence[str]) -> bool:
    """Whether ``link``'s span reads as part of the sentence, not a name: a lower-case word heading an of-phrase,
    linked to a symbol in capitals ("the complete *set* of signs" says no gene 'SET'; a symbol the question means
    is not followed by "of": "mapping to *gpi*"); a lower-case word right before a word of :data:`PLACES`
    ("*right* above or right below X" says no 'Right'); a span that opens with a hierarchy word and "of"
    ("*children of* X")."""
    lowered = [w.lower() for w in words]
    after = lowered[link.end] if link.end < len(lowered) else ""
    one_word = link.end - link.start == 1 and link.span.islower()
    if one_word and ((link.search.isupper() and after == "of") or after in PLACES):
        return True
    hierarchy_words = KINDS[HIERARCHY][0]
    return link.end - link.start > 2 and lowered[link.start] in hierarchy_words and lowered[link.start + 1] == "of"


def _singular(word: str) -> str:
    """``word`` without a plural ending: "abnormalities" is the type noun that names 'Phenotypic abnormality'."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def tightest(found: Sequence[Link], labels: Sequence[str] = ()) -> list[Link]:
    """``found`` without the spans whose best link a shorter span inside them makes as well or better, to the same
    node, with every word of its name or alias the longer one had: "phenotype present in spondylocostal
    dysostosis 5" and "spondylocostal dysostosis 5" name the same disease, and the words around it ("phenotype",
    "present") are the plan's hop, not the entity's name. Nor does a span win whose words past a better link inside
    or overlapping it only frame it (stop words, a type's words of ``labels``, none of its own node's name): "the
    *syndrome* spinocerebellar ataxia type 35" is no better name of 'Spinocerebellar ataxia type 34' than
    "spinocerebellar ataxia type 35" is of type 35, nor "*genes associated with* Marfan" of anything than "Marfan
    syndrome" is. Every link of such a span goes (its weaker matches to other nodes would take the words back)."""
    framing = STOP_WORDS | {w for label in labels for form in type_words(label) for w in form.split()}

    def inside(other: Link, link: Link) -> bool:
        return (
            link.start <= other.start
            and other.end <= link.end
            and other.end - other.start < link.end - link.start
            and other.similarity >= link.similarity
        )

    def overlaps(other: Link, link: Link) -> bool:
        return other is not link and other.start < link.end and link.start < other.end

    def replaced(link: Link) -> bool:
        own = _lower(f"{link.name} {link.alias}")
        for other in (other for other in found if overlaps(other, link)):
            extra = _lower(link.span) - _lower(other.span)
            if inside(other, link) and (other.label, other.id) == (link.label, link.id) and not extra & own:
                return True
            if other.similarity > link.similarity and extra and extra <= framing and not (extra - STOP_WORDS) & own:
                return True  # its words past the better link only frame it, inside or overlapping it
        return False

    best: dict[tuple[int, int], Link] = {}
    for link in found:
        if (link.start, link.end) not in best or link.similarity > best[link.start, link.end].similarity:
            best[link.start, link.end] = link
    dropped = {span for span, link in best.items() if replaced(link)}
    return [link for link in found if (link.start, link.end) not in dropped]


def _lower(text: str) -> set[str]:
    return {w.lower() for w in words_of(text)}


def _priority(link: Link) -> tuple[int, float, int]:
    """Longer spans first when they match well and join no two phrases: a full name beats a word of it even when
    the word alone is a node's exact name (HPO's modifier "Generalized" inside "generalized tonic-clonic
    seizures"), but "Arachnoid cyst and Acute" must not beat "Arachnoid cyst", unless the joined span is all but
    exactly a node's name (the disease "Brachycephaly, trichomegaly, and developmental delay" is not three
    phenotypes). Then the most similar."""
    words = set(link.span.lower().split())
    joined = bool(words & CONJUNCTIONS)
    whole = link.similarity >= (JOINED_SPAN_SIMILARITY if joined else LONG_SPAN_SIMILARITY)
    return (-(link.end - link.start) if whole else 0, -link.similarity, link.start)


def _offered(schema: GraphSchema, a: str, b: str) -> tuple[str, ...]:
    """Relationship types between labels ``a`` and ``b``, either direction."""
    return tuple(sorted({t for s, t, d in schema.relationships if {s, d} == {a, b}}))


OWN_LABEL_WORDS = 2
"""The entity's own type named this close before a linked span ("the gene/protein ERLIN2") is no hop (another type
is: "genes linked phenotype assoc TAF8")."""


Hop = tuple[tuple[str, ...], str, Direction]
"""One hop of a linked entity's path: (relationship types, the label it reaches, the direction from the answer's
side: ``out`` where a hierarchy edge points from the answers' side, ``in`` where it points to it, else ``both``)."""


def _hierarchy(schema: GraphSchema, label: str) -> tuple[str, ...]:
    """The hierarchy types between nodes of ``label`` (HPO's 'parent-child'), by their names' kind."""
    return tuple(t for t in _offered(schema, label, label) if HIERARCHY in type_kinds(t))


_WAY: dict[Toward | None, Direction] = {"narrower": "out", "broader": "in", None: "both"}
"""A hierarchy hop's direction: its edges point from the more specific node to the broader one (an ontology's is_a,
as kgqa.loaders.hpo stores 'parent-child' and kgqa.lab.phrasing words it)."""


STEP_SPAN = 4
"""A hierarchy step between two labels is said right before the entity ("a *more specific form of* Seizure")."""


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
    hierarchy = _hierarchy(schema, link.label)
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
    return [direct] if direct[0] else None


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


CLAUSE_WORDS = frozenset({"which", "who", "whose", "whom", "where", "what"})
"""Words that start a clause and stand in no name (HPO has two names with "that", none with these)."""
CLAUSE_ENDS = CONJUNCTIONS | CLAUSE_WORDS | {"that"}
"""Words after an entity that start another clause: the words after the entity that its hop reads stop there (and
at a type the question names: "... involving X, which have an *abnormality* noted as absent in Y")."""

COPULAS = frozenset({"is", "are"})
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


def _named_types(question: str, schema: GraphSchema) -> set[int]:
    """Positions of the words of a relationship type the question quotes ("a 'phenotype present' relation"): its
    "phenotype" names no node type to go through (unquoted, "a phenotype present in X" does)."""
    found: set[int] = set()
    for rel_type in {t for _, t, _ in schema.relationships}:
        size = len(words_of(rel_type))
        for match in re.finditer(rf"(['\"`]){re.escape(rel_type)}\1", question, re.IGNORECASE):
            first = len(words_of(question[: match.start()]))
            found |= set(range(first, first + size))
    return found


def _coordinated(words: Sequence[str], first: Link, second: Link) -> bool:
    """Whether ``second`` is joined to ``first`` by a conjunction alone ("lack X and Y", "X or Y"): it shares its
    hop."""
    between = [w for w in words[first.end : second.start] if w not in ("a", "an", "the")]
    return len(between) == 1 and between[0] in CONJUNCTIONS


def _shown(path: Sequence[Hop]) -> str:
    return " then ".join(f"{'|'.join(types)} ({label})" for types, label, _ in path)


NAME_CUES = frozenset(
    {"called", "named", "termed", "aka", "k", "known", "synonym", "alias", "go", "goes", "referred", "designated"}
)
"""Words that say the span after them is a name ("sometimes called X", "known as X", "go by the name X",
"a.k.a. X", "referred to as X")."""
DESCRIPTION_CUES = frozenset(
    {"defined", "defines", "described", "describes", "explained", "explains", "reads"}
    | {"summarised", "summarized", "summarises", "summarizes"}
)
"""Words that say the span after them is a node's text ("the sign defined as 'Inflammation of the thyroid gland'",
"whose definition reads X"): as a name does, it says the noun before is that node (:data:`DESCRIPTION_CUE`)."""
NAME_FILLERS = frozenset({"as", "the", "a", "an", "by", "name", "of", "to"})
NAME_OWNERS = frozenset(
    {"also", "sometimes", "otherwise", "often", "commonly", "usually", "be", "is", "are", "being"}
    | {"that", "which", "who", "and"}
)
"""Words between a naming cue and the noun it names ("symptoms *that are also* called X")."""


SOMETHING = frozenset({"something", "anything", "one", "thing", "entity", "node"})
"""Nouns that stand for an anchor not typed ("a gene linked to *something* called X")."""
LONG_SPAN_BREAKS = RELATIONAL | NAME_CUES | DESCRIPTION_CUES | SOMETHING | CLAUSE_ENDS
"""Words no span longer than ``SHORT_NGRAM`` holds (:func:`ngrams`)."""


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
"""The longer name a link is the head of (:func:`compound_link`), or None."""


def schema_guided_plan(
    links: Sequence[Link],
    target_type: str,
    schema: GraphSchema,
    question: str = "",
    meaning: RelationMeaning | None = None,
    *,
    max_triplets: int = MAX_TRIPLETS,
    reaches: Reaches | None = None,
    nouns: Sequence[Mention] = (),
    rejoin: Rejoin | None = None,
) -> QueryPlan | None:
    """``(y:target)-[:t1|t2...]-(e_i:label_i {name: ...})`` for every link the schema connects to the target type,
    through ``(m_i:label)`` where the question names an intermediate type (see the module docstring). ``meaning``
    narrows each hop's types (default: only types the question names verbatim). A node linked again (the question
    names it twice) is joined once; links past ``max_triplets`` triplets are not joined, each in the plan's
    ``dropped`` with the reason: a question that repeats its entities must not multiply the plan's joins. With
    ``reaches``, a link no node of the target type reaches along its hops (HPO's root 'Onset', which no disease
    presents) is dropped too: as a required constant it would ground nothing until the scope expansion wandered off
    to its neighbours, and its words stay with the full-text strand, unless ``rejoin`` finds the longer name it heads
    and that name is reached. ``nouns``: the types the question names in words the lists lack (:func:`type_nouns`)."""
    meaning = meaning or RelationMeaning(question, by_kind=False)
    symbols = [Symbol("y", (target_type,))]
    triplets: list[Triplet] = []
    words = [w.lower() for w in words_of(question)]
    named_types = _named_types(question, schema)
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
    naming = naming_words(words, question)
    identity: Link | None = None
    joined: set[tuple[str, str]] = set()
    dropped: list[Dropped] = []
    previous: tuple[Link, list[Hop]] | None = None
    for number, link in enumerate(links):
        following = min(links[number + 1].start if number + 1 < len(links) else len(words), len(words))
        stops = (i for i in range(link.end, following) if words[i] in CLAUSE_ENDS or i in named_at)
        trailing = range(link.end, next(stops, following))
        if identity is None and names_answer(words, link, target_type, spans, answer):
            identity = link  # "symptoms also called X": the answers are X's node, or nodes named like it
            after = link.end
            continue
        if link.label != target_type and link.start in naming:  # no hop to read for it
            dropped.append(Dropped(describe(link), "another name of the answers, not an entity of theirs"))
            continue
        cue = DESCRIPTION_CUE if link.described else _naming_cue(words, link.start)
        path = _path(link, target_type, schema, meaning, mentions, after, trailing, cue)
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
        if not reached:  # the next entity's hop reads the words before it too
            dropped.append(Dropped(describe(link), f"{UNREACHED} {target_type} reaches it along {_shown(path)}"))
            continue
        after = link.end
        if len(triplets) + len(path) > max_triplets:
            dropped.append(Dropped(describe(link), f"beyond max_triplets = {max_triplets}"))
            continue
        previous = (link, path)
        joined.add((link.label, link.id))
        name = f"e{number}"
        if len(path) == 2:
            middle = f"m{number}"
            symbols.append(Symbol(middle, (path[0][1],)))
            triplets += [Triplet("y", path[0][0], middle, path[0][2]), Triplet(middle, path[1][0], name, path[1][2])]
        else:
            triplets.append(Triplet("y", path[0][0], name, path[0][2]))
        symbols.append(Symbol(name, (link.label,), (Condition("name", "=", link.search),)))
    if identity is not None:
        symbols[0] = Symbol("y", (target_type,), (Condition("name", "=", identity.search),))
    elif not triplets:
        return None
    return QueryPlan(tuple(symbols), tuple(triplets), "y", dropped=tuple(dropped))


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
