"""The LLM layer: one small interface (:class:`ChatModel`), two backends, a response cache and per-question usage.

- :class:`OpenAIChat`: the ``openai`` client against any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,
  ``python -m llama_cpp.server``); retries and timeouts are the client's own (``llm_max_retries``, ``llm_timeout``).
- :class:`LlamaCppChat`: llama.cpp in-process through ``llama-cpp-python`` (optional; see docs of the local LLM).

Every call goes through :class:`CachedChat`, so a re-run or an eval of the same questions costs nothing; the cache
key is (model, messages, max_tokens, temperature, reasoning effort). :class:`Usage` counts calls, cache hits, tokens
and seconds for the trace of one question. Failures of any backend surface as one :class:`~kgqa.errors.LlmError`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from kgqa.errors import ConfigError, LlmError

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str | None = None
    """``stop`` for a complete reply, ``length`` when ``max_tokens`` cut it (parsers salvage what they can)."""
    cached: bool = False


class ChatModel(Protocol):
    """A chat model: messages in, one completion out. ``name`` identifies the model in caches and traces."""

    name: str

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion: ...


@dataclass
class Usage:
    """LLM use of one question (or one step): calls, of which cache hits, tokens and seconds."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def merge(self, other: Usage) -> None:
        """Add another step's (or question's) usage to this one."""
        self.calls += other.calls
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds = round(self.seconds + other.seconds, 4)

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.cached += completion.cached
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds = round(self.seconds + completion.seconds, 4)


REASONING_HEADROOM = 25_000
"""Tokens added to a call's visible budget for the hidden reasoning of a reasoning model: OpenAI's reasoning guide
recommends reserving at least 25,000 tokens for reasoning and output when starting out. It is a ceiling, not a
charge (only generated tokens are billed), and too small a one returns an empty reply cut at ``length``."""


class OpenAIChat:
    """Chat completions through the official ``openai`` client (extra ``kgqa[openai]``).

    Two request shapes. Without ``reasoning_effort`` (local servers, GPT-4-class models) the request carries
    ``max_tokens`` and ``temperature`` as llama.cpp server, vLLM and Ollama expect. With it, the model is taken to be
    an OpenAI reasoning model (o1, o3, o4-mini, gpt-5), which rejects ``max_tokens`` and any non-default
    ``temperature``: the request carries ``reasoning_effort`` and ``max_completion_tokens`` = ``max_tokens`` +
    ``reasoning_headroom`` (:data:`REASONING_HEADROOM` unless given), since that limit counts the hidden reasoning
    tokens too, and no ``temperature``. The cache key needs nothing new: it already holds ``max_tokens`` and, as
    :class:`CachedChat`'s salt, the reasoning effort (a non-default headroom should go into that salt as well).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        reasoning_effort: str | None = None,
        reasoning_headroom: int = REASONING_HEADROOM,
        http_client: Any = None,
    ) -> None:
        try:
            from openai import OpenAI
        except ImportError as exc:
            raise ConfigError("llm 'openai:...' needs the extra: pip install 'kgqa[openai]'") from exc
        # A local endpoint needs no key, but the client refuses to start without one.
        key = api_key or os.environ.get("OPENAI_API_KEY") or ("unused" if base_url else None)
        if key is None:
            raise ConfigError("llm 'openai:...' needs an API key: set openai_api_key, OPENAI_API_KEY or a base URL")
        self._client = OpenAI(
            base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries, http_client=http_client
        )
        self._model = model
        self._reasoning_effort = reasoning_effort
        self._reasoning_headroom = reasoning_headroom
        self._where = base_url or "api.openai.com"
        self.name = f"openai:{model}" + (f"@{base_url}" if base_url else "")

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        import openai

        limits: dict[str, Any]
        if self._reasoning_effort:  # a reasoning model: see the class docstring
            limits = {
                "reasoning_effort": self._reasoning_effort,
                "max_completion_tokens": max_tokens + self._reasoning_headroom,
            }
        else:
            limits = {"max_tokens": max_tokens, "temperature": temperature}
        start = time.perf_counter()
        try:
            chat: list[Any] = [{"role": m.role, "content": m.content} for m in messages]
            reply = self._client.chat.completions.create(model=self._model, messages=chat, **limits)
        except openai.APITimeoutError as exc:
            raise LlmError(f"LLM {self.name} timed out at {self._where}") from exc
        except openai.APIStatusError as exc:
            raise LlmError(f"LLM {self.name} at {self._where} answered HTTP {exc.status_code}: {exc.message}") from exc
        except openai.APIError as exc:
            raise LlmError(f"LLM {self.name} at {self._where} failed: {exc}") from exc
        if not reply.choices:
            raise LlmError(f"LLM {self.name} returned no choices")
        choice = reply.choices[0]
        usage = reply.usage
        return Completion(
            choice.message.content or "",
            usage.prompt_tokens if usage else 0,
            usage.completion_tokens if usage else 0,
            round(time.perf_counter() - start, 4),
            choice.finish_reason,
        )


class LlamaCppChat:
    """llama.cpp in-process (extra ``kgqa[llama]``, built for these CPUs as docs/llm.md's "Providers" says)."""

    def __init__(self, model_path: Path, *, context: int, threads: int | None = None) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ConfigError("llm 'llama:...' needs llama-cpp-python: pip install 'kgqa[llama]'") from exc
        if not model_path.is_file():
            raise ConfigError(f"llm 'llama:{model_path}': no such GGUF file")
        try:
            self._llm = Llama(
                model_path=str(model_path), n_ctx=context, n_threads=threads or os.cpu_count(), seed=0, verbose=False
            )
        except (ValueError, RuntimeError) as exc:
            raise LlmError(f"llama.cpp could not load {model_path}: {exc}") from exc
        self.name = f"llama:{model_path.name}"
        self._lock = threading.Lock()  # one llama.cpp context: calls from the pointwise pool take turns

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        with self._lock:
            return self._complete(messages, max_tokens=max_tokens, temperature=temperature)

    def _complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        start = time.perf_counter()
        chat: Any = [{"role": m.role, "content": m.content} for m in messages]  # llama_cpp's TypedDicts, by role
        try:
            reply: Any = self._llm.create_chat_completion(
                messages=chat,
                max_tokens=max_tokens,
                temperature=temperature,
            )
        except (ValueError, RuntimeError) as exc:  # e.g. a prompt longer than the context window
            raise LlmError(f"llama.cpp {self.name} failed: {exc}") from exc
        choice, usage = reply["choices"][0], reply.get("usage") or {}
        return Completion(
            choice["message"].get("content") or "",
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
            round(time.perf_counter() - start, 4),
            choice.get("finish_reason"),
        )


class LlmCache:
    """(model, request) hash -> completion, in one SQLite file next to the embedding cache (``None``: in memory,
    for ``llm_cache = false``, which still answers a repeat within one run from memory)."""

    def __init__(self, path: Path | None) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        # Shared by the pointwise reranker's threads; the lock serialises them.
        self._db = sqlite3.connect(path or ":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS completion (key BLOB PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, "
            "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, seconds REAL NOT NULL, "
            "finish_reason TEXT)"
        )
        self._db.commit()

    def get(self, key: bytes) -> Completion | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, seconds, finish_reason FROM completion WHERE key = ?",
                (key,),
            ).fetchone()
        return None if row is None else Completion(row[0], row[1], row[2], 0.0, row[4], cached=True)

    def put(self, key: bytes, model: str, completion: Completion) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO completion VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    completion.text,
                    completion.prompt_tokens,
                    completion.completion_tokens,
                    completion.seconds,
                    completion.finish_reason,
                ),
            )
            self._db.commit()

    def close(self) -> None:
        self._db.close()


class CachedChat:
    """A :class:`ChatModel` whose completions are cached on disk; a cache hit reports 0 seconds and ``cached``."""

    def __init__(self, model: ChatModel, cache: LlmCache, *, salt: str = "") -> None:
        self.model = model
        self.cache = cache
        self.name = model.name
        self._salt = salt

    def key(self, messages: Sequence[Message], max_tokens: int, temperature: float) -> bytes:
        request = {
            "model": self.name,
            "salt": self._salt,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "messages": [[m.role, m.content] for m in messages],
        }
        return hashlib.sha256(json.dumps(request, sort_keys=True, allow_nan=False).encode()).digest()

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        key = self.key(messages, max_tokens, temperature)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        completion = self.model.complete(messages, max_tokens=max_tokens, temperature=temperature)
        self.cache.put(key, self.name, completion)
        return completion


def parse_llm_spec(spec: str) -> tuple[Literal["none", "openai", "llama"], str]:
    """``none`` | ``openai:MODEL`` | ``llama:PATH.gguf`` -> (kind, model), or a ConfigError naming the value."""
    if spec == "none":
        return "none", ""
    kind, _, model = spec.partition(":")
    if kind in ("openai", "llama") and model.strip():
        return kind, model.strip()  # type: ignore[return-value]
    raise ConfigError(f"'llm' must be none, openai:MODEL or llama:PATH.gguf, got {spec!r}")
