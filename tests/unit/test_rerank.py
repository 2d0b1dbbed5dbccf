"""Rerank documents fit the token budget by the method's tiers; reply parsers never trust a reply blindly."""

from __future__ import annotations

from kgqa.runtime.steps.s8_rerank import RerankDoc, parse_choice, parse_permutation, parse_score, render
from kgqa.runtime.store.base import Relation
from kgqa.types import Candidate


def doc(node: str, text: str, relations: tuple[Relation, ...] = ()) -> RerankDoc:
    return RerankDoc(Candidate(node, "drug", f"name{node}", 0.5, ("vector",)), text, relations)


DOCS = [
    doc("1", "a" * 100, (Relation("1", "target", True, "2", "name2"), Relation("1", "target", True, "9", "outsider"))),
    doc("2", "b" * 100, (Relation("2", "target", False, "1", "name1"),)),
]


def test_budget_tiers() -> None:
    texts, tier = render(DOCS, budget_tokens=1000)
    assert tier == "all relations" and "outsider" in texts[0]
    texts, tier = render(DOCS, budget_tokens=73)  # 292 characters: relations to non-candidates go first
    assert tier == "relations among candidates" and "outsider" not in texts[0] and "name2" in texts[0]
    texts, tier = render(DOCS, budget_tokens=60)
    assert tier == "no relations" and "Relations" not in texts[0]
    texts, tier = render(DOCS, budget_tokens=30)
    assert tier.startswith("no relations, documents cut to") and sum(map(len, texts)) <= 120


def test_reply_parsers() -> None:
    assert parse_permutation("3, 1, 2", 3) == ([2, 0, 1], False)
    assert parse_permutation("Ranking: [2] > [2] > [9]", 3) == ([1, 0, 2], True)
    assert parse_permutation("", 2) == ([0, 1], True)
    assert parse_choice("B") == "B" and parse_choice("Answer: A.") == "A" and parse_choice("neither") is None
    assert parse_score("0.75") == 0.75 and parse_score("Score: 1") == 1.0
    assert parse_score("7/10") is None and parse_score("high") is None
