"""How steps 6-8 read and score the nodes they rank, shared so that no step imports another's helpers: the
similarity of the question to each node's stored document vector, the full-text score of the question's residual
words, and the nodes' documents."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import numpy as np

from kgqa.errors import StoreError
from kgqa.runtime.store.protocols import GraphReader, TextSearcher, VectorSearcher

T = TypeVar("T")


Key = tuple[str, str]
"""A node as (label, id): ids are unique within a label."""


EXACT_LINK = 0.99
"""A link at least this similar is its node's name as typed (case and punctuation aside): entity linking (step 2)
and the evidence a plan gives of its answer type (kgqa.runtime.steps.s1_type_evidence) both read it so."""


OffType = Literal["", "split", "behind"]
"""How step 6 ranks a plan whose answers are not of the type the grounded plans settled
(kgqa.runtime.steps.s1_type_evidence): ``split``, a strong plan (the evidence was split): its rounds as they are, its
weight scaled by its type's prior (kgqa.runtime.steps.s1_type_evidence.off_type_weight); ``behind``, any other: as a
plan with a weak constant (its rounds counted one later, its vote weighing nothing), and its targets are not kept
ahead of the settled type's fill."""


def next_scope(scope: int) -> int:
    """The round after scope ``scope`` in the expansion schedule of steps 4-5 (uncapped), which step 6 counts rounds
    by."""
    return int(1.5 * scope + 0.5)


def node_documents(store: GraphReader, skb: str, by_label: dict[str, list[str]]) -> dict[str, str]:
    """id -> document WITHOUT relations (the name when a node has none), one query per label (step 8's rerankers)."""
    docs = (node for label, ids in by_label.items() for node in store.documents(skb, label, ids))
    return {node.id: node.doc or node.name for node in docs}


@dataclass(frozen=True)
class Lexical:
    """The lexical side of step 6: the question's residual words (kgqa.runtime.steps.s6_lexical) and their weight beside
    the dense similarity."""

    terms: tuple[str, ...]
    weight: float
    stated: bool = False
    """The question states what the answers' own text holds (a textual condition, a name's beginning): step 7's
    full-text fill finds answers a plan does not reach."""


def per_label(keys: Sequence[Key], read: Callable[[str, list[str]], Mapping[str, T]]) -> dict[Key, T]:
    """(label, id) -> what ``read(label, ids)`` returns for the ids of ``keys`` of that label: one read per label."""
    by_label: dict[str, list[str]] = defaultdict(list)
    for label, i in keys:
        by_label[label].append(i)
    return {(label, i): value for label, ids in by_label.items() for i, value in read(label, ids).items()}


def stored_similarities(
    store: VectorSearcher, skb: str, keys: Sequence[Key], vector: np.ndarray, *, documents: bool = True
) -> np.ndarray:
    """The similarity of ``vector`` to the stored ``plain_emb`` of each of ``keys``, in their order, computed by the
    store (one read per label); a graph loaded before they were stored has none, and is refused with the way out
    instead of ranked by nothing. ``documents`` False (a graph whose document vectors are still being embedded,
    :attr:`kgqa.runtime.context.Context.documents`): 0 for every key, nothing read."""
    if not keys or not documents:
        return np.zeros(len(keys))
    found = per_label(keys, lambda label, ids: store.plain_similarities(skb, label, ids, vector))
    lacking = [key for key in keys if key not in found]
    if lacking:
        raise StoreError(
            f"SKB '{skb}' holds no stored document vector for {len(lacking)} of the {len(keys)} nodes steps 6-7 "
            f"rank (first: {lacking[0][0]} {lacking[0][1]}): it was loaded by an older kgqa; load it again "
            f"(kgqa load, which sees it as out of date)"
        )
    return np.array([found[key] for key in keys], dtype=np.float64)


def lexical_scores(store: TextSearcher, skb: str, keys: Sequence[Key], terms: Sequence[str]) -> np.ndarray:
    """Each node's full-text score for the words of ``terms``, divided by the best among ``keys`` (0 where nothing
    matches): in [0, 1], as the dense similarity is, whatever the index's own scale. Where ``terms`` hold quoted
    phrases (kgqa.runtime.steps.s6_lexical.phrases), the phrases' score, scaled alike, is added (so the sum is in [0,
    2]): a node whose text says the quoted words in their order outranks one that repeats one of them ("infection" ten
    times in 'Sepsis' against "related to infection" once)."""
    words = [t for t in terms if not t.startswith('"')]
    quoted = [t for t in terms if t.startswith('"')]
    total = np.zeros(len(keys), dtype=np.float64)
    for group in (words, quoted):
        if group:
            found = _text_scores(store, skb, keys, group)
            total += scaled(np.array([found.get(key, 0.0) for key in keys], dtype=np.float64))
    return total


def _text_scores(store: TextSearcher, skb: str, keys: Sequence[Key], terms: Sequence[str]) -> dict[Key, float]:
    """(label, id) -> the full-text score of ``terms``, one read per label."""
    return per_label(keys, lambda label, ids: store.text_scores(skb, label, terms, ids))


def scaled(raw: np.ndarray) -> np.ndarray:
    """``raw`` divided by its largest value (unchanged when that is not positive)."""
    best = raw.max() if len(raw) else 0.0
    return raw / best if best > 0 else raw
