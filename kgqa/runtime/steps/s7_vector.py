"""Method step 7, the vector strand: the nodes of the candidate types whose documents are most similar to the
question, by each label's native vector index over document embeddings (STaRK's documents with relations; elsewhere
the plain documents, kgqa/runtime/load.py says why)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgqa.runtime.store.protocols import VectorSearcher
from kgqa.types import Candidate


def vector_strand(
    store: VectorSearcher,
    skb: str,
    question_vector: np.ndarray,
    types: Sequence[str],
    k: int,
    *,
    documents: bool = True,
) -> list[Candidate]:
    """Top ``k`` over all ``types`` by cosine similarity; each label's index is asked for its own top ``k``. None
    while the graph's document vectors are being embedded (``documents`` False)."""
    if not documents:
        return []
    hits = [hit for label in types for hit in store.vector_top_k(skb, label, "doc", question_vector, k)]
    hits.sort(key=lambda hit: (-hit.similarity, str(hit.id)))
    return [Candidate(str(h.id), h.label, h.name, h.similarity, ("vector",)) for h in hits[:k]]
