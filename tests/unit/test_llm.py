"""The LLM layer: the real openai client against a scripted in-memory endpoint, the response cache, accounting,
configuration errors, and (when installed) in-process llama.cpp with the tiny SmolLM2 model."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from kgqa.config import load_config
from kgqa.errors import ConfigError, LlmError
from kgqa.runtime.llm import CachedChat, LlamaCppChat, LlmCache, Message, Usage, parse_llm_spec
from tests.helpers.local_llm import MISSING, SMOLLM2
from tests.helpers.scripted_llm import ScriptedEndpoint

HELLO = [Message("user", "say hi")]


def test_openai_chat_sends_the_request_and_reads_usage() -> None:
    endpoint = ScriptedEndpoint(["MATCH (y) RETURN y"])
    completion = endpoint.chat("m1").complete(HELLO, max_tokens=30, temperature=0.0)
    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == ("MATCH (y) RETURN y", 2, 4)
    assert completion.finish_reason == "stop" and not completion.cached
    assert endpoint.requests == [
        {"model": "m1", "messages": [{"role": "user", "content": "say hi"}], "max_tokens": 30, "temperature": 0.0}
    ]


# Which body keys each kind of model takes, as the documentation states them (not as kgqa builds them):
# - openai-python, chat.completions.create: ``max_tokens`` "is now deprecated in favor of `max_completion_tokens`,
#   and is not compatible with o-series models"; ``max_completion_tokens`` is "an upper bound for the number of
#   tokens that can be generated for a completion, including visible output tokens and reasoning tokens".
# - Azure OpenAI reasoning models guide (MicrosoftDocs/azure-ai-docs, openai/how-to/reasoning.md): "Reasoning models
#   will only work with the `max_completion_tokens` parameter when using the Chat Completions API", and "Not
#   Supported ... with reasoning models: `temperature`, `top_p`, ..., `max_tokens`".
# - Non-reasoning models: the same docstring documents ``max_tokens`` and ``temperature`` for them, and this is the
#   request OpenAI-compatible local servers (llama.cpp server, vLLM, Ollama) were built against; ``reasoning_effort``
#   is for "reasoning models" only, and ``max_completion_tokens`` is the newer field such servers may not know.
DOCUMENTED_BODY_KEYS = {
    "reasoning": {
        "required": {"max_completion_tokens", "reasoning_effort"},
        "forbidden": {"max_tokens", "temperature"},
    },
    "non-reasoning": {
        "required": {"max_tokens", "temperature"},
        "forbidden": {"max_completion_tokens", "reasoning_effort"},
    },
}


@pytest.mark.parametrize(("kind", "options"), [("reasoning", {"reasoning_effort": "low"}), ("non-reasoning", {})])
def test_request_body_follows_the_documented_parameters_of_each_model_kind(kind: str, options: dict) -> None:
    """The HTTP body the real openai client sends holds the keys the docs require for the model kind and none of
    the ones they reject (sources above :data:`DOCUMENTED_BODY_KEYS`): reasoning models (o1, o3, o4-mini, gpt-5)
    take ``max_completion_tokens`` and ``reasoning_effort`` and reject ``max_tokens`` and ``temperature``; local
    OpenAI-compatible servers get ``max_tokens`` and ``temperature``."""
    endpoint = ScriptedEndpoint(["ok"])
    endpoint.chat("o4-mini" if kind == "reasoning" else "local", **options).complete(
        HELLO, max_tokens=4, temperature=0.0
    )
    (body,) = endpoint.requests
    rules = DOCUMENTED_BODY_KEYS[kind]
    assert rules["required"] <= body.keys(), f"{kind}: missing {rules['required'] - body.keys()}"
    assert not rules["forbidden"] & body.keys(), f"{kind}: sends {rules['forbidden'] & body.keys()}"


def test_reasoning_models_get_headroom_for_hidden_reasoning_tokens() -> None:
    """``max_completion_tokens`` counts reasoning tokens too (openai-python docstring), and OpenAI's reasoning guide
    recommends reserving at least 25,000 tokens for reasoning and output: a 4-token rerank budget sent as is would
    come back empty. The visible budget is kept on top of the headroom, which a caller may set."""
    endpoint = ScriptedEndpoint(["ok", "ok"])
    endpoint.chat("o4-mini", reasoning_effort="low").complete(HELLO, max_tokens=4, temperature=0.0)
    endpoint.chat("o4-mini", reasoning_effort="high", reasoning_headroom=2_000).complete(
        HELLO, max_tokens=8, temperature=0.5
    )
    assert endpoint.requests[0]["max_completion_tokens"] >= 25_000 + 4
    assert (endpoint.requests[1]["max_completion_tokens"], endpoint.requests[1]["reasoning_effort"]) == (2_008, "high")


def test_server_errors_are_retried_by_the_client_then_reported() -> None:
    endpoint = ScriptedEndpoint([500, "ok"])
    assert endpoint.chat(max_retries=1).complete(HELLO, max_tokens=5, temperature=0).text == "ok"
    assert len(endpoint.requests) == 2
    endpoint = ScriptedEndpoint([500, 500])
    with pytest.raises(LlmError, match=r"openai:scripted@http://scripted.invalid/v1 .* answered HTTP 500"):
        endpoint.chat(max_retries=1).complete(HELLO, max_tokens=5, temperature=0)
    with pytest.raises(LlmError, match="answered HTTP 401"):
        ScriptedEndpoint([401]).chat().complete(HELLO, max_tokens=5, temperature=0)


def test_timeouts_become_one_llm_error() -> None:
    endpoint = ScriptedEndpoint([httpx2.ReadTimeout("slow")])
    with pytest.raises(LlmError, match=r"timed out at http://scripted\.invalid/v1"):
        endpoint.chat().complete(HELLO, max_tokens=5, temperature=0)


def test_missing_api_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="needs an API key"):
        ScriptedEndpoint([]).chat(api_key=None, base_url=None)


def test_cache_answers_repeats_without_a_call_and_survives_a_restart(tmp_path: Path) -> None:
    endpoint = ScriptedEndpoint(["first", "second"])
    chat = CachedChat(endpoint.chat(), LlmCache(tmp_path / "llm.sqlite"))
    one = chat.complete(HELLO, max_tokens=5, temperature=0.0)
    again = chat.complete(HELLO, max_tokens=5, temperature=0.0)
    assert (one.text, again.text, again.cached, again.seconds) == ("first", "first", True, 0.0)
    assert (again.prompt_tokens, again.completion_tokens) == (one.prompt_tokens, one.completion_tokens)
    assert chat.complete(HELLO, max_tokens=5, temperature=0.5).text == "second"  # other parameters, other key
    chat.cache.close()
    reopened = CachedChat(ScriptedEndpoint([]).chat(), LlmCache(tmp_path / "llm.sqlite"))
    assert reopened.complete(HELLO, max_tokens=5, temperature=0.0).text == "first"
    assert len(endpoint.requests) == 2


def test_usage_adds_up() -> None:
    endpoint = ScriptedEndpoint(["a b", "c"])
    usage = Usage()
    for _ in range(2):
        usage.add(endpoint.chat().complete(HELLO, max_tokens=5, temperature=0))
    assert (usage.calls, usage.cached, usage.prompt_tokens, usage.completion_tokens) == (2, 0, 4, 3)


def test_llm_setting_is_validated() -> None:
    assert parse_llm_spec("none") == ("none", "")
    assert parse_llm_spec("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert parse_llm_spec("llama:~/m.gguf") == ("llama", "~/m.gguf")
    for bad in ("gpt-4o", "openai:", "llama: ", "claude:x"):
        with pytest.raises(ConfigError, match=r"'llm' must be none, openai:MODEL or llama:PATH\.gguf"):
            load_config({"llm": bad}, env={}, cwd=Path("/nonexistent"))
    with pytest.raises(ConfigError, match="llm_timeout"):
        load_config({"llm_timeout": 0}, env={}, cwd=Path("/nonexistent"))


def test_llama_cpp_missing_model_file_is_a_config_error(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is an optional extra (kgqa[llama])")
    with pytest.raises(ConfigError, match="no such GGUF file"):
        LlamaCppChat(tmp_path / "absent.gguf", context=512)


def test_llama_cpp_in_process_end_to_end(tmp_path: Path) -> None:
    """Real inference with the tiny SmolLM2 (junk text, but a real completion with real token counts)."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is an optional extra (kgqa[llama])")
    if not SMOLLM2.is_file():
        pytest.skip(MISSING)
    chat = CachedChat(LlamaCppChat(SMOLLM2, context=512, threads=2), LlmCache(tmp_path / "llm.sqlite"))
    completion = chat.complete([Message("user", "Write a Cypher query returning 1.")], max_tokens=16, temperature=0)
    assert completion.prompt_tokens > 5 and 0 < completion.completion_tokens <= 16
    assert completion.finish_reason in ("stop", "length") and isinstance(completion.text, str)
    assert chat.complete([Message("user", "Write a Cypher query returning 1.")], max_tokens=16, temperature=0).cached
