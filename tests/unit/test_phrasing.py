"""Natural phrasings of generated questions (kgqa.runtime.reader.phrasing) and ``generate(..., phrasing="natural")`` on
an in-memory HPO-like graph (the loaded fixtures: tests/integration/test_questions.py)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from kgqa.loaders.hpo import ABSENT, ASSOCIATED, DISEASE, GENE, PARENT_CHILD, PHENOTYPE, PRESENT
from kgqa.loaders.stark_files import MAG_EDGE_TYPES, MAG_NODE_TYPES
from kgqa.runtime.reader.phrasing import (
    RELATION_WORDS,
    TYPE_WORDS,
    description,
    generic_words,
    hop_wording,
    kind,
    natural,
    plural,
    relation_key,
    relation_words,
    type_nouns,
)
from kgqa.runtime.reader.questions import MENTION_WEIGHTS, generate
from kgqa.runtime.store.base import LabelInfo, NodeText, Relation, RelationshipInfo, Schema
from tests.helpers.stark_fixture import AMAZON_EDGE_TYPES, AMAZON_NODE_TYPES, PRIME_NODE_TYPES, PRIME_RELATION_TYPES

TEMPLATE_PHRASES = ("nodes have a '", "' relation with", "nodes ")
CHILDREN = ("subtypes of", "children of", "directly under", "more specific than", "immediately below")
PARENTS = ("parents of", "broader terms of", "directly above", "broader than", "immediately above")
NEUTRAL = ("in the hierarchy", "parents or children of", "above or below")


def _many(
    target: str, hops: Sequence[tuple[str, str]], direction: Any = None, style: Any = "name", n: int = 40
) -> list[str]:
    return [
        natural(target, hops, "Seizure", "convulsions", random.Random(seed), style=style, direction=direction)
        for seed in range(n)
    ]


# (answer type, hops, direction, phrases one of which every wording has, kind); every HPO relation both ways
HPO_CASES = [
    (
        DISEASE,
        [(PRESENT, PHENOTYPE)],
        None,
        ("present with", "show", "have", "characterised by", "manifest", "with Seizure", "with the"),
        "1-hop",
    ),
    (PHENOTYPE, [(PRESENT, DISEASE)], None, ("present in", "occur in", "seen in", "features of", "found in"), "1-hop"),
    (DISEASE, [(ABSENT, PHENOTYPE)], None, ("lack", "without", "absent", "do not", "not "), "negation"),
    (PHENOTYPE, [(ABSENT, DISEASE)], None, ("absent in",), "negation"),
    (PHENOTYPE, [(PARENT_CHILD, PHENOTYPE)], "to_anchor", CHILDREN, "hierarchy"),
    (PHENOTYPE, [(PARENT_CHILD, PHENOTYPE)], "from_anchor", PARENTS, "hierarchy"),
    (PHENOTYPE, [(PARENT_CHILD, PHENOTYPE)], None, NEUTRAL, "hierarchy"),
    (GENE, [(ASSOCIATED, PHENOTYPE)], None, ("associated with", "linked to", "implicated in"), "1-hop"),
    (GENE, [(ASSOCIATED, DISEASE)], None, ("associated with", "linked to", "implicated in"), "1-hop"),
    (PHENOTYPE, [(ASSOCIATED, GENE)], None, ("associated with", "linked to"), "1-hop"),
    (DISEASE, [(ASSOCIATED, GENE)], None, ("associated with", "linked to"), "1-hop"),
]


@pytest.mark.parametrize(("target", "hops", "direction", "phrases", "expected_kind"), HPO_CASES)
def test_every_hpo_relation_is_worded_in_both_directions(
    target: str, hops: list[tuple[str, str]], direction: Any, phrases: tuple[str, ...], expected_kind: str
) -> None:
    texts = _many(target, hops, direction)
    for text in texts:
        assert any(p in text for p in phrases), text
        assert "Seizure" in text and "convulsions" in text.lower()
    assert kind(hops) == expected_kind
    assert len(set(texts)) > 20  # varied sentences, not one template
    if direction == "to_anchor":
        assert not any(p in t for t in texts for p in PARENTS + NEUTRAL)
    if direction == "from_anchor":
        assert not any(p in t for t in texts for p in CHILDREN + NEUTRAL)


def test_hop_wording_picks_the_direction_from_the_labels() -> None:
    present = RELATION_WORDS["phenotype present"]
    assert hop_wording(PRESENT, DISEASE, PHENOTYPE) is present.forward
    assert hop_wording(PRESENT, PHENOTYPE, DISEASE) is present.backward
    hierarchy = RELATION_WORDS["parent-child"]
    assert hop_wording(PARENT_CHILD, PHENOTYPE, PHENOTYPE, "to_anchor") is hierarchy.forward
    assert hop_wording(PARENT_CHILD, PHENOTYPE, PHENOTYPE, "from_anchor") is hierarchy.backward
    assert hop_wording(PARENT_CHILD, PHENOTYPE, PHENOTYPE) is hierarchy.neutral
    assert (
        hop_wording(PARENT_CHILD, DISEASE, PHENOTYPE, "to_anchor") is hierarchy.neutral
    )  # no direction between labels
    # a known type between labels its table does not know gets the generic wording, never a wrong direction
    assert hop_wording(PRESENT, GENE, "anatomy") == generic_words(PRESENT).forward


def test_two_hops_are_worded_through_the_intermediate_type() -> None:
    hops = [(PRESENT, PHENOTYPE), (ASSOCIATED, GENE)]
    texts = [natural(DISEASE, hops, "ERLIN2", "spastic", random.Random(s)) for s in range(40)]
    intermediate = re.compile(r"\b(a|an) (phenotype|clinical feature|symptom|abnormality) (associated with|linked to) ")
    assert all(intermediate.search(t) for t in texts), [t for t in texts if not intermediate.search(t)]
    assert all("ERLIN2" in t for t in texts) and kind(hops) == "2-hop"
    # "do not show a phenotype linked to X" would read as "none of them": 2 hops never use it
    negated = [
        natural(DISEASE, [(ABSENT, PHENOTYPE), (ASSOCIATED, GENE)], "ERLIN2", "x", random.Random(s)) for s in range(60)
    ]
    assert not any("do not" in t or "not showing" in t for t in negated)
    assert kind([(ABSENT, PHENOTYPE), (ASSOCIATED, GENE)]) == "negation"
    assert kind([(PARENT_CHILD, PHENOTYPE), (ASSOCIATED, GENE)]) == "hierarchy"
    hierarchy = [
        natural(PHENOTYPE, [(PARENT_CHILD, PHENOTYPE), (ASSOCIATED, GENE)], "X1", "w", random.Random(s))
        for s in range(30)
    ]
    assert all(any(p in t for p in NEUTRAL) for t in hierarchy)  # 2 hops name no direction


def test_every_stark_label_and_relation_has_words() -> None:
    labels = [*PRIME_NODE_TYPES, *MAG_NODE_TYPES.values(), *AMAZON_NODE_TYPES.values()]
    assert all(label in TYPE_WORDS for label in labels)
    types = [*PRIME_RELATION_TYPES, *MAG_EDGE_TYPES.values(), *AMAZON_EDGE_TYPES.values()]
    assert all(relation_key(t) in RELATION_WORDS for t in types), [
        t for t in types if relation_key(t) not in RELATION_WORDS
    ]
    assert relation_key("author___writes___paper") == "writes" and relation_key("has_topic") == "has topic"
    assert hop_wording("author___writes___paper", "paper", "author") is RELATION_WORDS["writes"].backward
    assert hop_wording("paper___cites___paper", "paper", "paper", "to_anchor") is RELATION_WORDS["cites"].forward


@pytest.mark.parametrize(
    ("label", "plurals"),
    [
        ("effect/phenotype", {"phenotypes", "clinical features", "symptoms", "abnormalities"}),
        ("disease", {"diseases", "disorders", "conditions"}),
        ("gene/protein", {"genes", "proteins"}),
        ("field_of_study", {"fields of study", "research fields", "topics"}),
        ("cell_line", {"cell lines"}),  # fallback: the label in words, pluralised
        ("Virus/host-factor", {"viruses", "host factors"}),
        ("__", {"entities"}),
    ],
)
def test_type_words_with_a_fallback_for_any_label(label: str, plurals: set[str]) -> None:
    assert {noun.plural for noun in type_nouns(label)} == plurals


def test_plural() -> None:
    words = ["abnormality", "process", "field of study", "pathway", "match", "anatomy"]
    assert [plural(w) for w in words] == [
        "abnormalities",
        "processes",
        "fields of study",
        "pathways",
        "matches",
        "anatomies",
    ]


def test_unknown_relations_and_labels_get_the_generic_wording() -> None:
    hops = [("regulates_expression_of", "cell_line")]
    texts = [natural("micro_rna", hops, "HeLa", "oncogenic", random.Random(s)) for s in range(30)]
    assert all(("through regulates expression of" in t or "by regulates expression of" in t) for t in texts)
    assert all("HeLa" in t for t in texts) and any("micro rnas" in t.lower() for t in texts)
    assert relation_words("regulates_expression_of") == generic_words("regulates_expression_of")
    assert kind(hops) == "1-hop"


def _all_hops() -> list[tuple[str, list[tuple[str, str]]]]:
    """1- and 2-hop paths over PRIME's, MAG's and AMAZON's relation types between plausible labels."""
    prime = (
        [(DISEASE, [(t, PHENOTYPE)]) for t in (PRESENT, ABSENT)]
        + [("drug", [(t, DISEASE)]) for t in ("indication", "contraindication", "off-label use")]
        + [("drug", [(t, GENE)]) for t in ("carrier", "enzyme", "target", "transporter")]
        + [(GENE, [(t, "drug")]) for t in ("carrier", "enzyme", "target", "transporter")]
        + [
            (GENE, [("ppi", GENE)]),
            ("drug", [("synergistic interaction", "drug")]),
            ("drug", [("side effect", PHENOTYPE)]),
            (PHENOTYPE, [("side effect", "drug")]),
            (GENE, [("expression present", "anatomy")]),
            ("anatomy", [("expression absent", GENE)]),
            (GENE, [("interacts with", "pathway")]),
            ("exposure", [("linked to", DISEASE)]),
            (DISEASE, [("parent-child", DISEASE)]),
            ("drug", [("indication", DISEASE), ("phenotype absent", PHENOTYPE)]),
        ]
    )
    mag = [
        ("paper", [(MAG_EDGE_TYPES[3], "author")]),
        ("author", [(MAG_EDGE_TYPES[3], "paper")]),
        ("paper", [(MAG_EDGE_TYPES[1], "paper")]),
        ("paper", [(MAG_EDGE_TYPES[2], "field_of_study")]),
        ("author", [(MAG_EDGE_TYPES[0], "institution")]),
        ("institution", [(MAG_EDGE_TYPES[0], "author"), (MAG_EDGE_TYPES[3], "paper")]),
        ("paper", [(MAG_EDGE_TYPES[3], "author"), (MAG_EDGE_TYPES[0], "institution")]),
    ]
    amazon = [("product", [(t, label)]) for t, label in [("also_buy", "product"), ("also_view", "product")]] + [
        ("product", [(f"has_{label}", label)]) for label in ("brand", "category", "color")
    ]
    return [*prime, *mag, *amazon]


@pytest.mark.parametrize("style", ["name", "lower", "alias", "description"])
def test_no_template_phrase_and_the_mention_and_word_are_kept(style: Any) -> None:
    mention = "a seizure is an intermittent abnormality" if style == "description" else "Anchor Name"
    for target, hops in _all_hops():
        for seed in range(8):
            text = natural(target, hops, mention, "Keyword", random.Random(seed), style=style)
            assert not any(p in text for p in TEMPLATE_PHRASES), text
            assert mention in text and "keyword" in text.lower(), text
            assert "{" not in text and "  " not in text and text == text.strip(), text
            if style == "description":
                assert f"described as '{mention}'" in text


def test_deterministic_for_a_seed() -> None:
    hops = [(PRESENT, PHENOTYPE), (ASSOCIATED, GENE)]
    first = [natural(DISEASE, hops, "ERLIN2", "spastic", random.Random(s)) for s in range(10)]
    again = [natural(DISEASE, hops, "ERLIN2", "spastic", random.Random(s)) for s in range(10)]
    assert first == again and len(set(first)) == 10
    starts = Counter(t.split()[0] for s in range(200) for t in [natural(DISEASE, hops, "E", "w", random.Random(s))])
    assert {"Which", "What", "List", "Find", "I'm", "Name"} <= set(starts)
    assert any(word[0].islower() for word in starts)  # some start in lower case, as typed


def test_description_of_a_term() -> None:
    hpo = "- name: Seizure\n- details:\n  - definition: A seizure is an intermittent abnormality. More.\n  - comment: -"
    assert description(hpo) == "A seizure is an intermittent abnormality"
    prime = "- name: migraine\n- details:\n  - mondo_definition: A neurological disorder with recurrent headaches."
    assert description(prime) == "A neurological disorder with recurrent headaches"
    long = "  - definition: " + " ".join(f"w{i}" for i in range(30)) + "."
    assert description(long) == " ".join(f"w{i}" for i in range(16)) + " ..."
    assert description("- name: NAT2\n- details:\n  - id: NCBIGene:10") is None
    assert description("  - definition: Too short.") is None


# ---------------------------------------------------------------------------------------------------------------------
# generate(..., phrasing="natural") on an in-memory graph: HPO's labels and directed parent-child edges
# ---------------------------------------------------------------------------------------------------------------------

NAMES = {
    "P0": ("Abnormal nervous system physiology", "A functional anomaly of the nervous system with convulsions."),
    "P1": ("Seizure", "A seizure is an intermittent abnormality of nervous system physiology with convulsions."),
    "P2": ("Focal-onset seizure", "A seizure that originates in one hemisphere, with convulsions."),
    "P3": ("Bilateral tonic-clonic seizure", "A seizure with tonic and clonic phases and convulsions."),
    "P4": ("Hypotonia", "Abnormally low muscle tone."),
    "D1": ("Dravet syndrome", ""),
    "D2": ("Ohtahara syndrome", ""),
    "G1": ("SCN1A", ""),
}
LABELS = {"P": PHENOTYPE, "D": DISEASE, "G": GENE}
EDGES = [
    ("P1", PARENT_CHILD, "P0"),
    ("P2", PARENT_CHILD, "P1"),
    ("P3", PARENT_CHILD, "P1"),
    ("P4", PARENT_CHILD, "P0"),
    ("D1", PRESENT, "P1"),
    ("D1", PRESENT, "P2"),
    ("D2", PRESENT, "P3"),
    ("D2", ABSENT, "P4"),
    ("D1", ABSENT, "P4"),
    ("G1", ASSOCIATED, "P1"),
    ("G1", ASSOCIATED, "D1"),
]
SYNONYMS = {"P1": ("Epileptic seizure", "Seizures"), "P4": ("Low muscle tone",)}


def _doc(node: str) -> str:
    name, definition = NAMES[node]
    lines = [f"- name: {name}", f"- type: {LABELS[node[0]]}", "- details:", f"  - id: {node}"]
    return "\n".join(lines + ([f"  - definition: {definition}"] if definition else []))


class _Graph:
    """The store methods the generator calls, over :data:`EDGES` (paths read undirected, as the stores do)."""

    def label_ids(self, skb: str, label: str) -> list[str]:
        return sorted(n for n in NAMES if LABELS[n[0]] == label)

    def _walk(self, start: str, hops: Sequence[tuple[str, str]]) -> set[str]:
        frontier = {start}
        for rel_type, label in hops:
            frontier = {
                b
                for a in frontier
                for s, t, d in EDGES
                if t == rel_type
                for b in ((d,) if s == a else (s,) if d == a else ())
                if LABELS[b[0]] == label
            }
        return frontier - {start}

    def reachable(self, skb: str, start: str, hops: Sequence[tuple[str, str]], node_id: str) -> list[tuple[str, str]]:
        return [(n, NAMES[n][0]) for n in sorted(self._walk(node_id, hops))]

    def documents(self, skb: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        return [NodeText(i, NAMES[i][0], _doc(i)) for i in ids]

    def path_answers(
        self, skb: str, start: str, hops: Sequence[tuple[str, str]], anchor: str, keyword: str
    ) -> list[str]:
        return [y for y in self.label_ids(skb, start) if anchor in self._walk(y, hops) and keyword in _doc(y).lower()]

    def relations(self, skb: str, label: str, ids: Sequence[str]) -> list[Relation]:
        out = [Relation(s, t, True, d, NAMES[d][0]) for s, t, d in EDGES if s in ids]
        return out + [Relation(d, t, False, s, NAMES[s][0]) for s, t, d in EDGES if d in ids]

    def aliases(self, skb: str, label: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        return {}  # a graph loaded without aliases


class _AliasedGraph(_Graph):
    def aliases(self, skb: str, label: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        return {i: SYNONYMS[i] for i in ids if i in SYNONYMS}


SCHEMA = Schema(
    (LabelInfo(PHENOTYPE, 5), LabelInfo(DISEASE, 2), LabelInfo(GENE, 1)),
    (
        RelationshipInfo(PARENT_CHILD, PHENOTYPE, PHENOTYPE, 4),
        RelationshipInfo(PRESENT, DISEASE, PHENOTYPE, 3),
        RelationshipInfo(ABSENT, DISEASE, PHENOTYPE, 2),
        RelationshipInfo(ASSOCIATED, GENE, PHENOTYPE, 1),
        RelationshipInfo(ASSOCIATED, GENE, DISEASE, 1),
    ),
    (),
)


def _generate(store: _Graph, phrasing: Any, seed: int = 4) -> list[Any]:
    return generate(store, "hpo", SCHEMA, [PHENOTYPE, DISEASE], 12, seed, max_word_share=1.0, phrasing=phrasing)  # type: ignore[arg-type]


def test_natural_questions_keep_exact_answers_and_name_the_hierarchy_direction() -> None:
    store = _AliasedGraph()
    made = [q for seed in range(16) for q in _generate(store, "natural", seed)]
    assert made and all(q.phrasing == "natural" and not q.paraphrased for q in made)
    directions = Counter(q.direction for q in made if q.kind == "hierarchy")
    assert directions["to_anchor"] and directions["from_anchor"]
    for q in made:
        target, *hops = q.template.split(" / ")
        expected = store.path_answers("hpo", target, [_hop(h) for h in hops], q.anchor_id, q.word.lower())
        if q.direction == "to_anchor":  # the answer's edge points to the anchor: its subtypes under HPO
            expected = [y for y in expected if (y, PARENT_CHILD, q.anchor_id) in EDGES]
            assert any(p in q.query for p in CHILDREN), q.query
        elif q.direction == "from_anchor":
            expected = [y for y in expected if (q.anchor_id, PARENT_CHILD, y) in EDGES]
            assert any(p in q.query for p in PARENTS), q.query
        assert q.answer_ids == expected and q.gold_id in expected, q
        assert q.direction is None or (len(hops) == 1 and q.kind == "hierarchy")
        assert q.kind == kind([_hop(h) for h in hops])
        assert q.mention_text in q.query and q.word.lower() in q.query.lower()
        assert not any(p in q.query for p in TEMPLATE_PHRASES)
        name = NAMES[q.anchor_id][0]
        assert (
            q.mention_text
            == {
                "name": name,
                "lower": name.lower(),
                "alias": q.mention_text if q.mention_text in SYNONYMS.get(q.anchor_id, ()) else None,
                "description": description(_doc(q.anchor_id)),
            }[q.mention]
        )
    # a restriction that changes the set: Seizure's parent and children all mention convulsions
    assert any(
        q.direction
        and len(q.answer_ids)
        < len(store.path_answers("hpo", PHENOTYPE, [(PARENT_CHILD, PHENOTYPE)], q.anchor_id, q.word.lower()))
        for q in made
    )
    styles = Counter(q.mention for q in made)
    assert set(styles) == set(MENTION_WEIGHTS), styles


def _hop(text: str) -> tuple[str, str]:
    for label in (PHENOTYPE, DISEASE, GENE):
        if text.endswith(" " + label):
            return text[: -len(label) - 1], label
    raise AssertionError(text)


def test_natural_phrasing_words_the_template_sets_questions_and_leaves_it_unchanged() -> None:
    template = _generate(_AliasedGraph(), "template")
    natural_set = _generate(_AliasedGraph(), "natural")
    assert [q.templated for q in natural_set] == [q.templated for q in template] == [q.query for q in template]
    assert [q.kind for q in natural_set] == [q.kind for q in template]
    assert all(q.phrasing == "template" and q.mention == "name" and q.direction is None for q in template)
    assert _generate(_AliasedGraph(), "natural") == natural_set  # deterministic for a seed


def test_a_graph_without_aliases_gives_no_alias_mention() -> None:
    made = [q for seed in range(6) for q in _generate(_Graph(), "natural", seed)]
    assert made and not any(q.mention == "alias" for q in made)
    with pytest.raises(Exception, match="phrasing must be one of template, natural"):
        _generate(_Graph(), "fancy")
