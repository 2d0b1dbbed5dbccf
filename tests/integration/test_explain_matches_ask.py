"""``kgqa explain QUESTION`` runs steps 1-3 through the same functions as ``kgqa ask``: for the same question and
settings both send the LLM the same prompts and end with the same plan and compiled query (scripted LLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from tests.scripted_llm import ScriptedEndpoint

QUESTION = "Which drugs are indicated for migraine?"
REPLY = '```cypher\nMATCH (y:drug)-[:indication]->(d:disease {name: "Migraine"})\nRETURN y\n```'


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    # No response cache: each command must send its own requests, so that they can be compared.
    return {
        **cli_env,
        "KGQA_OPENAI_BASE_URL": "http://scripted.invalid/v1",
        "KGQA_LLM_MAX_RETRIES": "0",
        "KGQA_LLM_CACHE": "0",
        "KGQA_HIDDEN_LABELS": "prime:effect/phenotype",
    }


def _invoke(env: dict[str, str], endpoint: ScriptedEndpoint, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.setattr("kgqa.app.OpenAIChat", endpoint.factory())
    result = CliRunner().invoke(main, [*args, "--skb", "prime", "--llm", "openai:coder", "--json"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _messages(request: dict[str, Any]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in request["messages"]]


def test_explain_shows_the_prompt_reply_plan_and_query_that_ask_runs(
    loaded: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Step 1 (several candidate types: the LLM picks "drug"), step 2 (the Cypher) and, for ask, step 8's listwise order.
    explained = ScriptedEndpoint(["drug", REPLY])
    out = _invoke(loaded, explained, monkeypatch, "explain", QUESTION)
    asked = ScriptedEndpoint(["drug", REPLY, "1"])
    answer = _invoke(loaded, asked, monkeypatch, "ask", QUESTION, "--explain")

    assert len(explained.requests) == 2 and len(asked.requests) == 3
    assert _messages(explained.requests[0]) == _messages(asked.requests[0])  # step 1
    assert _messages(explained.requests[1]) == _messages(asked.requests[1])  # step 2
    prompt = explained.requests[1]["messages"][0]["content"]
    assert out["generated"]["prompt"] == prompt and out["generated"]["reply"] == REPLY
    assert out["generated"]["target_type"] == answer["trace"]["target_type"] == "drug"
    # The prompt carries step 1's type and leaves out the hidden label, as kgqa ask's does.
    assert "the answer is a node of type drug" in prompt and "effect/phenotype" not in prompt

    trace = answer["trace"]
    plan = dict(trace["plan"])
    dropped = plan.pop("dropped")
    assert out["plan"] == plan and out["dropped"] == dropped
    assert out["query"] == trace["query"]
    constant = trace["params"] | {"c0": out["params"]["c0"]}
    assert out["params"] == constant  # l = 1: the first candidate of the constant, as in ask's first round
    assert [s["status"] for s in trace["steps"][:3]] == ["ran", "ran", "ran"]
