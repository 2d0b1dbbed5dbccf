"""Method step 1: which node type answers the question.

With one candidate type there is nothing to choose. Otherwise the LLM picks; a reply that is not exactly one known
type (after stripping quotes, backticks, punctuation and case) falls back to the type whose name is most similar
to the question by embedding, and the trace records which way it went. Without an LLM the embedding choice is used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kgqa.embed import Embedder
from kgqa.llm import ChatModel, Completion, Message

Method = Literal["only", "given", "llm", "embedding"]


@dataclass(frozen=True)
class TargetType:
    label: str
    method: Method
    detail: str = ""
    completion: Completion | None = None


def type_messages(question: str, types: Sequence[str]) -> list[Message]:
    listing = "\n".join(f"- {t}" for t in types)
    return [Message("user", (
        "A knowledge graph has nodes of these types:\n"
        f"{listing}\n"
        "Which type of node is the answer to the question below? Reply with the type name only.\n\n"
        f"Question: {question}\n"
    ))]  # fmt: skip


def parse_type(reply: str, types: Sequence[str]) -> str | None:
    """The one known type the reply names, or None: exact (normalised) match first, else a single mention."""
    def norm(text: str) -> str:
        return re.sub(r"\s+", " ", text.strip().strip("`'\"*.:;!").strip().lower())

    by_norm = {norm(t): t for t in types}
    answer = norm(reply.splitlines()[0]) if reply.strip() else ""
    if answer in by_norm:
        return by_norm[answer]
    lowered = f" {reply.lower()} "
    mentioned = [t for t in types if re.search(rf"(?<![\w/]){re.escape(t.lower())}(?![\w/])", lowered)]
    return mentioned[0] if len(mentioned) == 1 else None


def type_by_embedding(question_vector: np.ndarray, types: Sequence[str], embedder: Embedder) -> tuple[str, float]:
    """The type whose name (``gene/protein`` read as "gene protein") is closest to the question."""
    names = [re.sub(r"[_/]+", " ", t) for t in types]
    vectors = embedder.embed(names)
    scores = vectors @ question_vector
    best = int(np.argmax(scores))
    return types[best], float(scores[best])


def predict_target_type(
    question: str, types: Sequence[str], *, llm: ChatModel | None, embedder: Embedder, question_vector: np.ndarray,
    temperature: float = 0.0,
) -> TargetType:  # fmt: skip
    if len(types) == 1:
        return TargetType(types[0], "only")
    fallback, score = type_by_embedding(question_vector, types, embedder)
    if llm is None:
        return TargetType(fallback, "embedding", f"no LLM; closest type name ({score:.3f})")
    completion = llm.complete(type_messages(question, types), max_tokens=16, temperature=temperature)
    chosen = parse_type(completion.text, types)
    if chosen is None:
        why = f"LLM reply {completion.text.strip()[:80]!r} names no single known type; closest type name ({score:.3f})"
        return TargetType(fallback, "embedding", why, completion)
    return TargetType(chosen, "llm", "", completion)
