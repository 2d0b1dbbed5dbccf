"""STaRK's precomputed embeddings for the PRIME-like fixture (tests/helpers/stark_fixture.py), in STaRK's layout:
``emb/prime/<model>/doc/candidate_emb_dict.pt`` and ``emb/prime/<model>/query/query_emb_dict.pt``, seeded random
vectors of a dimension no bundled model has."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from tests.helpers.stark_fixture import NODES

MODEL = "fake-embedding-16"
DIM = 16
QUESTION_IDS = (7, 11, 42)


def vectors(count: int, seed: int, dim: int = DIM) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)


def write_doc_dict(path: Path, ids: Sequence[int] | None = None, *, seed: int = 1, dim: int = DIM) -> np.ndarray:
    """candidate_emb_dict.pt for nodes ``ids`` (default: all); returns the vectors by node position (all of them)."""
    chosen = range(len(NODES)) if ids is None else ids
    matrix = vectors(len(NODES), seed, dim)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({i: torch.from_numpy(matrix[i].copy()) for i in chosen}, path)
    return matrix


def write_query_dict(path: Path, ids: Sequence[int] = QUESTION_IDS, *, seed: int = 2) -> dict[int, np.ndarray]:
    matrix = vectors(len(ids), seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    # STaRK's query vectors are [1, D] (its code reads them with .view(1, -1)): written so here
    torch.save({q: torch.from_numpy(matrix[i].copy()).view(1, -1) for i, q in enumerate(ids)}, path)
    return {q: matrix[i] for i, q in enumerate(ids)}


def write_emb_root(root: Path, ids: Sequence[int] | None = None) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """emb/prime/<MODEL>/{doc,query}: the document vectors by node position and the query vectors by question id."""
    docs = write_doc_dict(root / "prime" / MODEL / "doc" / "candidate_emb_dict.pt", ids)
    queries = write_query_dict(root / "prime" / MODEL / "query" / "query_emb_dict.pt")
    return docs, queries


def cosine_top_k(docs: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    """Brute force: node ids (strings) by cosine similarity to ``query``, highest first."""
    unit = docs / np.linalg.norm(docs, axis=1, keepdims=True)
    scores = unit @ (query / np.linalg.norm(query))
    order = sorted(range(len(docs)), key=lambda i: (-float(scores[i]), str(i)))
    return [str(i) for i in order[:k]]
