"""Natural phrasings of generated questions (``kgqa questions --phrasing natural``), deterministic for a seed.

The template sentence ("Which disease nodes have a 'phenotype present' relation with ...") is nothing an analyst types,
so development measured on it flatters the linker. This module words the same question as people ask it: type words with
lay synonyms ("symptoms", "disorders"), relation verbs per direction ("present with", "are characterised by"), negation
and hierarchy wording, the textual condition in several forms and varied sentence shapes. It is data-driven (tables
below) with a fallback for any label and relation type, so it works on every SKB. These tables are the ``analyst``
family of :mod:`kgqa.runtime.reader.families`: development read them, so they count as tuned.

Every wording must stay true of the exact answer set (:func:`kgqa.runtime.reader.questions.generate` computes it), so
the tables say no more than the graph does: a hierarchy hop is "direct" (1 hop, never "any descendant"), a negation is
"explicitly" absent (an annotation, not the absence of one), and "do not show" is kept for a named object, where "do not
show a phenotype linked to X" would read as "none of them".
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Direction = Literal["to_anchor", "from_anchor"]
"""Which way a 1-hop same-label edge points: ``to_anchor``, answer -[r]-> anchor (HPO's child -[parent-child]->
parent: the answers are subtypes of the anchor); ``from_anchor``, anchor -[r]-> answer (its parents)."""
MentionStyle = Literal["name", "lower", "alias", "description", "dropped-word"]
"""How the anchor is mentioned: its exact name, the name in lower case, a synonym, a short description, or a
multi-word name with one word before its head left out ("tonic-clonic seizures")."""
OBJ = "{obj}"
"""Where a phrase puts its object when not at its end ("have {obj} marked as absent")."""
WORD = "{w}"


@dataclass(frozen=True)
class Noun:
    singular: str
    plural: str


def plural(words: str) -> str:
    """English plural of a noun phrase's head: 'abnormality' -> 'abnormalities', 'field of study' -> 'fields of
    study'."""
    head, sep, rest = words.partition(" of ")
    *lead, last = head.split(" ")
    if re.search(r"(s|x|z|ch|sh)$", last):
        last += "es"
    elif re.search(r"[^aeiou]y$", last):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return " ".join([*lead, last]) + (sep + rest if sep else "")


def _nouns(*words: str) -> tuple[Noun, ...]:
    return tuple(Noun(w, plural(w)) for w in words)


TYPE_WORDS: dict[str, tuple[Noun, ...]] = {
    # HPO and PRIME
    "disease": _nouns("disease", "disorder", "condition"),
    "effect/phenotype": _nouns("phenotype", "clinical feature", "symptom", "abnormality"),
    "gene/protein": _nouns("gene", "protein"),
    "drug": _nouns("drug", "medication", "medicine"),
    "molecular_function": _nouns("molecular function"),
    "biological_process": _nouns("biological process"),
    "cellular_component": _nouns("cellular component"),
    "pathway": _nouns("pathway"),
    "anatomy": _nouns("anatomical structure", "tissue"),
    "exposure": _nouns("exposure", "environmental exposure"),
    # MAG
    "author": _nouns("author", "researcher"),
    "institution": _nouns("institution", "organisation"),
    "field_of_study": _nouns("field of study", "research field", "topic"),
    "paper": _nouns("paper", "publication", "article"),
    # AMAZON
    "product": _nouns("product", "item"),
    "brand": _nouns("brand"),
    "category": _nouns("category", "product category"),
    "color": _nouns("color", "colour"),
}
"""Answer-type words per label, the graph's own word first; any other label falls back to :func:`type_nouns`."""


def type_nouns(label: str) -> tuple[Noun, ...]:
    """The words for a label: from :data:`TYPE_WORDS`, else the label itself in words ('cell_line' -> 'cell line';
    'a/b' -> 'a' or 'b'), pluralised."""
    if label in TYPE_WORDS:
        return TYPE_WORDS[label]
    parts = [" ".join(re.sub(r"[_\-]+", " ", part).split()).lower() for part in label.split("/")]
    return _nouns(*(p for p in parts if p)) or _nouns("entity")


@dataclass(frozen=True)
class Wording:
    """Ways to say one direction of a relation whose subject is the answer type (plural).

    ``verbs`` are finite ("present with"); ``modifiers`` follow a noun of either number ("presenting with"), so
    they also word the inner hop of a 2-hop question ("a phenotype linked to ..."); the ``definite`` ones only
    read right before a named object (1 hop)."""

    verbs: tuple[str, ...]
    modifiers: tuple[str, ...]
    definite_verbs: tuple[str, ...] = ()
    definite_modifiers: tuple[str, ...] = ()


@dataclass(frozen=True)
class RelationWords:
    """The wording of one relationship type.

    Between two labels, ``forward`` has the ``source`` label as subject and ``backward`` the other one
    (``backward`` None: the same words either way). Between nodes of one label (hierarchies, citations) a
    relation with ``neutral`` wording is directed: ``forward`` is for answers whose edge points to the anchor,
    ``backward`` for answers the anchor's edge points to, ``neutral`` when no direction is named."""

    forward: Wording
    backward: Wording | None = None
    source: str | None = None
    neutral: Wording | None = None
    kind: Literal["negation", "hierarchy"] | None = None

    @property
    def directed(self) -> bool:
        return self.neutral is not None


def _w(verbs: Sequence[str], modifiers: Sequence[str], definite: Sequence[str] = ()) -> Wording:
    """A wording; ``definite``: verbs such as "do not show" that read as "none of" before "a phenotype ..."."""
    negated = tuple(m for m in (_participle(v) for v in definite) if m)
    return Wording(tuple(verbs), tuple(modifiers), tuple(definite), negated)


def _participle(verb: str) -> str:
    """'do not show' -> 'not showing' (the modifier form of the definite negations)."""
    match = re.fullmatch(r"do not (\w+?)e?( .*)?", verb)
    return f"not {match.group(1)}ing{match.group(2) or ''}" if match else ""


RELATION_WORDS: dict[str, RelationWords] = {
    # HPO (and PRIME): disease -> effect/phenotype, gene/protein -> effect/phenotype | disease, child -> parent
    "phenotype present": RelationWords(
        _w(
            ["present with", "show", "have", "are characterised by", "manifest"],
            ["presenting with", "showing", "characterised by", "with"],
        ),
        _w(["are present in", "occur in", "are seen in", "are features of"], ["present in", "seen in", "found in"]),
        source="disease",
    ),
    "phenotype absent": RelationWords(
        _w(
            ["lack", "explicitly lack", "are explicitly without", "have {obj} marked as absent"],
            ["lacking", "explicitly without", "where {obj} is absent", "in which {obj} is explicitly absent"],
            definite=["do not show", "do not present with"],
        ),
        _w(
            ["are explicitly absent in", "are noted as absent in", "are marked as absent in"],
            ["explicitly absent in", "noted as absent in", "marked as absent in"],
        ),
        source="disease",
        kind="negation",
    ),
    "parent-child": RelationWords(
        _w(
            [
                "are direct subtypes of",
                "are immediate children of",
                "sit directly under",
                "are one level more specific than",
            ],
            ["directly under", "one level more specific than", "immediately below"],
        ),
        _w(
            ["are direct parents of", "are the immediate broader terms of", "sit directly above"],
            ["directly above", "one level broader than", "immediately above"],
        ),
        neutral=_w(
            ["are directly related in the hierarchy to", "are direct parents or children of"],
            ["directly related in the hierarchy to", "one level above or below"],
        ),
        kind="hierarchy",
    ),
    "associated with": RelationWords(
        _w(
            ["are associated with", "are linked to", "are implicated in"],
            ["associated with", "linked to", "implicated in"],
        ),
        _w(["are associated with", "are linked to", "have been linked to"], ["associated with", "linked to"]),
        source="gene/protein",
    ),
    # PRIME
    "ppi": RelationWords(
        _w(["interact with", "physically interact with", "bind"], ["interacting with", "binding"]),
    ),
    "carrier": RelationWords(
        _w(["are carried by", "use as a carrier"], ["carried by"]),
        _w(["carry", "are carriers of"], ["carrying", "acting as a carrier of"]),
        source="drug",
    ),
    "enzyme": RelationWords(
        _w(["are metabolised by", "are processed by the enzyme"], ["metabolised by"]),
        _w(["metabolise", "are enzymes acting on"], ["metabolising"]),
        source="drug",
    ),
    "target": RelationWords(
        _w(["target", "act on"], ["targeting", "acting on"]),
        _w(["are targeted by", "are targets of"], ["targeted by"]),
        source="drug",
    ),
    "transporter": RelationWords(
        _w(["are transported by"], ["transported by"]),
        _w(["transport", "are transporters of"], ["transporting"]),
        source="drug",
    ),
    "contraindication": RelationWords(
        _w(["are contraindicated in", "should not be used for"], ["contraindicated in"]),
        _w(["are contraindications for", "should not be treated with"], ["for which {obj} is contraindicated"]),
        source="drug",
    ),
    "indication": RelationWords(
        _w(["are indicated for", "treat", "are used to treat"], ["indicated for", "used to treat", "used against"]),
        _w(
            ["are treated with", "can be treated with", "are indications of"],
            ["treated with", "for which {obj} is indicated"],
        ),
        source="drug",
    ),
    "off-label use": RelationWords(
        _w(["are used off-label for", "are prescribed off-label for"], ["used off-label for"]),
        _w(["are treated off-label with"], ["treated off-label with"]),
        source="drug",
    ),
    "synergistic interaction": RelationWords(
        _w(
            ["interact synergistically with", "act synergistically with"],
            ["synergistic with", "interacting synergistically with"],
        ),
    ),
    "side effect": RelationWords(
        _w(["cause", "can cause", "have the side effect"], ["causing", "known to cause", "with the side effect"]),
        _w(["are side effects of", "can be caused by"], ["caused by", "reported as a side effect of"]),
        source="drug",
    ),
    "interacts with": RelationWords(_w(["interact with", "are connected to"], ["interacting with", "connected to"])),
    "linked to": RelationWords(_w(["are linked to", "are connected to"], ["linked to", "connected with"])),
    "expression present": RelationWords(
        _w(["are expressed in", "show expression in"], ["expressed in"]),
        _w(["express"], ["expressing"]),
        source="gene/protein",
    ),
    "expression absent": RelationWords(
        _w(
            ["lack expression in", "are explicitly not expressed in"],
            ["lacking expression in", "explicitly not expressed in"],
        ),
        _w(["lack expression of", "explicitly lack"], ["lacking expression of"], definite=["do not express"]),
        source="gene/protein",
        kind="negation",
    ),
    # MAG (its types are "source___verb___target")
    "writes": RelationWords(
        _w(["wrote", "authored", "are authors of"], ["who wrote", "who authored"]),
        _w(["were written by", "were authored by"], ["written by", "by", "authored by"]),
        source="author",
    ),
    "cites": RelationWords(
        _w(["cite", "reference"], ["citing", "referencing"]),
        _w(["are cited by", "are referenced by"], ["cited by", "referenced in"]),
        neutral=_w(["cite or are cited by"], ["citing or cited by", "connected by a citation to"]),
    ),
    "has topic": RelationWords(
        _w(["are about", "cover", "deal with"], ["about", "on", "in the field of"]),
        _w(["are topics of", "are covered by"], ["covered by", "studied in"]),
        source="paper",
    ),
    "affiliated with": RelationWords(
        _w(["are affiliated with", "work at"], ["affiliated with", "from", "at"]),
        _w(["are affiliations of", "have {obj} as an affiliated author"], ["with which {obj} is affiliated"]),
        source="author",
    ),
    # AMAZON
    "also buy": RelationWords(
        _w(["are also bought with", "are often bought together with"], ["bought together with", "also bought with"])
    ),
    "also view": RelationWords(
        _w(["are also viewed with", "are often viewed together with"], ["viewed together with", "also viewed with"])
    ),
    "has brand": RelationWords(
        _w(["are made by", "are sold under", "are from"], ["made by", "from", "sold under"]),
        _w(["make", "sell"], ["making", "selling"]),
        source="product",
    ),
    "has category": RelationWords(
        _w(["are in", "belong to", "are listed under"], ["in", "listed under", "belonging to"]),
        _w(["contain", "include"], ["containing", "including"]),
        source="product",
    ),
    "has color": RelationWords(
        _w(["come in", "are available in"], ["in", "available in"]),
        _w(["are colors of", "are offered for"], ["offered for"]),
        source="product",
    ),
}
"""Relation wording per relationship type in words (:func:`relation_key`); any other type falls back to
:func:`relation_words`'s generic wording."""


def relation_key(rel_type: str) -> str:
    """A type in words: MAG's 'author___writes___paper' -> 'writes', 'has_topic' -> 'has topic'."""
    parts = rel_type.split("___")
    verb = parts[1] if len(parts) == 3 else rel_type
    return " ".join(verb.replace("_", " ").split()).lower()


def generic_words(rel_type: str) -> RelationWords:
    """The fallback wording of any relationship type: "related to" the object through the type's name."""
    name = relation_key(rel_type) or "a relation"
    return RelationWords(
        _w(
            [f"are related to {OBJ} through {name}", f"are linked by {name} to"],
            [f"related through {name} to", f"linked by {name} to"],
        )
    )


def relation_words(rel_type: str) -> RelationWords:
    """The wording of ``rel_type``: from :data:`RELATION_WORDS`, else :func:`generic_words`."""
    return RELATION_WORDS.get(relation_key(rel_type)) or generic_words(rel_type)


def hop_wording(rel_type: str, subject: str, obj: str, direction: Direction | None = None) -> Wording:
    """The wording of one hop from a node of label ``subject`` (the answer's side) to one of label ``obj``.

    ``direction`` names which way a same-label edge points; without it a directed relation is worded neutrally.
    Labels the table's ``source`` does not fit (another SKB's use of a known type) get the generic wording."""
    words = relation_words(rel_type)
    if words.neutral is not None:
        if subject != obj or direction is None or words.backward is None:
            return words.neutral
        return words.forward if direction == "to_anchor" else words.backward
    if words.backward is None:
        return words.forward
    if subject != obj and subject == words.source:
        return words.forward
    if subject != obj and obj == words.source:
        return words.backward
    return generic_words(rel_type).forward


def directed(rel_type: str) -> bool:
    """Whether the wording of ``rel_type`` between two nodes of one label names a direction ("subtypes of")."""
    return relation_words(rel_type).directed


def kind(hops: Sequence[tuple[str, str]]) -> str:
    """The question's kind, for per-kind metrics: 'negation', 'hierarchy', else '1-hop' or '2-hop'."""
    kinds = {relation_words(rel_type).kind for rel_type, _ in hops}
    for special in ("negation", "hierarchy"):
        if special in kinds:
            return special
    return f"{len(hops)}-hop"


DEFINITION = re.compile(r"^\s*- (?:[a-z]+_)?definition: (.+)$", re.MULTILINE)
"""A definition line of a document: HPO's ``  - definition: ...``, PRIME's ``  - mondo_definition: ...``."""
SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]])\.(?:\s|$)")
MAX_DESCRIPTION_WORDS = 16


def description(doc: str) -> str | None:
    """A short description of a term from its document's definition (its first sentence, cut at
    :data:`MAX_DESCRIPTION_WORDS` words), or None without one."""
    match = DEFINITION.search(doc)
    if match is None:
        return None
    first = SENTENCE_END.split(match.group(1).strip(), maxsplit=1)[0].strip().rstrip(".")
    words = first.split()
    if len(words) < 3:
        return None
    return first if len(words) <= MAX_DESCRIPTION_WORDS else " ".join(words[:MAX_DESCRIPTION_WORDS]) + " ..."


@dataclass(frozen=True)
class Shape:
    """A sentence shape: ``{subj}`` the answer type (plural), ``{pred}`` its relation to the object, ``{cond}``
    the textual condition, right after the subject (``pre``) or after the predicate (``post``)."""

    text: str
    clause: Literal["verb", "modifier"]
    condition: Literal["pre", "post"]


SHAPES = (
    Shape("Which {subj} {pred}{cond}?", "verb", "post"),
    Shape("What {subj} {pred}{cond}?", "verb", "post"),
    Shape("Which {subj} {cond} {pred}?", "verb", "pre"),
    Shape("Among {subj} {cond}, which {pred}?", "verb", "pre"),
    Shape("List the {subj} that {pred}{cond}.", "verb", "post"),
    Shape("Name the {subj} that {pred}{cond}.", "verb", "post"),
    Shape("I'm looking for {subj} that {pred}{cond}.", "verb", "post"),
    Shape("Find {subj} {pred}{cond}.", "modifier", "post"),
    Shape("Show me {subj} {pred}{cond}.", "modifier", "post"),
    Shape("{subj} {pred}{cond}", "modifier", "post"),
)
PRE_CONDITIONS = (
    "whose description mentions {w}",
    "whose descriptions mention {w}",
    "described with the word {w}",
    "involving {w}",
    "mentioning {w}",
)
"""Conditions right after the subject noun, where they can only be about the answers."""
VERB_CONDITIONS = (" and mention {w}", " and are described with the word {w}", " and have {w} in their description")
"""Conditions after a finite predicate: the plural verb ties them to the answers, not to the (singular) object."""
MODIFIER_CONDITIONS = (
    " that mention {w}",
    " that have {w} in their description",
    " that are described with the word {w}",
)
"""Conditions after a modifier (which may end in a relative clause: "in which X is absent"): the plural ties
them to the answers."""
LOWER_START = 0.2
"""Share of sentences begun in lower case, as typed in a search box."""


def _fill(phrase: str, obj: str) -> str:
    return phrase.replace(OBJ, obj) if OBJ in phrase else f"{phrase} {obj}"


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def anchor_phrase(label: str, mention: str, style: MentionStyle, rng: random.Random) -> str:
    """How the question names the anchor: bare ('seizure'), with its type ('the gene ERLIN2'), or described."""
    noun = rng.choice(type_nouns(label)).singular
    if style == "description":
        quote = "'" if "'" not in mention else '"'
        return f"the {rng.choice((noun, 'term'))} described as {quote}{mention}{quote}"
    roll = rng.random()
    if roll < 0.45:
        return mention
    return f"the {noun} {mention}" if roll < 0.9 else f'the {noun} "{mention}"'


def _word(word: str, rng: random.Random) -> str:
    text = word.lower() if rng.random() < 0.3 else word
    return f'"{text}"' if rng.random() < 0.35 else text


def natural(
    target: str,
    hops: Sequence[tuple[str, str]],
    mention: str,
    word: str,
    rng: random.Random,
    *,
    style: MentionStyle = "name",
    direction: Direction | None = None,
) -> str:
    """A question as an analyst might type it: answers of type ``target`` reaching the anchor (``mention``, as
    ``style`` says) along ``hops`` [(relation type, label)], whose document mentions ``word``.

    ``direction`` (1 hop between one label only) names the edge's direction ("direct subtypes of"); the caller
    restricts the answers to it."""
    subject = rng.choice(type_nouns(target)).plural
    anchor = anchor_phrase(hops[-1][1], mention, style, rng)
    if len(hops) == 1:
        wording = hop_wording(hops[0][0], target, hops[0][1], direction)
        verbs = wording.verbs + wording.definite_verbs
        modifiers = wording.modifiers + wording.definite_modifiers
        obj = anchor
    else:
        (first, middle), (second, label) = hops
        noun = rng.choice(type_nouns(middle)).singular
        inner = hop_wording(second, middle, label)
        obj = f"{_article(noun)} {noun} {_fill(rng.choice(inner.modifiers), anchor)}"
        wording = hop_wording(first, target, middle)
        verbs, modifiers = wording.verbs, wording.modifiers
    shape = rng.choice(SHAPES)
    predicate = _fill(rng.choice(verbs if shape.clause == "verb" else modifiers), obj)
    conditions: tuple[str, ...]
    if shape.condition == "pre":
        conditions = PRE_CONDITIONS
    else:
        conditions = VERB_CONDITIONS if shape.clause == "verb" else MODIFIER_CONDITIONS
    condition = rng.choice(conditions).replace(WORD, _word(word, rng))
    text = shape.text.format(subj=subject, pred=predicate, cond=condition)
    if rng.random() < LOWER_START:
        text = text[0].lower() + text[1:]
    return text
