"""What a question says without an LLM: relationship types by meaning (kgqa.runtime.steps.s2_relation_meaning), answer
types in everyday words (step 1) and which spans are not entities (kgqa.runtime.steps.s2_spans)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pytest

from kgqa.runtime.embed import Embedder
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s1_target_type import type_named_in_question
from kgqa.runtime.steps.s2_relation_meaning import RelationChoice, RelationMeaning, says_hierarchy, type_kinds
from kgqa.runtime.steps.s2_spans import ngrams
from kgqa.runtime.text import STOP_WORDS

HPO = ("phenotype absent", "phenotype present")
PRIME = ("contraindication", "indication", "off-label use")
EXPRESSION = ("expression absent", "expression present")

CASES = [
    ("Which diseases lack seizures?", frozenset(), HPO, ("phenotype absent",), "'lack' (negation)"),
    ("diseases in which Seizure is absent", frozenset(), HPO, ("phenotype absent",), "'absent' (negation)"),
    ("Which disorders do not show ataxia?", frozenset(), HPO, ("phenotype absent",), "'not' (negation)"),
    ("Which diseases present with seizures?", frozenset(), HPO, ("phenotype present",), "no negation word"),
    ("diseases with a 'phenotype absent' relation", frozenset(), HPO, ("phenotype absent",), "named"),
    # the words of a linked entity ("Absent speech") are not the question's wording
    ("Which diseases show absent speech?", frozenset({"absent", "speech"}), HPO, ("phenotype present",), "no negation"),
    ("the direct subtypes of Seizure", frozenset(), ("associated with", "parent-child"), ("parent-child",), "subtypes"),
    ("Which drugs treat migraine?", frozenset(), PRIME, PRIME, None),  # no embedder: nothing narrows them
    ("genes expressed in the liver", frozenset(), EXPRESSION, ("expression present",), "no negation word"),
    ("genes not expressed in the liver", frozenset(), EXPRESSION, ("expression absent",), "'not' (negation)"),
    # a negative contraction says "not"
    ("features that aren't annotated for X", frozenset(), HPO, ("phenotype absent",), "'not' (negation)"),
    ("which diseases don't show ataxia?", frozenset(), HPO, ("phenotype absent",), "'not' (negation)"),
]


@pytest.mark.parametrize(("question", "ignore", "offered", "kept", "reason"), CASES)
def test_rules(
    question: str, ignore: frozenset[str], offered: tuple[str, ...], kept: tuple[str, ...], reason: str | None
) -> None:
    meaning = RelationMeaning(read_question(question), ignore=STOP_WORDS | ignore)
    assert meaning.types("a", "b", offered) == kept
    if reason is None:
        assert meaning.choices == []
    else:
        [choice] = meaning.choices
        assert choice.kept == kept and choice.offered == tuple(sorted(offered)) and reason in choice.reason


def test_verbatim_only_when_off() -> None:
    off = RelationMeaning(read_question("Which diseases lack seizures?"), by_kind=False)
    assert off.types("disease", "effect/phenotype", HPO) == HPO and off.choices == []
    named = RelationMeaning(read_question("diseases with a 'phenotype absent' relation"), by_kind=False)
    assert named.types("disease", "effect/phenotype", HPO) == ("phenotype absent",)


def test_one_type_is_never_narrowed_or_reported() -> None:
    meaning = RelationMeaning(read_question("Which genes lack anything?"))
    assert meaning.types("gene", "disease", ["associated with"]) == ("associated with",) and meaning.choices == []


@pytest.mark.parametrize(
    ("rel_type", "kinds"),
    [
        ("phenotype absent", {"negation"}),
        ("expression absent", {"negation"}),
        ("parent-child", {"hierarchy"}),
        ("phenotype present", set()),
        ("contraindication", set()),
        ("author___writes___paper", set()),
    ],
)
def test_type_kinds(rel_type: str, kinds: set[str]) -> None:
    assert type_kinds(rel_type) == kinds


class _Words:
    """An embedder where listed words and type names share a direction; everything else is orthogonal."""

    name = "words"

    def __init__(self, groups: Sequence[set[str]]) -> None:
        self.axes = {text: axis for axis, members in enumerate(groups) for text in members}

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, self.axes.setdefault(text, len(set(self.axes.values())))] = 1.0
        return out


def test_meaning_by_embedding_keeps_the_types_a_word_is_close_to_and_says_which() -> None:
    embedder = cast(Embedder, _Words([{"treat", "indication"}]))
    meaning = RelationMeaning(
        read_question("Which drugs treat migraine?"), embedder, 0.6, ignore=STOP_WORDS | {"migraine"}
    )
    assert meaning.types("drug", "disease", PRIME) == ("indication",)
    assert meaning.choices == [RelationChoice("drug", "disease", ("indication",), PRIME, "'treat' ~ indication (1.00)")]
    assert meaning.choices[0].describe() == "drug-disease: 'treat' ~ indication (1.00) -> indication"
    # a word close to every type (or to none) narrows nothing
    everything = cast(Embedder, _Words([{"drugs", *PRIME}]))
    assert RelationMeaning(read_question("Which drugs?"), everything, 0.6).types("drug", "disease", PRIME) == PRIME


LABELS = ("disease", "effect/phenotype", "gene/protein")


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Name the conditions that have been linked to the gene SLC36A2", ("disease", "conditions")),
        ("List the symptoms that are direct parents of Seizure", ("effect/phenotype", "symptoms")),
        ("disorders linked to the protein BAAT", ("disease", "disorders")),
        ("Which clinical features are linked to SMARCD2?", ("effect/phenotype", "clinical features")),
        ("Which genes are linked to the disease X?", ("gene/protein", "genes")),
        # what the asking word asks for, whatever a lead-in clause named before it
        ("Across the disorders of GANAB, which findings are documented?", ("effect/phenotype", "findings")),
        ("For the disease X, which genes are involved?", ("gene/protein", "genes")),
        # a determiner that is an asking word too asks nothing after a type word that opens the question
        ("Diseases caused by any gene associated with Marfan syndrome", ("disease", "diseases")),
        ("the genes of Marfan syndrome", ("gene/protein", "genes")),  # leading words and no asking word
        ("Across the disorders of GANAB, any findings documented?", ("effect/phenotype", "findings")),
        # "other" between the asking word and what it asks for, as "all the" is
        ("The gene behind Marfan syndrome - what other disorders is it associated with?", ("disease", "disorders")),
        # named late, where an asking word asks for it
        ("Decreased motor nerve conduction velocity is documented in which disorders?", ("disease", "disorders")),
        ("My son has had fits and a small head since he was two, what could that be?", None),
        # a symbol prefix's dots end no sentence: the type word after them is not the asking sentence's first
        ("Which genes with symbols of the form CDH... link to disorders?", ("gene/protein", "genes")),
        (
            "Show me genes with symbols of the form ERCC... with Entropion in their phenotype profile.",
            ("gene/protein", "genes"),
        ),
    ],
)
def test_step_1_reads_everyday_type_words(question: str, named: tuple[str, str] | None) -> None:
    assert type_named_in_question(read_question(question), LABELS) == named


@pytest.mark.parametrize(
    ("question", "not_linked", "linked"),
    [
        ("Name the conditions linked to SLC36A2 and described with the word Glycinuria", ["Glycinuria"], ["SLC36A2"]),
        ('what disorders are linked to pnpla6 and have "hypogonadism" in their description?', ["hypogonadism"], []),
        ('Which clinical features mentioning "omphalitis" are linked to SMARCD2?', ["omphalitis"], ["SMARCD2"]),
        ("Which symptoms involve Congenital heart disease?", [], ["Congenital heart disease"]),
    ],
)
def test_answer_type_words_and_textual_conditions_are_not_looked_up(
    question: str, not_linked: list[str], linked: list[str]
) -> None:
    grams = {text for _, _, text in ngrams(read_question(question), LABELS)}
    assert not any(word in gram.split() for word in not_linked for gram in grams)
    assert set(linked) <= grams
    # a type's words alone are no entity; inside a name they still count
    assert not grams & {"conditions", "disorders", "clinical features", "symptoms", "clinical", "features"}


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("abnormal humerus morphology: what are its narrower terms?", True),
        ("Which terms specialise memory impairment directly?", True),  # a form of "specialisation"
        ("Which children of Seizure ...", True),
        ("Hepatosplenomegaly and a cherry-red spot, what should I be thinking of?", False),
    ],
)
def test_a_hierarchy_is_said_in_any_form_of_its_words(question: str, said: bool) -> None:
    assert says_hierarchy(read_question(question).lowered) == said


@pytest.mark.parametrize(
    ("question", "step"),
    [
        ("what is the parent of Polyphagia", True),
        ("what is the parent term of Polyphagia", True),  # one word, no stop word, between it and "of"
        ("the child terms of Seizure", True),
        ("children with Seizure", False),  # patients' children
        ("parents of the children with Seizure", True),
        ("seizures under the age of 2", False),  # a stop word between: no step
    ],
)
def test_an_everyday_step_word_steps_only_before_of(question: str, step: bool) -> None:
    reading = read_question(question)
    end = len(reading.lowered) - 1  # the entity is the last word
    assert RelationMeaning(reading).step(range(0, end)) == step
