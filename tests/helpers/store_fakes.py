"""Fakes of a graph store for unit tests that need no server."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgqa.runtime.store.base import AliasHit, VectorHit, VectorIndex, at_least


class OneByOne:
    """:meth:`GraphStore.vector_top_k_many` and :meth:`GraphStore.alias_top_k_many` as a search per vector: a fake
    store answers only ``vector_top_k`` and ``alias_top_k``."""

    def vector_top_k(self, graph: str, label: str, index: VectorIndex, vector: np.ndarray, k: int) -> list[VectorHit]:
        raise NotImplementedError

    def alias_top_k(self, graph: str, vector: np.ndarray, k: int) -> list[AliasHit]:
        raise NotImplementedError

    def exact_name(self, graph: str, label: str, text: str) -> list[tuple[str, str]]:
        """No exact names: a fake's nodes are found by their vectors alone."""
        return []

    def exact_alias(self, graph: str, labels: Sequence[str], text: str) -> list[AliasHit]:
        return []

    def vector_top_k_many(
        self, graph: str, label: str, index: VectorIndex, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[VectorHit]]:
        return at_least([self.vector_top_k(graph, label, index, vector, k) for vector in vectors], floor)

    def alias_top_k_many(
        self, graph: str, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[AliasHit]]:
        return at_least([self.alias_top_k(graph, vector, k) for vector in vectors], floor)
