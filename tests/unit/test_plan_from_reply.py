"""Method step 3 on LLM replies: an answer variable left without a label the schema has gets step 1's type, so
that the compiled pattern never ranges over every node (kgqa's own alias nodes included)."""

from __future__ import annotations

import pytest

from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import GraphSchema
from kgqa.runtime.steps.s2_text2cypher import ANSWER_LABEL, plan_from_reply

SCHEMA = GraphSchema(
    ("disease", "effect/phenotype"),
    (("disease", "phenotype present", "effect/phenotype"),),
    NodeKeys("id", "name"),
)


@pytest.mark.parametrize(
    ("reply", "original"),
    [
        ('MATCH (y)<-[:`phenotype present`]-(d:disease {name: "x"}) RETURN y', "(y) without a label"),
        ('MATCH (y:abnormality)<-[:`phenotype present`]-(d:disease {name: "x"}) RETURN y', "(y:abnormality)"),
    ],
)
def test_an_answer_without_a_schema_label_gets_the_target_type(reply: str, original: str) -> None:
    sanitized = plan_from_reply(reply, SCHEMA, "effect/phenotype", "strict")
    target = next(s for s in sanitized.plan.symbols if s.name == sanitized.plan.target)
    assert target.labels == ("effect/phenotype",)
    assert any(r.kind == ANSWER_LABEL and r.original == original for r in sanitized.repairs), sanitized.repairs


def test_a_labelled_answer_keeps_its_label() -> None:
    reply = 'MATCH (y:disease)-[:`phenotype present`]->(p:`effect/phenotype` {name: "x"}) RETURN y'
    sanitized = plan_from_reply(reply, SCHEMA, "effect/phenotype", "strict")
    target = next(s for s in sanitized.plan.symbols if s.name == sanitized.plan.target)
    assert target.labels == ("disease",) and not any(r.kind in ("label", ANSWER_LABEL) for r in sanitized.repairs)


def test_the_answer_s_label_labels_its_unlabelled_neighbours() -> None:
    sanitized = plan_from_reply(
        'MATCH (y)-[:`phenotype present`]->(v {name: "Seizure"}) RETURN y', SCHEMA, "disease", "strict"
    )
    assert sanitized.plan.symbol("y").labels == ("disease",)
    assert sanitized.plan.symbol("v").labels == ("effect/phenotype",)
    without_type = plan_from_reply(
        "MATCH (y)-[:`phenotype present`]->(v:`effect/phenotype`) RETURN y", SCHEMA, None, "strict"
    )
    assert without_type.plan.symbol("y").labels == ("disease",)
