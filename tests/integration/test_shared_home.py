"""One data directory, many clients (issue 34, item 4): while a ``kgqa`` command's worker holds the data directory,
``kgqa.connect()`` in another process is that worker's client instead of a StoreLockedError, and the LangChain
retriever answers through it; what only runs in the caller's process (a LangChain chat model) is refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import kgqa
from kgqa.config import load_config
from kgqa.errors import ConfigError, InputError, StoreLockedError
from kgqa.langchain.retriever import KgqaRetriever
from kgqa.runtime.app import Kgqa
from kgqa.runtime.worker.client import RemoteKgqa
from tests.helpers.worker import kgqa as run_kgqa
from tests.helpers.worker import state

pytestmark = pytest.mark.slow
QUESTION = "Which drugs treat strongyloidiasis?"


def test_connect_beside_a_running_worker_is_served_by_it(loaded: dict[str, str], home: Path) -> None:
    running = state(home)
    assert running is not None
    cli = json.loads(run_kgqa(loaded, "ask", QUESTION, "--skb", "prime", "--json").stdout)
    with kgqa.connect(load_config(env=loaded, cwd=home.parent)) as kg:
        assert isinstance(kg, RemoteKgqa) and kg.info.pid == running.pid
        answer = kg.ask(QUESTION, "prime")
        assert [a.id for a in answer.answers] == [a["id"] for a in cli["answers"]]
        retriever = KgqaRetriever(kg=kg, skb="prime", k=2, reranker="none")
        docs = retriever.invoke(QUESTION)
        assert [d.metadata["id"] for d in docs] == [a["id"] for a in cli["answers"][:2]]
        assert all(d.page_content for d in docs)
        with pytest.raises(ConfigError, match="a LangChain chat model answers in this process"):
            KgqaRetriever(kg=kg, skb="prime", llm=FakeListChatModel(responses=["x"]))
        with pytest.raises(InputError, match="unknown type 'planet'"):
            KgqaRetriever(kg=kg, skb="prime", types=["planet"])  # checked by the worker when made
    assert state(home) == running  # the same worker served all of it, and is still there
    assert json.loads(run_kgqa(loaded, "ask", QUESTION, "--skb", "prime", "--json").stdout)["answers"]


def test_a_worker_with_other_settings_is_named_not_shared(loaded: dict[str, str], home: Path) -> None:
    config = load_config({"ef_runtime": 50}, env=loaded, cwd=home.parent)
    with pytest.raises(StoreLockedError, match=r"is served by the kgqa worker \(pid \d+\), which cannot serve these"):
        kgqa.connect(config)


def test_connect_without_a_worker_opens_the_directory_here(cli_env: dict[str, str], home: Path) -> None:
    with kgqa.connect(load_config(env=cli_env, cwd=home.parent)) as kg:
        assert isinstance(kg, Kgqa)


WRONG_TYPES = [
    ("ask", ({"q": 1}, "prime"), {}, "ask: 'question' must be a string, got dict"),
    ("ask", (QUESTION, "prime"), {"top_k": "3"}, "ask: 'top_k' must be an integer or None, got '3'"),
    ("node", ("prime", 2), {}, "node: 'node_id' must be a string, got 2"),
    ("schema", (None,), {}, "schema: 'skb' must be a string, got NoneType"),
    ("explain", ("prime",), {"cypher": ["MATCH (n) RETURN n"]}, "explain: 'cypher' must be a string or None, got list"),
]


def test_wrong_types_are_input_errors_through_the_worker_and_in_process(loaded: dict[str, str], home: Path) -> None:
    """The same refusal whichever side runs the call: never a worker's RemoteBug, never an internal error."""
    config = load_config(env=loaded, cwd=home.parent)
    for side in ("worker", "in process"):
        with kgqa.connect(config) as kg:
            assert isinstance(kg, RemoteKgqa if side == "worker" else Kgqa), side
            for method, args, kwargs, message in WRONG_TYPES:
                with pytest.raises(InputError) as raised:
                    getattr(kg, method)(*args, **kwargs)
                assert str(raised.value) == message, (side, method)
            with pytest.raises(InputError, match="'question' must be a string, got dict"):
                KgqaRetriever(kg=kg, skb="prime", k=2, reranker="none").invoke({"q": 1})  # type: ignore[arg-type]
            assert kg.ask(QUESTION, "prime").answers  # and the side goes on answering
        if side == "worker":
            run_kgqa(loaded, "server", "stop")
