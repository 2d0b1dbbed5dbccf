"""Phrasing families of generated questions, and the textual conditions they word.

The natural wording of :mod:`kgqa.runtime.reader.phrasing` was read while the no-LLM linker was tuned, so figures on it
flatter the linker. A family is one register with its own words for the types, the relations, the conditions and the
sentence shapes, written apart from the linker: ``analyst`` (the phrasing tables, tuned) and ``template`` (the plain
template sentence, tuned) beside ``clinical``, ``conversational``, ``terse``, ``lay`` and ``student`` (their misses
since read) and the blind ones, unseen by development: ``counselor`` (a genetic counsellor's notes to colleagues and
families) and ``esl`` (a researcher typing English as a second language: unidiomatic but true), so a benchmark can
report quality per family and leave one family out.

Every wording stays true of the exact answer set :func:`kgqa.runtime.reader.questions.generate` computes: a hierarchy
hop is one level ("direct", "immediate", "children", "parents"), a negation is an explicit annotation ("documented as
absent", "ruled out"), a synonym is one of the answer's own aliases, an onset or inheritance is the answer's annotation
with that term or a narrower one of its branch (a disease annotated "Infantile onset" has pediatric onset too).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from kgqa.runtime.reader.family_words import (
    Condition,
    ConditionKind,
    Family,
    FamilyWords,
    Side,
)
from kgqa.runtime.reader.phrasing import (
    OBJ,
    Direction,
    MentionStyle,
    Wording,
    hop_wording,
    natural,
    relation_key,
    type_nouns,
)
from kgqa.runtime.reader.registers_blind import COUNSELOR, ESL, STUDENT
from kgqa.runtime.reader.registers_read import CLINICAL, CONVERSATIONAL, LAY, TERSE

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
    """The question in ``family``'s words: answers of type ``target`` reaching the anchor (``mention``, as ``style``
    says) along ``hops``, under ``condition``. ``analyst`` is :func:`kgqa.runtime.reader.phrasing.natural` (a doc-word
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
