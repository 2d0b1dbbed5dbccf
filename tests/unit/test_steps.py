"""Pure parts of the steps without a store or an LLM: parsing a type reply, question n-grams, the schema-guided plan,
the scope schedule of step 5, step 1's votes, step 6's ranking and the plans' votes (on fakes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgqa.cypher.sanitize import GraphSchema
from kgqa.errors import StoreError
from kgqa.runtime.llm import Completion
from kgqa.runtime.reading import read_question
from kgqa.runtime.scoring import Lexical
from kgqa.runtime.steps.s1_target_type import (
    Linked,
    parse_type,
    predict_target_type,
    subject_phrases,
    type_named_in_question,
)
from kgqa.runtime.steps.s2_conditions import not_entities
from kgqa.runtime.steps.s2_linking import Link
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import hierarchy_answer, reachable_labels, schema_guided_plan
from kgqa.runtime.steps.s2_spans import ngrams
from kgqa.runtime.steps.s4_grounding import (
    Grounded,
    GroundingResult,
    NodeMatch,
    PlanGrounding,
    Round,
    expansion_schedule,
    names_no_node,
    weak_constants,
)
from kgqa.runtime.steps.s6_graph_ranking import concur, plan_votes, rank_graph_strand, reach_of
from kgqa.runtime.store.base import NODE_KEYS, NodeText, TextHit, VectorHit
from kgqa.runtime.text import STOP_WORDS
from tests.helpers.hpo_schema import HPO, PHENOTYPE, link
from tests.helpers.meaning_table import TYPES as HPO_TYPES
from tests.helpers.meaning_table import MeaningTable
from tests.helpers.store_fakes import OneByOne

TYPES = ["disease", "drug", "gene/protein", "effect/phenotype"]


def test_parse_type() -> None:
    assert parse_type("drug", TYPES) == "drug"
    assert parse_type("`Gene/Protein`.", TYPES) == "gene/protein"
    assert parse_type("The answer is a disease.", TYPES) == "disease"
    assert parse_type("a drug or a disease", TYPES) is None  # two types named: not trusted
    assert parse_type("protein", TYPES) is None and parse_type("", TYPES) is None


def test_the_type_a_question_names() -> None:
    types = [*TYPES, "molecular_function"]

    def named(question: str) -> tuple[str, str] | None:
        return type_named_in_question(read_question(question), types)

    assert named("Which drugs target CYP3A4 and treat strongyloidiasis?") == ("drug", "drugs")
    assert named("What are the genes associated with X?") == ("gene/protein", "genes")
    assert named("Could you list the diseases linked to gene X?") == ("disease", "diseases")
    assert named("Which effect/phenotype nodes ...") == ("effect/phenotype", "effect/phenotype")
    assert named("Which molecular functions has X?") == ("molecular_function", "molecular functions")
    # the earliest named type wins; one named only late in a long question, or not at all, does not count
    assert named("Which diseases present the phenotype X?") == ("disease", "diseases")
    assert named("What is known about aspirin and its many uses in the drug trade?") is None
    assert named("What treats migraine?") is None


class _TypeLLM:
    """Answers step 1 with ``reply``."""

    name = "scripted"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def complete(self, messages: Any, *, max_tokens: int, temperature: float) -> Completion:
        return Completion(self.reply, 1, 1, 0.0)


class _NoEmbedder:
    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32)


@pytest.mark.parametrize(
    ("question", "reply", "label", "method"),
    [
        ("Which drugs treat migraine?", "disease", "drug", "outvoted"),  # the question's own word wins
        ("Which drugs treat migraine?", "drug", "drug", "llm"),  # they agree
        ("What treats migraine?", "drug", "drug", "llm"),  # the question names none: the LLM's vote
        ("What treats migraine?", "a drug or a disease", "disease", "embedding"),  # no vote: the closest name
    ],
)
def test_step_1_votes_the_named_type_over_the_llm(question: str, reply: str, label: str, method: str) -> None:
    choice = predict_target_type(
        read_question(question),
        TYPES,
        llm=_TypeLLM(reply),
        embedder=_NoEmbedder(),
        question_vector=np.ones(2),  # type: ignore[arg-type]
    )
    assert (choice.label, choice.method) == (label, method) and choice.completion is not None


def test_ngrams_skip_stop_word_edges() -> None:
    grams = {text for _, _, text in ngrams(read_question("Which drugs treat the migraine attacks?"))}
    assert {"drugs", "migraine attacks", "drugs treat the migraine"} <= grams
    assert "the migraine" not in grams and "Which drugs" not in grams


def test_schema_guided_plan() -> None:
    schema = GraphSchema(
        ("drug", "disease", "gene/protein"),
        (
            ("drug", "indication", "disease"),
            ("drug", "contraindication", "disease"),
            ("drug", "target", "gene/protein"),
        ),
        NODE_KEYS,
    )
    links = [Link("migraine", 3, 4, "disease", "1", "migraine", 1.0), Link("x", 5, 6, "gene/protein", "9", "X", 0.9)]
    plan = schema_guided_plan(links, "drug", schema)
    assert plan is not None and plan.target == "y"
    assert [(t.head, t.types, t.tail, t.direction) for t in plan.triplets] == [
        ("y", ("contraindication", "indication"), "e0", "both"),
        ("y", ("target",), "e1", "both"),
    ]
    assert plan.symbol("e0").search_string == "migraine"
    assert schema_guided_plan(links, "disease", GraphSchema(("disease",), (), NODE_KEYS)) is None


def test_link_priority_prefers_whole_names_but_not_joined_phrases() -> None:
    from kgqa.runtime.steps.s2_linking import _priority

    word = Link("generalized", 4, 5, "effect/phenotype", "1", "Generalized", 1.0)
    whole = Link("generalized tonic-clonic seizures", 4, 7, "effect/phenotype", "2", "Generalized clonic seizure", 0.92)
    assert sorted([word, whole], key=_priority) == [whole, word]
    exact = Link("Arachnoid cyst", 5, 7, "disease", "3", "Arachnoid cyst", 1.0)
    joined = Link("Arachnoid cyst and Acute", 5, 9, "disease", "3", "Arachnoid cyst", 0.88)
    assert sorted([joined, exact], key=_priority) == [exact, joined]
    # a disease whose name joins phenotypes' names: the whole name, matched all but exactly, is one entity
    name = Link("Brachycephaly trichomegaly and developmental delay", 5, 10, "disease", "D", "Brachycephaly, ...", 0.99)
    part = Link("Brachycephaly", 5, 6, "effect/phenotype", "P", "Brachycephaly", 1.0)
    assert sorted([part, name], key=_priority) == [name, part]


def test_a_span_gives_way_to_a_tighter_span_inside_it_that_links_the_same_node() -> None:
    from kgqa.runtime.steps.s2_linking import tightest

    loose = Link("phenotype present in spondylocostal dysostosis 5", 6, 12, "disease", "D5", "Sdo 5", 0.94)
    tight = Link("spondylocostal dysostosis 5", 9, 12, "disease", "D5", "Sdo 5", 1.0)
    other = Link("dysostosis", 10, 11, "effect/phenotype", "P1", "Dysostosis", 1.0)
    assert tightest([loose, tight, other]) == [tight, other]
    # another node, or a worse match inside: the longer span stays (a whole name beats a word of it)
    word = Link("generalized", 4, 5, "effect/phenotype", "1", "Generalized", 1.0)
    whole = Link("generalized tonic-clonic seizures", 4, 7, "effect/phenotype", "2", "Bilateral tonic-clonic", 0.92)
    weaker = Link("tonic-clonic seizures", 5, 7, "effect/phenotype", "2", "Bilateral tonic-clonic", 0.9)
    assert tightest([word, whole, weaker]) == [word, whole, weaker]
    # the span's other matches go with it ("disorders that show Capillary hemangioma" also matched another node's
    # alias, weaker, and would have taken the words back from the exact name)
    show = "disorders that show Capillary hemangioma"
    loose_same = Link(show, 3, 8, "effect/phenotype", "H", "Capillary hemangioma", 0.92)
    loose_other = Link(show, 3, 8, "effect/phenotype", "T", "Tufted angioma", 0.91, "Progressive capillary hemangioma")
    exact = Link("Capillary hemangioma", 6, 8, "effect/phenotype", "H", "Capillary hemangioma", 1.0)
    assert tightest([loose_same, loose_other, exact]) == [exact]
    # a word the longer span shares with the node's name stays in the link: "Progressive" must not link on its own
    name = "Progressive neurologic deterioration"
    whole_name = Link(f"symptom {name}", 7, 11, "effect/phenotype", "N", name, 0.92)
    by_alias = Link("neurologic deterioration", 9, 11, "effect/phenotype", "N", name, 1.0, "Neurologic deterioration")
    assert tightest([whole_name, by_alias]) == [whole_name, by_alias]


def _hops(question: str, links: list[Link], target: str) -> list[tuple[str, tuple[str, ...], str, str]]:
    plan = schema_guided_plan(links, target, HPO, read_question(question))
    assert plan is not None
    labels = {s.name: s.labels[0] for s in plan.symbols}
    return [(labels[t.head], t.types, labels[t.tail], t.tail) for t in plan.triplets]


def test_schema_guided_plan_goes_through_the_type_the_question_names() -> None:
    question = (
        "Which disease nodes have a 'phenotype present' relation with a effect/phenotype that has a "
        "'associated with' relation with the gene/protein ERLIN2?"
    )
    assert _hops(question, [link(question, "ERLIN2", "gene/protein")], "disease") == [
        ("disease", ("phenotype present",), "effect/phenotype", "m0"),  # the named relation type only
        ("effect/phenotype", ("associated with",), "gene/protein", "e0"),
    ]
    # the same two labels, adjacent in the schema: one hop when the question names no type between them
    direct = "Which diseases are linked to ERLIN2?"
    assert _hops(direct, [link(direct, "ERLIN2", "gene/protein")], "disease") == [
        ("disease", ("associated with",), "gene/protein", "e0")
    ]
    # disease-disease: not adjacent, and the question names the gene in between
    twice = "Which diseases share a gene with the disease Ceroid lipofuscinosis?"
    hops = _hops(twice, [link(twice, "Ceroid lipofuscinosis", "disease")], "disease")
    assert [label for _, _, label, _ in hops] == ["gene/protein", "disease"]
    # the target's own type named again is an intermediate: phenotypes whose child phenotype a disease presents
    nested = "Which phenotypes have a child phenotype that is present in the disease Ceroid lipofuscinosis?"
    assert _hops(nested, [link(nested, "Ceroid lipofuscinosis", "disease")], PHENOTYPE) == [
        ("effect/phenotype", ("parent-child",), "effect/phenotype", "m0"),
        ("effect/phenotype", ("phenotype absent", "phenotype present"), "disease", "e0"),
    ]


def test_a_word_of_the_answer_types_own_phrase_is_not_an_intermediate_type() -> None:
    """ "features" inside "clinical features" named a second phenotype: the 1-hop question became a 2-hop plan
    through 'parent-child'."""
    question = 'Which clinical features mentioning "omphalitis" are linked to the gene SMARCD2?'
    assert _hops(question, [link(question, "SMARCD2", "gene/protein")], PHENOTYPE) == [
        ("effect/phenotype", ("associated with",), "gene/protein", "e0")
    ]
    again = "Which clinical features are features of a phenotype present in the disease Ceroid lipofuscinosis?"
    hops = _hops(again, [link(again, "Ceroid lipofuscinosis", "disease")], PHENOTYPE)
    assert [label for _, _, label, _ in hops] == [PHENOTYPE, "disease"]  # a phenotype named again still counts


@pytest.mark.parametrize(
    "question",
    [
        "Which symptoms are features of the condition Gaucher disease?",
        "Which signs are recognized features of Gaucher disease?",  # a modifier between copula and noun
        "Which signs are the typical clinical features of Gaucher disease?",
    ],
)
def test_the_answer_type_restated_as_a_predicate_is_no_hop(question: str) -> None:
    assert _hops(question, [link(question, "Gaucher disease", "disease")], PHENOTYPE) == [
        ("effect/phenotype", ("phenotype absent", "phenotype present"), "disease", "e0")
    ]


def test_a_type_named_after_a_copula_and_a_clause_is_a_hop() -> None:
    question = "Which symptoms are children of the features of Gaucher disease?"
    hops = _hops(question, [link(question, "Gaucher disease", "disease")], PHENOTYPE)
    assert [label for _, _, label, _ in hops] == [PHENOTYPE, "disease"]  # "children of": no modifier of a predicate


def test_a_phenotype_restated_elsewhere_still_counts() -> None:
    question = "Which symptoms have a phenotype present in Gaucher disease as a child?"
    hops = _hops(question, [link(question, "Gaucher disease", "disease")], PHENOTYPE)
    assert [label for _, _, label, _ in hops] == [PHENOTYPE, "disease"]


def test_a_second_entity_does_not_take_the_first_ones_type_as_a_hop() -> None:
    question = "Which phenotypes are children of the phenotype Choanal stenosis and mention Bilateral?"
    links = [link(question, "Choanal stenosis", PHENOTYPE), link(question, "Bilateral", PHENOTYPE)]
    assert _hops(question, links, PHENOTYPE) == [
        ("effect/phenotype", ("parent-child",), "effect/phenotype", "e0"),
        ("effect/phenotype", ("parent-child",), "effect/phenotype", "e1"),
    ]


def test_schedule_matches_the_reference_code() -> None:
    assert expansion_schedule(100) == [1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93, 100]
    assert expansion_schedule(10) == [1, 2, 3, 5, 8, 10]
    assert expansion_schedule(1) == [1]


class _Embedder:
    """'doc d2' -> [1, 2] (a document's vector is its last digit); counts its calls."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return np.array([[1.0, float(text[-1])] for text in texts], dtype=np.float32)


class _Store(OneByOne):
    """Document vectors rank d4, d2, d0 nearest the question; documents are 'doc <id>', whose stored ``plain_emb``
    are what :class:`_Embedder` makes of them. Records its vector lookups and the ids whose vectors it read; reading
    documents fails (step 6 needs only the vectors)."""

    def __init__(self, lacking: frozenset[str] = frozenset()) -> None:
        self.lookups: list[tuple[str, str, int]] = []
        self.read: list[str] = []
        self.lacking = lacking
        """ids without a stored vector (a graph loaded before they were stored)"""

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        self.lookups.append((label, prop, k))
        return [VectorHit(i, i, label, 0.9 - n / 10) for n, i in enumerate(["d4", "d2", "d0"])]

    def text_top_k(self, graph: str, label: str, terms: Any, k: int) -> list[TextHit]:
        self.lookups.append((label, "text", k))
        return [TextHit("d5", "d5", label, 2.0)]  # the one document with the question's rare word

    def text_scores(self, graph: str, label: str, terms: Any, ids: list[str]) -> dict[str, float]:
        return {"d5": 2.0} if "d5" in ids else {}

    def plain_similarities(self, graph: str, label: str, ids: list[str], vector: np.ndarray) -> dict[str, float]:
        self.read.extend(ids)
        kept = [i for i in ids if i not in self.lacking]
        return {i: float(v @ vector) for i, v in zip(kept, _Embedder().embed([f"doc {i}" for i in kept]), strict=True)}

    def documents(self, graph: str, label: str, ids: list[str]) -> list[NodeText]:
        raise AssertionError("step 6 reads stored vectors, not documents")


def _one(result: GroundingResult, source: str = "linked", weight: float = 1.0) -> list[PlanGrounding]:
    """``result`` as the one plan step 6 ranks."""
    return [PlanGrounding(source, None, result, weight)]  # type: ignore[arg-type]


def _rank(result: GroundingResult, cap: int) -> tuple[Any, _Store]:
    """Step 6 keeping 2 of ``result``'s targets over a fresh recording store."""
    store = _Store()
    question = np.array([0.0, 1.0], dtype=np.float32)
    return rank_graph_strand(_one(result), store, "hpo", question, keep=2, cap=cap), store  # type: ignore[arg-type]


def test_over_the_cap_the_targets_nearest_by_document_vectors_are_ranked() -> None:
    """A 2-hop pattern through a hub grounds thousands of targets; the ones ranked must not be the first few."""
    grounded = [Grounded(f"d{i}", f"d{i}", "disease", 1) for i in range(6)] + [Grounded("late", "late", "disease", 2)]
    result = GroundingResult(query=None, candidates={}, targets=grounded)  # type: ignore[arg-type]
    ranking, store = _rank(result, cap=3)
    assert [c.id for c in ranking.kept] == ["d4", "d2"]  # d4, d2, d0 ranked (by their stored vectors)
    assert set(ranking.grounded) == {"d4", "d2", "d0"}
    # round 1's 6 targets exceed cap=3: one lookup in the document index chose which 3 to read, not the first 3
    assert [(label, prop) for label, prop, _ in store.lookups] == [("disease", "doc")] and store.lookups[0][2] >= 3
    assert sorted(store.read) == ["d0", "d2", "d4"]
    # within the cap, every target of the round is read and ranked, without a lookup
    ranking, store = _rank(result, cap=6)
    assert store.lookups == [] and len(store.read) == 6 and len(ranking.grounded) == 6
    assert [c.id for c in ranking.kept] == ["d5", "d4"]  # the stored vectors' order alone


def test_over_the_cap_the_lookups_step_5_read_are_not_read_again() -> None:
    """Step 5 grounded a lone hub among the same lookups (kgqa.runtime.pipeline.grounding._hub_alone): step 6
    preselects by them without a second round trip, with the same outcome as reading them."""
    grounded = [Grounded(f"d{i}", f"d{i}", "disease", 1) for i in range(6)]
    result = GroundingResult(query=None, candidates={}, targets=grounded)  # type: ignore[arg-type]
    question = np.array([0.0, 1.0], dtype=np.float32)
    read, given = _Store(), _Store()
    reached = {"disease": reach_of(read, "hpo", "disease", question, 30, ())}  # type: ignore[arg-type]
    ranking = rank_graph_strand(_one(result), given, "hpo", question, keep=2, cap=3, reached=reached)  # type: ignore[arg-type]
    assert given.lookups == [] and set(ranking.grounded) == {"d4", "d2", "d0"}
    assert [c.id for c in ranking.kept] == [c.id for c in _rank(result, cap=3)[0].kept]


def test_over_the_cap_the_full_text_best_matches_are_ranked_too() -> None:
    """d5 is far from the question by its vector, but the only target whose document has the residual word."""
    grounded = [Grounded(f"d{i}", f"d{i}", "disease", 1) for i in range(6)]
    result = GroundingResult(query=None, candidates={}, targets=grounded)  # type: ignore[arg-type]
    store, question = _Store(), np.array([0.0, 1.0], dtype=np.float32)
    lexical = Lexical(("rare",), 1.0)
    ranking = rank_graph_strand(_one(result), store, "hpo", question, keep=2, cap=3, lexical=lexical)  # type: ignore[arg-type]
    assert set(ranking.grounded) == {"d4", "d5", "d2"}  # each lookup's best first: d4 and d5, then d2
    assert [prop for _, prop, _ in store.lookups] == ["doc", "text"]
    assert ranking.kept[0].id == "d5" and "preselected by document vectors and full-text" in ranking.detail


def test_step_6_scores_with_stored_vectors_as_embedding_the_documents_would() -> None:
    """The store's similarities to the stored ``plain_emb`` give each target the score embedding its document per
    question gave, over two labels and rounds; the step takes no embedder (a whole question's embedder calls:
    tests/integration/test_pipeline.py)."""
    grounded = [Grounded(f"d{i}", f"d{i}", "disease", 1 + i % 2) for i in (7, 1, 3, 8, 2)]
    grounded.append(Grounded("g5", "g5", "gene/protein", 1))
    result = GroundingResult(query=None, candidates={}, targets=grounded)  # type: ignore[arg-type]
    question = np.array([0.6, 0.8], dtype=np.float32)
    store, embedder = _Store(), _Embedder()
    ranking = rank_graph_strand(_one(result), store, "hpo", question, keep=10, cap=10)  # type: ignore[arg-type]
    expected = embedder.embed([f"doc {g.id}" for g in grounded]) @ question  # step 6 before the vectors were stored
    got = {c.id: c.score for c in ranking.grounded.values()}
    assert got == {g.id: float(score) for g, score in zip(grounded, expected, strict=True)}
    assert [c.id for c in ranking.kept] == ["d8", "g5", "d2", "d7", "d3", "d1"]  # round 1 by score, then round 2


def test_step_6_refuses_a_graph_loaded_before_the_vectors_were_stored() -> None:
    grounded = [Grounded(i, i, "disease", 1) for i in ("d1", "d2")]
    result = GroundingResult(query=None, candidates={}, targets=grounded)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match=r"no stored document vector for 1 of the 2 nodes .*first: disease d2.*"):
        rank_graph_strand(_one(result), _Store(frozenset({"d2"})), "hpo", np.ones(2), keep=2, cap=10)  # type: ignore[arg-type]


def test_plans_vote_agreement_up_and_each_plan_keeps_its_evidence() -> None:
    llm = GroundingResult(
        query=None,
        candidates={},
        names={"c1": "migraine"},
        searches={"e0": "migrane"},  # type: ignore[arg-type]
        targets=[
            Grounded("d1", "d1", "disease", 1, (("e0", ("c1",)),)),
            Grounded("d2", "d2", "disease", 3, (("e0", ("c1",)),)),
            Grounded("d4", "d4", "disease", 1, (("e0", ("c1",)),)),
        ],
    )
    linked = GroundingResult(
        query=None,
        candidates={},
        names={"c9": "Migraine"},
        searches={"e0": "migraine"},  # type: ignore[arg-type]
        targets=[
            Grounded("d3", "d3", "disease", 1, (("e0", ("c9",)),), "linked"),
            Grounded("d2", "d2", "disease", 1, (("e0", ("c9",)),), "linked"),
            Grounded("d1", "d1", "disease", 1, (("e0", ("c9",)),), "linked"),
        ],
    )
    plans = [PlanGrounding("llm", None, llm), PlanGrounding("linked", None, linked)]  # type: ignore[arg-type]
    votes = {s.id: s for s in plan_votes(plans)}
    assert {i: s.tier for i, s in votes.items()} == {"d1": (1, -2.0), "d2": (1, -1.0), "d3": (1, -1.0), "d4": (1, -1.0)}
    assert votes["d2"].plans == (("llm", 3), ("linked", 1)) and votes["d2"].agreed == ("linked",)
    ranking = rank_graph_strand(
        plans,
        _Store(),  # type: ignore[arg-type]
        "hpo",
        np.array([0.0, 1.0], dtype=np.float32),
        keep=4,
        cap=10,
    )
    # both plans at l=1 (d1); then each plan's l=1 targets taking turns: the LLM's d4, the linked plan's d3 and d2
    # (its l=3 grounding of d2 adds nothing to the linked plan's l=1), each plan's best first
    assert [(c.id, c.plans) for c in ranking.kept] == [
        ("d1", ("llm", "linked")),
        ("d4", ("llm",)),
        ("d3", ("linked",)),
        ("d2", ("llm", "linked")),
    ]
    d1 = ranking.kept[0]
    assert [(m.symbol, m.search, m.name) for m in d1.matches] == [
        ("e0", "migrane", "migraine"),
        ("linked.e0", "migraine", "Migraine"),
    ]
    fused = [c.fused for c in ranking.kept]
    assert all(f is not None for f in fused) and fused == sorted(fused, reverse=True)  # type: ignore[type-var]
    assert [int(f) for f in fused] == [2, 1, 1, 1]  # type: ignore[arg-type]


def test_a_constant_the_graph_does_not_hold_as_written_is_weak() -> None:
    found = {
        "a": [NodeMatch("1", "Migraine")],  # exact
        "b": [NodeMatch("2", "Migraine", "", 0.91), NodeMatch("3", "Aura", "", 0.95)],
        "c": [NodeMatch("4", "CYP3A4", "", 0.52)],  # the textual condition as a node
        "d": [],
    }
    assert weak_constants(found, 0.85) == ("c (0.52 < 0.85)", "d (no candidate)")
    assert weak_constants(found, 0.5) == ("d (no candidate)",)


def test_a_plan_names_no_node_only_when_every_constant_is_unlike_every_node() -> None:
    junk = {"x": [NodeMatch("1", "List of", "", 0.47), NodeMatch("2", "Lists", "", 0.45)], "y": []}
    assert names_no_node(junk)
    assert not names_no_node({**junk, "z": [NodeMatch("3", "CYP3A4", "", 0.62)]})  # one constant names a node
    assert not names_no_node({"x": [NodeMatch("1", "Fits", "fits", 0.3, exact=True)]})  # exact by alias
    assert not names_no_node({})  # a plan without constants names nothing it could be wrong about


def test_a_weak_plan_follows_the_round_it_is_counted_in_and_adds_nothing() -> None:
    """The LLM turned the textual condition into a node: it grounds d1 and d2 at l = 1 through a node the question
    does not name. The linked plan's l = 1 target comes first; the weak plan's targets are counted at l = 2, where
    agreeing on d2 with the linked plan's l = 2 adds nothing."""
    llm = GroundingResult(
        query=None,
        candidates={},
        targets=[Grounded("d1", "d1", "disease", 1), Grounded("d2", "d2", "disease", 1)],  # type: ignore[arg-type]
    )
    linked = GroundingResult(
        query=None,
        candidates={},
        targets=[Grounded("d3", "d3", "disease", 1, (), "linked"), Grounded("d2", "d2", "disease", 2, (), "linked")],  # type: ignore[arg-type]
    )
    weak = ("w (0.52 < 0.85)",)
    plans = [PlanGrounding("llm", None, llm, 1.0, weak), PlanGrounding("linked", None, linked)]  # type: ignore[arg-type]
    assert {s.id: s.tier for s in plan_votes(plans)} == {"d3": (1, -1.0), "d2": (2, -1.0), "d1": (2, 0.0)}
    ranking = rank_graph_strand(plans, _Store(), "hpo", np.array([0.0, 1.0], dtype=np.float32), keep=3, cap=10)  # type: ignore[arg-type]
    assert [c.id for c in ranking.kept] == ["d3", "d2", "d1"]
    assert "llm l=1 counted as l=2, weak w (0.52 < 0.85)" in ranking.kept[2].why


def test_a_plan_of_another_answer_type_is_ranked_by_how_strong_it_is() -> None:
    """Issue 69: the LLM's plan answers genes where the ask settled on diseases. Not strong (``behind``): its l = 1
    target counts at l = 2 with no vote, and is ranked but not kept ahead of the fill. Strong, the evidence split
    (``split``): its rounds as they are, its weight scaled by its type's prior (0.1 here)."""
    llm = GroundingResult(query=None, candidates={}, targets=[Grounded("g1", "g1", "gene/protein", 1)])  # type: ignore[arg-type]
    linked = GroundingResult(
        query=None,
        candidates={},
        targets=[Grounded("d1", "d1", "disease", 1, (), "linked"), Grounded("d2", "d2", "disease", 2, (), "linked")],  # type: ignore[arg-type]
    )
    question = np.array([0.0, 1.0], dtype=np.float32)
    behind = [PlanGrounding("llm", None, llm, 1.0, off_type="behind"), PlanGrounding("linked", None, linked)]  # type: ignore[arg-type]
    assert {s.id: s.tier for s in plan_votes(behind)} == {"d1": (1, -1.0), "d2": (2, -1.0), "g1": (2, 0.0)}
    ranking = rank_graph_strand(behind, _Store(), "hpo", question, keep=3, cap=10)  # type: ignore[arg-type]
    assert [c.id for c in ranking.kept] == ["d1", "d2"] and "g1" in ranking.grounded
    assert "llm l=1 counted as l=2, another answer type than the ask's, not strong" in ranking.grounded["g1"].why
    split = [PlanGrounding("llm", None, llm, 0.1, off_type="split"), PlanGrounding("linked", None, linked)]  # type: ignore[arg-type]
    assert {s.id: s.tier for s in plan_votes(split)} == {"d1": (1, -1.0), "g1": (1, -0.1), "d2": (2, -1.0)}
    ranking = rank_graph_strand(split, _Store(), "hpo", question, keep=3, cap=10)  # type: ignore[arg-type]
    assert [c.id for c in ranking.kept] == ["d1", "g1", "d2"]


def _agreeing(ids: str, weak: tuple[str, ...] = (), weight: float = 1.0) -> list[PlanGrounding]:
    """Two plans that both ground every target of ``ids`` at l = 1 (the LLM's with ``weak`` and ``weight``)."""

    def result(plan: str) -> GroundingResult:
        targets = [Grounded(f"d{i}", f"d{i}", "disease", 1, (), plan) for i in ids]
        return GroundingResult(query=None, candidates={}, targets=targets)  # type: ignore[arg-type]

    return [PlanGrounding("llm", None, result("llm"), weight, weak), *_one(result("linked"))]  # type: ignore[arg-type]


def _kept(plans: list[PlanGrounding], keep: int, corroborated: int) -> list[str]:
    question = np.array([0.0, 1.0], dtype=np.float32)
    ranking = rank_graph_strand(plans, _Store(), "hpo", question, keep=keep, cap=10, keep_corroborated=corroborated)  # type: ignore[arg-type]
    return [c.id for c in ranking.kept]


def test_targets_several_plans_corroborate_take_slots_past_keep_up_to_the_bound() -> None:
    """Both plans ground d0..d5 at l = 1: past the 2 kept, the corroborated targets take up to 4 slots, in the
    order step 6 ranked them (by relevance: d5, d4, ...)."""
    assert _kept(_agreeing("012345"), keep=2, corroborated=4) == ["d5", "d4", "d3", "d2"]
    assert _kept(_agreeing("012345"), keep=2, corroborated=0) == ["d5", "d4"]  # no bound past keep


@pytest.mark.parametrize(
    ("plans", "why"),
    [
        (_one(_agreeing("012345")[1].result), "one plan corroborates nothing"),
        (_agreeing("012345", weak=("a (0.40 < 0.85)",)), "a weak plan's agreement is chance"),
        (_agreeing("012345", weight=0.0), "a plan whose vote weighs nothing"),
    ],
)
def test_without_two_voting_plans_only_keep_targets_are_kept(plans: list[PlanGrounding], why: str) -> None:
    assert _kept(plans, keep=2, corroborated=4) == ["d5", "d4"], why


def _exact(ids: str, exact: dict[str, bool], first: int = 1) -> list[PlanGrounding]:
    """The one plan, whose constants' best candidates are exact matches or not (``exact``), grounding every target
    of ``ids`` in its first round (scope ``first``)."""
    targets = [Grounded(f"d{i}", f"d{i}", "disease", first, (), "linked") for i in ids]
    rounds = [Round(first, len(targets), 0.0)]
    return _one(GroundingResult(query=None, candidates={}, targets=targets, rounds=rounds, exact=exact))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("plans", "kept"),
    [
        (_exact("012345", {"e0": True, "e1": True}), ["d5", "d4", "d3", "d2"]),  # the pattern as named: up to k
        (_exact("012", {"e0": True}), ["d2", "d1", "d0"]),  # all it grounded, the fill after them
        (_exact("012345", {"e0": True}, first=2), ["d5", "d4", "d3", "d2"]),  # a widened constant: still its plan
        (_exact("012345", {"e0": True, "e1": False}), ["d5", "d4"]),  # a constant's best candidate is a near name
        (_exact("012345", {}), ["d5", "d4"]),  # no constant
        # the linked plan and a relaxation of it, both named exactly ("... FGFR3" after a lead-in)
        ([*_exact("01", {"e0": True, "e1": True}), *_exact("2345", {"e1": True})], ["d5", "d4", "d3", "d2"]),
        # one voting plan whose constant is a near name (an LLM's): the method's share
        ([*_exact("01", {"e0": True}), *_exact("2345", {"e0": False})], ["d5", "d4"]),
    ],
)
def test_plans_that_all_name_their_constants_exactly_keep_up_to_k(plans: list[PlanGrounding], kept: list[str]) -> None:
    assert _kept(plans, keep=2, corroborated=4) == kept


@pytest.mark.parametrize(("stated", "kept"), [(True, 2), (False, 4)])
def test_a_stated_text_condition_leaves_the_fill_its_slots(stated: bool, kept: int) -> None:
    """ "... whose symbols start with 'JAK'": the full-text fill finds what the plan does not reach."""
    question = np.array([0.0, 1.0], dtype=np.float32)
    lexical = Lexical(("jak*",), 0.0, stated)
    plans = _exact("012345", {"e0": True})
    ranking = rank_graph_strand(plans, _Store(), "hpo", question, keep=2, cap=10, keep_corroborated=4, lexical=lexical)  # type: ignore[arg-type]
    assert len(ranking.kept) == kept


def test_corroborated_targets_of_a_later_round_take_the_slots_past_keep_too() -> None:
    """Both plans ground d0..d2 at l = 1 and d3..d6 at l = 2: the l = 2 targets are corroborated as well, so past
    the 3 kept they fill up to 6, the better round first."""
    rounds = {"0": 1, "1": 1, "2": 1, "3": 2, "4": 2, "5": 2, "6": 2}

    def result(plan: str) -> GroundingResult:
        targets = [Grounded(f"d{i}", f"d{i}", "disease", r, (), plan) for i, r in rounds.items()]
        return GroundingResult(query=None, candidates={}, targets=targets)  # type: ignore[arg-type]

    plans = [PlanGrounding("llm", None, result("llm")), *_one(result("linked"))]  # type: ignore[arg-type]
    assert _kept(plans, keep=3, corroborated=6) == ["d2", "d1", "d0", "d6", "d5", "d4"]
    assert _kept(plans, keep=3, corroborated=0) == ["d2", "d1", "d0"]


def test_the_corroborated_run_stops_at_the_first_target_one_plan_alone_grounded() -> None:
    """Both plans ground d3, d4 and d5, the LLM's d5 only at l = 2: d3 and d4 are corroborated at l = 1, d5 (the most
    relevant of the next tier) only by the linked plan's l = 1. After the 1 kept, the corroborated run that follows
    in rank order is kept (d3), not d5."""
    llm = [Grounded("d3", "d3", "disease", 1), Grounded("d4", "d4", "disease", 1), Grounded("d5", "d5", "disease", 2)]
    linked = [Grounded(i, i, "disease", 1, (), "linked") for i in ("d3", "d4", "d5")]
    plans = [
        PlanGrounding("llm", None, GroundingResult(query=None, candidates={}, targets=llm)),  # type: ignore[arg-type]
        *_one(GroundingResult(query=None, candidates={}, targets=linked)),  # type: ignore[arg-type]
    ]
    assert _kept(plans, keep=1, corroborated=5) == ["d4", "d3"]


def test_plans_that_overlap_only_in_part_keep_keep() -> None:
    """A reversed hop grounds a subset of the linked plan's undirected one: the two agree on d3 and d4, but not on
    the answer set, so nothing is kept past ``keep``."""
    llm = [Grounded(i, i, "disease", 1) for i in ("d3", "d4")]
    linked = [Grounded(i, i, "disease", 1, (), "linked") for i in ("d3", "d4", "d5")]
    plans = [
        PlanGrounding("llm", None, GroundingResult(query=None, candidates={}, targets=llm)),  # type: ignore[arg-type]
        *_one(GroundingResult(query=None, candidates={}, targets=linked)),  # type: ignore[arg-type]
    ]
    assert _kept(plans, keep=1, corroborated=5) == ["d4"]
    assert not concur(plans) and concur(plans[1:] * 2) and not concur(plans[1:])


_ROUNDS = st.dictionaries(st.sampled_from("abcdef"), st.sampled_from([1, 2, 3, 5, 8]), max_size=6)


@given(_ROUNDS, _ROUNDS, st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.booleans())
def test_votes_hold_each_target_once_and_a_plan_that_grounds_nothing_changes_nothing(
    llm: dict[str, int], linked: dict[str, int], weight: float, weak: bool
) -> None:
    def result(rounds: dict[str, int], plan: str) -> GroundingResult:
        targets = [Grounded(i, i, "disease", r, (("e0", ("c",)),), plan) for i, r in rounds.items()]
        return GroundingResult(query=None, candidates={}, targets=targets)  # type: ignore[arg-type]

    doubt = ("e0 (0.40 < 0.85)",) if weak else ()
    both = [PlanGrounding("llm", None, result(llm, "llm"), weight, doubt), *_one(result(linked, "linked"))]  # type: ignore[arg-type]
    votes = plan_votes(both)
    assert sorted(s.id for s in votes) == sorted(llm.keys() | linked.keys())
    later = {1: 2, 2: 3, 3: 5, 5: 8, 8: 12}
    for s in votes:
        # a weak plan's rounds count one later, and its vote weighs nothing
        rounds = {"llm": later[llm[s.id]] if weak and s.id in llm else llm.get(s.id), "linked": linked.get(s.id)}
        best = min(r for r in rounds.values() if r is not None)
        weights = {"llm": 0.0 if weak else weight, "linked": 1.0}
        assert s.tier == (best, -sum(weights[p] for p, r in rounds.items() if r == best))
        assert s.round_l == {"llm": llm, "linked": linked}[s.agreed[0]][s.id]
    assert [s.tier for s in votes] == sorted(s.tier for s in votes)
    alone = plan_votes(_one(result(linked, "linked")))
    with_nothing = plan_votes([PlanGrounding("llm", None, result({}, "llm"), weight), *_one(result(linked, "linked"))])  # type: ignore[arg-type]
    assert [(s.id, s.tier) for s in with_nothing] == [(s.id, s.tier) for s in alone]
    assert [s.id for s in alone] == [g.id for g in sorted(result(linked, "linked").targets, key=lambda g: g.round_l)]


@pytest.mark.parametrize(
    ("question", "span", "label", "target", "types"),
    [
        (  # the negation belongs to the second hop: between the intermediate type and the entity
            "Among disorders involving paraplegia, which have an abnormality noted as absent in the disorder Ataxia X?",
            "Ataxia X",
            "disease",
            "disease",
            [("phenotype present",), ("phenotype absent",)],
        ),
        (  # ... and here to the first
            "List the symptoms that are explicitly absent in a disorder which presents with Fragile nails",
            "Fragile nails",
            PHENOTYPE,
            PHENOTYPE,
            [("phenotype absent",), ("phenotype present",)],
        ),
        (  # a negation word inside the textual condition says nothing about the relation
            'Which diseases present with Seizure and mention "absence"?',
            "Seizure",
            PHENOTYPE,
            "disease",
            [("phenotype present",)],
        ),
        ("Which diseases lack Seizure?", "Seizure", PHENOTYPE, "disease", [("phenotype absent",)]),
    ],
)
def test_each_hop_reads_the_words_between_its_ends(
    question: str, span: str, label: str, target: str, types: list[tuple[str, ...]]
) -> None:
    links, reading = [link(question, span, label)], read_question(question)
    _, textual = not_entities(reading, HPO.labels)
    spans = {i for one in links for i in range(one.start, one.end)}
    meaning = RelationMeaning(reading, ignore=STOP_WORDS, skip=frozenset(spans | textual))
    plan = schema_guided_plan(links, target, HPO, reading, meaning)
    assert plan is not None and [t.types for t in plan.triplets] == types


@pytest.mark.parametrize(
    ("question", "learned", "reply", "label", "method"),
    [
        ("What treats migraine?", {"drug": 0.9, "disease": 0.1}, "disease", "drug", "outvoted"),  # a sure reader
        ("What treats migraine?", {"drug": 0.55, "disease": 0.45}, "disease", "disease", "llm"),  # not sure enough
        ("Which drugs treat migraine?", {"drug": 0.05, "disease": 0.95}, "drug", "drug", "llm"),  # they agree
        # the LLM backs the named type, but the reader set that word aside as context: one vote does not restore it
        ("Which drugs treat migraine?", {"drug": 0.01, "disease": 0.99}, "drug", "disease", "outvoted"),
        ("Which drugs treat migraine?", {"drug": 0.01, "disease": 0.99}, "gene", "disease", "outvoted"),
        ("Which drugs treat migraine?", {"drug": 0.05, "disease": 0.95}, "gene", "drug", "outvoted"),  # it stands
        (
            "What treats migraine?",
            {"drug": 0.55, "disease": 0.44, "gene": 0.01},
            "gene",
            "drug",
            "embedding",
        ),  # no vote
        ("What treats migraine?", {"drug": 0.55, "disease": 0.4, "gene": 0.05}, "gene", "gene", "llm"),
    ],
)
def test_step_1_weighs_the_learned_reader_against_the_llm(
    question: str, learned: dict[str, float], reply: str, label: str, method: str
) -> None:
    choice = predict_target_type(
        read_question(question),
        ("drug", "disease", "gene"),
        llm=_TypeLLM(reply),
        embedder=_NoEmbedder(),  # type: ignore[arg-type]
        question_vector=np.ones(2),
        learned=learned,
    )
    assert (choice.label, choice.method) == (label, method)


@pytest.mark.parametrize(
    ("learned", "firm"),
    [
        ({"drug": 0.9, "disease": 0.1}, True),  # the named type and the reader agree
        ({"drug": 0.3, "disease": 0.7}, False),  # the reader reads another type: the type word is one vote
        (None, True),  # no reader: the question's own word
    ],
)
def test_a_named_type_the_reader_reads_too_is_firm(learned: dict[str, float] | None, firm: bool) -> None:
    """Issue 69: where the question names its type and the reader reads it too, the LLM's plan cannot overrule it."""
    choice = predict_target_type(
        read_question("Which drugs treat migraine?"),
        ("drug", "disease", "gene"),
        llm=_TypeLLM("disease"),
        embedder=_NoEmbedder(),  # type: ignore[arg-type]
        question_vector=np.ones(2),
        learned=learned,
    )
    assert (choice.label, choice.method, choice.vote, choice.firm) == ("drug", "outvoted", "disease", firm)


@pytest.mark.parametrize(
    ("similarity", "learned", "label", "method"),
    [
        (0.6, {"disease": 0.5, "gene/protein": 0.4, "effect/phenotype": 0.1}, "gene/protein", "outvoted"),
        (0.42, {"disease": 0.5, "gene/protein": 0.4, "effect/phenotype": 0.1}, "disease", "llm"),  # too weak a reading
        (0.6, {"disease": 0.99, "gene/protein": 0.005, "effect/phenotype": 0.005}, "disease", "llm"),  # a sure reader
        (0.6, None, "disease", "llm"),  # no reader: the LLM's vote, as before readers
    ],
)
def test_a_subject_phrase_that_means_a_type_outvotes_the_llm_where_the_reader_reads_none(
    similarity: float, learned: dict[str, float] | None, label: str, method: str
) -> None:
    choice = predict_target_type(
        read_question("Which bits of DNA can play a part in Seizure?"),
        HPO_TYPES,
        llm=_TypeLLM("disease"),
        embedder=MeaningTable({"bits of dna": ("gene/protein", similarity)}),  # type: ignore[arg-type]
        question_vector=np.ones(4),
        learned=learned,
    )
    assert (choice.label, choice.method) == (label, method)


@pytest.mark.parametrize(
    ("question", "span", "label", "said"),
    [
        ("children of microcephaly that are annotated to Angelman syndrome", "microcephaly", PHENOTYPE, "children"),
        ("what falls under scoliosis and is also annotated for Marfan syndrome", "scoliosis", PHENOTYPE, "under"),
        ("Seizure subtypes in tuberous sclerosis 2?", "Seizure", PHENOTYPE, "subtypes"),  # said after the entity
        # patients' "children" and "under" are no step; nor is a step into a label without a hierarchy
        ("children with microcephaly: which disorders?", "microcephaly", PHENOTYPE, None),
        ("what do children under 5 with microcephaly have?", "microcephaly", PHENOTYPE, None),
        ("what subtypes of Usher syndrome are there?", "Usher syndrome", "disease", None),
        # a step from a node the question names a type for ("a feature") is a hop to it, not the answers' type
        (
            "I need the candidate genes connected with a feature one level broader than Hypertonia",
            "Hypertonia",
            PHENOTYPE,
            None,
        ),
    ],
)
def test_a_step_in_a_hierarchy_names_the_label_that_has_it(
    question: str, span: str, label: str, said: str | None
) -> None:
    found = hierarchy_answer(read_question(question), [link(question, span, label)], HPO)
    assert found == (None if said is None else (label, said))


@pytest.mark.parametrize(
    ("learned", "reply", "label", "method"),
    [
        (None, None, PHENOTYPE, "hierarchy"),  # no reader, no LLM: the hierarchy before the closest type name
        ({"disease": 0.3, "gene/protein": 0.2, PHENOTYPE: 0.5}, None, PHENOTYPE, "hierarchy"),  # an unsure reader
        ({"disease": 0.3, "gene/protein": 0.2, PHENOTYPE: 0.5}, "gene/protein", PHENOTYPE, "outvoted"),  # one vote
        ({"disease": 0.9, "gene/protein": 0.05, PHENOTYPE: 0.05}, None, "disease", "reader"),  # a sure reader reads
    ],
)
def test_step_1_takes_the_hierarchy_a_question_steps_through_where_nothing_surer_says_a_type(
    learned: dict[str, float] | None, reply: str | None, label: str, method: str
) -> None:
    choice = predict_target_type(
        read_question("children of microcephaly that are annotated to Angelman syndrome"),
        HPO_TYPES,
        llm=None if reply is None else _TypeLLM(reply),
        embedder=MeaningTable({}),  # type: ignore[arg-type]
        question_vector=np.ones(4),
        learned=learned,
        linked=Linked(hierarchy=(PHENOTYPE, "children")),
    )
    assert (choice.label, choice.method) == (label, method)


def test_a_type_word_inside_a_linked_name_of_that_type_names_no_answer_type() -> None:
    reading = read_question("what are the hallmarks of Prader-Willi syndrome")
    assert type_named_in_question(reading, HPO_TYPES) == ("disease", "syndrome")
    assert type_named_in_question(reading, HPO_TYPES, [("Prader-Willi syndrome", "disease")]) is None
    # a phenotype's name holds no disease's word; nor does a type word outside the name
    assert type_named_in_question(reading, HPO_TYPES, [("Prader-Willi syndrome", PHENOTYPE)]) == ("disease", "syndrome")
    named = read_question("which syndromes share signs with Prader-Willi syndrome")
    assert type_named_in_question(named, HPO_TYPES, [("Prader-Willi syndrome", "disease")]) == ("disease", "syndromes")


@pytest.mark.parametrize(
    ("reachable", "label"),
    [
        (frozenset({PHENOTYPE, "gene/protein"}), PHENOTYPE),  # a disease is joined to no disease: the next reading
        (frozenset(), "disease"),  # nothing surely linked: the reader's reading
    ],
)
def test_the_reader_reads_among_the_types_a_surely_linked_entity_reaches(reachable: frozenset[str], label: str) -> None:
    choice = predict_target_type(
        read_question("what does Williams syndrome present with"),
        HPO_TYPES,
        llm=None,
        embedder=MeaningTable({}),  # type: ignore[arg-type]
        question_vector=np.ones(4),
        learned={"disease": 0.67, PHENOTYPE: 0.25, "gene/protein": 0.08},
        linked=Linked((("Williams syndrome", "disease"),), None, reachable),
    )
    assert (choice.label, choice.method) == (label, "reader")


@pytest.mark.parametrize(
    ("question", "span", "label", "reachable"),
    [
        # the only type word is the linked disease's own: the answers are of a type a disease is joined to
        ("what does Williams syndrome present with", "Williams syndrome", "disease", {PHENOTYPE, "gene/protein"}),
        (
            "I keep mixing up the syndromes. What does Fragile X syndrome look like?",
            "Fragile X syndrome",
            "disease",
            {PHENOTYPE, "gene/protein"},
        ),  # a type word in a lead-in is context
        # a type named outside the link may be a hop between ("a *disease* linked to ..."); no type word in the name
        ("which genes go with a disease linked to Williams syndrome", "Williams syndrome", "disease", set()),
        ("what does TMEM237 do", "TMEM237", "gene/protein", set()),
        # a negation: the types joined to it by a negated type ('phenotype absent')
        ("what doesn't Marfan syndrome cause", "Marfan syndrome", "disease", {PHENOTYPE}),
        ("anything explicitly not part of Noonan syndrome?", "Noonan syndrome", "disease", {PHENOTYPE}),
    ],
)
def test_the_types_an_answer_can_have_where_the_only_type_word_is_in_a_linked_name(
    question: str, span: str, label: str, reachable: set[str]
) -> None:
    found = reachable_labels(read_question(question), [link(question, span, label)], HPO, (), 0.95)
    assert found == reachable


def test_the_subject_phrase_ends_where_a_linked_entity_starts() -> None:
    reading = read_question("what's above ataxia in the hierarchy")
    assert subject_phrases(reading, [("ataxia", PHENOTYPE)]) == ["s", "s above"]  # what is asked for, not ataxia
    assert subject_phrases(reading)[-1] == "s above ataxia in"


@pytest.mark.parametrize(("meanings", "label"), [({"health problems": ("disease", 0.5)}, "disease"), ({}, PHENOTYPE)])
def test_a_subject_phrase_that_asks_for_a_type_the_linked_entities_do_not_reach_lifts_the_bound(
    meanings: dict[str, tuple[str, float]], label: str
) -> None:
    question = "Is there a list of health problems linked to a bit of DNA linked to Zeta syndrome?"
    choice = predict_target_type(
        read_question(question),
        HPO_TYPES,
        llm=None,
        embedder=MeaningTable(meanings),  # type: ignore[arg-type]
        question_vector=np.ones(4),
        learned={"disease": 0.5, PHENOTYPE: 0.4, "gene/protein": 0.1},
        linked=Linked((("Zeta syndrome", "disease"),), None, frozenset({PHENOTYPE, "gene/protein"})),
    )
    assert choice.label == label
