"""Chat models across the boundary, both ways.

- :class:`LangChainChat`: any LangChain ``BaseChatModel`` as kgqa's :class:`~kgqa.runtime.llm.ChatModel`, so
  ``KgqaRetriever(llm=ChatOpenAI(...))`` writes step 2's Cypher and reranks with it. The model's own settings
  (temperature, max tokens, retries) apply: they are the caller's, and kgqa's ``llm_*`` settings are for the models
  it builds itself. Token counts come from the reply's ``usage_metadata`` where the provider reports them.
- :class:`KgqaChatModel`: kgqa's configured chat model (its response cache and usage counts included) as a LangChain
  chat model, so a LangChain chain (the text2cypher baseline) runs on the very model kgqa runs on.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from kgqa.errors import LlmError
from kgqa.runtime.llm import ChatModel, Completion, Message, Role, Usage

_TO_LANGCHAIN = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
_FROM_LANGCHAIN: dict[str, Role] = {"system": "system", "human": "user", "ai": "assistant"}


def model_name(model: BaseChatModel) -> str:
    """``langchain:<class>:<model>#<settings digest>``: two models, or one model with other settings (temperature,
    endpoint), never share cached replies."""
    params = model._identifying_params
    named = params.get("model_name") or params.get("model") or model._llm_type
    digest = hashlib.sha256(json.dumps(params, sort_keys=True, default=str, allow_nan=False).encode()).hexdigest()[:8]
    return f"langchain:{type(model).__name__}:{named}#{digest}"


class LangChainChat:
    """A LangChain chat model behind kgqa's :class:`~kgqa.runtime.llm.ChatModel` interface."""

    def __init__(self, model: BaseChatModel) -> None:
        if not isinstance(model, BaseChatModel):
            raise TypeError(f"expected a langchain_core BaseChatModel, got {type(model).__name__}")
        self.model = model
        self.name = model_name(model)

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        start = time.perf_counter()
        try:
            reply = self.model.invoke([_TO_LANGCHAIN[m.role](content=m.content) for m in messages])
        except Exception as exc:  # providers raise their own types; the pipeline degrades on LlmError
            raise LlmError(f"LLM {self.name} failed: {type(exc).__name__}: {exc}") from exc
        usage = getattr(reply, "usage_metadata", None) or {}
        finish = reply.response_metadata.get("finish_reason") or reply.response_metadata.get("stop_reason")
        return Completion(
            reply.text,
            int(usage.get("input_tokens", 0)),
            int(usage.get("output_tokens", 0)),
            round(time.perf_counter() - start, 4),
            "length" if finish in ("length", "max_tokens") else (None if finish is None else "stop"),
        )


class KgqaChatModel(BaseChatModel):
    """kgqa's chat model as a LangChain one; every call is added to :attr:`usage`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chat: Any
    """The kgqa :class:`~kgqa.runtime.llm.ChatModel` (usually ``Kgqa.llm``, behind the response cache)."""
    max_tokens: int = Field(default=512, ge=1)
    temperature: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    replies: list[str] = Field(default_factory=list)
    """Every reply's text, in order (the baseline's trace shows the query as the LLM wrote it)."""
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @field_validator("chat")
    @classmethod
    def _a_chat_model(cls, chat: Any) -> Any:
        if not callable(getattr(chat, "complete", None)) or not isinstance(getattr(chat, "name", None), str):
            raise ValueError(f"chat must be a kgqa ChatModel (kg.llm, which is None without an LLM), got {chat!r}")
        return chat

    @property
    def _llm_type(self) -> str:
        return "kgqa"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.chat.name, "max_tokens": self.max_tokens, "temperature": self.temperature}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "kgqa"
        params["ls_model_name"] = kwargs.get("model") or self.chat.name
        params["ls_max_tokens"] = self.max_tokens
        params["ls_temperature"] = self.temperature
        return params

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages, stop))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """kgqa's chat models answer whole: the stream is one chunk, the last, with the reply's usage."""
        reply = self._reply(messages, stop)
        chunk = AIMessageChunk(
            content=reply.content,
            usage_metadata=reply.usage_metadata,
            response_metadata=reply.response_metadata,
            chunk_position="last",
        )
        if run_manager is not None:
            run_manager.on_llm_new_token(reply.text, chunk=ChatGenerationChunk(message=chunk))
        yield ChatGenerationChunk(message=chunk)

    def _reply(self, messages: list[BaseMessage], stop: list[str] | None) -> AIMessage:
        """One completion, counted in :attr:`usage`; the text ends before the first ``stop`` sequence in it (kgqa's
        chat models take no stop sequences, so the reply is cut here)."""
        chat: ChatModel = self.chat
        ours = [Message(_role(m), m.text) for m in messages]
        completion = chat.complete(ours, max_tokens=self.max_tokens, temperature=self.temperature)
        text = _cut(completion.text, stop)
        with self._lock:  # .batch() calls from a thread pool
            self.usage.add(completion)
            self.replies.append(text)
        return AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": completion.prompt_tokens,
                "output_tokens": completion.completion_tokens,
                "total_tokens": completion.prompt_tokens + completion.completion_tokens,
            },
            response_metadata={
                "model_name": self.chat.name,
                "finish_reason": "stop" if text != completion.text else completion.finish_reason,
                "cached": completion.cached,
            },
        )


def _cut(text: str, stop: list[str] | None) -> str:
    """``text`` up to the first of the ``stop`` sequences in it."""
    ends = [text.find(s) for s in stop or () if s and s in text]
    return text[: min(ends)] if ends else text


def _role(message: BaseMessage) -> Role:
    role = _FROM_LANGCHAIN.get(message.type)
    if role is None:
        raise LlmError(f"kgqa's chat models take system, human and ai messages, not {message.type!r}")
    return role
