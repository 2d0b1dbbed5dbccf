"""What a question says of the answers' own text, which no entity of the graph names (method step 2 without an
LLM, beside kgqa.runtime.steps.s2_linking): a textual condition after its cue ("... and mention 'glycinuria'", "whose
name contains 'X'"), another name of the answers ("phenotypes also called 'X'", "'X' as one of their synonyms") and the
beginning of a name ("whose symbol starts with KCN"). Their words are no spans to link; steps 6-7 search them in the
full-text index (kgqa.runtime.steps.s6_lexical).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kgqa.runtime import lexicon
from kgqa.runtime.reading import Reading
from kgqa.runtime.text import (
    RELATIONAL,
    STOP_WORDS,
    Mention,
    plain_words,
    type_mentions,
)

TEXT_CUES = lexicon.words("text_cues")
"""Words after which a question states a textual condition ("... and mention 'glycinuria'", "with the word X"), not
an entity ("involving" and "containing" introduce entities as often: "pathways involving TP53")."""
NAMING_PHRASES = lexicon.phrases("naming_phrases")
"""Phrases after which the question gives another name of the answers ("phenotypes also called 'X'"): a span there
is linked only to find the answer it names (:func:`kgqa.runtime.steps.s2_schema_plan.names_answer`), never joined
as an entity of another type."""
NAMING_WORDS = frozenset(word for phrase in NAMING_PHRASES for word in phrase.split() if len(word) > 1) - STOP_WORDS
"""The words of a naming cue: a span of them alone names nothing ("syn." is no gene 'SYN2')."""
TEXT_PHRASES = (*NAMING_PHRASES, *lexicon.phrases("own_text_phrases"))
"""Phrases after which the question says what the answers' own text holds: another name of theirs, a part of their
name or symbol. The words that follow reach the full-text strand and are no entity to join ("phenotypes whose name
contains 'X'" are not linked to X); after :data:`NAMING_PHRASES` they may name the answer itself."""
OWN_TEXT_PHRASES = tuple(p for p in TEXT_PHRASES if p not in NAMING_PHRASES)
"""The :data:`TEXT_PHRASES` whose words are never linked (another name may be: it finds the answer it names)."""
DOC_NOUNS = lexicon.words("doc_nouns")
"""Nouns for a node's own text: "with 'X' *in their summary*", "whose *descriptions* reference X"."""
TEXT_AFTER = tuple(
    f"{owner} {noun}"
    for owner in lexicon.phrases("text_after_owners")
    for noun in sorted(DOC_NOUNS - lexicon.words("doc_nouns_not_owned"))
)
"""Where a condition is said before its text noun ("'X' *in their summary*")."""
CONTAIN_VERBS = lexicon.words("contain_verbs")
"""Verbs after a :data:`DOC_NOUNS` noun that give what the text holds ("whose descriptions *reference* X", "an entry
that *contains* X"); "reads" and "is" give the whole text, a definition that names an anchor."""
RELATIVE_PRONOUNS = lexicon.words("relative_pronouns")
"""Words between a :data:`DOC_NOUNS` noun and its verb ("descriptions *that* contain X")."""
CONDITION_WORDS = 3
"""Words a textual condition runs for after its cue (or before ``TEXT_AFTER``), up to a stop word."""


def _phrase_starts(lowered: Sequence[str], phrase: str) -> list[int]:
    """Word positions where ``phrase`` (words) starts in ``lowered``."""
    parts = phrase.split()
    return [i for i in range(len(lowered) - len(parts) + 1) if list(lowered[i : i + len(parts)]) == parts]


INNER = lexicon.words("inner_words")
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


def naming_words(reading: Reading) -> set[int]:
    """Positions of the words after a :data:`NAMING_PHRASES` phrase, or before a naming cue of the answers
    (:func:`named_before`): another name of the answers."""
    lowered = reading.lowered
    return _runs_from(lowered, _phrase_ends(lowered, NAMING_PHRASES)) | named_before(lowered, reading.quoted_runs)


SYNONYM_WORDS = lexicon.words("synonym_words")
OTHER_WORDS = lexicon.words("other_words")
NAMED_AFTER_FILLERS = lexicon.words("named_after_fillers") | OTHER_WORDS
NAME_NOUNS = lexicon.words("name_nouns")
NAMED_AFTER_WORDS = 5
"""Words a naming cue said after the name may take before its noun ("'X' *as one of their* synonyms")."""


PARTICIPLE_ENDINGS = lexicon.phrases("participle_endings")
IRREGULAR_PARTICIPLES = lexicon.words("irregular_participles")


def participle(word: str) -> bool:
    """Whether ``word`` reads as a participle ("connected", "mapping", "seen", "shown", "found") that starts the
    clause after a noun."""
    return word.endswith(PARTICIPLE_ENDINGS) or word in IRREGULAR_PARTICIPLES


def naming_after(lowered: Sequence[str], end: int) -> int:
    """How many words right after ``end`` say that the words before are another name of the answers ("list 'X'
    as an alternative name", "with X listed among their synonyms", "with X as a recorded synonym"): 0 if none, or
    if the name is the anchor's ("a sign with X among *its* synonyms")."""
    i = end
    while i < len(lowered) and i - end < NAMED_AFTER_WORDS:
        if not (lowered[i] in NAMED_AFTER_FILLERS or (i > end and participle(lowered[i]))):  # "as a *recorded* synonym"
            break
        i += 1
    if i == end or i >= len(lowered) or "its" in lowered[end:i]:
        return 0
    if lowered[i] in SYNONYM_WORDS or (lowered[i] in NAME_NOUNS and i > end and lowered[i - 1] in OTHER_WORDS):
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


def not_entities(
    reading: Reading,
    labels: Sequence[str],
    phrases: Sequence[str] = TEXT_PHRASES,
    nouns: Sequence[Mention] = (),
) -> tuple[set[int], set[int]]:
    """Positions of the question's words that name no entity: (the answer types' words, "symptoms", "disorders", and
    the type ``nouns`` read by meaning (:func:`kgqa.runtime.steps.s2_type_nouns.type_nouns`); the words of a textual
    condition after ``phrases`` and the other cues, which steps 6-7 match against documents instead:
    kgqa.runtime.steps.s6_lexical). A condition that reaches into a quotation takes all of it: quoted, its stop and
    relation words are the condition's own ("mentions 'originating in the ventricles'")."""
    lowered = reading.lowered
    types = {i for m in [*type_mentions(lowered, labels), *nouns] for i in m.words}
    textual: set[int] = set()
    runs = reading.quoted_runs
    quoted = {run.start for run in runs}
    # a cue word in a lead-in tells a story ("the neurologist *mentioned* spinal muscular atrophy. what causes it?"),
    # unless a quotation follows it
    cued = {i + 1 for i, word in enumerate(lowered) if word in TEXT_CUES}
    after_cue = {i for i in cued if i > reading.asking_start or i in quoted} | _phrase_ends(lowered, phrases)
    after_cue |= _contained(lowered, runs)
    textual |= _runs_from(lowered, after_cue - quoted)  # a quotation is all the condition
    for phrase in TEXT_AFTER:
        for start in _phrase_starts(lowered, phrase):
            textual |= _run(lowered, range(start - 1, start - 1 - CONDITION_WORDS, -1))
    for run in runs:
        if textual.intersection(run) or run.start in after_cue:  # also one that opens on a stop word
            textual |= set(run)
    if set(NAMING_PHRASES) <= set(phrases):  # another name of the answers said before its cue, too
        textual |= named_before(lowered, runs)
    return types, textual


QUOTED_CONDITION = 6
"""Words a quotation without a cue may have to be a condition ("def 'related to infection'"); a longer one
describes an anchor ("the term described as 'An anomaly of visually evoked potentials, which ...'")."""


def _contained(lowered: Sequence[str], runs: Sequence[range]) -> set[int]:
    """Where a node's text is said to hold what follows: right after a :data:`CONTAIN_VERBS` verb that follows a
    :data:`DOC_NOUNS` noun (with "that" between or not), unless a quotation (``runs``) of more than
    :data:`QUOTED_CONDITION` words starts there (a definition, which names an anchor:
    :func:`kgqa.runtime.steps.s2_linking.described_anchors`)."""
    long = {run.start for run in runs if len(run) > QUOTED_CONDITION}
    starts = set()
    for i, word in enumerate(lowered):
        if word not in CONTAIN_VERBS:
            continue
        before = [w for w in lowered[max(0, i - 2) : i] if w not in RELATIVE_PRONOUNS]
        if before and before[-1] in DOC_NOUNS and i + 1 not in long:
            starts.add(i + 1)
    return starts


OPEN_VERBS = lexicon.words("open_verbs")
"""Prefix verbs that also have an everyday sense ("drugs that open the CFTR channel"): a prefix only after "with" or
quoted."""
PREFIX_VERBS = OPEN_VERBS | lexicon.words("prefix_verbs")
"""Words after which a question gives the beginning of the answers' name or symbol, not a whole word ("starts with
KCN", "beginning RASG", "the prefix MYO", "symbols opening with JAK"); "KCN*" and "KCN-prefixed" say it too."""
PREFIX_FILLERS = INNER | lexicon.words("prefix_fillers")
"""Words between a prefix verb and the prefix itself ("starting with the letters MYO")."""
PREFIX_WORDS = 3


def after_prefix_verb(words: Sequence[str]) -> set[int]:
    """Positions within :data:`PREFIX_WORDS` words after a prefix verb ("symbols beginning from RASG"): what stands
    there is the beginning of a name as typed, never initials to expand or a misspelling to respell."""
    return {
        i
        for at, word in enumerate(words)
        if word.lower() in PREFIX_VERBS
        for i in range(at + 1, min(len(words), at + 1 + PREFIX_WORDS))
    }


def prefix_words(reading: Reading) -> set[str]:
    """Lower-case words the question gives as the beginning of a name ("whose symbol starts with KCN", "KCN*",
    "with a short name beginning 'RASG'"): the full-text strand searches them as prefixes. After a prefix verb and
    its fillers ("with the letters"), the next word is a prefix where the question sets it off: "with" said, or
    written quoted or in capitals."""
    words, lowered, runs = reading.words, reading.lowered, reading.quoted_runs
    found = {m.lower() for m in re.findall(r"(\w+)(?:\*|-prefixed\b)", reading.text, re.IGNORECASE)}
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
        quoted = re.search(rf"['\"`]{re.escape(bare)}\b", reading.text) is not None
        capitals = bare.isupper() and bare.isalnum() and word not in OPEN_VERBS  # "drugs that open the CFTR channel"
        if "with" in lowered[at + 1 : i] or quoted or capitals:
            found.add(bare.lower())
    return found


@dataclass(frozen=True)
class Conditions:
    """What the question says the answers' own text holds, as step 2 reads it; steps 6-7 search those words
    (kgqa.runtime.steps.s6_lexical.search_terms)."""

    stated: frozenset[int]
    """Word positions (:attr:`kgqa.runtime.reading.Reading.words`) of a textual condition, and of a short quotation no
    constant covers."""
    prefixes: frozenset[str]
    """Lower-case beginnings of names (:func:`prefix_words`)."""


def read_conditions(reading: Reading, labels: Sequence[str], covered: Iterable[str]) -> Conditions:
    """The textual conditions of the question (:func:`condition_words`), with each quotation of at most
    :data:`QUOTED_CONDITION` words that says a word none of the ``covered`` texts (the plan's constants) says: a short
    quotation no constant covers is what the answers' text says."""
    words = reading.words
    covered_words = {w for text in covered for w in plain_words(text)}
    stated = condition_words(reading, labels)
    for run in reading.quoted_runs:
        said = {w for i in run for w in plain_words(words[i])}
        if len(run) <= QUOTED_CONDITION and said - covered_words - STOP_WORDS:
            stated |= set(run)
    return Conditions(frozenset(stated), frozenset(prefix_words(reading)))


def condition_words(reading: Reading, labels: Sequence[str]) -> set[int]:
    """Positions of the words of a textual condition (:func:`not_entities`): they reach the full-text strand even
    where a constant's name covers them ("children of Seizure that mention seizure")."""
    return not_entities(reading, labels)[1]
