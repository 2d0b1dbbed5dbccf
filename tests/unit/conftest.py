"""tests/unit: no server and no network. Every unit test runs under a guard that makes creating an internet socket
(AF_INET/AF_INET6), connecting any socket (unix sockets included, so the embedded FalkorDB's too) and resolving a
host name fail loudly, and that refuses to start the embedded FalkorDB server at all. The scripted LLM endpoint
(tests/helpers/scripted_llm.py) is an in-process httpx transport, so the openai client runs here without a socket.

A test that needs the store or a subprocess of the CLI belongs in tests/integration; one that needs Neo4j, in
tests/e2e. Subprocesses (the Neo4j lint runs Node.js) are separate processes and are not guarded."""

from __future__ import annotations

import socket
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest
import urllib3  # noqa: F401  (its import probes for IPv6 with a socket: done here, before any test's guard)

INTERNET = (socket.AF_INET, socket.AF_INET6)
FAILED = pytest.StashKey[bool]()


class SocketBlockedError(RuntimeError):
    """Raised instead of network access in a unit test (not an OSError, so code that retries on connection errors
    does not mistake it for a refused connection)."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and report.when in ("setup", "call"):
        item.stash[FAILED] = True
    return report


@pytest.fixture(autouse=True)
def no_sockets(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Block sockets and the embedded server for one unit test. Each attempt raises :class:`SocketBlockedError`
    and is recorded; an attempt the code under test caught (a CLI turns it into an error message, a client into a
    retry) still fails the test, at teardown."""
    attempts: list[str] = []

    def refuse(what: str) -> SocketBlockedError:
        attempts.append(what)
        return SocketBlockedError(
            f"unit tests use no network and no server: {what} (move the test to "
            "tests/integration, or fake the endpoint as tests/helpers/scripted_llm.py does)"
        )

    real_init = socket.socket.__init__

    def guarded_init(
        self: socket.socket, family: int = -1, type: int = -1, proto: int = -1, fileno: int | None = None
    ) -> None:
        if fileno is None and (family == -1 or family in INTERNET):  # -1: the default, AF_INET
            raise refuse(f"socket.socket({socket.AddressFamily(family if family != -1 else socket.AF_INET).name})")
        real_init(self, family, type, proto, fileno)

    def blocked(name: str) -> Callable[..., Any]:
        def guard(*args: Any, **kwargs: Any) -> Any:
            target = args[1] if name in ("connect", "connect_ex") and len(args) > 1 else args[0] if args else ""
            raise refuse(f"{name}({target!r})")

        return guard

    monkeypatch.setattr(socket.socket, "__init__", guarded_init)
    for method in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, method, blocked(method))
    for function in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
        monkeypatch.setattr(socket, function, blocked(function))

    def no_server(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise refuse(f"starting the embedded FalkorDB server for {getattr(self, 'directory', '?')}")

    monkeypatch.setattr("kgqa.runtime.store.server.EmbeddedServer.start", no_server)
    yield attempts
    if not request.node.stash.get(FAILED, False):  # a test that failed already says why
        assert not attempts, f"a unit test tried to reach the network or start a server: {attempts}"
