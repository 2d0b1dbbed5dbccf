"""``kgqa explain "QUESTION"``: the same steps 1-3 as ``kgqa ask`` (same prompts, plan and compiled query), then
step 2 with a scripted LLM (the real openai client on an in-memory endpoint), then
the plan. Junk, empty, truncated and timed-out replies each give a clear error or a salvaged plan, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from click.testing import CliRunner, Result

from kgqa.cli import main
from tests.helpers.scripted_llm import ScriptedEndpoint

QUESTION = "Which drugs are indicated for migraine?"
GOOD = 'Sure!\n```cypher\nMATCH (y:drug)-[:indication]->(d:disease {name: "Migraine"})\nRETURN y\n```\nDone.'


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return {**cli_env, "KGQA_OPENAI_BASE_URL": "http://scripted.invalid/v1", "KGQA_LLM_MAX_RETRIES": "0"}


def run(env: dict[str, str], endpoint: ScriptedEndpoint, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    """``kgqa explain`` with the answer type given, so step 1 needs no LLM call and each reply below is step 2's
    (test_explain_matches_ask.py covers step 1)."""
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    return CliRunner().invoke(main, ["explain", "--skb", "prime", "--type", "drug", *args], env=env)


def as_json(result: Result) -> dict[str, Any]:
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


def test_question_mode_builds_the_plan_from_the_llms_reply(loaded: dict[str, str], monkeypatch: Any) -> None:
    endpoint = ScriptedEndpoint([GOOD])
    result = run(loaded, endpoint, monkeypatch, QUESTION, "--llm", "openai:coder", "--json")
    assert result.exit_code == 0, result.output
    out = as_json(result)
    assert out["generated"]["question"] == QUESTION and out["generated"]["reply"] == GOOD
    assert out["generated"]["model"] == "openai:coder@http://scripted.invalid/v1"
    assert out["generated"]["usage"]["calls"] == 1 and out["generated"]["usage"]["cached"] == 0
    assert out["plan"]["target"] == "y" and out["params"]["c0"] == ["1"]  # migraine, exact name match
    prompt = endpoint.requests[0]["messages"][0]["content"]
    assert "(:drug)-[:indication]->(:disease)" in prompt and "- drug (e.g. ivermectin, sumatriptan)" in prompt
    assert prompt.rstrip().endswith(f"Question: {QUESTION}")
    # The same question again is answered from the response cache: no request, and the trace says so.
    again = as_json(run(loaded, endpoint, monkeypatch, QUESTION, "--llm", "openai:coder", "--json"))
    assert again["generated"]["usage"]["cached"] == 1 and len(endpoint.requests) == 1
    assert again["query"] == out["query"]


def test_question_mode_text_output(loaded: dict[str, str], monkeypatch: Any) -> None:
    result = run(loaded, ScriptedEndpoint([GOOD]), monkeypatch, QUESTION, "--llm", "openai:coder")
    assert result.exit_code == 0, result.output
    assert "openai:coder@http://scripted.invalid/v1 wrote" in result.stdout and "RETURN v0.`id` AS id" in result.stdout


def test_truncated_reply_is_salvaged(loaded: dict[str, str], monkeypatch: Any) -> None:
    cut = '```cypher\nMATCH (y:drug)-[:indication]->(d:disease {name: "migraine"}),\n      (y)-[:target]->(g:`gene'
    endpoint = ScriptedEndpoint([cut], finish_reason="length")
    out = as_json(run(loaded, endpoint, monkeypatch, QUESTION, "--llm", "openai:coder", "--json"))
    assert [t["types"] for t in out["plan"]["triplets"]] == [["indication"]]
    assert out["plan"]["target"] == "y"
    assert {"kind": "target", "original": "(no RETURN of a node)", "replacement": "y", "similarity": 1.0} in out[
        "repairs"
    ]
    assert any("truncated" in d["reason"] for d in out["dropped"])


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        ("I am sorry, I cannot help with that.", "CypherSyntaxError", "no MATCH clause found in the LLM's reply 'I am"),
        ("", "CypherSyntaxError", "in the LLM's reply ''"),
        ("MATCH (y:drug) DETACH DELETE y", "CypherSyntaxError", "in the LLM's reply"),
        (503, "LlmError", "answered HTTP 503"),
        (httpx2.ReadTimeout("slow"), "LlmError", "timed out"),
    ],
    ids=["junk", "empty", "write", "http-503", "timeout"],
)
def test_bad_replies_give_one_json_error(
    loaded: dict[str, str], monkeypatch: Any, reply: Any, error: str, message: str
) -> None:
    result = run(loaded, ScriptedEndpoint([reply]), monkeypatch, QUESTION, "--llm", "openai:coder", "--json")
    assert result.exit_code == 2, result.output
    out = as_json(result)["error"]
    assert out["type"] == error and message in out["message"], out


def test_question_mode_without_an_llm_explains_the_linked_plan_and_excludes_cypher(
    loaded: dict[str, str], monkeypatch: Any
) -> None:
    """Without an LLM, the plan ``kgqa ask`` grounds then: the entities linked in the question, as a pattern."""
    result = run(loaded, ScriptedEndpoint([]), monkeypatch, QUESTION, "--json")
    assert result.exit_code == 0, result.output
    out = as_json(result)
    assert "generated" not in out and out["params"] and "$" in out["query"]
    unlinked = run(loaded, ScriptedEndpoint([]), monkeypatch, "What is it?", "--json")
    assert unlinked.exit_code == 2
    assert as_json(unlinked)["error"]["message"].startswith("no entity named in the question is linked")
    both = run(loaded, ScriptedEndpoint([]), monkeypatch, QUESTION, "--cypher", "MATCH (y) RETURN y")
    assert both.exit_code == 2 and "give either a QUESTION or --cypher TEXT" in both.output
    neither = run(loaded, ScriptedEndpoint([]), monkeypatch)
    assert neither.exit_code == 2 and "give either a QUESTION or --cypher TEXT" in neither.output


def _invoke(env: dict[str, str], endpoint: ScriptedEndpoint, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    """``kgqa explain`` or ``kgqa ask`` as a user would run them: no ``--type``, so step 1 asks the LLM too."""
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    result = CliRunner().invoke(main, [*args, "--skb", "prime", "--llm", "openai:coder", "--json"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _messages(request: dict[str, Any]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in request["messages"]]


def test_explain_shows_the_prompt_reply_plan_and_query_that_ask_runs(
    loaded: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No response cache, so that each command sends its own requests; a hidden label must stay out of both prompts.
    env = {**loaded, "KGQA_LLM_CACHE": "0", "KGQA_HIDDEN_LABELS": "prime:effect/phenotype"}
    # Step 1 (several candidate types: the LLM picks "drug"), step 2 (the Cypher) and, for ask, step 8's listwise order.
    explained = ScriptedEndpoint(["drug", GOOD])
    out = _invoke(env, explained, monkeypatch, "explain", QUESTION)
    asked = ScriptedEndpoint(["drug", GOOD, "1"])
    answer = _invoke(env, asked, monkeypatch, "ask", QUESTION, "--explain")

    assert len(explained.requests) == 2 and len(asked.requests) == 3
    assert _messages(explained.requests[0]) == _messages(asked.requests[0])  # step 1
    assert _messages(explained.requests[1]) == _messages(asked.requests[1])  # step 2
    prompt = explained.requests[1]["messages"][0]["content"]
    assert out["generated"]["prompt"] == prompt and out["generated"]["reply"] == GOOD
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


def test_explain_says_what_ask_does_with_a_plan_without_a_constant_or_with_a_weak_one(
    loaded: dict[str, str], monkeypatch: Any
) -> None:
    """Beside the linked entities' plan, ask grounds no plan without a constant, and counts a plan through a
    constant the graph does not hold (its best candidate no close match) one round later: explain says both."""
    # each reply is the script's; the tiny model's vectors carry no meaning: only an exact name is a close match
    env = {**loaded, "KGQA_LLM_CACHE": "0", "KGQA_LINK_THRESHOLD": "0.9999"}
    anything = "MATCH (y:drug)-[:indication]->(d:disease) RETURN y"
    result = run(env, ScriptedEndpoint([anything]), monkeypatch, QUESTION, "--llm", "openai:coder", "--json")
    assert result.exit_code == 2, result.output
    assert "names no constant" in as_json(result)["error"]["message"]
    weak = 'MATCH (y:drug)-[:indication]->(d:disease {name: "zzqx relief"}) RETURN y'
    out = as_json(run(env, ScriptedEndpoint([weak]), monkeypatch, QUESTION, "--llm", "openai:coder", "--json"))
    assert out["weak"] and out["weak"][0].startswith("d (") and out["beside"]["weak"] == []
    assert out["unnamed"] is False  # 0.92: it names a node, if weakly
    text = run(env, ScriptedEndpoint([weak]), monkeypatch, QUESTION, "--llm", "openai:coder", "--l", "1")
    assert "counts this plan's rounds one later" in " ".join(text.stdout.split())  # as wrapped


def test_explain_says_ask_does_not_ground_an_llm_plan_that_names_no_node(
    loaded: dict[str, str], monkeypatch: Any
) -> None:
    """An LLM's plan none of whose constants names a node (names_no_node) is not grounded by ``kgqa ask``; explain
    says so (the tiny model's vectors carry no meaning, so the floor is raised above the constant's 0.92)."""
    from kgqa.runtime import explain
    from kgqa.runtime.steps.s4_grounding import names_no_node

    monkeypatch.setattr(explain, "names_no_node", lambda found: names_no_node(found, floor=0.95))
    env = {**loaded, "KGQA_LLM_CACHE": "0", "KGQA_LINK_THRESHOLD": "0.9999"}
    weak = 'MATCH (y:drug)-[:indication]->(d:disease {name: "zzqx relief"}) RETURN y'
    out = as_json(run(env, ScriptedEndpoint([weak]), monkeypatch, QUESTION, "--llm", "openai:coder", "--json"))
    assert out["unnamed"] is True and out["beside"]["unnamed"] is False
    text = run(env, ScriptedEndpoint([weak]), monkeypatch, QUESTION, "--llm", "openai:coder", "--l", "1")
    said = " ".join(text.stdout.split())
    assert "kgqa ask does not ground the LLM's plan" in said and "counts this plan's rounds" not in said
    good = as_json(run(env, ScriptedEndpoint([GOOD]), monkeypatch, QUESTION, "--llm", "openai:coder", "--json"))
    assert good["unnamed"] is False  # 'Migraine': an exact name
