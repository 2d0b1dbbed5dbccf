"""Step 7 on fakes: the fill after the kept graph answers, by the vector strand alone or fused with the full-text
index's top answers (kgqa.runtime.steps.s7_hybrid)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kgqa.errors import StoreTimeoutError
from kgqa.runtime.scoring import Lexical
from kgqa.runtime.steps.s6_graph_ranking import GraphRanking
from kgqa.runtime.steps.s7_hybrid import RRF_K, hybrid_merge, merge, rrf
from kgqa.runtime.store.base import TextHit, VectorHit
from kgqa.types import Candidate
from tests.helpers.store_fakes import OneByOne

QUESTION = np.array([1.0, 0.0], dtype=np.float32)
VECTORS = (QUESTION, QUESTION)


class _Store(OneByOne):
    """Vector strand: v1 (0.9), v2 (0.8), both (0.7). Full-text top: t1 (3.0), both (2.0); v2 matches too (1.0),
    below the full-text top. Stored document vectors give v1 0.9, v2 0.8, both 0.7, t1 0.5."""

    def __init__(self, timeout: bool = False) -> None:
        self.timeout = timeout
        self.text_calls: list[tuple[str, tuple[str, ...], int]] = []

    def vector_top_k(self, graph: str, label: str, prop: str, vector: Any, k: int) -> list[VectorHit]:
        hits = [VectorHit("v1", "v one", label, 0.9), VectorHit("v2", "v two", label, 0.8)]
        return [*hits, VectorHit("both", "both", label, 0.7)][:k]

    def text_top_k(self, graph: str, label: str, terms: Any, k: int) -> list[TextHit]:
        self.text_calls.append((label, tuple(terms), k))
        if self.timeout:
            raise StoreTimeoutError("query ran past 1000 ms")
        return [TextHit("t1", "t one", label, 3.0), TextHit("both", "both", label, 2.0)][:k]

    def text_scores(self, graph: str, label: str, terms: Any, ids: Any) -> dict[str, float]:
        scores = {"t1": 3.0, "both": 2.0, "v2": 1.0}
        return {i: scores[i] for i in ids if i in scores}

    def plain_similarities(self, graph: str, label: str, ids: Any, vector: np.ndarray) -> dict[str, float]:
        dense = {"v1": 0.9, "v2": 0.8, "both": 0.7, "t1": 0.5}
        stored = {i: np.array([dense[i], np.sqrt(1 - dense[i] ** 2)], dtype=np.float32) for i in ids}
        return {i: float(v @ vector) for i, v in stored.items()}


def _fill(store: _Store, fusion: Any, weight: float = 1.0, terms: tuple[str, ...] = ("worms",)) -> Any:
    empty = GraphRanking([], {}, "no plan")
    lexical = Lexical(terms, weight)
    return hybrid_merge(store, "s", VECTORS, "drug", empty, 3, lexical=lexical, fusion=fusion)  # type: ignore[arg-type]


def test_without_fusion_the_vector_strand_fills_and_the_index_is_not_asked() -> None:
    store = _Store()
    answers, note = _fill(store, "none")
    assert [(c.id, c.strands) for c in answers] == [("v1", ("vector",)), ("v2", ("vector",)), ("both", ("vector",))]
    assert note == "" and store.text_calls == []
    answers, note = _fill(store, "rrf", terms=())  # no residual word: nothing to look up
    assert [c.id for c in answers] == ["v1", "v2", "both"] and store.text_calls == []


def test_rrf_sums_reciprocal_ranks_over_both_lists() -> None:
    answers, note = _fill(_Store(), "rrf")
    # both: 1/(60+3) + 1/(60+2); v1: 1/(60+1); t1: 1/(60+1), after v1 by id
    assert [(c.id, c.strands) for c in answers] == [
        ("both", ("vector", "text")),
        ("t1", ("text",)),
        ("v1", ("vector",)),
    ]
    assert answers[0].score == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 2))
    assert note == "; rrf fusion with 2 full-text answers for ['worms']"


def test_weighted_ranks_the_pool_as_step_6_ranks_the_grounded() -> None:
    """dense + weight * text / best text in the pool; a vector answer below the full-text top still gets its
    full-text score."""
    scores = {c.id: c.score for c in _fill(_Store(), "weighted", weight=1.0)[0]}
    assert scores == pytest.approx({"t1": 0.5 + 1.0, "both": 0.7 + 2 / 3, "v2": 0.8 + 1 / 3})  # v1 (0.9) is 4th
    answers, _ = _fill(_Store(), "weighted", weight=0.1)
    assert [c.id for c in answers] == ["v1", "v2", "both"]  # a small weight keeps the dense order


def test_a_full_text_timeout_leaves_the_vector_strand_with_a_note() -> None:
    answers, note = _fill(_Store(timeout=True), "weighted")
    assert [c.id for c in answers] == ["v1", "v2", "both"]
    assert note == "; full-text ['worms'] skipped: query ran past 1000 ms"


def test_merge_puts_kept_graph_answers_first_and_tags_overlaps() -> None:
    kept = Candidate("both", "drug", "both", 0.5, ("graph",), 1)
    grounded = Candidate("t1", "drug", "t one", 0.1, ("graph",), 2)
    ranking = GraphRanking([kept], {"both": kept, "t1": grounded}, "")
    fill = rrf(
        [Candidate("v1", "drug", "v one", 0.9, ("vector",)), Candidate("both", "drug", "both", 0.7, ("vector",))],
        [Candidate("t1", "drug", "t one", 3.0, ("text",)), Candidate("both", "drug", "both", 2.0, ("text",))],
        3,
    )
    merged = merge(ranking, fill, 3)
    assert [(c.id, c.strands, c.round_l) for c in merged] == [
        ("both", ("graph", "vector", "text"), 1),
        ("t1", ("text", "graph"), 2),  # grounded but not kept: keeps its graph evidence
        ("v1", ("vector",), None),
    ]


def test_the_fill_puts_what_a_plan_grounded_first() -> None:
    """v2 was grounded but not kept by step 6: of the fill, two strands found it, so it goes before v1, which the
    vector strand ranks higher; the fused scores still fall with rank."""
    kept = Candidate("t1", "drug", "t one", 0.5, ("graph",), 1, fused=1.6)
    v2 = Candidate("v2", "drug", "v two", 0.1, ("graph",), 3)
    ranking = GraphRanking([kept], {"t1": kept, "v2": v2}, "")
    answers, _ = hybrid_merge(_Store(), "s", VECTORS, "drug", ranking, 3)  # type: ignore[arg-type]
    assert [(c.id, c.strands, c.round_l) for c in answers] == [
        ("t1", ("graph",), 1),
        ("v2", ("vector", "graph"), 3),
        ("v1", ("vector",), None),
    ]
    assert ["turn 0" in answers[1].why, "turn 1" in answers[2].why] == [True, True]
    scores = [c.fused for c in answers]
    assert None not in scores and scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    alone, _ = _fill(_Store(), "none")  # nothing grounded: the vector strand's own order
    assert [c.id for c in alone] == ["v1", "v2", "both"]


def test_the_fill_skips_what_the_plans_exclude() -> None:
    """ "diseases with chorea but no seizures": an answer the plans exclude is no answer of the fill either, and the
    fill still gives k."""
    kept = Candidate("t1", "drug", "t one", 0.5, ("graph",), 1, fused=1.6)
    ranking = GraphRanking([kept], {"t1": kept}, "", excluded=frozenset({"v1"}))
    answers, _ = hybrid_merge(_Store(), "s", VECTORS, "drug", ranking, 3)  # type: ignore[arg-type]
    assert [c.id for c in answers] == ["t1", "v2", "both"]
