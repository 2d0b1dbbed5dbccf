"""What people name reaches its node, with the graph's help (issue 70): a family named as the answers ("which types of
OI ...") is the nodes whose names hold its name; a finding described in the question's own words links weakly and
joins where the graph holds it; an id typed any way is looked up as the SKB writes it; a condition on another type's
names joins the answers to those nodes; two chained step words are two hierarchy steps; a stated condition the
answer's own name holds ranks it first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, ClassVar, cast

import pytest

from kgqa.cypher.plan import Condition
from kgqa.runtime.reading import read_question
from kgqa.runtime.scoring import Lexical
from kgqa.runtime.steps.s1_target_type import Linked, question_type
from kgqa.runtime.steps.s2_conditions import not_entities
from kgqa.runtime.steps.s2_fallback import (
    WEAK_LIFT,
    answers,
    family_members,
    family_words,
    fits,
    named_middle,
    shares_a_word,
)
from kgqa.runtime.steps.s2_linking import Link, id_prefixes, typed_ids
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import Family, family_answer, schema_guided_plan
from kgqa.runtime.steps.s4_grounding import Grounded
from kgqa.runtime.steps.s6_graph_ranking import Supported, names_hold
from kgqa.runtime.store.base import LabelInfo, NodeText, TextHit
from kgqa.runtime.text import STOP_WORDS, plain_words, type_words
from tests.helpers.hpo_schema import HPO, PHENOTYPE, link
from tests.helpers.meaning_table import MeaningTable

GENE = "gene/protein"


def _named(question: str, span: str, label: str, name: str) -> Link:
    return replace(link(question, span, label), name=name)


@pytest.mark.parametrize(
    ("question", "links", "family"),
    [
        ("which types of OI are linked to COL1A1?", [("OI", "disease"), ("COL1A1", GENE)], "OI"),
        ("Which OI subtypes come with blue sclerae?", [("OI", "disease"), ("blue sclerae", PHENOTYPE)], "OI"),
        ("subtypes of Usher syndrome with MYO7A", [("Usher syndrome", "disease"), ("MYO7A", GENE)], "Usher syndrome"),
        # not linked: the words before the kind word, which the graph is asked about
        ("Which Charcot-Marie-Tooth types have hearing loss?", [("hearing loss", PHENOTYPE)], "Charcot-Marie-Tooth"),
        # a label with a hierarchy steps down it instead; a type word after the family names the answers
        ("what types of cancer does TP53 cause?", [("cancer", PHENOTYPE), ("TP53", GENE)], None),
        ("which types of Marfan symptoms are common?", [("Marfan", "disease")], None),
        ("what kinds of genes cause Usher syndrome?", [("Usher syndrome", "disease")], None),
        # a type named, and nothing but the family to join it to: the family is the answers' topic
        ("which types of Usher syndrome have genes known?", [("Usher syndrome", "disease")], None),
        # no kind said: one disease
        ("which Usher syndrome genes are known?", [("Usher syndrome", "disease")], None),
    ],
)
def test_a_family_is_read_where_the_question_names_what_it_asks_for(
    question: str, links: list[tuple[str, str]], family: str | None
) -> None:
    linked = [link(question, span, label) for span, label in links]
    found = family_answer(read_question(question), linked, HPO)
    if family is None:
        assert found is None
        return
    assert found is not None
    words = read_question(question).words
    assert " ".join(words[i] for i in found[0]) == family
    assert (found[1].span if found[1] is not None else None) == next((s for s, _ in links if s == family), None)


def test_a_name_said_in_the_plural_where_it_goes_on_is_a_family() -> None:
    question = "Which spinocerebellar ataxias list dystonia as a feature?"
    ataxias = _named(question, "spinocerebellar ataxias", "disease", "Spinocerebellar ataxia 2")
    found = family_answer(read_question(question), [ataxias, link(question, "dystonia", PHENOTYPE)], HPO)
    assert found == (range(ataxias.start, ataxias.end), ataxias)
    assert family_words(ataxias) == ("spinocerebellar", "ataxia")
    one = _named(question, "spinocerebellar ataxias", "disease", "Spinocerebellar ataxias")  # its whole name
    assert family_answer(read_question(question), [one], HPO) is None


def test_an_abbreviation_stands_for_its_node_s_whole_name() -> None:
    oi = _named("which types of OI are there", "OI", "disease", "Osteogenesis imperfecta")
    assert family_words(oi) == ("osteogenesis", "imperfecta")


class _Names:
    """A store whose full-text index returns the given names of each label, for any terms."""

    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names
        self.asked: list[tuple[str, list[str]]] = []

    def text_top_k(self, graph: str, label: str, terms: Sequence[str], k: int) -> list[TextHit]:
        self.asked.append((label, list(terms)))
        return [TextHit(f"{label}:{i}", name, label, 1.0) for i, name in enumerate(self.names.get(label, []))]


def _context(store: _Names) -> Any:
    return cast(Any, SimpleNamespace(store=store, skb="hpo", graph=HPO))


def test_a_linked_family_is_the_nodes_whose_names_hold_its_name_but_its_own_entry() -> None:
    question = "which types of OI are linked to COL1A1?"
    oi = _named(question, "OI", "disease", "Osteogenesis imperfecta")
    names = ["Osteogenesis imperfecta", "Osteogenesis imperfecta, type I", "Combined osteogenesis imperfecta and EDS"]
    store = _Names({"disease": [*names, "Ehlers-Danlos syndrome"]})
    family = family_members(_context(store), read_question(question), range(oi.start, oi.end), oi)
    assert family == Family("disease", ("osteogenesis", "imperfecta"), ("disease:1", "disease:2"), oi)
    assert store.asked == [("disease", ['"osteogenesis imperfecta"'])]
    lone = _Names({"disease": ["Osteogenesis imperfecta", "Osteogenesis imperfecta, type I"]})
    assert family_members(_context(lone), read_question(question), range(oi.start, oi.end), oi) is None


def test_an_unlinked_family_is_the_label_whose_names_begin_with_its_words() -> None:
    question = "Which Charcot-Marie-Tooth types come with hearing loss?"
    reading = read_question(question)
    cmt = ["Charcot-Marie-Tooth disease, type 1A", "Charcot-marie-tooth disease, type 4H", "CMT, type 2"]
    # a name that holds the words later is no member of a family no entity names; genes hold them in no name
    store = _Names({"disease": [*cmt, "Charcot-Marie-Tooth disease type 1B", "Neuropathy like Charcot-Marie-Tooth"]})
    family = family_members(_context(store), reading, range(1, 2), None)
    assert family is not None and family.label == "disease" and family.link is None
    assert family.members == ("disease:0", "disease:1", "disease:3")
    assert {label for label, _ in store.asked} == {"disease", GENE}  # labels without a hierarchy only
    few = _Names({"disease": cmt[:2]})
    assert family_members(_context(few), reading, range(1, 2), None) is None


def test_the_plan_of_a_family_keeps_its_answers_among_its_members_and_joins_it_to_nothing() -> None:
    question = "which types of OI are linked to COL1A1?"
    oi, gene = link(question, "OI", "disease"), link(question, "COL1A1", GENE)
    family = Family("disease", ("oi",), ("OMIM:166200", "OMIM:259420"), oi)
    plan = schema_guided_plan([oi, gene], "disease", HPO, read_question(question), family=family)
    assert plan is not None
    assert plan.symbol("y").conditions == (Condition(HPO.keys.id, "IN", ("OMIM:166200", "OMIM:259420")),)
    assert [c.search_string for c in plan.constants] == ["COL1A1"]
    # the family alone ("what are the types of OI?"): its members are the answers
    alone = schema_guided_plan([oi], "disease", HPO, read_question("what are the types of OI?"), family=family)
    assert alone is not None and not alone.triplets and alone.symbol("y").conditions == plan.symbol("y").conditions
    # the answers of another type: the family's entity is joined as any other
    other = schema_guided_plan([oi, gene], PHENOTYPE, HPO, read_question(question), family=family)
    assert other is not None and {c.search_string for c in other.constants} == {"OI", "COL1A1"}


def test_step_1_takes_a_family_s_label_over_a_type_word_said_after_it() -> None:
    question = read_question("Which spinocerebellar ataxias list dystonia as a feature?")
    types = ("disease", GENE, PHENOTYPE)
    embedder = cast(Any, MeaningTable({}))
    named = question_type(question, types, None, embedder, Linked())
    assert named is not None and named[:2] == (PHENOTYPE, "named")
    family = question_type(question, types, None, embedder, Linked(family=("disease", "spinocerebellar ataxia")))
    assert family is not None and family[:2] == ("disease", "family")


# Weak links: recall from the question's own words, precision from the graph (issue 70, kind 4).


@pytest.mark.parametrize(
    ("span", "name", "alias", "shared"),
    [
        ("bluish-gray colour to the whites", "Blue sclerae", "Whites of eyes are a bluish-gray colour", True),
        ("taller", "Tall stature", "", True),  # a form of the name's word
        ("among disorders", "Atypical behavior", "Psychiatric disorders", False),  # a type's word only
        ("abnormality forming part of the phenotype", "Phenotypic abnormality", "", False),
        ("DNA", "Congenital sensorineural hearing impairment", "Congenital neurosensory deafness", False),
    ],
)
def test_a_weak_link_says_a_word_of_its_node_that_is_no_type_s_word(
    span: str, name: str, alias: str, shared: bool
) -> None:
    weak = Link(span, 0, len(span.split()), PHENOTYPE, "x", name, 0.8, alias)
    framing = STOP_WORDS | {w for label in HPO.labels for form in type_words(label) for w in plain_words(form)}
    assert shares_a_word(weak, framing) is shared


class _Annotations:
    """A store of 1000 diseases and the phenotypes each presents: a plan's answers are the diseases that present one
    of each constant's ids (what the one-hop plans of these tests ask)."""

    def __init__(self, present: dict[str, set[int]]) -> None:
        self.present = present

    def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
        constants = [ids for name, ids in params.items() if name.startswith("c")]
        diseases = set(range(1000))
        for ids in constants:
            diseases &= set().union(*(self.present.get(i, set()) for i in ids))
        return [[f"OMIM:{d}", "", "disease"] for d in sorted(diseases)]


@pytest.mark.parametrize(
    ("weak", "present", "fitting"),
    [
        ("blue sclerae", set(range(20)) | set(range(500, 510)), True),  # 20 of 50 here, 30 of 1000 anywhere
        ("congenital onset", set(range(0, 1000, 2)), False),  # a hub: as likely among them as anywhere
        ("red eye", set(range(600, 620)), False),  # never with them
    ],
)
def test_the_graph_holds_a_weak_link_that_is_far_likelier_with_the_sure_ones(
    weak: str, present: set[int], fitting: bool
) -> None:
    question = f"which diseases have recurrent fractures and {weak}?"
    sure, guess = link(question, "recurrent fractures", PHENOTYPE), link(question, weak, PHENOTYPE)
    store = _Annotations({"recurrent fractures": set(range(50)), weak: present})
    ctx = cast(Any, SimpleNamespace(store=store, skb="hpo", graph=HPO))
    ctx.config = SimpleNamespace(pattern_limit=10_000)
    reading = read_question(question)

    def plan(*links: Link) -> Any:
        return schema_guided_plan(links, "disease", HPO, reading)

    counts = [answers(ctx, plan(*links), links) for links in ([sure, guess], [sure], [guess])]
    lift = fits(*counts, everywhere=1000)
    assert (lift >= WEAK_LIFT) is fitting


def test_a_type_word_right_after_an_entity_of_that_type_is_its_own_not_the_next_hop_s_middle() -> None:
    question = "Which phenotypes associated with the PMP22 gene are also annotated for CMT1A?"
    links = [link(question, "PMP22", GENE), link(question, "CMT1A", "disease")]
    plan = schema_guided_plan(links, PHENOTYPE, HPO, read_question(question))
    assert plan is not None
    assert [s.labels for s in plan.symbols] == [(PHENOTYPE,), (GENE,), ("disease",)]  # no gene between
    # said before the next entity, a type word is its hop's middle node
    question = "Which phenotypes associated with PMP22 are also tied to a gene of CMT1A?"
    links = [link(question, "PMP22", GENE), link(question, "CMT1A", "disease")]
    plan = schema_guided_plan(links, PHENOTYPE, HPO, read_question(question))
    assert plan is not None and [s.labels for s in plan.symbols][2] == (GENE,)


# Ids typed in the question: looked up as the SKB writes them (issue 70, kind 2).


class _Ids:
    """A store that holds a few nodes by id, and every id of each label."""

    nodes: ClassVar[dict[str, tuple[str, str]]] = {
        "OMIM:154700": ("disease", "Marfan syndrome"),
        "HP:0001250": (PHENOTYPE, "Seizure"),
    }

    def __init__(self) -> None:
        self.wanted: list[str] = []

    def documents(self, graph: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        self.wanted += [i for i in ids if i not in self.wanted]
        return [NodeText(i, self.nodes[i][1], "") for i in ids if i in self.nodes and self.nodes[i][0] == label]

    def label_ids(self, graph: str, label: str) -> list[str]:
        return sorted([i for i, (held, _) in self.nodes.items() if held == label] + ["ORPHA:558", "NCBIGene:2200"])


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("genes of OMIM 154700?", ["OMIM:154700"]),
        ("genes of MIM #154700?", ["OMIM:154700"]),  # a prefix that ends the SKB's
        ("diseases with HPO:0001250?", ["HP:0001250"]),  # a prefix the SKB's begins
        ("diseases with HP 1250?", ["HP:0001250"]),  # the SKB's own prefix: the number padded to its digits
        ("diseases with HPO 1250?", []),  # padded only after the SKB's own prefix
        ("which diseases have HPS1 or HPS 4?", []),  # a symbol, a type: no ids the SKB has
        ("diseases with hp_0001250 or HP0001250?", ["HP:0001250", "HP:0001250"]),
        ("which genes go with Noonan syndrome type 2?", []),  # "type" stands for no prefix: nothing is looked up
        ("what does OR 154700 mean?", []),  # two letters begin ORPHA and OMIM: too few
    ],
)
def test_an_id_typed_any_way_is_looked_up_as_the_skb_writes_it(question: str, found: list[str]) -> None:
    store = _Ids()
    labels = [LabelInfo("disease", 3), LabelInfo(GENE, 1), LabelInfo(PHENOTYPE, 3), LabelInfo("paper", 10**7)]
    prefixes = id_prefixes(cast(Any, store), "hpo", labels)
    assert prefixes == {"HP": 7, "NCBIGene": 4, "OMIM": 6, "ORPHA": 3}
    links = typed_ids(read_question(question), cast(Any, store), "hpo", ["disease", GENE, PHENOTYPE], prefixes)
    assert [link.id for link in links] == found
    if "HPS" in question:  # nothing looked up at all
        assert store.wanted == []


# A stated condition the answer's own name holds ranks it first in its tier (step 6).


def _supported(name: str) -> Supported:
    grounded = Grounded(name.lower(), name, "disease", 1, (), "linked")
    return Supported(grounded, (("linked", 1),), (1.0, 1), ("linked",), (), 1)


@pytest.mark.parametrize(
    ("terms", "stated", "held"),
    [
        (('"wilms tumor"', "wilms", "tumor"), True, [True, False, False]),
        (("tumor",), True, [True, True, False]),
        (("jak*",), True, [False, False, True]),  # a prefix begins a word of the name
        (("tumor",), False, [False, False, False]),  # the residual words of a question that states nothing
    ],
)
def test_a_name_holds_what_the_question_states_of_the_answers_text(
    terms: tuple[str, ...], stated: bool, held: list[bool]
) -> None:
    chosen = [_supported("Wilms tumor 1"), _supported("Tumor of the kidney, Wilms type"), _supported("JAK2 deficiency")]
    assert names_hold(chosen, Lexical(terms, 1.0, stated)) == held


# A condition on the names of another type's nodes: the answers are joined to one of them.


def test_a_condition_on_another_type_s_names_joins_the_answers_to_those_nodes() -> None:
    question = "list every gene tied to a disease whose name mentions Bardet-Biedl"
    reading = read_question(question)
    store = _Names({"disease": ["Bardet-Biedl syndrome 1", "Bardet-Biedl syndrome 2", "Alstrom syndrome"]})
    textual = not_entities(reading, HPO.labels)[1]
    found = named_middle(_context(store), reading, GENE, [], textual)
    assert found == Family("disease", ("bardet", "biedl"), ("disease:0", "disease:1"))
    plan = schema_guided_plan([], GENE, HPO, reading, by_name=found)
    assert plan is not None and [t.types for t in plan.triplets] == [("associated with",)]
    assert plan.symbol("f").conditions == (Condition(HPO.keys.id, "IN", ("disease:0", "disease:1")),)
    # the answers' own names: another condition, for steps 6-7
    assert named_middle(_context(store), reading, "disease", [], textual) is None
    nothing = _Names({"disease": ["Alstrom syndrome"]})
    assert named_middle(_context(nothing), reading, GENE, [], textual) is None
    # a condition of the answers' own text said after a linked name that holds a type's word
    question = 'symptoms of the condition gaucher disease that have "circulating" in their description'
    reading = read_question(question)
    gaucher = link(question, "gaucher disease", "disease")
    textual = not_entities(reading, HPO.labels)[1]
    store = _Names({"disease": ["Circulating disease X", "Circulating disease Y"]})
    inside = set(range(gaucher.start, gaucher.end))
    assert named_middle(_context(store), reading, PHENOTYPE, [], textual, inside) is None
    reading = read_question('genes of a disease that have "kinase" in their description')  # no word for its text
    store = _Names({"disease": ["Kinase deficiency 1", "Kinase deficiency 2"]})
    assert named_middle(_context(store), reading, GENE, [], not_entities(reading, HPO.labels)[1]) is None


@pytest.mark.parametrize(
    ("question", "span", "hops"),
    [
        ("what are the children of the children of Seizure?", "Seizure", 2),
        ("what is two levels above Arachnodactyly (the parent of its parents)?", "Arachnodactyly", 2),
        ("which terms are a more specific child of Seizure?", "Seizure", 1),  # two words, one step
        ("which terms are children of Seizure?", "Seizure", 1),
    ],
)
def test_two_step_words_chained_by_of_are_two_steps_down_the_hierarchy(question: str, span: str, hops: int) -> None:
    reading = read_question(question)
    plan = schema_guided_plan([link(question, span, PHENOTYPE)], PHENOTYPE, HPO, reading, RelationMeaning(reading))
    assert plan is not None and len(plan.triplets) == hops
    assert all(t.types == ("parent-child",) and t.direction != "both" for t in plan.triplets)
