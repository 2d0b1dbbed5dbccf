"""The question generator's textual conditions: only words specific to the answer type (``kgqa questions`` on the
loaded fixture: tests/integration/test_questions.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from kgqa.errors import StoreTimeoutError
from kgqa.runtime.reader.questions import TIMED_OUT, document_frequencies, generate, specific_words
from kgqa.runtime.store.base import LabelInfo, NodeText, RelationshipInfo, Schema


def test_generic_words_are_never_the_textual_condition() -> None:
    docs = [
        "The protein binds calcium.",
        "A protein of the kinesin family.",
        "Protein with zinc fingers.",
        "Membrane protein, calcium channel.",
        "Kinesin motor protein.",
    ]
    frequencies = document_frequencies(docs)
    assert frequencies["protein"] == 5 and frequencies["calcium"] == 2 and frequencies["kinesin"] == 2
    # 'protein' (in 5 of 5 documents) is too generic; 'calcium' (2 of 5) passes at a 40% share, not at 20%
    assert specific_words(docs[3], frequencies, len(docs), 0.4) == ["Membrane", "calcium", "channel"]
    assert specific_words(docs[3], frequencies, len(docs), 0.2) == ["Membrane", "channel"]
    assert specific_words(docs[0], frequencies, len(docs), 1.0) == ["calcium", "protein"]


class _HubStore:
    """A one-relation graph whose path query times out for the anchor "hub" (as 2-hop templates through hubs do
    at MAG size) and answers for the anchor "leaf"."""

    def label_ids(self, skb: str, label: str) -> list[str]:
        return ["d1", "d2"] if label == "drug" else ["hub", "leaf"]

    def reachable(self, skb: str, start: str, hops: Any, node_id: str) -> list[tuple[str, str]]:
        return [("hub", "Hub gene"), ("leaf", "Leaf gene")]

    def documents(self, skb: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        docs = {"d1": "Ivermectin binds glutamate channels.", "d2": "Aspirin inhibits cyclooxygenase."}
        return [NodeText(i, i, docs.get(i, "Gene."), "") for i in ids]

    def path_answers(self, skb: str, start: str, hops: Any, anchor: str, keyword: str) -> list[str]:
        if anchor == "hub":
            raise StoreTimeoutError("query ran past 60000 ms: Query timed out")
        return ["d1"] if keyword in "ivermectin binds glutamate channels." else ["d2"]


def test_a_sample_whose_query_times_out_is_rejected_and_another_is_tried() -> None:
    schema = Schema((LabelInfo("drug", 2), LabelInfo("gene", 2)), (RelationshipInfo("target", "drug", "gene", 2),), ())
    rejected: Counter[tuple[str, str]] = Counter()
    made = generate(_HubStore(), "s", schema, ["drug"], 2, seed=1, max_word_share=1.0, rejected=rejected)  # type: ignore[arg-type]
    assert made and all(q.anchor_id == "leaf" for q in made)
    assert rejected["drug", TIMED_OUT] > 0
