"""A scripted OpenAI-compatible endpoint for tests: the real ``openai`` client talks to it through an in-memory
transport (no socket), so retries, timeouts, status codes and usage parsing are the client's own code."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from kgqa.runtime.llm import OpenAIChat

SCRIPTED_SETTINGS = {
    "llm": "openai:scripted",
    "openai_base_url": "http://scripted.invalid/v1",
    "llm_max_retries": 0,
    "llm_cache": False,
}
"""kgqa settings for a question answered through a :class:`ScriptedEndpoint` installed as
``kgqa.runtime.app.OpenAIChat`` (no retry, no response cache: every reply is the script's)."""

Reply = str | int | Exception
"""A reply text, an HTTP status code to answer with, or an exception the transport raises (e.g. a timeout)."""


@dataclass
class ScriptedEndpoint:
    replies: list[Reply]
    finish_reason: str = "stop"
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        if not self.replies:
            raise AssertionError("the scripted endpoint ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, int):
            return httpx2.Response(reply, json={"error": {"message": f"scripted {reply}", "type": "server_error"}})
        prompt = sum(len(m["content"].split()) for m in self.requests[-1]["messages"])
        body = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": self.requests[-1]["model"],
            "choices": [
                {"index": 0, "finish_reason": self.finish_reason, "message": {"role": "assistant", "content": reply}}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": len(reply.split()),
                "total_tokens": prompt + len(reply.split()),
            },
        }
        return httpx2.Response(200, json=body)

    def chat(self, model: str = "scripted", **options: Any) -> OpenAIChat:
        options = {
            "base_url": "http://scripted.invalid/v1",
            "api_key": "k",
            "timeout": 5.0,
            "max_retries": 0,
            **options,
        }
        return OpenAIChat(model, http_client=httpx2.Client(transport=httpx2.MockTransport(self)), **options)

    def factory(self) -> Callable[..., OpenAIChat]:
        """A drop-in for ``kgqa.runtime.app.OpenAIChat`` that keeps the configured options but talks to this
        endpoint."""

        def make(model: str, **options: Any) -> OpenAIChat:
            return OpenAIChat(model, http_client=httpx2.Client(transport=httpx2.MockTransport(self)), **options)

        return make
