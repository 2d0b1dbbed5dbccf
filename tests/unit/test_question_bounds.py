"""Question-side bounds (issue 18, item 2): a question is refused before any work when it is too long or not text,
and entity linking embeds and searches at most ``max_link_ngrams`` spans, saying so in the trace."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from kgqa.api import check_question
from kgqa.config import Config
from kgqa.cypher.sanitize import GraphSchema
from kgqa.errors import QuestionError
from kgqa.runtime.app import Kgqa
from kgqa.runtime.pipeline import note_link_cap, note_unjoined
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s2_linking import Link, link_entities
from kgqa.runtime.steps.s2_schema_plan import schema_guided_plan
from kgqa.runtime.steps.s2_spans import MAX_LINK_SPANS, MAX_NGRAM, link_spans, ngrams, span_cap
from kgqa.runtime.store.base import NODE_KEYS, VectorHit
from kgqa.runtime.trace import StepTrace, Trace
from tests.helpers.store_fakes import OneByOne

LABELS = ("disease", "drug")


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("x" * 4001, "the question has 4,001 characters; the limit is 4,000 (max_question_chars)"),
        ("", "the question is empty"),
        (" \t\n ", "the question is empty"),
        ("which drugs treat \x00 migraine", "the question holds a NUL character (at character 19)"),
        ("which drugs treat migraine\udcff", "a lone surrogate U+DCFF at character 27"),
        ("\ud83d which drugs", "a lone surrogate U+D83D at character 1"),
    ],
)
def test_a_question_too_long_or_not_text_is_refused_with_what_is_wrong(question: str, message: str) -> None:
    with pytest.raises(QuestionError, match=re.escape(message)) as caught:
        check_question(question, 4000)
    assert "\n" not in str(caught.value)
    assert caught.value.exit_code == 2
    again = pickle.loads(pickle.dumps(caught.value))  # how the worker hands it to its client
    assert type(again) is QuestionError and str(again) == str(caught.value)


def test_a_question_at_the_limit_and_any_unicode_text_pass() -> None:
    check_question("x" * 4000, 4000)
    check_question("Which genes are linked to Ménière\u2019s disease 🧬 (中文)?", 4000)


def test_the_length_is_checked_before_the_text_is_read() -> None:
    """A megabyte of NULs is refused for its length: the scan of its characters never runs."""
    with pytest.raises(QuestionError, match="1,000,000 characters"):
        check_question("\x00" * 1_000_000, 4000)


class _Untouchable:
    """Any use of the store, the embedder or the LLM fails the test: the question must be refused before."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"{name} was used before the question was checked")


def test_the_api_refuses_before_it_embeds_asks_or_reads(tmp_path: Path) -> None:
    """The API checks a question once, first (the pipeline it calls does not check again)."""
    nothing: Any = _Untouchable()
    kg: Any = Kgqa(Config(home=tmp_path, max_question_chars=50), store=nothing, embedder=nothing, llm=None)
    kg.prepare = kg._doc_vector = nothing
    for call in (kg.ask, kg.text2cypher):
        with pytest.raises(QuestionError, match="51 characters; the limit is 50"):
            call("y" * 51, "prime")
        with pytest.raises(QuestionError, match="empty"):
            call("   ", "prime")
    with pytest.raises(QuestionError, match="empty"):
        kg.explain("prime", question="   ")


def _question(words: int) -> str:
    return " ".join(f"word{i}" for i in range(words))


def test_under_the_cap_linking_reads_every_span_as_before() -> None:
    question = read_question("Which drugs are indicated for migraine with aura and nausea?")
    assert link_spans(question, LABELS, MAX_LINK_SPANS) == (ngrams(question, LABELS), None)
    assert span_cap(question, LABELS, len(ngrams(question, LABELS))) is None


def test_over_the_cap_the_spans_of_the_first_words_are_kept_in_order() -> None:
    question = read_question(_question(100))  # no stop words: MAX_NGRAM spans start at each word but the last few
    every = ngrams(question, LABELS)
    limit = 2 * MAX_NGRAM + 2
    kept, cap = link_spans(question, LABELS, limit)
    assert len(every) > limit and len(kept) == limit
    assert [g for g in every if g in kept] == kept  # ngrams' order, so linking under the cap is unchanged
    assert {start for start, _, _ in kept} == {0, 1, 2}  # every span at words 0 and 1, then the 2 shortest at 2
    assert {(start, end) for start, end, _ in kept if start == 2} == {(2, 3), (2, 4)}
    assert cap is not None and (cap.words, cap.total_words, cap.kept, cap.spans) == (3, 100, limit, len(every))
    assert cap.describe() == (
        f"linked the first 3 of 100 words only ({limit} of {len(every)} spans; max_link_ngrams = {limit})"
    )


class _Embedder:
    """A vector per text: [1, 0] for 'migraine' and 'ivermectin', [0, 1] otherwise; records what it embedded."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str], max_tokens: int | None = None) -> np.ndarray:
        self.embedded.extend(texts)
        return np.array([[1.0, 0.0] if t in ("migraine", "ivermectin") else [0.0, 1.0] for t in texts], np.float32)


class _Names(OneByOne):
    """The name index: a span embedded as [1, 0] is the node whose name it is; records its lookups."""

    def __init__(self) -> None:
        self.lookups = 0

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        self.lookups += 1
        return [VectorHit("1", "migraine", label, 1.0 if vector[0] else 0.1)]


def test_linking_embeds_and_searches_at_most_the_cap_and_links_the_first_part() -> None:
    question = read_question(f"migraine {_question(300)} ivermectin")
    store, embedder = _Names(), _Embedder()
    links = link_entities(question, store, "prime", LABELS, embedder, threshold=0.85, limit=50)  # type: ignore[arg-type]
    assert len(embedder.embedded) == 50 and store.lookups == 50 * len(LABELS)
    assert [link.span for link in links] == ["migraine"]  # 'ivermectin' is past the cap
    uncapped = link_entities(question, _Names(), "prime", LABELS, _Embedder(), threshold=0.85, limit=10_000)  # type: ignore[arg-type]
    assert "ivermectin" in {link.span for link in uncapped}


def _ctx(limit: int) -> Any:
    return SimpleNamespace(graph=SimpleNamespace(labels=LABELS), config=Config(max_link_ngrams=limit))


def test_a_cut_degrades_the_linking_step_and_is_listed_in_the_trace_bounds() -> None:
    trace = Trace("prime", "graph", "none", "none", 5, 0.67, 3, "tiny", LABELS)
    record = StepTrace(2, "cypher", detail="no LLM: entities linked by the name index: none")
    question = read_question(_question(100))
    note_link_cap(_ctx(20), question, trace, record)
    assert record.status == "degraded"
    assert record.detail.startswith("no LLM: entities linked by the name index: none; linked the first 2 of 100")
    assert trace.bounds == [record.detail.split("; ", 1)[1]]
    note_link_cap(_ctx(20), question, trace, StepTrace(5, "grounding"))  # linking again: listed once
    assert len(trace.bounds) == 1


def test_no_cut_leaves_the_step_and_the_trace_as_they_were() -> None:
    trace = Trace("prime", "graph", "none", "none", 5, 0.67, 3, "tiny", LABELS)
    record = StepTrace(5, "grounding", detail="l=1: 3")
    note_link_cap(_ctx(1000), read_question(_question(100)), trace, record)
    assert (record.status, record.detail, trace.bounds) == ("ran", "l=1: 3", [])


SCHEMA = GraphSchema(
    ("drug", "disease", "gene/protein"),
    (("drug", "indication", "disease"), ("drug", "target", "gene/protein"), ("disease", "associated", "gene/protein")),
    NODE_KEYS,
)


def _links(names: list[str]) -> list[Link]:
    return [Link(name, 2 * i, 2 * i + 1, "disease", name, name, 1.0) for i, name in enumerate(names)]


def test_the_linked_plan_joins_a_node_named_again_once() -> None:
    """A question that repeats itself names its entities again: they add nothing to the plan but work."""
    plan = schema_guided_plan(_links(["migraine", "asthma"] * 24), "drug", SCHEMA)
    assert plan is not None and [t.tail for t in plan.triplets] == ["e0", "e1"] and plan.dropped == ()
    assert [s.search_string for s in plan.constants] == ["migraine", "asthma"]


def test_the_linked_plan_joins_the_first_links_within_max_triplets_and_drops_the_rest_with_why() -> None:
    names = [f"disease {i}" for i in range(12)]
    plan = schema_guided_plan(_links(names), "drug", SCHEMA, max_triplets=5)
    assert plan is not None and len(plan.triplets) == 5
    assert [s.search_string for s in plan.constants] == names[:5]
    assert [d.text for d in plan.dropped] == [f"'disease {i}' -> disease 'disease {i}' (1.00)" for i in range(5, 12)]
    assert {d.reason for d in plan.dropped} == {"beyond max_triplets = 5"}
    assert len(schema_guided_plan(_links(names), "drug", SCHEMA).triplets) == 8  # type: ignore[union-attr]


def test_links_left_out_of_the_plan_degrade_the_step_and_are_a_bound_of_the_trace() -> None:
    plan = schema_guided_plan(_links([f"d{i}" for i in range(6)]), "drug", SCHEMA, max_triplets=2)
    assert plan is not None
    trace = Trace("prime", "graph", "none", "none", 5, 0.67, 3, "tiny", LABELS)
    record = StepTrace(3, "plan", detail="no LLM: schema-guided plan with 2 triplet(s)")
    note_unjoined(plan.dropped, trace, record)
    note = (
        "4 linked entities not joined, beyond max_triplets = 2: 'd2' -> disease 'd2' (1.00), "
        "'d3' -> disease 'd3' (1.00), 'd4' -> disease 'd4' (1.00) and 1 more"
    )
    assert record.status == "degraded" and record.detail.endswith(f"; {note}") and trace.bounds == [note]
    untouched = StepTrace(3, "plan", detail="as it was")
    note_unjoined((), trace, untouched)
    assert (untouched.status, untouched.detail) == ("ran", "as it was")
