"""An umbrella entry the schema joins to nothing stands for its members (kgqa.runtime.steps.s2_fallback.family):
Orphanet's 'Usher syndrome' holds no gene, its types do."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from kgqa.runtime.context import Context
from kgqa.runtime.steps.s2_fallback import FAMILY_NAMES, family
from kgqa.runtime.steps.s2_linking import Link
from kgqa.runtime.store.base import VectorHit

NEAREST = [
    VectorHit("ORPHA:886", "Usher syndrome", "disease", 1.0),
    VectorHit("ORPHA:231169", "Usher syndrome type 1", "disease", 0.93),
    VectorHit("OMIM:276900", "Usher syndrome, type I", "disease", 0.92),
    VectorHit("OMIM:601067", "Usher-like syndrome", "disease", 0.9),  # another name's words, not the family's
    VectorHit("OMIM:000001", "Atypical Usher syndrome", "disease", 0.88),
]


class Nearest:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str, int]] = []

    def vector_top_k(self, graph: str, label: str, index: str, vector: np.ndarray, k: int) -> list[VectorHit]:
        self.asked.append((graph, label, k))
        return NEAREST[:k]


class Embedder:
    def embed_one(self, text: str) -> np.ndarray:
        return np.ones(4, dtype=np.float32)


def test_an_umbrella_entry_stands_for_the_names_that_begin_with_all_its_words() -> None:
    store = Nearest()
    ctx = cast(Context, cast(Any, SimpleNamespace(store=store, embedder=Embedder(), skb="hpo")))
    umbrella = Link("Usher syndrome", 4, 6, "disease", "ORPHA:886", "Usher syndrome", 1.0)
    assert family(ctx, umbrella) == ["ORPHA:231169", "OMIM:276900"]
    assert store.asked == [("hpo", "disease", FAMILY_NAMES)]
    member = Link("Usher 1", 4, 6, "disease", "ORPHA:231169", "Usher syndrome type 1", 1.0)
    assert family(ctx, member) == []  # a member's family is none of its siblings
