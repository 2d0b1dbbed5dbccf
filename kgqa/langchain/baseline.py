"""The text-to-Cypher baseline: what langchain-neo4j users run today for questions over a graph, as they run it.

``GraphCypherQAChain`` with its own prompt: the LLM writes Cypher from the schema (:class:`KgqaGraph`, formatted as
``Neo4jGraph`` does), ``extract_cypher`` takes it out of the reply, ``CypherQueryCorrector`` fixes relationship
directions against the schema (``validate_cypher=True``), and the LLM's query itself runs, read-only, with at most
k rows (``return_direct=True``: the rows are the answer, no second LLM call). The answer is the nodes of those rows
in order: a returned node by its id, a returned string by the node whose id or name it is (a user reading
"Marfan syndrome" has found that node). A query the corrector rejects, the store refuses (syntax, a write, a
timeout) or that returns nothing answers nothing, as its user would experience it; so does an LLM failure, which
fails the user's chain as a whole (kgqa's own steps degrade instead). On the embedded FalkorDB, a query in
Neo4j-only Cypher (``EXISTS {}``, APOC) is refused like any other: the trace says so (step ``execute``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from langchain_neo4j import GraphCypherQAChain

from kgqa.errors import ConfigError, InputError, LlmError, StoreError
from kgqa.langchain.chat import KgqaChatModel
from kgqa.langchain.graph import KgqaGraph
from kgqa.runtime.store import queries as q
from kgqa.runtime.store.protocols import GraphStore
from kgqa.runtime.trace import STEP_NAMES, StepTrace, Trace
from kgqa.types import Candidate

if TYPE_CHECKING:
    from kgqa.runtime.engine import Engine
    from kgqa.types import Answer

CORRECTOR_REJECTED = "CypherQueryCorrector rejected the query (not in the schema, or beyond its patterns)"
STORE_REFUSED = "the store refused the query"
STEPS_MODE = "text2cypher"
"""The trace's mode (``text2cypher-unvalidated`` without the corrector)."""
STRAND = "text2cypher"
MAX_TOKENS = 512
"""The reply budget for the query (kgqa's own step 2 asks for 300: the baseline's prompt invites no prose, but a
model may add some, and a query cut short would be the budget's fault, not the approach's)."""


def text2cypher_answer(
    kg: Engine, question: str, skb: str, *, top_k: int | None = None, validate: bool = True
) -> Answer:
    """Answer ``question`` the langchain-neo4j way with kgqa's configured LLM over ``skb``; ``validate``: with
    ``validate_cypher=True`` (CypherQueryCorrector), else as the chain runs by default."""
    from kgqa.types import Answer

    if not question.strip():
        raise InputError("the question is empty")
    llm = kg.llm
    if llm is None:
        raise ConfigError("the text2cypher baseline needs an LLM: set llm (or --llm openai:MODEL | llama:PATH.gguf)")
    meta = kg.meta(skb)
    k = top_k or kg.config.top_k
    c = kg.config
    mode = STEPS_MODE if validate else f"{STEPS_MODE}-unvalidated"
    trace = Trace(skb, mode, llm.name, "none", k, c.alpha, c.l_max, c.embedder, meta.candidate_types)
    graph = KgqaGraph(kg.store, skb, limit=k)
    model = KgqaChatModel(chat=llm, max_tokens=MAX_TOKENS, temperature=c.llm_temperature)
    chain = GraphCypherQAChain.from_llm(
        llm=model,
        graph=graph,
        validate_cypher=validate,
        return_direct=True,
        return_intermediate_steps=True,
        top_k=k,
        allow_dangerous_requests=True,  # the store runs it read-only; this flag is the chain's own consent
    )
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    written = StepTrace(2, STEP_NAMES[2])
    ran = StepTrace(5, "execute")
    try:
        result = chain.invoke({"query": question})
        rows = result["result"]
        corrected = result["intermediate_steps"][0]["query"]
        written.detail = "corrected query: " + (corrected or "(none)")
        if not corrected:
            ran.degrade(f"{CORRECTOR_REJECTED}: nothing ran")
        elif not rows:
            ran.detail = "the query returned no rows"
    except LlmError as exc:  # the user's chain fails as a whole: no answer
        written.degrade(f"the LLM failed: {exc}")
        ran.status, ran.detail = "skipped", "no query"
    except StoreError as exc:
        written.detail = "corrected query: " + graph.last_query
        ran.degrade(f"{STORE_REFUSED}: {exc}")
    seconds = round(time.perf_counter() - start, 4)
    written.usage, written.seconds = model.usage, model.usage.seconds
    ran.seconds = round(max(seconds - model.usage.seconds, 0.0), 4)
    if model.replies:
        written.detail = f"reply: {model.replies[-1]!r}; {written.detail}"
    trace.steps += [written, ran]
    trace.query, trace.params = graph.last_query or None, {}
    start = time.perf_counter()
    answers = answer_nodes(kg.store, skb, rows, k)
    trace.seconds["answer nodes"] = round(time.perf_counter() - start, 4)  # kgqa's mapping, not the chain's work
    return Answer(question, answers, trace)


def answer_nodes(store: GraphStore, skb: str, rows: Sequence[dict[str, Any]], k: int) -> list[Candidate]:
    """The nodes of ``rows`` in order, at most ``k``: node values by their id, strings by the node whose id or
    name they are (every such node, in label order); other values are not nodes."""
    found = list(dict.fromkeys(_texts(rows)))
    labels = store.labels(skb)
    by_id: dict[str, list[tuple[str, str, str]]] = {}
    for label in labels:  # one query per label for every value that may be an id
        for text in store.documents(skb, label, found):
            by_id.setdefault(text.id, []).append((text.id, label, text.name))
    ranked: dict[str, Candidate] = {}
    for value in found:
        if len(ranked) == k:
            break  # names are looked up only while answers are missing (a collect() may return thousands)
        nodes = by_id.get(value) or [(i, label, n) for label in labels for i, n in store.exact_name(skb, label, value)]
        for node_id, label, name in nodes:
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
