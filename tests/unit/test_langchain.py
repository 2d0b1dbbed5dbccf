"""The LangChain adapters without a store or a socket: chat models both ways (langchain-core's fake chat models),
the row limit of the baseline's queries, the schema it shows and how its rows become answers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel, FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import Field, ValidationError

from kgqa.errors import LlmError, StoreError
from kgqa.langchain.baseline import answer_nodes
from kgqa.langchain.chat import KgqaChatModel, LangChainChat
from kgqa.langchain.graph import KgqaGraph, with_limit
from kgqa.runtime.llm import CachedChat, Completion, LlmCache, Message, Usage
from kgqa.runtime.store.base import ALIAS_LABEL, LabelInfo, NodeText, RelationshipInfo, Schema

SYSTEM, USER = Message("system", "You write Cypher."), Message("user", "Which drugs treat migraine?")


class Recording(FakeMessagesListChatModel):
    """A fake chat model that keeps the messages it was sent."""

    seen: list[list[Any]] = Field(default_factory=list)

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_langchain_model_answers_kgqa_calls_with_its_usage() -> None:
    reply = AIMessage(
        content="MATCH (y:drug) RETURN y",
        usage_metadata={"input_tokens": 12, "output_tokens": 5, "total_tokens": 17},
        response_metadata={"finish_reason": "length"},
    )
    model = Recording(responses=[reply])
    chat = LangChainChat(model)
    completion = chat.complete([SYSTEM, USER], max_tokens=50, temperature=0.0)
    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == (
        "MATCH (y:drug) RETURN y",
        12,
        5,
    )
    assert completion.finish_reason == "length" and not completion.cached
    sent = model.seen[0]
    assert [type(m) for m in sent] == [SystemMessage, HumanMessage]
    assert [m.content for m in sent] == [SYSTEM.content, USER.content]
    assert chat.name.startswith("langchain:Recording:")


def test_usage_is_zero_where_the_provider_reports_none_and_a_reply_without_reason_is_not_cut() -> None:
    completion = LangChainChat(FakeListChatModel(responses=["drug"])).complete([USER], max_tokens=5, temperature=0)
    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == ("drug", 0, 0)
    assert completion.finish_reason is None


def test_the_cache_answers_a_repeat_without_calling_the_model_again(tmp_path: Path) -> None:
    model = Recording(responses=[AIMessage(content="first"), AIMessage(content="second")])
    chat = CachedChat(LangChainChat(model), LlmCache(tmp_path / "llm.sqlite"))
    first = chat.complete([USER], max_tokens=5, temperature=0)
    again = chat.complete([USER], max_tokens=5, temperature=0)
    assert (first.text, again.text, again.cached, len(model.seen)) == ("first", "first", True, 1)


def test_models_with_other_settings_do_not_share_cached_replies() -> None:
    names = {
        LangChainChat(FakeListChatModel(responses=["a"])).name,
        LangChainChat(FakeListChatModel(responses=["b"])).name,
        LangChainChat(FakeListChatModel(responses=["a"], sleep=0.0)).name,
    }
    assert len(names) == 2  # the responses are settings of the fake; sleep=0.0 is its default


def test_a_failing_model_is_an_llm_error_naming_it() -> None:
    class Broken(FakeListChatModel):
        def _call(self, *args: Any, **kwargs: Any) -> str:
            raise RuntimeError("quota exceeded")

    with pytest.raises(LlmError, match=r"langchain:Broken:.*RuntimeError: quota exceeded"):
        LangChainChat(Broken(responses=["x"])).complete([USER], max_tokens=5, temperature=0)


def test_only_langchain_chat_models_are_taken() -> None:
    with pytest.raises(TypeError, match="BaseChatModel, got str"):
        LangChainChat("gpt-4o")  # type: ignore[arg-type]


class Scripted:
    """A kgqa ChatModel with fixed replies that records what it was asked."""

    name = "scripted"

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[list[Message], int, float]] = []

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        self.calls.append((list(messages), max_tokens, temperature))
        return Completion(self.replies.pop(0), 30, 7, 0.25, "stop")


def test_kgqa_models_answer_langchain_calls_and_count_usage() -> None:
    scripted = Scripted(["MATCH (n) RETURN n", "MATCH (m) RETURN m"])
    model = KgqaChatModel(chat=scripted, max_tokens=64, temperature=0.5)
    reply = model.invoke([SystemMessage(content="sys"), HumanMessage(content="q"), AIMessage(content="a")])
    model.invoke("again")
    assert reply.text == "MATCH (n) RETURN n"
    assert reply.usage_metadata == {"input_tokens": 30, "output_tokens": 7, "total_tokens": 37}
    assert [(m.role, m.content) for m in scripted.calls[0][0]] == [("system", "sys"), ("user", "q"), ("assistant", "a")]
    assert scripted.calls[0][1:] == (64, 0.5)
    assert (model.usage.calls, model.usage.prompt_tokens, model.usage.completion_tokens) == (2, 60, 14)
    assert model.replies == ["MATCH (n) RETURN n", "MATCH (m) RETURN m"]


def test_kgqa_models_need_a_kgqa_chat_model() -> None:
    with pytest.raises(ValidationError, match=r"kg\.llm, which is None without an LLM"):
        KgqaChatModel(chat=None)


def test_kgqa_models_refuse_tool_messages() -> None:
    with pytest.raises(LlmError, match="not 'tool'"):
        KgqaChatModel(chat=Scripted(["x"])).invoke([ToolMessage(content="r", tool_call_id="1")])


@pytest.mark.parametrize(
    ("query", "limited"),
    [
        ("MATCH (n) RETURN n", "MATCH (n) RETURN n\nLIMIT 20"),
        ("MATCH (n) RETURN n;", "MATCH (n) RETURN n\nLIMIT 20"),
        ("MATCH (n) RETURN n LIMIT 5", "MATCH (n) RETURN n LIMIT 5"),
        ("MATCH (n) RETURN n limit 20 ;", "MATCH (n) RETURN n limit 20"),
        ("MATCH (n) RETURN n LIMIT 1000", "MATCH (n) RETURN n LIMIT 20"),
        ("MATCH (n) RETURN n // no limit", "MATCH (n) RETURN n\nLIMIT 20"),
        ("MATCH (n) WITH n LIMIT 3 RETURN n", "MATCH (n) WITH n LIMIT 3 RETURN n\nLIMIT 20"),
        (
            "MATCH (n) WITH n LIMIT 3 MATCH (m) RETURN m LIMIT 50",
            "MATCH (n) WITH n LIMIT 3 MATCH (m) RETURN m LIMIT 20",
        ),
        ("MATCH (x) RETURN x LIMIT 5 // the top five", "MATCH (x) RETURN x LIMIT 5"),
        ("MATCH (x) RETURN x /* all */ LIMIT 500", "MATCH (x) RETURN x  LIMIT 20"),
        ("MATCH (x) RETURN x LIMIT $k", "MATCH (x) RETURN x LIMIT $k"),  # runs, or fails, as langchain-neo4j's would
        ("MATCH (x {url: 'http://a//b'}) RETURN x", "MATCH (x {url: 'http://a//b'}) RETURN x\nLIMIT 20"),
        ('MATCH (x {n: "a /* b"}) RETURN x // c', 'MATCH (x {n: "a /* b"}) RETURN x\nLIMIT 20'),
    ],
)
def test_queries_return_at_most_the_limit(query: str, limited: str) -> None:
    assert with_limit(query, 20) == limited


class FakeStore:
    """The reads the adapters make, over a fixed graph: disease 1 migraine, drug 3 sumatriptan, drug 2 ivermectin."""

    NODES: ClassVar[dict[str, dict[str, str]]] = {
        "disease": {"1": "migraine"},
        "drug": {"2": "ivermectin", "3": "sumatriptan", "9": "migraine"},
    }

    def __init__(self, records: list[dict[str, Any]] | None = None, error: str | None = None) -> None:
        self.records = records or []
        self.error = error
        self.queries: list[str] = []
        self.names: list[str] = []

    def schema(self, graph: str) -> Schema:
        labels = (LabelInfo("drug", 3), LabelInfo("disease", 1), LabelInfo(ALIAS_LABEL, 4))
        rels = (RelationshipInfo("indication", "drug", "disease", 1),)
        return Schema(labels, rels, ())

    def labels(self, graph: str) -> list[str]:
        return ["disease", "drug"]

    def documents(self, graph: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        return [NodeText(i, n, f"doc of {n}") for i, n in self.NODES[label].items() if i in ids]

    def exact_name(self, graph: str, label: str, text: str) -> list[tuple[str, str]]:
        self.names.append(text)
        return [(i, n) for i, n in self.NODES[label].items() if n == text]

    def read_records(self, graph: str, query: str, params: Any = None) -> list[dict[str, Any]]:
        self.queries.append(query)
        if self.error:
            raise StoreError(self.error)
        return self.records


def test_the_schema_is_what_neo4jgraph_shows_without_kgqa_internals() -> None:
    graph = KgqaGraph(FakeStore(), "prime")  # type: ignore[arg-type]
    assert graph.get_schema == (
        "Node properties:\n"
        "disease {id: STRING, name: STRING, doc: STRING, rel_doc: STRING}\n"
        "drug {id: STRING, name: STRING, doc: STRING, rel_doc: STRING}\n"
        "Relationship properties:\n\n"
        "The relationships:\n"
        "(:drug)-[:indication]->(:disease)"
    )
    assert graph.get_structured_schema["relationships"] == [{"start": "drug", "type": "indication", "end": "disease"}]


def test_the_graph_is_read_only_and_limits_rows() -> None:
    store = FakeStore([{"y": {"id": "3"}}])
    graph = KgqaGraph(store, "prime", limit=4)  # type: ignore[arg-type]
    assert graph.query("MATCH (y:drug) RETURN y") == [{"y": {"id": "3"}}]
    assert store.queries == ["MATCH (y:drug) RETURN y\nLIMIT 4"]
    with pytest.raises(StoreError, match="read-only"):
        graph.add_graph_documents([])
    with pytest.raises(ValueError, match="at least 1"):
        KgqaGraph(store, "prime", limit=0)  # type: ignore[arg-type]


def test_rows_become_answers_in_order_by_node_id_name_or_id_string() -> None:
    rows = [
        {"y": {"id": "3", "name": "sumatriptan"}, "n": 1},  # a node: its id
        {"y.name": "ivermectin"},  # a name
        {"y.id": "3"},  # seen already
        {"names": ["migraine", "nothing by that name", 2.5]},  # a name two nodes share, a miss, a number
        {"y": {"id": "1"}},  # seen already (through the name migraine)
    ]
    answers = answer_nodes(FakeStore(), "prime", rows, k=10)  # type: ignore[arg-type]
    assert [(c.id, c.type, c.name) for c in answers] == [
        ("3", "drug", "sumatriptan"),
        ("2", "drug", "ivermectin"),
        ("1", "disease", "migraine"),
        ("9", "drug", "migraine"),
    ]
    assert [c.score for c in answers] == [1.0, 0.5, round(1 / 3, 6), 0.25]
    assert all(c.strands == ("text2cypher",) for c in answers)
    store = FakeStore()
    assert [c.id for c in answer_nodes(store, "prime", rows, k=2)] == ["3", "2"]  # type: ignore[arg-type]
    assert store.names == ["ivermectin", "ivermectin"]  # one lookup per label, none once k answers are found
    assert answer_nodes(FakeStore(), "prime", [], k=2) == []  # type: ignore[arg-type]


def test_a_baseline_row_never_heads_the_results() -> None:
    """results.json's top level is the last kgqa row's section, also when a baseline's row comes after it."""
    from dataclasses import asdict

    from kgqa.lab.evaluate import BASELINE_ROWS, Record, results

    def record(row: str, hit: float) -> Record:
        metrics = {"hit@1": hit, "hit@5": hit, "hit@20": hit, "recall@20": hit, "mrr": hit}
        return Record(row, "q1", ["3"] if hit else [], metrics, 0.1, [], asdict(Usage(calls=1)))

    rows = [("hybrid", "hybrid"), BASELINE_ROWS["text2cypher"]]
    doc = results([record("hybrid", 1.0), record(rows[1][0], 0.0)], rows, {})
    assert doc["metrics"]["hit@1"] == 1.0 and doc["questions"][0]["ranked"] == ["3"]
    assert doc["ablation"]["text2cypher (langchain-neo4j)"]["hit@1"] == 0.0
