"""Issue 30: the no-LLM plan reads a question's wording where its word lists stop. A type named in other words ("a
*characteristic* annotated to X", "the *phenotypic abnormality* referred to as X") is read by meaning and is a node
to go through, not an entity to link; a negation said before the middle node's noun still negates the hop that has a
negated type; a prefix reads after "opening with" and before "-prefixed"; framing words and clause words make no
better name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from kgqa.cypher.plan import QueryPlan
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s1_target_type import type_named_in_question
from kgqa.runtime.steps.s2_conditions import not_entities, prefix_words
from kgqa.runtime.steps.s2_linking import Link, link_entities, tightest
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import schema_guided_plan
from kgqa.runtime.steps.s2_spans import ngrams
from kgqa.runtime.steps.s2_type_nouns import type_nouns
from kgqa.runtime.store.base import VectorHit
from kgqa.runtime.text import STOP_WORDS, Mention
from tests.helpers.hpo_schema import HPO, PHENOTYPE, link
from tests.helpers.meaning_table import MeaningTable
from tests.helpers.store_fakes import OneByOne

TYPES = ("disease", "gene/protein", PHENOTYPE)


MEANINGS = {
    "characteristic": (PHENOTYPE, 0.63),
    "phenotypic abnormality": (PHENOTYPE, 0.68),
    "phenotypic": (PHENOTYPE, 0.7),
    "seizure": ("disease", 0.5),
}


def table(meanings: dict[str, tuple[str, float]] = MEANINGS) -> MeaningTable:
    return MeaningTable(meanings)


def nouns_of(question: str, embedder: MeaningTable | None = None) -> list[tuple[str, str]]:
    found = type_nouns(read_question(question), TYPES, embedder or table())  # type: ignore[arg-type]
    return [(m.form, m.label) for m in found]


def plan_of(question: str, spans: Sequence[tuple[str, str]], target: str, nouns: Sequence[Mention]) -> QueryPlan:
    links, reading = [link(question, span, label) for span, label in spans], read_question(question)
    _, textual = not_entities(reading, TYPES, nouns=nouns)
    skip = frozenset({i for one in links for i in range(one.start, one.end)} | textual)
    meaning = RelationMeaning(reading, ignore=STOP_WORDS, skip=skip)
    plan = schema_guided_plan(links, target, HPO, reading, meaning, nouns=nouns)
    assert plan is not None
    return plan


def hops(plan: QueryPlan) -> list[tuple[str, tuple[str, ...], str]]:
    labels = {s.name: s.labels[0] for s in plan.symbols}
    return [(labels[t.head], t.types, labels[t.tail]) for t in plan.triplets]


def test_a_type_named_in_other_words_after_an_article_is_read_by_meaning() -> None:
    assert nouns_of("Which conditions exhibit a characteristic connected to ANTXR2?") == [("characteristic", PHENOTYPE)]
    # a modifier before a listed type word joins the noun, where it alone means the same type
    assert nouns_of("Which genes are linked to a phenotypic abnormality of the disease X?") == [
        ("phenotypic abnormality", PHENOTYPE)
    ]
    # too weak a meaning, a capitalised name, no article, or a word the lists already have: no noun
    assert nouns_of("Which genes are linked to a seizure?") == []
    assert nouns_of("Which genes are linked to the Characteristic X?") == []
    assert nouns_of("Which conditions exhibit characteristic ANTXR2 findings?") == []
    assert nouns_of("Which genes are linked to a disease?") == []
    # an adjective before its noun is no type noun ("a genetic basis"), a noun before its participle is
    meanings = {"genetic": ("gene/protein", 0.75), "marker": ("gene/protein", 0.7)}
    assert nouns_of("Which diseases have a genetic basis?", table(meanings)) == []
    assert nouns_of("Which diseases have a marker mapped to 3p?", table(meanings)) == [("marker", "gene/protein")]
    assert nouns_of("Which diseases have a marker seen in X?", table(meanings)) == [("marker", "gene/protein")]


def test_a_type_noun_is_no_entity_to_link_and_a_node_to_go_through() -> None:
    question = "Which conditions exhibit a characteristic connected to ANTXR2?"
    reading = read_question(question)
    nouns = type_nouns(reading, TYPES, table())  # type: ignore[arg-type]
    assert "characteristic" in {text for _, _, text in ngrams(reading, TYPES)}
    assert "characteristic" not in {text for _, _, text in ngrams(reading, TYPES, nouns)}
    plan = plan_of(question, [("ANTXR2", "gene/protein")], "disease", nouns)
    assert hops(plan) == [
        ("disease", ("phenotype present",), PHENOTYPE),
        (PHENOTYPE, ("associated with",), "gene/protein"),
    ]
    # without the noun the gene is joined to the diseases directly
    assert hops(plan_of(question, [("ANTXR2", "gene/protein")], "disease", [])) == [
        ("disease", ("associated with",), "gene/protein")
    ]


def test_a_type_noun_before_a_naming_cue_is_the_entitys_own_type() -> None:
    question = "Which genes are associated with the phenotypic abnormality referred to as Hypoglycaemia?"
    reading = read_question(question)
    nouns = type_nouns(reading, TYPES, table())  # type: ignore[arg-type]
    assert "phenotypic abnormality" not in {text.lower() for _, _, text in ngrams(reading, TYPES, nouns)}
    plan = plan_of(question, [("Hypoglycaemia", PHENOTYPE)], "gene/protein", nouns)
    assert hops(plan) == [("gene/protein", ("associated with",), PHENOTYPE)]


def test_a_negation_said_before_the_middle_nodes_noun_negates_the_hop_that_can_be_negated() -> None:
    question = "Which genes are linked to a sign explicitly excluded from the phenotype of the disease X?"
    plan = plan_of(question, [("X", "disease")], "gene/protein", [])
    assert hops(plan) == [
        ("gene/protein", ("associated with",), PHENOTYPE),
        (PHENOTYPE, ("phenotype absent",), "disease"),
    ]
    present = "Which genes are linked to a sign seen in the phenotype of the disease X?"
    assert hops(plan_of(present, [("X", "disease")], "gene/protein", []))[1][1] == ("phenotype present",)


def test_a_prefix_reads_after_opening_with_and_before_prefixed() -> None:
    assert prefix_words(read_question('Name the loci with symbols opening with "MYO".')) == {"myo"}
    prefixed = read_question("Which ZNF-prefixed genes are linked to X?")
    assert prefix_words(prefixed) == {"znf"}
    assert not any("ZNF" in text for _, _, text in ngrams(prefixed, TYPES))
    assert prefix_words(read_question("Which clinics are opening soon?")) == set()


def test_loci_name_genes() -> None:
    assert type_named_in_question(read_question("Name the loci that are mapped to X."), TYPES) == (
        "gene/protein",
        "loci",
    )


SCA_35 = Link("spinocerebellar ataxia type 35", 10, 14, "disease", "35", "Sca type 35", 1.0)
OI_II = Link("osteogenesis imperfecta type ii", 5, 9, "disease", "II", "Osteogenesis imperfecta, type II", 1.0)


@pytest.mark.parametrize(
    ("longer", "better", "kept"),
    [
        # words that only frame a better link inside make no better name
        (Link("syndrome spinocerebellar ataxia type 35", 9, 14, "disease", "34", "Sca type 34", 0.94), SCA_35, False),
        # a word of the longer link's own name keeps it ("Progressive" is part of the name)
        (Link("progressive spinocerebellar ataxia type 35", 9, 14, "disease", "P", "Progressive sca", 0.94), SCA_35,
         True),
        # "recorded for" is the hop's wording, in no name of type XI: the exact "... type ii" overlapping it wins
        (Link("recorded for osteogenesis imperfecta type", 3, 8, "disease", "XI", "OI, type XI", 0.91), OI_II, False),
        (Link("progressive osteogenesis imperfecta type", 4, 8, "disease", "P", "Progressive osteogenesis", 0.93),
         OI_II, True),
        # a misspelt word of the longer link's own name keeps it too
        (
            Link("glanzman thrombasthenia", 5, 7, "disease", "G", "Glanzmann thrombasthenia", 0.96),
            Link("thrombasthenia", 6, 7, PHENOTYPE, "T", "Abnormality of thrombocytes", 0.99, "Thrombasthenia"),
            True,
        ),
    ],
)  # fmt: skip
def test_a_span_past_a_better_link_keeps_only_words_of_its_own_name(longer: Link, better: Link, kept: bool) -> None:
    assert tightest([longer, better]) == ([longer, better] if kept else [better])


def test_no_span_holds_a_clause_word_or_ends_on_a_conditions_cue() -> None:
    grams = {
        text.lower()
        for _, _, text in ngrams(read_question("For my coursework which clinical signs mention the word X?"), TYPES)
    }
    assert not [g for g in grams if "which" in g.split()]
    grams = {
        text.lower()
        for _, _, text in ngrams(read_question("Which diseases show radial head dislocation with the word X?"))
    }
    assert "radial head dislocation with the word" not in grams
    assert "radial head dislocation" in grams


def test_type_nouns_embed_nothing_without_a_candidate() -> None:
    embedder = table()
    assert type_nouns(read_question("Which genes cause Seizure?"), TYPES, embedder) == []  # type: ignore[arg-type]
    assert embedder.asked == []


def test_a_modifier_before_a_listed_type_word_is_one_noun_with_it() -> None:
    # "the clinical signs whose ...": "clinical" alone may mean a type, but with "signs" it is one mention, not two
    # (two would make the second an intermediate node of the answers' own type)
    meanings = {"clinical": (PHENOTYPE, 0.7), "clinical signs": (PHENOTYPE, 0.9)}
    assert nouns_of("What are the clinical signs seen in X?", table(meanings)) == [("clinical signs", PHENOTYPE)]
    question = "What are the clinical signs seen in the disease X?"
    nouns = type_nouns(read_question(question), TYPES, table(meanings))  # type: ignore[arg-type]
    assert hops(plan_of(question, [("X", "disease")], PHENOTYPE, nouns)) == [
        (PHENOTYPE, ("phenotype present",), "disease")
    ]


def test_the_answers_type_named_in_other_words_is_where_the_answers_are_named() -> None:
    # "characteristics" is the answers' own noun: "the clinical sign referred to as X" later names an anchor, not
    # another name of the answers
    meanings = {"characteristics": (PHENOTYPE, 0.61), "clinical sign": (PHENOTYPE, 0.9)}
    question = "Name all characteristics seen in a disease exhibiting the clinical sign referred to as Reduced acuity."
    nouns = type_nouns(read_question(question), TYPES, table(meanings))  # type: ignore[arg-type]
    assert [(m.form, m.position) for m in nouns] == [("characteristics", 2)]  # "clinical" alone means no type
    plan = plan_of(question, [("Reduced acuity", PHENOTYPE)], PHENOTYPE, nouns)
    assert plan.symbol("y").conditions == ()
    assert hops(plan) == [
        (PHENOTYPE, ("phenotype present",), "disease"),
        ("disease", ("phenotype present",), PHENOTYPE),
    ]


class _Names(OneByOne):
    """A name index set by hand: span -> (the node's name, similarity); other spans are far from every name."""

    def __init__(self, hits: dict[str, tuple[str, float]]) -> None:
        self.hits = hits

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        name, similarity = self.hits.get(self.texts[int(vector[0])], ("far", 0.1))
        return [VectorHit(name, name, label, similarity)] if label == PHENOTYPE else []

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        self.texts = list(texts)
        return np.array([[i] for i in range(len(texts))], np.float32)


def test_a_span_that_matched_only_its_type_noun_links_nothing() -> None:
    question = "Which genes are linked to a sign just above the phenotypic abnormality referred to as Hypoglycaemia?"
    index = _Names(
        {
            "above the phenotypic abnormality": ("Phenotypic abnormality", 0.9),
            "phenotypic abnormality referred": ("Phenotypic abnormality", 0.96),
            "Hypoglycaemia": ("Hypoglycemia", 1.0),
        }
    )
    reading = read_question(question)
    nouns = type_nouns(reading, TYPES, table())  # type: ignore[arg-type]
    found = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, nouns=nouns)  # type: ignore[arg-type]
    assert [(one.span, one.name) for one in found] == [("Hypoglycaemia", "Hypoglycemia")]
    # the type noun unread, the node is linked
    found = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert "Phenotypic abnormality" in [one.name for one in found]


def test_a_negation_before_the_middles_only_noun_stays_with_the_first_hop() -> None:
    question = "Which genes are not associated with a sign present in the disease X?"
    plan = plan_of(question, [("X", "disease")], "gene/protein", [])
    assert hops(plan)[1] == (PHENOTYPE, ("phenotype present",), "disease")


def test_a_name_in_lower_case_before_a_listed_type_word_is_no_type_noun() -> None:
    # "the marfan syndrome" may be as similar to "syndrome" as "phenotypic abnormality" is to "abnormality", but
    # "marfan" alone means no type: the words stay a name to link
    meanings = {"marfan syndrome": ("disease", 0.7)}
    question = "Which genes are linked to the marfan syndrome?"
    assert nouns_of(question, table(meanings)) == []
    reading = read_question(question)
    nouns = type_nouns(reading, TYPES, table(meanings))  # type: ignore[arg-type]
    assert "marfan syndrome" in {text for _, _, text in ngrams(reading, TYPES, nouns)}


def test_open_is_a_prefix_verb_only_with_with_or_quotes() -> None:
    assert prefix_words(read_question("Which drugs open the CFTR channel?")) == set()
    assert prefix_words(read_question("Which genes have symbols opening with JAK?")) == {"jak"}
    assert prefix_words(read_question("Which genes have symbols that open 'JAK'?")) == {"jak"}


def test_framing_words_do_not_cut_a_name_they_belong_to() -> None:
    outer = Link("Marfan's syndrome", 4, 6, "disease", "D", "Marfan's syndrome", 0.93)
    inner = Link("Marfan's", 4, 5, "gene/protein", "G", "Marfan's gene", 0.95)
    assert tightest([outer, inner]) == [outer, inner]


def test_framing_words_around_part_of_a_better_link_make_no_name() -> None:
    # "genes are associated with Marfan" overlaps the exact "Marfan syndrome" and adds only framing words
    framed = Link("genes are associated with Marfan", 1, 6, "gene/protein", "G", "CHRNB1", 0.98)
    exact = Link("Marfan syndrome", 5, 7, "disease", "D", "Marfan syndrome", 1.0)
    assert tightest([framed, exact]) == [exact]
