"""The text-to-Cypher baseline: what langchain-neo4j users run today for questions over a graph, as they run it.

``GraphCypherQAChain`` with its own prompt: the LLM writes Cypher from the schema (:class:`KgqaGraph`, formatted as
``Neo4jGraph`` does), ``extract_cypher`` takes it out of the reply, ``CypherQueryCorrector`` fixes relationship
directions against the schema (``validate_cypher=True``), and the LLM's query itself runs, read-only, with at most
k rows (``return_direct=True``: the rows are the answer, no second LLM call). The answer is the nodes of those rows
in order: a returned node by its id, a returned string by the node whose id or name it is (a user reading
"Marfan syndrome" has found that node). A query the corrector rejects, the store refuses (syntax, a write, a
timeout) or that returns nothing answers nothing, as its user would experience it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from langchain_neo4j import GraphCypherQAChain

from kgqa.answers import Candidate
from kgqa.errors import ConfigError, StoreError
from kgqa.langchain.chat import KgqaChatModel
from kgqa.langchain.graph import KgqaGraph
from kgqa.store import queries as q
from kgqa.store.base import GraphStore
from kgqa.trace import STEP_NAMES, StepTrace, Trace

if TYPE_CHECKING:
    from kgqa.app import Answer, Kgqa

STEPS_MODE = "text2cypher"
STRAND = "text2cypher"
MAX_TOKENS = 512
"""The reply budget for the query (kgqa's own step 2 asks for 300: the baseline's prompt invites no prose, but a
model may add some, and a query cut short would be the budget's fault, not the approach's)."""


class _RecordingGraph(KgqaGraph):
    """Remembers the last query it ran, so the trace has it even when the store refuses it."""

    last_query: str = ""

    def query(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self.last_query = query
        return super().query(query, params)


def text2cypher_answer(kg: Kgqa, question: str, skb: str, *, top_k: int | None = None) -> Answer:
    """Answer ``question`` the langchain-neo4j way with kgqa's configured LLM over ``skb``."""
    from kgqa.app import Answer

    if not question.strip():
        from kgqa.errors import InputError

        raise InputError("the question is empty")
    llm = kg.llm
    if llm is None:
        raise ConfigError("the text2cypher baseline needs an LLM: set llm (or --llm openai:MODEL | llama:PATH.gguf)")
    meta = kg.meta(skb)
    k = top_k or kg.config.top_k
    c = kg.config
    trace = Trace(skb, STEPS_MODE, llm.name, "none", k, c.alpha, c.l_max, c.embedder, meta.candidate_types)
    graph = _RecordingGraph(kg.store, skb, limit=k)
    model = KgqaChatModel(chat=llm, max_tokens=MAX_TOKENS, temperature=c.llm_temperature)
    chain = GraphCypherQAChain.from_llm(
        llm=model,
        graph=graph,
        validate_cypher=True,
        return_direct=True,
        return_intermediate_steps=True,
        top_k=k,
        allow_dangerous_requests=True,  # the store runs it read-only; this flag is the chain's own consent
    )
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    error = ""
    try:
        result = chain.invoke({"query": question})
        rows = result["result"]
        query = result["intermediate_steps"][0]["query"]
    except StoreError as exc:
        error, query = str(exc), graph.last_query
    seconds = round(time.perf_counter() - start, 4)
    written = StepTrace(2, STEP_NAMES[2], detail="corrected query: " + (query or "(none)"))
    written.usage, written.seconds = model.usage, model.usage.seconds
    ran = StepTrace(5, "execute", seconds=round(max(seconds - model.usage.seconds, 0.0), 4))
    if error:
        ran.degrade(f"the store refused the query: {error}")
    elif not query:
        ran.degrade("CypherQueryCorrector rejected the query (not in the schema, or beyond its patterns); nothing ran")
    elif not rows:
        ran.detail = "the query returned no rows"
    trace.steps += [written, ran]
    trace.query, trace.params = query or None, {}
    return Answer(question, answer_nodes(kg.store, skb, rows, k), trace)


def answer_nodes(store: GraphStore, skb: str, rows: Sequence[dict[str, Any]], k: int) -> list[Candidate]:
    """The nodes of ``rows`` in order, at most ``k``: node values by their id, strings by the node whose id or
    name they are (every such node, in label order); other values are not nodes."""
    found = list(dict.fromkeys(_texts(rows)))
    labels = store.labels(skb)
    nodes: dict[str, list[tuple[str, str, str]]] = {}
    for label in labels:
        for text in store.documents(skb, label, found):
            nodes.setdefault(text.id, []).append((text.id, label, text.name))
    for value in found:
        if value not in nodes:
            named = [(i, label, name) for label in labels for i, name in store.exact_name(skb, label, value)]
            if named:
                nodes[value] = named
    ranked: dict[str, Candidate] = {}
    for value in found:
        for node_id, label, name in nodes.get(value, []):
            if node_id not in ranked and len(ranked) < k:
                rank = len(ranked) + 1
                ranked[node_id] = Candidate(node_id, label, name, round(1.0 / rank, 6), (STRAND,))
    return list(ranked.values())


def _texts(value: Any) -> Iterator[str]:
    """Node ids and strings of a row value, depth first in order (a node dict gives its id only)."""
    if isinstance(value, dict) and isinstance(value.get(q.ID), str):
        yield value[q.ID]
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, str) and value.strip():
        yield value.strip()
