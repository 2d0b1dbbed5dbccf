"""The graph strand without an LLM (``--llm none``): a schema-guided plan in place of method steps 2-3.

Entities are linked by the name index: every word n-gram of the question (1-6 words, not starting or ending with a
stop word) is embedded and looked up in the name vector index of each label; n-grams whose best match is at least
``threshold`` similar are links, taken greedily without overlapping: well-matching longer spans first, then by
similarity (see ``_priority``). For each link the plan gets one
triplet between the answer ``y`` (of the target type) and the linked entity, over every relationship type the schema
has between the two labels, in either direction. The linked entity becomes a constant whose search string is the
node's own name, so its exact match comes first in step 4 and scope expansion still works.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cypher.dialects import falkordb as q
from cypher.plan import Condition, QueryPlan, Symbol, Triplet
from cypher.sanitize import GraphSchema
from kgqa.embed import Embedder
from kgqa.store.base import GraphStore

MAX_NGRAM = 6
_STOP = """a an and are as at be by can could do does for from has have how i in is it its me my of on or that the
their them these this those to was what when where which who whom whose why with would you your any all also some
find list show give tell name please associated related linked known both either neither"""
STOP_WORDS = frozenset(_STOP.split())
CONJUNCTIONS = frozenset({"and", "or", "but", "nor"})
LONG_SPAN_SIMILARITY = 0.9


@dataclass(frozen=True)
class Link:
    span: str
    start: int
    end: int
    """word positions [start, end) in the question"""
    label: str
    id: str
    name: str
    similarity: float


def ngrams(question: str) -> list[tuple[int, int, str]]:
    words = re.findall(r"[\w][\w'/-]*", question)
    out = []
    for n in range(1, MAX_NGRAM + 1):
        for start in range(len(words) - n + 1):
            gram = words[start : start + n]
            if gram[0].lower() in STOP_WORDS or gram[-1].lower() in STOP_WORDS:
                continue
            out.append((start, start + n, " ".join(gram)))
    return out


def link_entities(
    question: str, store: GraphStore, skb: str, labels: Sequence[str], embedder: Embedder, *, threshold: float
) -> list[Link]:
    """Non-overlapping question spans whose best name-index match is at least ``threshold`` similar."""
    grams = ngrams(question)
    if not grams:
        return []
    vectors = embedder.embed([text for _, _, text in grams])
    found: list[Link] = []
    for (start, end, text), vector in zip(grams, vectors, strict=True):
        for label in labels:
            for hit in store.vector_top_k(skb, label, q.NAME_EMB, vector, 1):
                if hit.similarity >= threshold:
                    found.append(Link(text, start, end, label, str(hit.id), hit.name, hit.similarity))
    found.sort(key=_priority)
    taken: list[Link] = []
    for link in found:
        if all(link.end <= t.start or link.start >= t.end for t in taken):
            taken.append(link)
    return sorted(taken, key=lambda link: link.start)


def _priority(link: Link) -> tuple[int, float, int]:
    """Longer spans first when they match well and join no two phrases: a full name beats a word of it even when
    the word alone is a node's exact name (HPO's modifier "Generalized" inside "generalized tonic-clonic
    seizures"), but "Arachnoid cyst and Acute" must not beat "Arachnoid cyst". Then the most similar."""
    words = set(link.span.lower().split())
    whole = link.similarity >= LONG_SPAN_SIMILARITY and not words & CONJUNCTIONS
    return (-(link.end - link.start) if whole else 0, -link.similarity, link.start)


def schema_guided_plan(links: Sequence[Link], target_type: str, schema: GraphSchema) -> QueryPlan | None:
    """``(y:target)-[:t1|t2...]-(e_i:label_i {name: ...})`` for every link the schema connects to the target type."""
    symbols = [Symbol("y", (target_type,))]
    triplets = []
    for number, link in enumerate(links):
        types = tuple(sorted({t for s, t, d in schema.relationships if {s, d} == {target_type, link.label}}))
        if not types:
            continue
        name = f"e{number}"
        symbols.append(Symbol(name, (link.label,), (Condition("name", "=", link.name),)))
        triplets.append(Triplet("y", types, name, "both"))
    if not triplets:
        return None
    return QueryPlan(tuple(symbols), tuple(triplets), "y")
