"""The API is declared once (kgqa.api.Api, issue 32): the in-process Kgqa implements exactly its signatures, the
worker's RemoteKgqa is derived from it, and the worker serves exactly its calls."""

from __future__ import annotations

import inspect
import typing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import kgqa
from kgqa.api import CALLS, JOB_CALLS, Api
from kgqa.config import Config
from kgqa.errors import WorkerStoppingError
from kgqa.runtime.app import Kgqa
from kgqa.runtime.worker import client
from kgqa.runtime.worker.client import RemoteKgqa
from kgqa.runtime.worker.common import WorkerInfo, build_id, settings_digests


def test_the_calls_are_the_declared_methods() -> None:
    assert {"ask", "explain", "meta", "schema", "node", "load_source", "text2cypher"} <= CALLS
    assert "close" not in CALLS and not any(name.startswith("_") for name in CALLS)
    assert {"load_source"} == JOB_CALLS


@pytest.mark.parametrize("name", sorted(CALLS))
def test_in_process_and_remote_signatures_are_the_declared_one(name: str) -> None:
    declared = inspect.signature(getattr(Api, name))
    assert inspect.signature(getattr(Kgqa, name)) == declared, f"Kgqa.{name} differs from kgqa.api.Api.{name}"
    remote = vars(RemoteKgqa)[name]  # made from the declaration (client._remote), not written by hand
    assert remote.__wrapped__ is getattr(Api, name) and remote.__qualname__ == f"RemoteKgqa.{name}"
    assert inspect.signature(remote) == declared and remote.__doc__


def test_the_worker_serves_the_declared_calls() -> None:
    from kgqa.runtime.worker import service

    assert service.CALLS is CALLS and service.JOB_CALLS is JOB_CALLS


def test_kgqa_has_every_member_of_the_api() -> None:
    members = {name for name in vars(Api) if not name.startswith("_") or name in ("__enter__", "__exit__")}
    assert members <= set(dir(Kgqa)) | {"config"}
    assert "config" in typing.get_type_hints(Api, globalns=vars(kgqa.api))


class Recorder:
    """The connection a RemoteKgqa talks through, recording what it sends."""

    def __init__(self, reply: Any = None) -> None:
        self.sent: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.reply = reply

    broken = False

    def call(self, method: str, config: Any, *args: Any, **kwargs: Any) -> Any:
        return self.request(client.Call(method, config, args, kwargs))

    def request(self, call: client.Call) -> Any:
        self.sent.append((call.method, call.args, call.kwargs))
        return self.reply

    def close(self) -> None:
        pass


CONFIG = Config(home=Path("/nonexistent/kgqa-home"))


def _remote(conn: Recorder, config: Config = CONFIG) -> Any:
    """A client of a worker opened with ``config``'s settings, talking through ``conn``."""
    info = WorkerInfo(1, build_id(), settings_digests(config), str(config.home), 600.0, "now")
    return RemoteKgqa(config, conn, info, print)  # type: ignore[arg-type]


def test_a_remote_call_sends_what_was_given_by_name() -> None:
    conn = Recorder(reply="answer")
    remote = _remote(conn)
    assert remote.ask("Which genes?", "hpo", top_k=3) == "answer"
    assert conn.sent == [("ask", (), {"question": "Which genes?", "skb": "hpo", "top_k": 3})]


def test_a_remote_call_that_does_not_fit_the_declaration_fails_before_sending() -> None:
    conn = Recorder()
    remote = _remote(conn)
    with pytest.raises(TypeError):
        remote.ask("Which genes?", "hpo", 5)  # top_k is keyword-only, as in process
    with pytest.raises(TypeError):
        remote.ask("Which genes?", skb="hpo", colour="red")
    assert conn.sent == []


def test_paths_are_resolved_and_sequences_made_lists_for_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    conn = Recorder()
    remote = _remote(conn)
    remote.export_neo4j_admin("hpo", Path("out"))
    remote.generate_questions("hpo", ("gene",), 2, 1, 0.5, families=("analyst",))
    (_, _, export), (_, _, generate) = conn.sent
    assert export["out"] == tmp_path / "out"
    assert generate["types"] == ["gene"] and generate["families"] == ["analyst"]


def test_a_job_keeps_its_progress_here_and_follows_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    shared, own = Recorder(), Recorder(reply=7)
    remote = _remote(shared)
    followed: list[tuple[Any, int, Any]] = []

    def follow(conn: Any, job: int, progress: Any) -> Any:
        followed.append((conn, job, progress))
        return client.JobState(done=True, tasks=(), result="report", error=None)

    monkeypatch.setattr(client, "_hello", lambda paths: (own, remote.info))  # the job's own connections
    monkeypatch.setattr(client, "_follow", follow)
    sink = object()
    assert remote.load_source("hpo", force=True, progress=sink) == "report"
    assert own.sent == [("load_source", (), {"skb": "hpo", "force": True})] and shared.sent == []
    assert followed == [(own, 7, sink)]


class _Stopping(Recorder):
    """A worker on its way out: it refuses every call before any work."""

    def request(self, call: client.Call) -> Any:
        self.sent.append((call.method, call.args, call.kwargs))
        raise WorkerStoppingError("the kgqa worker is stopping; run the command again")


def test_a_call_refused_by_a_stopping_worker_goes_to_the_next_one(monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _Stopping(), Recorder(reply="schema")
    remote = _remote(old)
    monkeypatch.setattr(client, "_connect_worker", lambda config, notice, patience: _remote(new))
    assert remote.schema("hpo") == "schema"
    assert [m for m, _, _ in old.sent] == ["schema"] and [m for m, _, _ in new.sent] == ["schema"]


def test_a_view_with_other_store_settings_goes_to_a_worker_opened_with_them(monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = Recorder(reply="old"), Recorder(reply="new")
    remote = _remote(old)
    connected: list[Config] = []

    def connect(config: Config, notice: Any, patience: Any) -> Any:
        connected.append(config)
        return _remote(new, config)

    monkeypatch.setattr(client, "_connect_worker", connect)
    assert remote.with_config(replace(CONFIG, top_k=3, llm="openai:x")).schema("hpo") == "old"  # per call
    other = replace(CONFIG, ef_runtime=50)
    assert remote.with_config(other).schema("hpo") == "new"
    assert connected == [other] and len(old.sent) == 1 and len(new.sent) == 1


def test_a_connection_cut_between_a_call_and_its_reply_is_not_used_again() -> None:
    """Otherwise the late reply of the cut call would be read as the next call's answer."""
    import socket

    from kgqa.runtime.worker.client import _Connection

    ours, worker = socket.socketpair()
    conn = _Connection(ours)
    conn.timeout(0.1)
    with pytest.raises(TimeoutError):
        conn.call("schema", None, "hpo")  # the worker does not answer in time
    assert conn.broken
    with pytest.raises(ConnectionResetError):
        conn.call("schema", None, "hpo")
    worker.close()
