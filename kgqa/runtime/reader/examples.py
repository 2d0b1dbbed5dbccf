"""Training questions for the learned reader, as varied as people write them (issue 51, item 1).

The generator's own words live here, on the generator's side: the reader is trained on what this module makes and is
never handed its lists. From each generated question (:func:`kgqa.runtime.reader.questions.generate`, every phrasing
family) this makes variants a person would type: a context sentence before or after it that names other nodes of the
SKB, lower case without punctuation, and, for one-hop questions, a frame that leaves the answer type implicit ("she has
X, what could it be?"). Frames are grouped in named families, so a measurement can leave one family out.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgqa.runtime.reader.questions import GeneratedQuestion

WHO = ("my son", "my daughter", "my wife", "my husband", "my mother", "a patient", "our patient", "my nephew",
       "a colleague's patient", "my friend", "the baby", "my brother")  # fmt: skip
LEAD_INS = (
    "{who} was diagnosed with {name} last year.",
    "We are seeing {who} with {name}.",
    "The genetic panel for {who} flagged {name}.",
    "Background: {who} has {name}.",
    "I'm a student writing a report on {name}.",
    "Our clinic follows {who}, who has {name} and a few other problems.",
    "So {who} has had {name} since birth, and the doctors are not sure what is going on.",
    "Quick question for my thesis, which touches on {name}.",
    "Context: {who} carries a variant in {name}.",
)
TRAILERS = (
    "Thanks in advance.",
    "Any help appreciated!",
    "We are trying to understand the options.",
    "This is for a case conference tomorrow.",
)
IMPLICIT: Mapping[str, Sequence[str]] = {
    "disease": (
        "{who} has {anchor}. what could it be?",
        "{anchor} - what's the diagnosis?",
        "what might explain {anchor} in {who}?",
        "differential for {anchor}?",
        "{anchor}, what are the possibilities",
        "what does {who} have if the main finding is {anchor}",
    ),
    "gene/protein": (
        "what's the genetic cause of {anchor}?",
        "{anchor}: what should we sequence?",
        "which variants explain {anchor}",
        "what do we test for with {anchor}?",
        "{anchor} - where in the genome do we look?",
    ),
    "effect/phenotype": (
        "what does {anchor} look like clinically?",
        "how does {anchor} present?",
        "{anchor}: what would we see on exam?",
        "what signs go with {anchor}",
        "what problems does {anchor} cause?",
    ),
}
"""Frames that do not name the answer type, by the type they ask for; the anchor is a node of another type."""
HIERARCHY = (
    "subtypes of {anchor}",
    "what is {anchor} a kind of?",
    "{anchor}: what sits one level up?",
    "more specific forms of {anchor}",
    "parents of {anchor}",
    "what falls directly under {anchor}",
    "{anchor} - broader terms?",
    "children of {anchor} in the ontology",
)
"""Frames of a one-step hierarchy question that leave the answer type implicit: it is the anchor's own type."""


@dataclass(frozen=True)
class Example:
    """A training question for the reader: its text, its answer type and the family of its phrasing."""

    text: str
    target: str
    family: str


def implicit_frames(question: GeneratedQuestion) -> Sequence[str]:
    """The frames that ask ``question`` without naming its answer type (none where there are none)."""
    hops = len(question.template.split(" / ")) - 1
    if question.kind == "hierarchy" and hops == 1:
        return HIERARCHY
    return IMPLICIT.get(target_of(question), ()) if question.kind == "1-hop" else ()


def target_of(question: GeneratedQuestion) -> str:
    """The answer type of a generated question (its template starts with it)."""
    return question.template.split(" / ")[0]


def variants(questions: Sequence[GeneratedQuestion], names: Mapping[str, Sequence[str]], seed: int) -> list[Example]:
    """Every question as generated, and one varied copy of each: a lead-in or a trailer naming a random node
    (``names``: label -> example names), casing and punctuation taken away at times; and for a one-hop question
    whose answer type has frames, or a one-step hierarchy question, a copy in a frame that leaves the type implicit."""
    rng = random.Random(seed)
    pool = [name for label in sorted(names) for name in names[label]]
    out = [Example(q.query, target_of(q), q.family or q.phrasing) for q in questions]
    for q in questions:
        target = target_of(q)
        frames = implicit_frames(q)
        if frames:
            text = rng.choice(frames).format(anchor=q.mention_text, who=rng.choice(WHO))
            out.append(Example(text if rng.random() < 0.5 else text.lower(), target, "implicit"))
        text = q.query
        if pool and rng.random() < 0.7:
            lead = rng.choice(LEAD_INS).format(who=rng.choice(WHO), name=rng.choice(pool))
            text = f"{lead[0].upper()}{lead[1:]} {text}"
            family = "lead-in"
        else:
            text = f"{text} {rng.choice(TRAILERS)}"
            family = "trailer"
        if rng.random() < 0.3:
            text = text.lower().rstrip("?.!")
        out.append(Example(text, target, family))
    return out
