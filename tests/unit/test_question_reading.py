"""Issue 30: the no-LLM plan reads its relations from the question (negation anywhere in a hop's clause, the
hierarchy's direction), keeps a linked entity no answer reaches out of its required triplets, and hands the words
of a textual condition to the full-text strand even where they also became a constant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from kgqa.cypher.plan import QueryPlan
from kgqa.runtime.reader.spelling import Spelling
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s2_conditions import (
    condition_words,
    naming_words,
    not_entities,
    prefix_words,
    read_conditions,
)
from kgqa.runtime.steps.s2_linking import Link, compound_link, link_entities
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import Hop, Reaches, relaxations, schema_guided_plan, unreached
from kgqa.runtime.steps.s2_spans import ngrams
from kgqa.runtime.steps.s6_lexical import residual_terms, search_terms
from kgqa.runtime.store.base import VectorHit
from kgqa.runtime.text import STOP_WORDS, Mention, type_words, words_of
from tests.helpers.hpo_schema import HPO, PHENOTYPE, link
from tests.helpers.store_fakes import OneByOne

TYPES = ("disease", "gene/protein", PHENOTYPE)


def plan_of(
    question: str, spans: Sequence[tuple[str, str]], target: str, reaches: Reaches | None = None
) -> QueryPlan | None:
    """The linked plan as kgqa.runtime.steps.s2_fallback.linked_plan builds it (relation meaning on, the links' words
    skipped)."""
    links = [link(question, span, label) for span, label in spans]
    reading = read_question(question)
    _, textual = not_entities(reading, TYPES)
    skip = frozenset({i for one in links for i in range(one.start, one.end)} | textual)
    meaning = RelationMeaning(reading, ignore=STOP_WORDS, skip=skip)
    return schema_guided_plan(links, target, HPO, reading, meaning, reaches=reaches)


def hops(question: str, spans: Sequence[tuple[str, str]], target: str) -> list[tuple[str, tuple[str, ...], str, str]]:
    plan = plan_of(question, spans, target)
    assert plan is not None
    labels = {s.name: s.labels[0] for s in plan.symbols}
    return [(labels[t.head], t.types, t.direction, labels[t.tail]) for t in plan.triplets]


PRESENT, ABSENT = ("phenotype present",), ("phenotype absent",)


@pytest.mark.parametrize(
    ("question", "spans", "target", "types"),
    [
        # a form of a negation word: "rule out" is "ruled out", "negatively" says "negative"
        ("Which diseases rule out muscle rigidity?", [("muscle rigidity", PHENOTYPE)], "disease", [ABSENT]),
        (
            "Which features are negatively annotated for Marfan syndrome?",
            [("Marfan syndrome", "disease")],
            PHENOTYPE,
            [ABSENT],
        ),
        # the entity said first, the answers' type and its predicate after it
        (
            "Marfan syndrome: which traits are negatively annotated?",
            [("Marfan syndrome", "disease")],
            PHENOTYPE,
            [ABSENT],
        ),
        ("Marfan syndrome: which traits are annotated?", [("Marfan syndrome", "disease")], PHENOTYPE, [PRESENT]),
        # a negation in another clause says nothing of the entity's hop
        (
            "My son has had seizures since he was a baby, he doesn't talk yet. Which syndrome could it be?",
            [("seizures", PHENOTYPE)],
            "disease",
            [PRESENT],
        ),
        (
            "My son has had seizures since he was a baby and doesn't talk yet. Which syndrome could it be?",
            [("seizures", PHENOTYPE)],
            "disease",
            [PRESENT],
        ),
        # no form of one: "note" is no "not", "nevertheless" no "never"
        ("Which diseases note muscle rigidity nevertheless?", [("muscle rigidity", PHENOTYPE)], "disease", [PRESENT]),
    ],
)
def test_a_negation_is_read_in_the_forms_of_its_words_and_after_the_answers_type(
    question: str, spans: list[tuple[str, str]], target: str, types: list[tuple[str, ...]]
) -> None:
    assert [t for _, t, _, _ in hops(question, spans, target)] == types


@pytest.mark.parametrize(
    ("question", "spans", "target", "types"),
    [
        ("Which diseases lack Seizure?", [("Seizure", PHENOTYPE)], "disease", [ABSENT]),
        # the negation after the entity: its hop reads the words up to the next entity or conjunction
        ("Which diseases have Seizure marked as absent?", [("Seizure", PHENOTYPE)], "disease", [ABSENT]),
        ("Which symptoms does Gaucher disease not present?", [("Gaucher disease", "disease")], PHENOTYPE, [ABSENT]),
        ("Which disorders have Seizure ruled out?", [("Seizure", PHENOTYPE)], "disease", [ABSENT]),
        # alone or with what it does present: each entity's own clause
        (
            "Which diseases present with Seizure but not with Hypotonia?",
            [("Seizure", PHENOTYPE), ("Hypotonia", PHENOTYPE)],
            "disease",
            [PRESENT, ABSENT],
        ),
        (
            "Which diseases show Seizure and do not show Hypotonia?",
            [("Seizure", PHENOTYPE), ("Hypotonia", PHENOTYPE)],
            "disease",
            [PRESENT, ABSENT],
        ),
        # coordination shares the hop: both are absent
        (
            "Which diseases lack Seizure and Hypotonia?",
            [("Seizure", PHENOTYPE), ("Hypotonia", PHENOTYPE)],
            "disease",
            [ABSENT, ABSENT],
        ),
        ("Which diseases present with Seizure?", [("Seizure", PHENOTYPE)], "disease", [PRESENT]),
        # the words after an entity stop at the next clause: "absent" is the second entity's hop
        (
            "Among disorders involving Paraplegia, which have an abnormality noted as absent in Gaucher disease?",
            [("Paraplegia", PHENOTYPE), ("Gaucher disease", "disease")],
            "disease",
            [PRESENT, PRESENT, ABSENT],
        ),
        # a negation genes and diseases have no type for goes through the one label that has it
        (
            "Which genes are linked to a finding on record as not part of Gaucher disease?",
            [("Gaucher disease", "disease")],
            "gene/protein",
            [("associated with",), ABSENT],
        ),
        (
            "Which genes are linked to Gaucher disease?",
            [("Gaucher disease", "disease")],
            "gene/protein",
            [("associated with",)],
        ),
    ],
)
def test_a_negated_question_plans_phenotype_absent(
    question: str, spans: list[tuple[str, str]], target: str, types: list[tuple[str, ...]]
) -> None:
    assert [t for _, t, _, _ in hops(question, spans, target)] == types


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Which phenotypes are more specific than Seizure?", "out"),
        ("Which phenotypes are direct subtypes of Seizure?", "out"),
        ("Which phenotypes sit directly under Seizure?", "out"),
        ("Which phenotypes are broader than Seizure?", "in"),
        ("Which phenotypes are less specific than Seizure?", "in"),
        ("Which phenotypes are the parents of Seizure?", "in"),
        ("Which phenotypes are one level above or below Seizure?", "both"),
        ("Which phenotypes are related to Seizure?", "both"),
        # a step word whose "of" ends the question: the entity is the kind, the answers what it is a kind of
        ("What is Seizure a kind of?", "in"),
        ("Seizure is a subtype of what?", "in"),
        ("Which kinds of Seizure are there?", "out"),
        # a conjunction joins two ways, past the entity's own words: both
        ("Which phenotypes have Seizure as one level broader or more specific?", "both"),
    ],
)
def test_a_hierarchy_question_plans_the_edge_in_the_direction_it_names(question: str, direction: str) -> None:
    # HPO's 'parent-child' edges point from the child to the parent: "more specific than X" is y -> X
    assert hops(question, [("Seizure", PHENOTYPE)], PHENOTYPE) == [(PHENOTYPE, ("parent-child",), direction, PHENOTYPE)]


def test_a_hierarchy_step_between_two_labels_goes_through_the_entitys_own_label() -> None:
    question = "Which diseases present with a more specific form of Seizure?"
    assert hops(question, [("Seizure", PHENOTYPE)], "disease") == [
        ("disease", PRESENT, "both", PHENOTYPE),
        (PHENOTYPE, ("parent-child",), "out", PHENOTYPE),
    ]
    named = "Which diseases have a phenotype that is a child of Seizure?"
    assert hops(named, [("Seizure", PHENOTYPE)], "disease")[-1] == (PHENOTYPE, ("parent-child",), "out", PHENOTYPE)
    # an everyday "children" says no hierarchy
    everyday = "Which diseases of children present with Seizure?"
    assert hops(everyday, [("Seizure", PHENOTYPE)], "disease") == [("disease", PRESENT, "both", PHENOTYPE)]


def test_a_link_no_answer_reaches_is_never_a_required_triplet() -> None:
    question = "Which diseases with Onset present with Seizure?"
    asked: list[tuple[str, list[Hop]]] = []

    def reaches(one: Link, path: Sequence[Hop]) -> bool:
        asked.append((one.name, list(path)))
        return one.name != "Onset"  # the branch root: no disease presents it

    plan = plan_of(question, [("Onset", PHENOTYPE), ("Seizure", PHENOTYPE)], "disease", reaches)
    assert plan is not None
    assert [c.search_string for c in plan.constants] == ["Seizure"]
    assert len(plan.triplets) == 1 and plan.triplets[0].tail == "e1"
    [gone] = plan.dropped
    assert "'Onset'" in gone.text and unreached(gone) and "disease reaches it" in gone.reason
    assert [name for name, _ in asked] == ["Onset", "Seizure"]
    # nothing reachable: no plan at all, rather than one that grounds nothing
    assert plan_of(question, [("Onset", PHENOTYPE)], "disease", lambda one, path: False) is None


@pytest.mark.parametrize(
    ("question", "condition"),
    [
        ("Which disorders are linked to SCN1A and have 'cardiac' in their name?", ["cardiac"]),
        ("Which diseases linked to SCN1A whose name contains cardiac?", ["cardiac"]),
        ("Which genes whose symbol starts with KCN are linked to Seizure?", ["kcn"]),
    ],
)
def test_a_textual_condition_is_not_linked(question: str, condition: list[str]) -> None:
    words = words_of(question)
    reading = read_question(question)
    _, textual = not_entities(reading, TYPES)
    assert sorted(words[i].lower().strip("'") for i in textual) == sorted(condition)
    grams = {text.lower() for _, _, text in ngrams(reading, TYPES)}
    assert not any(word in gram.split() for word in condition for gram in grams)


def test_the_words_of_a_textual_condition_reach_the_full_text_strand_where_a_constant_covers_them() -> None:
    # "Seizure" is the anchor's constant; "seizure" after "mention" is the answers' own text: it is still searched
    question = "Which phenotypes are children of Seizure and mention seizure?"
    words = words_of(question)
    condition = [words[i] for i in sorted(condition_words(read_question(question), TYPES))]
    assert condition == ["seizure"]
    assert residual_terms(question, ["Seizure"], TYPES, ("parent-child",), condition) == ["seizure"]
    assert residual_terms(question, ["Seizure"], TYPES, ("parent-child",)) == []
    # a phrase of the condition that a linked entity's name covers ('Uterine cervix'): every word is searched
    phrase = "Which phenotypes linked to SRY have a definition that mentions tumor of the uterine cervix?"
    words = words_of(phrase)
    condition = [words[i] for i in sorted(condition_words(read_question(phrase), TYPES))]
    assert condition == ["tumor", "uterine", "cervix"]
    terms = residual_terms(phrase, ["SRY", "Uterine cervix"], TYPES, ("associated with",), condition)
    assert terms == ["tumor", "uterine", "cervix"]
    # framing words of a condition are not searched; a prefix is searched as one
    prefix = "Which genes whose symbol starts with KCN are linked to Seizure?"
    assert residual_terms(prefix, ["Seizure"], TYPES, (), [], prefix_words(read_question(prefix))) == ["kcn*"]


def test_relaxations_drop_each_constant_with_the_nodes_joined_only_for_it() -> None:
    question = "Which diseases present with a phenotype linked to KCNQ2 and lack Hypotonia?"
    plan = plan_of(question, [("KCNQ2", "gene/protein"), ("Hypotonia", PHENOTYPE)], "disease")
    assert plan is not None and [t.tail for t in plan.triplets] == ["m0", "e0", "e1"]
    relaxed = dict(relaxations(plan))
    assert list(relaxed) == ["KCNQ2", "Hypotonia"]
    without_gene = relaxed["KCNQ2"]
    assert [s.name for s in without_gene.symbols] == ["y", "e1"]  # the phenotype m0 was there only for the gene
    assert [(t.head, t.types, t.tail) for t in without_gene.triplets] == [("y", ABSENT, "e1")]
    without_hypotonia = relaxed["Hypotonia"]
    assert [s.name for s in without_hypotonia.symbols] == ["y", "m0", "e0"]
    assert [t.tail for t in without_hypotonia.triplets] == ["m0", "e0"]
    one = plan_of("Which diseases lack Hypotonia?", [("Hypotonia", PHENOTYPE)], "disease")
    assert one is not None and relaxations(one) == []


def test_a_quoted_relationship_type_names_no_intermediate_type() -> None:
    """The "phenotype" of a quoted 'phenotype present' is the relation's name: no phenotype to go through."""
    question = 'Which disease nodes have a "phenotype present" relation with the effect/phenotype "Seizure"?'
    assert hops(question, [("Seizure", PHENOTYPE)], "disease") == [("disease", PRESENT, "both", PHENOTYPE)]
    unquoted = "Which diseases have a phenotype present in children of Seizure?"
    assert [label for _, _, _, label in hops(unquoted, [("Seizure", PHENOTYPE)], "disease")] == [PHENOTYPE, PHENOTYPE]


def test_another_type_named_right_before_the_entity_is_a_hop() -> None:
    """Only the entity's own type right before it is its own ("the gene TAF8"); "phenotype assoc TAF8" goes through
    a phenotype (genes and genes are not adjacent, and two types could join them)."""
    question = "list genes linked phenotype assoc TAF8"
    assert [label for _, _, _, label in hops(question, [("TAF8", "gene/protein")], "gene/protein")] == [
        PHENOTYPE,
        "gene/protein",
    ]


def test_a_prefix_is_not_linked() -> None:
    question = "genes assoc hpo term excluded in Spinocerebellar ataxia type 35 MFN*"
    reading = read_question(question)
    assert prefix_words(reading) == {"mfn"}
    assert not [gram for gram in ngrams(reading, TYPES) if "MFN" in gram[2]]
    assert [gram for gram in ngrams(reading, TYPES) if gram[2] == "Spinocerebellar ataxia type 35"]


def test_a_dropped_link_leaves_the_words_before_it_to_the_next_entity() -> None:
    """'Right' (an HPO modifier no gene reaches) is dropped; the hop to X still goes through the trait named before
    it, one level above or below X."""
    question = "Which genes are connected to a trait right above or right below Abnormality of skin pigmentation?"
    spans = [("right", PHENOTYPE), ("Abnormality of skin pigmentation", PHENOTYPE)]
    plan = plan_of(question, spans, "gene/protein", lambda one, path: one.name != "right")
    assert plan is not None and len(plan.dropped) == 1
    labels = {s.name: s.labels[0] for s in plan.symbols}
    assert [(labels[t.head], t.types, t.direction, labels[t.tail]) for t in plan.triplets] == [
        ("gene/protein", ("associated with",), "both", PHENOTYPE),
        (PHENOTYPE, ("parent-child",), "both", PHENOTYPE),
    ]


def test_a_type_word_inside_an_entitys_name_owns_no_naming_cue() -> None:
    # "syndrome" in the disease's name is no mention of the disease type: "and are also known as Y" names the answers
    question = "Which manifestations are features of Pearson marrow-pancreas syndrome and are also known as Red eye?"
    spans = [("Pearson marrow-pancreas syndrome", "disease"), ("Red eye", PHENOTYPE)]
    plan = plan_of(question, spans, PHENOTYPE)
    assert plan is not None and plan.symbol("y").search_string == "Red eye"
    assert [(t.types, t.tail) for t in plan.triplets] == [(("phenotype present",), "e0")]


def test_a_noun_brought_in_by_an_article_owns_its_naming_cue() -> None:
    # "the health problem known as X": a noun the type lists lack names the anchor, not another name of the answers
    question = "Which conditions lead to a sign seen in the health problem known as Flynn-Aird syndrome?"
    plan = plan_of(question, [("Flynn-Aird syndrome", "disease")], "disease")
    assert plan is not None and plan.symbol("y").search_string is None and len(plan.triplets) == 2


def test_another_name_of_the_answers_is_their_own_constant_not_a_related_entity() -> None:
    # "also called 'febrile fits'" names the answers: the plan asks for phenotypes of that name under Seizure
    question = 'Which phenotypes under Seizure are also called "febrile fits"?'
    words = words_of(question)
    # the full-text strand's words, and linked, to find the answers
    reading = read_question(question)
    assert sorted(words[i].strip("'") for i in not_entities(reading, TYPES)[1]) == ["febrile", "fits"]
    assert "febrile fits" in {text.strip("'") for _, _, text in ngrams(reading, TYPES)}
    plan = plan_of(question, [("Seizure", PHENOTYPE), ("febrile fits", PHENOTYPE)], PHENOTYPE)
    assert plan is not None and plan.target == "y"
    assert plan.symbol("y").search_string == "febrile fits"
    assert [c.search_string for c in plan.constants] == ["febrile fits", "Seizure"]
    assert len(plan.triplets) == 1 and plan.triplets[0].head == "y"
    relaxed = dict(relaxations(plan))
    assert relaxed["febrile fits"].symbol("y").search_string is None and relaxed["febrile fits"].triplets
    assert relaxed["Seizure"].triplets == () and relaxed["Seizure"].symbol("y").search_string == "febrile fits"
    # named alone: the plan is the answers' name, no relation
    alone = plan_of("Which phenotypes are sometimes called fits?", [("fits", PHENOTYPE)], PHENOTYPE)
    assert alone is not None and alone.triplets == () and alone.symbol("y").search_string == "fits"


@pytest.mark.parametrize(
    ("question", "spans", "target"),
    [
        # the naming cue belongs to another type's noun: an anchor, joined as usual
        ("Which genes are linked to the phenotype known as Seizure?", [("Seizure", PHENOTYPE)], "gene/protein"),
        (
            "Which phenotypes are more specific than the phenotype called Seizure?",
            [("Seizure", PHENOTYPE)],
            PHENOTYPE,
        ),
        ("Which phenotypes are more specific than Seizure?", [("Seizure", PHENOTYPE)], PHENOTYPE),
        ("Which phenotypes are under something called Seizure?", [("Seizure", PHENOTYPE)], PHENOTYPE),
    ],
)
def test_a_named_anchor_stays_an_entity_to_join(question: str, spans: list[tuple[str, str]], target: str) -> None:
    plan = plan_of(question, spans, target)
    assert plan is not None and plan.symbol("y").search_string is None and len(plan.triplets) == 1


def test_another_name_that_links_to_another_type_is_not_joined() -> None:
    question = 'Which phenotypes of SCN1A are also called "Dravet"?'
    plan = plan_of(question, [("SCN1A", "gene/protein"), ("Dravet", "disease")], PHENOTYPE)
    assert plan is not None and [c.search_string for c in plan.constants] == ["SCN1A"]
    [gone] = plan.dropped
    assert "'Dravet'" in gone.text and "another name of the answers" in gone.reason


@pytest.mark.parametrize(
    ("question", "prefixes"),
    [
        ("Which genes have a short name starting with the letters MYO?", {"myo"}),
        ("Which genes with a short name beginning RASG are linked to X?", {"rasg"}),
        ("genes with a symbol beginning 'ZNF' linked to X", {"znf"}),
        ("genes with a symbol beginning 'znf' linked to X", {"znf"}),  # set off by its quotes alone
        ("genes with a symbol beginning znf linked to X", set()),
        ("genes with the prefix KCN", {"kcn"}),
        # not set off ("with", quotes or capitals): no prefix
        ("Which diseases have onset beginning in childhood?", set()),
        ("the beginning of the disease", set()),
    ],
)
def test_a_prefix_is_read_after_its_verb_and_fillers(question: str, prefixes: set[str]) -> None:
    assert prefix_words(read_question(question)) == prefixes


class _SpanNames(OneByOne):
    """A name index whose best hit for a span is set by hand (span -> similarity); every other span is far."""

    def __init__(self, similar: dict[str, float]) -> None:
        self.similar = similar

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        text = self.texts[int(vector[0])]
        return [VectorHit(text, text, label, self.similar.get(text, 0.1))] if label == PHENOTYPE else []

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        self.texts = list(texts)
        return np.array([[i] for i in range(len(texts))], np.float32)


def test_a_long_name_links_whole_only_when_all_but_exact_and_never_across_a_hop() -> None:
    question = "Which genes are linked to Abnormality of the epiphyses of the 3rd finger?"
    long_name = "Abnormality of the epiphyses of the 3rd finger"
    index = _SpanNames({long_name: 1.0, "epiphyses of the 3rd finger": 0.97})
    reading = read_question(question)
    [found] = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert found.span == long_name  # 8 words: past the short spans, linked whole
    index = _SpanNames({long_name: 0.95, "epiphyses of the 3rd finger": 0.97})
    [found] = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert found.span == "epiphyses of the 3rd finger"  # a long span that only resembles a name is not taken
    # a span that holds a relation word is no name however long: "absent in the disorder ..." is the hop's
    hop = read_question("Which genes are absent in the disorder Abnormality of the epiphyses")
    spans = {text for _, _, text in ngrams(hop)}
    assert "absent in the disorder Abnormality of the epiphyses" not in spans
    assert "disorder Abnormality of the epiphyses" in spans


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        # a condition said after its cue: its words alone, not the framing around them
        (
            "Sorry if this is basic, but which illnesses whose description uses the word 'combined' lack Seizure?",
            ["combined"],
        ),
        ("Asking for my kid: which genes linked to Seizure have a symbol starting with 'KCN'?", ["kcn*"]),
        # a quoted condition is all of its quotation, past the stop and relation words inside it, and is searched
        # as a phrase too
        (
            'Which symptoms seen with Seizure have a definition that mentions "originating in the ventricles"?',
            ['"originating in the ventricles"', "originating", "ventricles"],
        ),
        # one that opens on a stop word, right after its cue, in curly single quotes too
        (
            'Which symptoms seen with Seizure have a definition that mentions "in the ventricles"?',
            ['"in the ventricles"', "ventricles"],
        ),
        (
            "Which symptoms of Seizure have a definition that mentions \u2018of the heart\u2019?",
            ['"of the heart"', "heart"],
        ),
        (
            "Which symptoms of Seizure are described with the words \u201closs of tone in the arms\u201d?",
            ['"loss of tone in the arms"', "loss", "tone", "arms"],
        ),
        # a quotation no constant covers is a stated condition without a cue ("def"), one a constant covers is not
        ('hpo terms def "related to infection" linked "Seizure"', ['"related to infection"', "infection"]),
        # a quotation a constant covers but for its stop words is no condition
        ('Which rare genes are linked to "the Seizure"?', ["rare"]),
        # a long quotation without a cue describes an anchor: every residual word, no phrase
        (
            "Which rare symptoms are seen with the term described as 'An anomaly of visually evoked potentials "
            "of the brain'?",
            ["rare", "anomaly", "visually", "evoked", "potentials", "brain"],
        ),
        # no condition said: every residual word
        ("Which rare illnesses present with Seizure?", ["rare"]),
    ],
)
def test_a_stated_condition_is_all_the_full_text_strand_searches(question: str, terms: list[str]) -> None:
    relation_types = ["phenotype present", "phenotype absent", "associated with", "parent-child"]
    reading = read_question(question)
    conditions = read_conditions(reading, TYPES, ["Seizure"])  # step 2 reads them; step 6 searches them
    got = search_terms(
        reading,
        ["Seizure"],
        TYPES,
        relation_types,
        stated=conditions.stated,
        prefixes=conditions.prefixes,
    )
    assert got == terms


def test_syn_abbreviates_a_naming_cue_and_names_nothing_itself() -> None:
    """A terse "(syn. X)" gives another name of the answers, as "also called X" does; "syn" alone is no span to link
    (the name index would find the gene 'SYN2')."""
    question = "all phenotypes in Solar urticaria (syn. Skin writing)"
    words = words_of(question)
    reading = read_question(question)
    assert [words[i] for i in sorted(naming_words(reading))] == ["Skin", "writing"]
    spans = {text for _, _, text in ngrams(reading, TYPES)}
    assert "syn" not in spans and "Skin writing" in spans and "Solar urticaria" in spans


DEFINITION = "Intense or prolonged psychological distress occurs when individuals are exposed to cues"


class _Index(OneByOne):
    """A name and a document index set by hand: ``names`` (span -> (node, similarity)) and ``docs`` (quoted text
    -> the document hits, best first); everything else is far."""

    def __init__(self, names: dict[str, tuple[str, float]], docs: dict[str, list[tuple[str, float]]]) -> None:
        self.names, self.docs, self.texts = names, docs, [""]

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        text = self.texts[int(vector[0])]
        if label != PHENOTYPE:
            return []
        if prop == "doc":
            return [VectorHit(name, name, label, similarity) for name, similarity in self.docs.get(text, [])][:k]
        name, similarity = self.names.get(text, ("far", 0.1))
        return [VectorHit(name, name, label, similarity)]

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        self.texts = list(texts)
        return np.array([[i] for i in range(len(texts))], np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


@pytest.mark.parametrize(
    ("lead", "described"),
    [
        (0.80, True),  # clear of the next document: the quotation names that node
        (0.71, False),  # too close to the next: the name index's links stand
    ],
)
def test_a_quoted_definition_names_its_node_by_the_document_index(lead: float, described: bool) -> None:
    question = f"Which genes are associated with the manifestation whose definition reads '{DEFINITION}'?"
    docs = {DEFINITION: [("Intense psychological distress to cues", lead), ("Anxiety", 0.70)]}
    index = _Index({"prolonged": ("Prolonged", 0.99)}, docs)
    reading = read_question(question)
    found = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, documents=True)  # type: ignore[arg-type]
    # document vectors of another model (STaRK's imported ones): the embedder's vector is not searched there
    alone = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert [(f.name, f.described) for f in alone] == [("Prolonged", False)]
    if not described:  # the word inside it is linked as before
        assert [(f.name, f.described) for f in found] == [("Prolonged", False)]
        return
    [anchor] = found  # "prolonged" inside the quotation names no modifier of its own
    assert (anchor.name, anchor.described, anchor.span) == ("Intense psychological distress to cues", True, DEFINITION)
    # the noun before the definition's cue is the anchor's own: one hop, no phenotype in between
    plan = schema_guided_plan(found, "gene/protein", HPO, reading)
    assert plan is not None and len(plan.triplets) == 1
    assert [c.search_string for c in plan.constants] == ["Intense psychological distress to cues"]


@pytest.mark.parametrize(
    "question",
    [
        "Which genes are linked to phenotypes that mention 'prolonged psychological distress occurs when exposed'?",
        "Which genes are associated with 'prolonged distress'?",  # short: a condition or a name, not a definition
    ],
)
def test_a_quoted_condition_or_short_quotation_is_not_looked_up_as_a_definition(question: str) -> None:
    quoted = question.split("'")[1]
    index = _Index({}, {quoted: [("Intense psychological distress to cues", 0.9)]})
    found = link_entities(read_question(question), index, "hpo", TYPES, index, threshold=0.85, documents=True)  # type: ignore[arg-type]
    assert not any(f.described for f in found)


@pytest.mark.parametrize(
    ("question", "name", "synonym"),
    [
        ("Which signs are in Solar urticaria and list 'Skin writing' as an alternative name?", "Skin writing", True),
        ("Which signs of Solar urticaria have Skin writing as one of their synonyms?", "Skin writing", True),
        ("Which signs of Solar urticaria have 'Skin writing' listed among their synonyms?", "Skin writing", True),
        ("Which signs of Solar urticaria have Skin writing as a recorded synonym?", "Skin writing", True),
        # the anchor's other name, not the answers'
        ("Which signs are under a sign with 'Skin writing' among its synonyms?", "Skin writing", False),
    ],
)
def test_another_name_said_before_its_cue_names_the_answers(question: str, name: str, synonym: bool) -> None:
    quoted = f"{name}'" if f"'{name}'" in question else name  # words_of keeps a closing quote
    spans = [(quoted, PHENOTYPE)] + ([("Solar urticaria", "disease")] if "Solar" in question else [])
    links = [replace(link(question, span, label), name=span.strip("'")) for span, label in spans]
    reading = read_question(question)
    plan = schema_guided_plan(sorted(links, key=lambda one: one.start), PHENOTYPE, HPO, reading)
    assert plan is not None
    assert (plan.symbol("y").search_string == name) is synonym
    words = words_of(question)
    condition = {words[i].strip("'") for i in not_entities(reading, TYPES)[1]}
    assert ({"Skin", "writing"} <= condition) is synonym  # the full-text strand gets them too
    assert name in {text.strip("'") for _, _, text in ngrams(reading, TYPES)}  # and they are still linked


def test_a_lower_case_word_heading_an_of_phrase_is_no_symbol() -> None:
    index = _Index({"set": ("SET", 0.99), "gpi": ("GPI", 0.99)}, {})
    question = "Give the complete set of signs of a disorder mapping to gpi"
    found = link_entities(read_question(question), index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert [f.name for f in found] == ["GPI"]


def test_a_plural_type_noun_names_no_node_of_its_name() -> None:
    index = _Index({"phenotypic abnormalities are exhibited": ("Phenotypic abnormality", 0.87)}, {})
    question = "Drafting a review: what phenotypic abnormalities are exhibited in solar urticaria?"
    nouns = [Mention(4, -2, PHENOTYPE, "phenotypic abnormalities")]
    found = link_entities(read_question(question), index, "hpo", TYPES, index, threshold=0.85, nouns=nouns)  # type: ignore[arg-type]
    assert found == []


@pytest.mark.parametrize(
    ("question", "condition"),
    [
        ("Which HPO terms are associated with FGFR3, whose descriptions reference epithelium?", ["epithelium"]),
        ("Which signs of LBR have an entry that contains unpleasant?", ["unpleasant"]),
        ("Which findings of TBX5 have originating in the ventricles in their definition?", ["ventricles"]),
        (
            "Which signs of SRY have an explanation that includes 'tumor of the uterine cervix'?",
            ["tumor", "of", "the", "uterine", "cervix"],
        ),
        # a quotation after the cue is all the condition: not the words after it
        ('Which syndromes whose entry contains the word "Oculocutaneous" map to a gene?', ["Oculocutaneous"]),
        # a whole definition names an anchor: no condition
        ("Which genes are linked to the sign whose definition reads 'Bending of the diaphysis of the ulna'?", []),
    ],
)
def test_a_nodes_own_text_said_to_hold_words_states_a_condition(question: str, condition: list[str]) -> None:
    words = words_of(question)
    assert [words[i].strip("'?") for i in sorted(condition_words(read_question(question), TYPES))] == condition


def test_a_multi_word_quotation_after_a_prefix_verb_is_no_prefix() -> None:
    text = read_question("the trait whose definition opens with 'Presence of elevated levels of ketone bodies'")
    assert prefix_words(text) == set()
    assert prefix_words(read_question("genes whose symbols open with 'NKX'")) == {"nkx"}


def test_the_answer_type_coordinated_with_itself_is_no_hop() -> None:
    question = "Which signs or symptoms are linked to Marfan syndrome?"
    assert [tail for *_, tail in hops(question, [("Marfan syndrome", "disease")], PHENOTYPE)] == ["disease"]


def test_an_irregular_plural_names_its_type() -> None:
    assert "diagnoses" in type_words("disease")


def test_a_noun_before_a_description_cue_is_the_anchor_not_a_hop() -> None:
    question = "Which genes are linked to the phenotypic feature defined as 'Inflammation of the thyroid gland'?"
    found = hops(question, [("Inflammation of the thyroid gland'", PHENOTYPE)], "gene/protein")
    assert [(head, tail) for head, *_, tail in found] == [("gene/protein", PHENOTYPE)]


def test_a_place_in_the_hierarchy_said_right_before_the_entity_is_a_step() -> None:
    question = "Which genes are associated with a thing you might notice one step above or below Seizure?"
    assert [(head, types) for head, types, *_ in hops(question, [("Seizure", PHENOTYPE)], "gene/protein")] == [
        ("gene/protein", ("associated with",)),
        (PHENOTYPE, ("parent-child",)),
    ]


@pytest.mark.parametrize(
    ("question", "names", "linked"),
    [
        # an adverb of a place in the hierarchy
        (
            "Which symptoms sit right above or right below Seizure?",
            {"right": "Right", "Seizure": "Seizure"},
            ["Seizure"],
        ),
        # a hierarchy word and "of" open no name
        (
            "list phenotypes children of duplication of thumb phalanx",
            {"children of duplication of thumb phalanx": "Partial duplication of thumb phalanx"},
            [],
        ),
    ],
)
def test_words_of_the_sentence_name_no_node(question: str, names: dict[str, str], linked: list[str]) -> None:
    index = _Index({span: (name, 0.97) for span, name in names.items()}, {})
    found = link_entities(read_question(question), index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert [f.name for f in found] == linked


def test_a_description_cue_names_no_other_name_of_the_answers() -> None:
    question = "Which findings are more general than the manifestation whose definition reads 'Bending of the ulna'?"
    plan = plan_of(question, [("Bending of the ulna'", PHENOTYPE)], PHENOTYPE)
    assert plan is not None and plan.symbol("y").search_string is None and len(plan.triplets) == 1


@pytest.mark.parametrize(
    "question",
    [
        "List the syndromes mapping to TBX3, their onset falling within the young adult category.",
        "Which conditions where onset is listed as young adult come from changes in tbx3?",
    ],
)
def test_an_unreached_link_finds_the_longer_name_the_question_splits(question: str) -> None:
    names = {"young adult onset": ("Young adult onset", 0.99), "adult onset": ("Adult onset", 0.995)}
    index = _Index(names, {})
    words = [w.lower() for w in words_of(question)]
    onset = replace(link(question, "onset", PHENOTYPE), id="HP:0003674")
    reading = read_question(question)
    longer = compound_link(reading, onset, index, "hpo", index, 0.85, taken={words.index("tbx3")})  # type: ignore[arg-type]
    assert longer is not None and (longer.name, longer.start) == ("Young adult onset", onset.start)
    empty = _Index({}, {})
    assert compound_link(reading, onset, empty, "hpo", empty, 0.85, taken=set()) is None  # type: ignore[arg-type]


def test_a_link_no_answer_reaches_is_replaced_by_its_longer_name_when_that_is_reached() -> None:
    question = "Which diseases of TBX3 have onset recorded as infantile?"
    links = [link(question, "TBX3", "gene/protein"), link(question, "onset", PHENOTYPE)]
    infantile = replace(links[1], name="Infantile onset", id="infantile onset")
    reading = read_question(question)
    plan = schema_guided_plan(
        links,
        "disease",
        HPO,
        reading,
        reaches=lambda one, _: one.name != "onset",
        rejoin=lambda _: infantile,
    )
    assert plan is not None and [c.search_string for c in plan.constants] == ["TBX3", "Infantile onset"]
    plan = schema_guided_plan(links, "disease", HPO, reading, reaches=lambda one, _: one.name != "onset")
    assert plan is not None and [c.search_string for c in plan.constants] == ["TBX3"] and plan.dropped


class _LabelNames(_SpanNames):
    """A name index whose best hit per label is set by hand ((span, label) -> (name, similarity)), of any label."""

    def __init__(self, names: dict[tuple[str, str], tuple[str, float]]) -> None:
        super().__init__({})
        self.names = names

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        name, similarity = self.names.get((self.texts[int(vector[0])], label), ("far", 0.1))
        return [VectorHit(name, name, label, similarity)]


def test_a_respelling_beats_a_weak_link_of_the_words_as_typed() -> None:
    question = "what symptoms does freidreich ataxia cause"
    index = _LabelNames(
        {
            ("freidreich ataxia", "disease"): ("Friedreich ataxia", 0.87),
            ("friedreich ataxia", "disease"): ("Friedreich ataxia", 1.0),
            ("ataxia", PHENOTYPE): ("Ataxia", 0.99),
        }
    )
    spelling = Spelling({"friedreich": 5, "ataxia": 100})
    reading = read_question(question)
    [found] = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, spelling=spelling)  # type: ignore[arg-type]
    assert (found.span, found.label, found.similarity) == ("freidreich ataxia", "disease", 1.0)
    # the words as typed linking well stand: the respelling is not looked at
    index.names["freidreich ataxia", "disease"] = ("Freidreich ataxia", 0.95)
    [found] = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, spelling=spelling)  # type: ignore[arg-type]
    assert (found.name, found.similarity) == ("Freidreich ataxia", 0.95)


def test_a_name_two_labels_share_is_joined_as_the_one_the_schema_joins() -> None:
    question = "diseases with ectopia lentis and arachnodactyly"
    index = _LabelNames(
        {
            ("ectopia lentis", "disease"): ("Ectopia lentis", 1.0),
            ("ectopia lentis", PHENOTYPE): ("Ectopia lentis", 1.0),
            ("ectopia lentis", "gene/protein"): ("LENG1", 0.99),
            ("arachnodactyly", PHENOTYPE): ("Arachnodactyly", 1.0),
        }
    )
    reading = read_question(question)
    lentis, fingers = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert lentis.label == "disease" and [o.label for o in lentis.others] == [PHENOTYPE]  # LENG1: another name
    assert fingers.others == ()
    plan = schema_guided_plan([lentis, fingers], "disease", HPO, reading)
    assert plan is not None
    assert [(c.labels, c.search_string) for c in plan.constants] == [
        ((PHENOTYPE,), "Ectopia lentis"),
        ((PHENOTYPE,), "Arachnodactyly"),
    ]
    # the first link stays where the schema joins it, and where neither is joined nothing is
    plan = schema_guided_plan([lentis], "gene/protein", HPO, reading)
    assert plan is not None and [c.labels for c in plan.constants] == [("disease",)]
    assert schema_guided_plan([replace(lentis, others=())], "disease", HPO, reading) is None


def test_the_name_index_picks_which_skb_word_a_misspelt_word_meant() -> None:
    """ "zodx" is one edit from "zoda" (commoner) and "zodb": the name each forms with "syndrome" decides."""
    index = _LabelNames(
        {
            ("zoda syndrome", "disease"): ("Zoda tremor", 0.80),
            ("zodb syndrome", "disease"): ("Zodb syndrome", 1.0),
        }
    )
    spelling = Spelling({"zoda": 9, "zodb": 5, "syndrome": 50})
    reading = read_question("which genes cause zodx syndrome")
    [found] = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, spelling=spelling)  # type: ignore[arg-type]
    assert (found.span, found.name) == ("zodx syndrome", "Zodb syndrome")
    # a guess past the likeliest word links only all but exactly: "one rung up" is no RUNX2
    index.names["zodb syndrome", "disease"] = ("Zodb syndrome", 0.9)
    assert link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, spelling=spelling) == []  # type: ignore[arg-type]
    index.names["zoda syndrome", "disease"] = ("Zoda tremor", 0.9)  # the likeliest: the threshold as ever
    [found] = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85, spelling=spelling)  # type: ignore[arg-type]
    assert found.name == "Zoda tremor"


@pytest.mark.parametrize(
    ("question", "condition"),
    [
        # a cue word in a lead-in tells a story: what follows is an entity to link
        ("The neurologist mentioned spinal muscular atrophy for our baby. What is the culprit?", []),
        # in the sentence that asks, or quoted, it states what the answers' own text holds
        ("Our baby has hypotonia. Which diseases mention atrophy?", ["atrophy"]),
        ("The note mentioned 'atrophy'. Which diseases have hypotonia?", ["atrophy"]),
    ],
)
def test_a_text_cue_in_a_lead_in_is_no_condition(question: str, condition: list[str]) -> None:
    words, reading = words_of(question), read_question(question)
    assert sorted(words[i].strip("'?") for i in not_entities(reading, TYPES)[1]) == condition


def test_a_stop_word_typed_with_a_capital_inside_a_sentence_begins_a_name() -> None:
    def grams(question: str) -> set[str]:
        return {text for _, _, text in ngrams(read_question(question))}

    assert "Down syndrome" in grams("What problems do kids with Down syndrome have?")
    assert "Down syndrome" not in grams("Is it Down? Down syndrome, I mean.")  # a sentence's first capital says nothing
    assert "down syndrome" not in grams("is it down syndrome")  # in small letters, the word


class _Named(_Index):
    """:class:`_Index` whose ``exact`` texts are also a node's exact name (case aside)."""

    def __init__(self, names: dict[str, tuple[str, float]], exact: Sequence[str]) -> None:
        super().__init__(names, {})
        self.exact = {text.lower() for text in exact}

    def exact_name(self, graph: str, label: str, text: str) -> list[tuple[str, str]]:
        return [(text, text)] if label == PHENOTYPE and text.lower() in self.exact else []


@pytest.mark.parametrize(
    ("question", "exact", "linked"),
    [
        # verbatim words that are no node's name: the answers' own text, not a mention of 'Spasticity'
        ("Conditions carrying 'spastic' in the term name where Ataxia was excluded?", [], ["Ataxia"]),
        # a node's exact name quoted: a mention as ever
        ("Which conditions have 'spastic' and Ataxia?", ["spastic"], ["Spasticity", "Ataxia"]),
        # a type's word right before the quotation: it names a node, however it is spelt
        ("Which conditions have the phenotype 'spastic' and Ataxia?", [], ["Spasticity", "Ataxia"]),
    ],
)
def test_a_short_quotation_that_names_no_node_is_not_linked(question: str, exact: list[str], linked: list[str]) -> None:
    index = _Named({"spastic'": ("Spasticity", 0.87), "Ataxia": ("Ataxia", 1.0)}, exact)
    reading = read_question(question)
    found = link_entities(reading, index, "hpo", TYPES, index, threshold=0.85)  # type: ignore[arg-type]
    assert [f.name for f in found] == linked
    if not linked[:-1]:  # the quotation is then a stated textual condition
        run = reading.quoted_runs[0]
        assert set(run) <= read_conditions(reading, TYPES, [f.search for f in found]).stated


def test_the_answers_type_word_after_a_topic_is_no_middle_node() -> None:
    """ "X: which of its findings sit one level below Y?": 'findings' is the answers' type, said between X and Y;
    Y's hop is one step of the hierarchy from the answers, not through another finding."""
    question = (
        "Chiari malformation type I: which of its findings sit one level below abnormal nervous system physiology?"
    )
    spans = [("Chiari malformation type I", "disease"), ("abnormal nervous system physiology", PHENOTYPE)]
    assert hops(question, spans, PHENOTYPE) == [
        (PHENOTYPE, PRESENT, "both", "disease"),
        (PHENOTYPE, ("parent-child",), "out", PHENOTYPE),
    ]


def test_an_entity_said_before_the_answers_type_reads_the_words_before_it() -> None:
    """ "A specialisation of X appears in which diseases?": the step word stands before X, which stands before the
    answers' type: diseases with a child of X."""
    question = "A specialisation of Atrioventricular valve regurgitation appears in which diseases?"
    assert hops(question, [("Atrioventricular valve regurgitation", PHENOTYPE)], "disease") == [
        ("disease", PRESENT, "both", PHENOTYPE),
        (PHENOTYPE, ("parent-child",), "out", PHENOTYPE),
    ]
