"""The parser on real LLM replies (tests/fixtures/llm_cypher/replies.jsonl: 100 replies of the local
Qwen2.5-Coder-1.5B to STaRK questions, made with step-2 prompt version 1; regenerate with
tests/fixtures/llm_cypher/generate.py).

Each reply has its expected outcome in expected.jsonl, in the same order: how many triplets the parser keeps, or
that it rejects the reply. 90 replies yield triplets (prime 38/40, mag 35/35, amazon 17/25); the other 10 write no
relationship pattern at all (a constant alone), so no parser could make a triplet of them, and they must still
parse (their constants are usable). A change to any single reply's outcome fails, with the reply named; after a
deliberate change or a regenerated corpus, rewrite the file with ``python -m tests.unit.test_llm_corpus`` and
review its diff (a reply that lost triplets is a regression).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.parser import parse

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm_cypher"
REPLIES = FIXTURES / "replies.jsonl"
EXPECTED = FIXTURES / "expected.jsonl"

RELATIONSHIP = re.compile(r"\)\s*<?-\s*[\[\->]")
"""A relationship pattern as written after a node: ``)-[``, ``)<-[``, ``)--`` or ``)->``."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def outcome(reply: str) -> dict[str, Any]:
    """What the parser makes of ``reply``: rejected, or the number of triplets it keeps."""
    try:
        plan = parse(reply)
    except CypherSyntaxError:
        return {"rejected": True, "triplets": 0}
    return {"rejected": False, "triplets": len(plan.triplets)}


REPLY_RECORDS = _lines(REPLIES)
EXPECTED_RECORDS = _lines(EXPECTED)
KEYS = [(r["skb"], r["id"]) for r in EXPECTED_RECORDS]


def test_every_reply_has_an_expected_outcome() -> None:
    assert [(r["skb"], r["id"]) for r in REPLY_RECORDS] == KEYS
    assert len(KEYS) == len(set(KEYS)) == 100


@pytest.mark.parametrize(
    ("record", "expected"), zip(REPLY_RECORDS, EXPECTED_RECORDS, strict=True), ids=[f"{skb}-{id_}" for skb, id_ in KEYS]
)
def test_each_real_reply_has_its_expected_outcome(record: dict[str, Any], expected: dict[str, Any]) -> None:
    assert outcome(record["reply"]) == {"rejected": expected["rejected"], "triplets": expected["triplets"]}, (
        record["question"],
        record["reply"],
    )


def test_only_replies_without_a_relationship_pattern_are_expected_to_yield_no_triplet() -> None:
    """The expectations themselves, checked against the text: a reply that writes a relationship must give a
    triplet, and one that writes none is expected to give none (and not to be rejected)."""
    for record, expected in zip(REPLY_RECORDS, EXPECTED_RECORDS, strict=True):
        writes_one = bool(RELATIONSHIP.search(record["reply"]))
        assert (expected["triplets"] > 0) == writes_one, (record["skb"], record["id"])
        assert not expected["rejected"], (record["skb"], record["id"])
    by_skb: dict[str, list[int]] = {}
    for skb, _ in KEYS:
        by_skb.setdefault(skb, [0, 0])[1] += 1
    for (skb, _), expected in zip(KEYS, EXPECTED_RECORDS, strict=True):
        by_skb[skb][0] += expected["triplets"] > 0
    assert by_skb == {"prime": [38, 40], "mag": [35, 35], "amazon": [17, 25]}  # as the docstring says


if __name__ == "__main__":  # rewrite expected.jsonl from the parser as it is now (review the diff!)
    rows = [{"skb": r["skb"], "id": r["id"], **outcome(r["reply"])} for r in REPLY_RECORDS]
    EXPECTED.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
