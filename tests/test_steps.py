"""Pure parts of steps 1 and 2-3 without an LLM: parsing a type reply, question n-grams, the schema-guided plan."""

from __future__ import annotations

from cypher.sanitize import GraphSchema
from kgqa.linking import Link, ngrams, schema_guided_plan
from kgqa.target_type import parse_type

TYPES = ["disease", "drug", "gene/protein", "effect/phenotype"]


def test_parse_type() -> None:
    assert parse_type("drug", TYPES) == "drug"
    assert parse_type("`Gene/Protein`.", TYPES) == "gene/protein"
    assert parse_type("The answer is a disease.", TYPES) == "disease"
    assert parse_type("a drug or a disease", TYPES) is None  # two types named: not trusted
    assert parse_type("protein", TYPES) is None and parse_type("", TYPES) is None


def test_ngrams_skip_stop_word_edges() -> None:
    grams = {text for _, _, text in ngrams("Which drugs treat the migraine attacks?")}
    assert {"drugs", "migraine attacks", "drugs treat the migraine"} <= grams
    assert "the migraine" not in grams and "Which drugs" not in grams


def test_schema_guided_plan() -> None:
    schema = GraphSchema(("drug", "disease", "gene/protein"),
                         (("drug", "indication", "disease"), ("drug", "contraindication", "disease"),
                          ("drug", "target", "gene/protein")))  # fmt: skip
    links = [Link("migraine", 3, 4, "disease", "1", "migraine", 1.0), Link("x", 5, 6, "gene/protein", "9", "X", 0.9)]
    plan = schema_guided_plan(links, "drug", schema)
    assert plan is not None and plan.target == "y"
    assert [(t.head, t.types, t.tail, t.direction) for t in plan.triplets] == [
        ("y", ("contraindication", "indication"), "e0", "both"), ("y", ("target",), "e1", "both")]  # fmt: skip
    assert plan.symbol("e0").search_string == "migraine"
    assert schema_guided_plan(links, "disease", GraphSchema(("disease",), ())) is None


def test_link_priority_prefers_whole_names_but_not_joined_phrases() -> None:
    from kgqa.linking import _priority

    word = Link("generalized", 4, 5, "effect/phenotype", "1", "Generalized", 1.0)
    whole = Link("generalized tonic-clonic seizures", 4, 7, "effect/phenotype", "2", "Generalized clonic seizure", 0.92)
    assert sorted([word, whole], key=_priority) == [whole, word]
    exact = Link("Arachnoid cyst", 5, 7, "disease", "3", "Arachnoid cyst", 1.0)
    joined = Link("Arachnoid cyst and Acute", 5, 9, "disease", "3", "Arachnoid cyst", 0.88)
    assert sorted([joined, exact], key=_priority) == [exact, joined]
