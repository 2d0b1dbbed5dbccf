"""kgqa in LangChain (extra ``kgqa[langchain]``): a retriever, chat models both ways, and the text-to-Cypher
baseline of langchain-neo4j run over kgqa's read-only store. docs/langchain.md shows each."""

from __future__ import annotations

from kgqa.langchain.chat import KgqaChatModel, LangChainChat
from kgqa.langchain.graph import KgqaGraph
from kgqa.langchain.retriever import KgqaRetriever

__all__ = ["KgqaChatModel", "KgqaGraph", "KgqaRetriever", "LangChainChat"]
