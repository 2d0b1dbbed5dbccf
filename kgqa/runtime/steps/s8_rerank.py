"""Method step 8: rerank the k merged answers.

- ``listwise`` (default with an LLM): one prompt with all candidates, asking for their numbers in order.
- ``pairwise``: binary insertion sort, one prompt per comparison ("A or B"); best hit@1 in the paper, ~10x slower.
- ``pointwise``: one 0-1 score per candidate, the calls run concurrently.
- ``cross-encoder``: a sentence-transformers CrossEncoder (any local path or name), no LLM.

LLM replies are never trusted blindly: a listwise reply that is not a clean permutation is repaired (unknown and
repeated numbers dropped, missing ones appended in their prior order); a pairwise reply that names neither A nor B
keeps the prior order; a pointwise reply without a number in [0, 1] scores as the candidate's prior rank would.
Documents carry the node's text and its 1-hop relations; when the prompt exceeds the token budget the relations
are cut to those between retrieved candidates, then dropped, then the documents shortened (the method's tiers).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal

from kgqa.choices import Reranker
from kgqa.runtime.context import CrossEncoderModel
from kgqa.runtime.llm import ChatModel, Message, Usage
from kgqa.runtime.scoring import node_documents
from kgqa.runtime.store.base import Relation
from kgqa.runtime.store.protocols import GraphReader
from kgqa.types import Candidate

NAMES_PER_RELATION = 8
CHARS_PER_TOKEN = 4
"""Budget arithmetic uses ~4 characters per token (English text with BPE/WordPiece); it only picks the tier."""


@dataclass(frozen=True)
class RerankDoc:
    candidate: Candidate
    text: str
    relations: tuple[Relation, ...] = ()


@dataclass
class RerankOutcome:
    order: list[Candidate]
    detail: str = ""
    repaired: bool = False
    usage: Usage = field(default_factory=Usage)


def rerank(
    reranker: Reranker,
    question: str,
    docs: Sequence[RerankDoc],
    *,
    llm: ChatModel | None,
    cross_encoder: CrossEncoderModel | None,
    budget: int,
    temperature: float,
    concurrency: int,
) -> RerankOutcome:
    """Step 8: order ``docs`` with ``reranker`` (``none`` keeps their order). Raises LlmError when the LLM fails
    (the pipeline then keeps the merged order). The model a reranker needs was checked with the options
    (kgqa.runtime.context.Options.from_config); its absence here is a bug."""
    if reranker == "none":
        return RerankOutcome([d.candidate for d in docs], "reranker=none")
    if reranker == "cross-encoder":
        if cross_encoder is None:
            raise ValueError("reranker 'cross-encoder' called without a cross-encoder")
        return rerank_cross_encoder(cross_encoder, question, docs, budget=budget)
    if llm is None:
        raise ValueError(f"reranker '{reranker}' called without an LLM")
    if reranker == "listwise":
        return rerank_listwise(llm, question, docs, budget=budget, temperature=temperature)
    if reranker == "pairwise":
        return rerank_pairwise(llm, question, docs, budget=budget, temperature=temperature)
    return rerank_pointwise(llm, question, docs, budget=budget, temperature=temperature, concurrency=concurrency)


def rerank_documents(store: GraphReader, skb: str, candidates: Sequence[Candidate]) -> list[RerankDoc]:
    by_label: dict[str, list[str]] = defaultdict(list)
    for c in candidates:
        by_label[c.type].append(c.id)
    texts = node_documents(store, skb, by_label)
    relations: dict[str, list[Relation]] = defaultdict(list)
    for label, ids in by_label.items():
        for relation in store.relations(skb, label, ids):
            relations[relation.node].append(relation)
    return [RerankDoc(c, texts.get(c.id, c.name), tuple(relations[c.id])) for c in candidates]


def _relations_text(relations: Sequence[Relation]) -> str:
    grouped: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for r in relations:
        grouped[(r.type, r.out)].append(r.name)
    parts = []
    for (rel_type, out), names in grouped.items():
        shown = ", ".join(names[:NAMES_PER_RELATION]) + (
            f" (+{len(names) - NAMES_PER_RELATION})" if len(names) > NAMES_PER_RELATION else ""
        )
        parts.append(f"{rel_type}{'' if out else ' (incoming)'}: {shown}")
    return "; ".join(parts)


Tier = Literal["all relations", "relations among candidates", "no relations"]
TIERS: tuple[Tier, ...] = ("all relations", "relations among candidates", "no relations")
"""The ways a candidate's relations are shown, most first; the first whose texts fit the budget is used."""


@dataclass(frozen=True)
class Fit:
    """How the candidates' texts fit the budget: the relations kept, and the document length cut to if any."""

    tier: Tier
    limit: int | None = None

    def describe(self) -> str:
        return self.tier if self.limit is None else f"{self.tier}, documents cut to {self.limit} characters"


def evidence_text(rank: int, c: Candidate) -> str:
    """What steps 1-7 know of a candidate, for a cross-encoder trained to read it: its rank in the merged order,
    the strands that found it, the round l and the constants it was grounded through. Text alone cannot show
    whether a candidate has the relation the question asks for; this does."""
    parts = [f"rank {rank}", "+".join(c.strands) or "no strand"]
    if c.round_l is not None:
        parts.append(f"l={c.round_l}")
    via = dict.fromkeys(f"{m.search} -> {m.name or m.id}" for m in c.matches)
    if via:
        parts.append("via " + "; ".join(via))
    return ", ".join(parts)


def render_as(
    docs: Sequence[RerankDoc], fit: Fit, among: Collection[str] | None = None, *, evidence: bool = False
) -> list[str]:
    """One text per candidate as ``fit`` shows it. ``among``: the ids whose relations the "relations among
    candidates" tier keeps (default: the candidates of ``docs``). ``evidence``: each text leads with
    :func:`evidence_text` (its rank is its position in ``docs``)."""
    retrieved = {d.candidate.id for d in docs} if among is None else among

    def kept(d: RerankDoc) -> tuple[Relation, ...]:
        if fit.tier == "all relations":
            return d.relations
        if fit.tier == "relations among candidates":
            return tuple(r for r in d.relations if r.neighbour in retrieved)
        return ()

    out = []
    for rank, d in enumerate(docs, 1):
        body = d.text if fit.limit is None else d.text[: fit.limit]
        extra = _relations_text(kept(d))
        lead = f" [{evidence_text(rank, d.candidate)}]" if evidence else ""
        out.append(f"{d.candidate.name} ({d.candidate.type}){lead}: {body}" + (f" Relations: {extra}" if extra else ""))
    return out


def fit_budget(docs: Sequence[RerankDoc], budget_tokens: int) -> Fit:
    """The first tier whose texts fit ``budget_tokens`` (the method's tiers), else no relations and documents cut."""
    budget = budget_tokens * CHARS_PER_TOKEN
    for tier in TIERS:
        if sum(map(len, render_as(docs, Fit(tier)))) <= budget:
            return Fit(tier)
    return Fit("no relations", max(40, budget // max(1, len(docs)) - 40))


def render(docs: Sequence[RerankDoc], budget_tokens: int) -> tuple[list[str], str]:
    """One text per candidate, fitted to ``budget_tokens`` by the tiers; returns the texts and the tier used."""
    fit = fit_budget(docs, budget_tokens)
    return render_as(docs, fit), fit.describe()


def _listing(texts: Sequence[str]) -> str:
    return "\n".join(f"[{i}] {text}" for i, text in enumerate(texts, 1))


def parse_permutation(reply: str, n: int) -> tuple[list[int], bool]:
    """0-based order from a reply naming candidates 1..n; (order, repaired)."""
    seen: list[int] = []
    for token in re.findall(r"\d+", reply):
        index = int(token) - 1
        if 0 <= index < n and index not in seen:
            seen.append(index)
    clean = len(seen) == n and len(re.findall(r"\d+", reply)) == n
    return seen + [i for i in range(n) if i not in seen], not clean


def rerank_listwise(
    llm: ChatModel, question: str, docs: Sequence[RerankDoc], *, budget: int, temperature: float
) -> RerankOutcome:
    texts, tier = render(docs, budget)
    prompt = (
        f"Question: {question}\n\nCandidate answers:\n{_listing(texts)}\n\n"
        "Rank the candidates by how well each one answers the question, best first. Reply with the candidate "
        "numbers only, separated by commas, e.g. 3, 1, 2."
    )
    completion = llm.complete([Message("user", prompt)], max_tokens=6 * len(docs) + 16, temperature=temperature)
    order, repaired = parse_permutation(completion.text, len(docs))
    outcome = RerankOutcome([docs[i].candidate for i in order], f"documents: {tier}", repaired)
    outcome.usage.add(completion)
    if repaired:
        outcome.detail += f"; reply repaired ({completion.text.strip()[:60]!r})"
    elif len(docs) > 1 and order == list(range(len(docs))):  # small models often echo 1..n: say it changed nothing
        outcome.detail += "; the LLM kept the order it was given"
    return outcome


def parse_choice(reply: str) -> Literal["A", "B"] | None:
    match = re.search(r"\b([AB])\b", reply.strip())
    return match[1] if match else None  # type: ignore[return-value]


def rerank_pairwise(
    llm: ChatModel, question: str, docs: Sequence[RerankDoc], *, budget: int, temperature: float
) -> RerankOutcome:
    """Binary insertion sort in prior order; a comparison the reply does not settle keeps the prior order."""
    texts, tier = render(docs, budget)
    outcome = RerankOutcome([], f"documents: {tier}")
    invalid = 0

    def better(new: int, placed: int) -> bool:
        nonlocal invalid
        prompt = (
            f"Question: {question}\n\nCandidate A: {texts[new]}\n\nCandidate B: {texts[placed]}\n\n"
            "Which candidate answers the question better? Reply with A or B only."
        )
        completion = llm.complete([Message("user", prompt)], max_tokens=4, temperature=temperature)
        outcome.usage.add(completion)
        choice = parse_choice(completion.text)
        if choice is None:
            invalid += 1
            return new < placed
        return choice == "A"

    ranked: list[int] = []
    for i in range(len(docs)):
        lo, hi = 0, len(ranked)
        while lo < hi:
            mid = (lo + hi) // 2
            if better(i, ranked[mid]):
                hi = mid
            else:
                lo = mid + 1
        ranked.insert(lo, i)
    outcome.order = [docs[i].candidate for i in ranked]
    outcome.repaired = invalid > 0
    outcome.detail += f"; {outcome.usage.calls} comparisons" + (f", {invalid} undecided replies" if invalid else "")
    return outcome


def parse_score(reply: str) -> float | None:
    match = re.search(r"\d+(?:\.\d+)?", reply)
    if match is None:
        return None
    value = float(match[0])
    return value if 0.0 <= value <= 1.0 else None


def rerank_pointwise(
    llm: ChatModel, question: str, docs: Sequence[RerankDoc], *, budget: int, temperature: float, concurrency: int
) -> RerankOutcome:
    texts, tier = render(docs, budget)

    def score(text: str) -> tuple[float | None, object]:
        prompt = (
            f"Question: {question}\n\nCandidate: {text}\n\nHow well does the candidate answer the question? "
            "Reply with one number from 0 (not at all) to 1 (perfectly)."
        )
        completion = llm.complete([Message("user", prompt)], max_tokens=8, temperature=temperature)
        return parse_score(completion.text), completion

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        results = list(pool.map(score, texts))
    outcome = RerankOutcome([], f"documents: {tier}")
    n = len(docs)
    keys = []
    for prior, (value, completion) in enumerate(results):
        outcome.usage.add(completion)  # type: ignore[arg-type]
        fallback = 1.0 - prior / max(1, n)  # an unusable reply scores as its prior rank would
        keys.append((-(value if value is not None else fallback), prior))
    invalid = sum(value is None for value, _ in results)
    outcome.order = [docs[prior].candidate for _, prior in sorted(keys)]
    outcome.repaired = invalid > 0
    if invalid:
        outcome.detail += f"; {invalid} replies without a score in [0, 1]"
    return outcome


def rerank_cross_encoder(
    model: CrossEncoderModel, question: str, docs: Sequence[RerankDoc], *, budget: int
) -> RerankOutcome:
    fit = fit_budget(docs, budget)
    texts = render_as(docs, fit, evidence=model.evidence)
    scores = list(model.scores([(question, text) for text in texts]))
    order = sorted(range(len(docs)), key=lambda i: (-float(scores[i]), i))
    how = "; with the pipeline's evidence" if model.evidence else ""
    return RerankOutcome([docs[i].candidate for i in order], f"documents: {fit.describe()}{how}")
