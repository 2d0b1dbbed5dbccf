"""``KgqaRetriever``: kgqa's answers as a LangChain retriever, on the embedded store or on a Neo4j database that a
``langchain_neo4j.Neo4jGraph`` already holds."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr, SkipValidation, field_validator

from kgqa.api import Api
from kgqa.choices import RerankerSetting, Steps
from kgqa.config import load_config, validate
from kgqa.errors import ConfigError
from kgqa.langchain.chat import LangChainChat
from kgqa.runtime.app import Kgqa
from kgqa.runtime.store.base import NodeText
from kgqa.runtime.worker.client import RemoteKgqa
from kgqa.types import Answer, Candidate, shown_score

if TYPE_CHECKING:
    from langchain_neo4j import Neo4jGraph


class KgqaRetriever(BaseRetriever):
    """Retrieves an SKB's nodes for a question with kgqa's pipeline (AF-Retriever), best first.

    Each :class:`~langchain_core.documents.Document` holds the node's document (with its relations when
    ``relations`` is set) and, in its metadata, what kgqa knows of the answer: ``id``, ``type``, ``name``, ``rank``,
    ``score``, ``strands``, ``round_l``, ``plan``, ``evidence`` (the plan's constants and the nodes they were
    grounded to) and the compiled ``query`` with its ``params``, ready for Neo4j Browser. The settings left None
    are kgqa's configuration (file, environment).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kg: SkipValidation[Api] = Field(exclude=True)
    """An open kgqa (``kgqa.connect()``: in this process, or the data directory's worker); :meth:`from_neo4j_graph`
    opens one over a Neo4jGraph."""
    skb: str
    k: int | None = Field(default=None, ge=1)
    steps: Steps | None = None
    reranker: RerankerSetting | None = None
    types: list[str] | None = None
    """Answer types (default: the SKB's candidate types)."""
    relations: bool = False
    """Whether ``page_content`` is the document with relations (STaRK's full document) or without."""
    _opened: Kgqa | None = PrivateAttr(default=None)
    _given: SkipValidation[Api] | None = PrivateAttr(default=None)

    @field_validator("kg", mode="before")
    @classmethod
    def _a_kgqa(cls, value: Any) -> Any:
        """``kg`` is typed by kgqa's API, a Protocol pydantic cannot check: check for its two implementations."""
        if not isinstance(value, Kgqa | RemoteKgqa):
            raise ValueError(f"kg must be an open kgqa (kgqa.connect()), not {type(value).__name__}")
        return value

    def __init__(self, *, llm: BaseChatModel | None = None, **data: Any) -> None:
        """``llm``: a LangChain chat model that writes step 2's Cypher and reranks, instead of kgqa's ``llm``."""
        super().__init__(**data)
        given = self.kg
        if self.reranker is not None:
            config = replace(self.kg.config, reranker=self.reranker)
            validate(config)
            self.kg = self.kg.with_config(config)
        if llm is not None:  # last: the view that opens the model's cache is the one close() closes
            if not isinstance(self.kg, Kgqa):
                raise ConfigError(
                    "a LangChain chat model answers in this process, and this kgqa is the data directory's worker "
                    "(a kgqa command holds it): set kgqa's own llm setting, or stop the worker (kgqa server stop) "
                    "and open kgqa here (kgqa.Kgqa(kgqa.load_config()))"
                )
            self.kg = self.kg.with_llm(LangChainChat(llm))
        self._given = given
        # Fail here, not at the first question: the SKB must be loaded, the types its own, the settings coherent.
        try:
            self.kg.validate_ask(self.skb, types=self.types, top_k=self.k, steps=self.steps)
        except BaseException:
            if self.kg is not given:
                self.kg.close()  # a view: what it opened (the model's cache), not the caller's kgqa
            raise

    @classmethod
    def from_neo4j_graph(
        cls,
        graph: Neo4jGraph,
        skb: str,
        *,
        llm: BaseChatModel | None = None,
        config: dict[str, Any] | None = None,
        **settings: Any,
    ) -> KgqaRetriever:
        """A retriever over the SKB loaded (``kgqa load --store neo4j``) into ``graph``'s database, reusing its
        driver, read-only. ``config``: kgqa settings (embedder, cache paths ...) on top of file and environment."""
        from kgqa.runtime.store.neo4j import Neo4jStore

        driver, database = getattr(graph, "_driver", None), getattr(graph, "_database", None)
        if driver is None:
            raise ConfigError("from_neo4j_graph needs a langchain_neo4j.Neo4jGraph (it has no driver)")
        kgqa_config = replace(load_config(config or {}), store="neo4j")
        store = Neo4jStore.borrow(
            driver,
            database or kgqa_config.neo4j_database,
            query_timeout=kgqa_config.query_timeout,
            row_cap=kgqa_config.neo4j_row_cap,
        )
        kg = Kgqa(kgqa_config, store=store)
        try:
            retriever = cls(kg=kg, skb=skb, llm=llm, **settings)
        except BaseException:
            kg.close()
            raise
        retriever._opened = kg
        return retriever

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        """``k``: how many documents this call returns (``retriever.invoke(query, k=1)``, as LangChain's retrievers
        take it), else the retriever's own ``k``."""
        top_k = self.k if k is None else k
        answer = self.kg.ask(query, self.skb, types=self.types, top_k=top_k, steps=self.steps)
        return documents(self.kg, self.skb, answer, relations=self.relations)

    def close(self) -> None:
        """Close what this retriever opened: the LLM cache of its ``llm``, and the kgqa of :meth:`from_neo4j_graph`
        (the Neo4jGraph's driver stays open). A kgqa passed in as ``kg`` is its caller's to close."""
        if self.kg is not self._given:
            self.kg.close()  # a view: closes only what the view itself opened
        if self._opened is not None:
            self._opened.close()


def documents(kg: Api, skb: str, answer: Answer, *, relations: bool = False) -> list[Document]:
    """The answers of ``answer`` as LangChain documents, in rank order (see :class:`KgqaRetriever`)."""
    texts: dict[str, NodeText] = {}
    for label in dict.fromkeys(c.type for c in answer.answers):
        ids = [c.id for c in answer.answers if c.type == label]
        texts.update((t.id, t) for t in kg.documents(skb, label, ids))
    return [
        Document(page_content=_content(texts.get(c.id), relations), metadata=_metadata(rank, c, answer), id=c.id)
        for rank, c in enumerate(answer.answers, 1)
    ]


def _content(text: NodeText | None, relations: bool) -> str:
    if text is None:
        return ""
    body = text.doc or text.name
    return body + text.rel_doc if relations else body


def _query(c: Candidate, answer: Answer) -> tuple[str | None, dict[str, Any] | None]:
    """The compiled query (and parameters) that grounded ``c``: the LLM's plan's, or the linked plan's when that one
    grounded it beside the LLM's; none for an answer of the vector or full-text strand alone."""
    trace = answer.trace
    if "graph" not in c.strands:
        return None, None
    grounded = next((p for p in trace.plans if p["source"] == c.plan), None)
    return (grounded["query"], grounded["params"]) if grounded is not None else (trace.query, trace.params)


def _metadata(rank: int, c: Candidate, answer: Answer) -> dict[str, Any]:
    query, params = _query(c, answer)
    return {
        "id": c.id,
        "type": c.type,
        "name": c.name,
        "rank": rank,
        "score": shown_score(c),
        "relevance": c.score,
        "why": c.why,
        "strands": list(c.strands),
        "round_l": c.round_l,
        "plan": c.plan,
        "evidence": [asdict(m) for m in c.matches],
        "query": query,
        "params": params,
    }
