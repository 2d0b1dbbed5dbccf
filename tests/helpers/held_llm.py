"""An OpenAI-compatible chat endpoint on loopback whose replies wait until the test releases them: a worker's call
that asks its LLM stays in flight for exactly as long as a test needs (the real ``openai`` client in the worker
talks to it over HTTP)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD_LIMIT = 300.0
"""Seconds a request waits for the release at most: a failing test never leaves a request hanging."""


class HeldEndpoint:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.arrived = threading.Event()
        """Set when the first request has come (and waits)."""
        self.release = threading.Event()
        self.requests = 0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                request: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
                endpoint.requests += 1
                endpoint.arrived.set()
                endpoint.release.wait(HOLD_LIMIT)
                body = json.dumps(
                    {
                        "id": "held",
                        "object": "chat.completion",
                        "created": 0,
                        "model": request.get("model", "held"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": endpoint.reply},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def close(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
