"""LangChain's standard test suites (``langchain-tests``), run as LangChain's partner packages run them:
``RetrieversIntegrationTests`` for :class:`KgqaRetriever` on the embedded HPO graph (loaded once, with the tiny test
embedder), and the chat-model suites for :class:`KgqaChatModel` on a scripted chat (tests/helpers/scripted_llm.py: the
real openai client over an in-memory transport, so no network and the same reply every call).

The suites' own properties switch off what KgqaChatModel does not claim: tool calling, tool choice, structured output
and JSON mode (it overrides neither ``bind_tools`` nor ``with_structured_output``, so the suites read them as off),
image, audio, PDF and Anthropic-style inputs (off by default), per-call model override (kgqa's chat model is the one
configured), VCR cassettes (no HTTP to record). Everything else runs as written; a standard test is never overridden.

The suites' async tests carry no ``asyncio`` mark: pytest-asyncio runs in auto mode (pyproject.toml), as in LangChain's
partner packages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langchain_tests.integration_tests import ChatModelIntegrationTests, RetrieversIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests

import kgqa
from kgqa.langchain import KgqaChatModel, KgqaRetriever
from tests.helpers.environment import QUIET
from tests.helpers.scripted_llm import ScriptedEndpoint
from tests.helpers.shared import copy_home

REPLY = "Marfan syndrome is associated with FBN1."


class Always(list[Any]):
    """A script that never runs out: every request is answered with the same reply."""

    def pop(self, index: Any = -1) -> Any:
        return self[0]


ENDPOINT = ScriptedEndpoint(Always([REPLY]))
CHAT = ENDPOINT.chat()
"""kgqa's OpenAI chat model on the scripted endpoint, shared by every KgqaChatModel below (no retries, 5 s timeout)."""


@pytest.fixture(scope="module")
def hpo_kg(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str, hpo_template: Path) -> Iterator[kgqa.Kgqa]:
    """The HPO graph loaded into an embedded store (tiny embedder, no LLM), open for the module's tests."""
    home = copy_home(hpo_template, tmp_path_factory.mktemp("hpo") / "home")
    config = kgqa.load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)
    with kgqa.Kgqa(config) as kg:
        yield kg


@pytest.mark.slow
class TestKgqaRetrieverStandard(RetrieversIntegrationTests):
    kg: kgqa.Kgqa

    @pytest.fixture(autouse=True, scope="class")
    def _open_kg(self, request: pytest.FixtureRequest, hpo_kg: kgqa.Kgqa) -> None:
        request.cls.kg = hpo_kg  # the properties below are no fixtures: they read the open kgqa from the class

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return KgqaRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"kg": self.kg, "skb": "hpo", "k": 5}

    @property
    def retriever_query_example(self) -> str:
        return "Which genes are associated with Marfan syndrome?"


class KgqaChatModelSettings:
    """What both chat-model suites are told about KgqaChatModel."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return KgqaChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"chat": CHAT}

    @property
    def supports_model_override(self) -> bool:
        return False  # it runs the kgqa chat model it was given; a per-call ``model`` is not passed on


class TestKgqaChatModelUnit(KgqaChatModelSettings, ChatModelUnitTests):
    pass


class TestKgqaChatModelIntegration(KgqaChatModelSettings, ChatModelIntegrationTests):
    pass
