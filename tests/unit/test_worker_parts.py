"""The worker's socket-free parts: the publish lock, who may reuse a worker, job progress and cancellation, the
errors a worker sends back, and its setting."""

from __future__ import annotations

import io
import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kgqa.config import Config, load_config
from kgqa.cypher.errors import CypherSyntaxError as ParseError
from kgqa.errors import Cancelled, ConfigError, CypherSyntaxError, SkbNotLoadedError, WorkerError
from kgqa.runtime.locks import ReadWriteLock
from kgqa.runtime.progress import JobProgress
from kgqa.runtime.store.protocols import ManagedServer
from kgqa.runtime.worker import client
from kgqa.runtime.worker.client import read_state
from kgqa.runtime.worker.common import Call, WorkerInfo, WorkerPaths, build_id, settings_digests, worker_settings
from kgqa.runtime.worker.service import Worker, portable
from tests.helpers.environment import QUIET


def test_a_publish_waits_for_readers_and_holds_new_ones_off() -> None:
    lock = ReadWriteLock()
    events: list[str] = []
    reading = threading.Event()
    release = threading.Event()

    def reader() -> None:
        with lock.read(), lock.read():  # nested reads of one thread never wait
            reading.set()
            release.wait(5)
            events.append("read done")

    def writer() -> None:
        reading.wait(5)
        with lock.write():
            events.append("published")
            time.sleep(0.05)
            events.append("publish done")

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    reading.wait(5)
    time.sleep(0.05)
    assert events == []  # the writer waits for the reader
    release.set()
    threads[0].join(5)
    threads[1].join(5)
    late: list[str] = []
    with lock.read():
        late.append("read after")
    assert events == ["read done", "published", "publish done"] and late == ["read after"]


def test_a_reader_waits_while_a_publish_runs() -> None:
    lock = ReadWriteLock()
    order: list[str] = []
    inside = threading.Event()

    def writer() -> None:
        with lock.write():
            inside.set()
            time.sleep(0.1)
            order.append("publish")

    t = threading.Thread(target=writer)
    t.start()
    inside.wait(5)
    with lock.read():
        order.append("read")
    t.join(5)
    assert order == ["publish", "read"]


def test_a_waiting_publish_holds_new_readers_off_but_not_nested_reads() -> None:
    """Writer preference: questions arriving without pause never starve a load's publish."""
    lock = ReadWriteLock()
    order: list[str] = []
    outer = threading.Event()
    release = threading.Event()

    def long_reader() -> None:
        with lock.read():
            outer.set()
            release.wait(5)
            with lock.read():  # nested, while the writer waits: must not deadlock
                order.append("nested read")

    def writer() -> None:
        with lock.write():
            order.append("publish")

    def late_reader() -> None:
        with lock.read():
            order.append("late read")

    first = threading.Thread(target=long_reader)
    first.start()
    outer.wait(5)
    publish = threading.Thread(target=writer)
    publish.start()
    _wait_until(lambda: lock._writers_waiting == 1)
    late = threading.Thread(target=late_reader)
    late.start()
    time.sleep(0.05)
    assert order == []  # the late reader queues behind the waiting publish
    release.set()
    for t in (first, publish, late):
        t.join(5)
    assert order == ["nested read", "publish", "late read"]


def _wait_until(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class _BlockingLoads:
    """A Kgqa stand-in whose load runs until released or cancelled."""

    background = None

    def __init__(self) -> None:
        self.release = threading.Event()

    def load_source(self, skb: str, *, progress: JobProgress) -> str:
        task = progress.add_task(f"loading {skb}")
        for _ in range(6000):
            if self.release.wait(0.01):
                return f"{skb} loaded"
            progress.update(task, completed=0)  # raises Cancelled once the job is cancelled, as a load does
        raise AssertionError("the load was neither released nor cancelled within 60 s")


def test_the_worker_runs_one_load_at_a_time_and_never_reuses_a_job_id(tmp_path: Path) -> None:
    config = load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)
    kg = _BlockingLoads()
    worker = Worker(kg, _info(config), WorkerPaths.of(config))  # type: ignore[arg-type]
    first = worker._start_job(kg, Call("load_source", config, ("hpo",), {}))  # type: ignore[arg-type]
    with pytest.raises(WorkerError, match=r"already running a load \(job 1\)"):
        worker._start_job(kg, Call("load_source", config, ("prime",), {}))  # type: ignore[arg-type]
    kg.release.set()
    _wait_until(lambda: worker._job(first).done.is_set())
    assert worker._poll(first).done is True  # kept until polled done once, then gone
    with pytest.raises(WorkerError, match="has no job 1"):
        worker._poll(first)
    second = worker._start_job(kg, Call("load_source", config, ("prime",), {}))  # type: ignore[arg-type]
    _wait_until(lambda: worker._job(second).done.is_set())
    state = worker._poll(second)
    assert second == 2 and state.result == "prime loaded" and state.tasks == (("loading prime", 100.0, 0.0),)


def _info(config: Config) -> WorkerInfo:
    return WorkerInfo(
        1, build_id(), settings_digests(config), str(config.home), 600.0, "now", own=worker_settings(config)
    )


def test_a_worker_is_reused_only_by_the_same_build_and_resource_settings(tmp_path: Path) -> None:
    config = load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)
    info = _info(config)
    assert info.differences(build_id(), settings_digests(config)) is None
    # per-call settings travel with each call: no restart for them
    per_call = replace(config, top_k=5, steps="vss", llm="openai:gpt", alpha=0.5)
    assert info.differences(build_id(), settings_digests(per_call)) is None
    other = replace(config, embedder="/models/other", ef_runtime=10)
    assert info.differences(build_id(), settings_digests(other)) == (
        "it was started with other settings (embedder, ef_runtime)"
    )
    # an LLM's endpoint travels with the call; it opens the embedder only where that is served by the endpoint
    assert info.differences(build_id(), settings_digests(replace(config, openai_base_url="http://x/v1"))) is None
    served = replace(config, embedder="openai:text-embedding-3-small")
    assert info.differences(build_id(), settings_digests(served)) == (
        "it was started with other settings (embedder, openai_base_url, openai_api_key)"
    )
    neo4j = replace(config, store="neo4j")
    assert info.differences(build_id(), settings_digests(neo4j)) == (
        "it was started with other settings (store, neo4j_uri, neo4j_user, neo4j_password, neo4j_database, "
        "neo4j_row_cap, load_batch_size, ef_runtime)"
    )
    # the worker's own settings (capacity, caches) never restart it: it keeps its own, and says which
    mine = replace(config, worker_max_calls=4, embed_batch_size=7)
    assert info.differences(build_id(), settings_digests(mine)) is None
    assert info.kept(config) is None
    assert info.kept(mine) == "embed_batch_size 64 (this command: 7), worker_max_calls 2 (this command: 4)"
    assert info.differences("0.0.1+older", settings_digests(config)) == (
        f"it runs kgqa {info.build}, this command is kgqa 0.0.1+older"
    )


def test_settings_digests_do_not_reveal_secrets(tmp_path: Path) -> None:
    config = load_config({"home": tmp_path, "embedder": "openai:text-embedding-3-small"}, env=QUIET, cwd=tmp_path)
    config = replace(config, openai_api_key="sk-secret-value")
    digests = settings_digests(config)
    assert "sk-secret-value" not in repr(digests)
    assert digests["openai_api_key"] != settings_digests(replace(config, openai_api_key="other"))["openai_api_key"]


def test_build_id_changes_with_the_source(tmp_path: Path) -> None:
    import kgqa

    checkout = tmp_path / "checkout"  # as in the repository: kgqa/cypher is a symlink to the top-level cypher/
    for package in ("kgqa", "cypher"):
        (checkout / package).mkdir(parents=True)
        (checkout / package / "__init__.py").write_text("")
    (checkout / "kgqa" / "cypher").symlink_to("../cypher")
    (checkout / "unrelated").mkdir()
    before = build_id(checkout / "kgqa")
    (checkout / "unrelated" / "x.py").write_text("NOT_KGQA = True\n")  # beside kgqa: not its code
    assert build_id(checkout / "kgqa") == before
    (checkout / "cypher" / "__init__.py").write_text("CHANGED = True\n")  # through the symlink
    after = build_id(checkout / "kgqa")
    assert after != before and after.startswith(kgqa.__version__ + "+")


def test_job_progress_records_and_cancels() -> None:
    cancelled = threading.Event()
    progress = JobProgress(cancelled)
    task = progress.add_task("writing nodes", total=10)
    progress.advance(task, 4)
    other = progress.add_task("reading vectors", total=None)
    progress.update(other, total=1, completed=1)
    assert progress.snapshot() == (("writing nodes", 10, 4.0), ("reading vectors", 1, 1.0))
    cancelled.set()
    with pytest.raises(Cancelled, match="the graph that was loaded before is unchanged"):
        progress.advance(task, 1)


def test_errors_cross_to_the_client_as_they_are_and_bugs_as_remote_bugs(tmp_path: Path) -> None:
    mine = SkbNotLoadedError("SKB 'hpo' is not loaded; run: kgqa load hpo")
    sent = pickle.loads(pickle.dumps(portable(mine, "log")))
    assert type(sent) is SkbNotLoadedError and str(sent) == str(mine)
    syntax = pickle.loads(pickle.dumps(portable(CypherSyntaxError("no MATCH (at character 3)", 3), "log")))
    assert type(syntax) is CypherSyntaxError and (str(syntax), syntax.position) == ("no MATCH (at character 3)", 3)
    # the Cypher front end's own error never leaves kgqa's API (Kgqa.explain raises kgqa's): here, a bug
    leaked = pickle.loads(pickle.dumps(portable(ParseError("no MATCH", 3), "log")))
    assert type(leaked).__name__ == "RemoteBug" and "no MATCH (at character 3)" in str(leaked)
    bug = pickle.loads(pickle.dumps(portable(KeyError("x"), "/home/w/worker.log")))
    assert type(bug).__name__ == "RemoteBug" and "KeyError" in str(bug) and "/home/w/worker.log" in str(bug)


def test_worker_idle_timeout_setting(tmp_path: Path) -> None:
    assert load_config({"home": tmp_path}, env={}, cwd=tmp_path).worker_idle_timeout == 600.0
    assert load_config({}, env={"KGQA_WORKER_IDLE_TIMEOUT": "0"}, cwd=tmp_path).worker_idle_timeout == 0.0
    with pytest.raises(ConfigError, match="'worker_idle_timeout' must be >= 0"):
        load_config({"worker_idle_timeout": -1}, env={}, cwd=tmp_path)


def test_a_worker_whose_store_failed_a_restart_stops_once_idle(tmp_path: Path) -> None:
    """Only reopening the store mends a failed restart of its server: the worker stops, the next command starts one."""

    class _Store(ManagedServer):
        """A managed server that has not died, until its restart fails."""

        failure: str | None = None  # type: ignore[assignment]
        server_pid: int | None = None  # type: ignore[assignment]

        def supervise(self) -> None:
            """Nothing died."""

    class _Kg:
        store = _Store()
        background = None

    config = load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)
    worker = Worker(_Kg(), _info(config), WorkerPaths.of(config))  # type: ignore[arg-type]
    watcher = threading.Thread(target=worker.watch, kwargs={"interval": 0.01}, daemon=True)
    watcher.start()
    time.sleep(0.1)
    assert not worker.stopping.is_set()  # a healthy store: the idle timeout (600 s) is far off
    _Kg.store.failure = "the FalkorDB server could not be restarted: exited with code 1"
    _wait_until(worker.stopping.is_set)
    worker.finished.set()  # serve() sets it once the calls are drained
    watcher.join(5)
    assert not watcher.is_alive()


class _Answers(_BlockingLoads):
    """A Kgqa stand-in that also answers schema calls, under the store's publish lock as the worker reads."""

    class _Store:
        publishing = ReadWriteLock()

    store = _Store()

    def with_config(self, config: Config) -> _Answers:
        return self

    def schema(self, skb: str) -> str:
        return f"schema of {skb}"


def _worker(tmp_path: Path, starter: str | None = None) -> tuple[Worker, _Answers, Config]:
    config = load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)
    kg = _Answers()
    WorkerPaths.of(config).ensure()
    return Worker(kg, _info(config), WorkerPaths.of(config), starter=starter), kg, config  # type: ignore[arg-type]


def test_a_restart_lets_a_load_in_flight_end_and_its_client_take_the_result(tmp_path: Path) -> None:
    worker, kg, config = _worker(tmp_path)
    job = worker.answer(Call("load_source", config, ("hpo",))).value
    worker.stop(drain=True)  # another client's settings need another worker
    assert worker.stopping.is_set() and not worker._job(job).cancelled.is_set()
    refused = worker.answer(Call("schema", config, ("hpo",)))
    assert "stopping" in str(refused.error)  # a call arriving now goes to the next worker
    drained = threading.Thread(target=worker.drain)
    drained.start()
    drained.join(0.2)
    assert drained.is_alive()  # the load runs on
    kg.release.set()
    _wait_until(lambda: worker._job(job).done.is_set())
    drained.join(0.2)
    assert drained.is_alive()  # its result is not taken yet
    assert worker._poll(job).result == "hpo loaded"
    drained.join(5)
    assert not drained.is_alive()


def test_a_stop_cancels_the_load_and_cuts_a_restart_short(tmp_path: Path) -> None:
    worker, _, config = _worker(tmp_path)
    job = worker.answer(Call("load_source", config, ("hpo",))).value
    worker.stop(drain=True)
    assert worker._cut_at == float("inf")
    worker.stop()  # kgqa server stop, or SIGTERM, meanwhile
    assert worker._job(job).cancelled.is_set() and worker._cut_at < float("inf")
    drained = threading.Thread(target=worker.drain)
    drained.start()
    drained.join(60)  # the cancelled load ends at its next step; its result is not waited for
    assert not drained.is_alive() and type(worker._job(job).error).__name__ == "Cancelled"


def test_a_restart_waits_for_the_first_call_of_the_worker_s_starter(tmp_path: Path) -> None:
    """Only that call is admitted meanwhile: another client's goes to the next worker, and nothing new (a load)
    holds the restart up."""
    worker, _, config = _worker(tmp_path, starter="token")
    assert worker.answer(Call("stop", None, (True,))).value == worker.info  # a restart's drain, asked
    assert "stopping" in str(worker.answer(Call("schema", config, ("hpo",))).error)
    assert "stopping" in str(worker.answer(Call("load_source", config, ("hpo",))).error)
    assert not worker.stopping.is_set()  # still waiting for the starter's first call
    assert worker.answer(Call("schema", config, ("hpo",), starter="token")).value == "schema of hpo"
    _wait_until(worker.stopping.is_set)
    assert "stopping" in str(worker.answer(Call("schema", config, ("hpo",), starter="token")).error)


def test_a_restart_is_written_to_the_state_file_before_it_is_answered(tmp_path: Path) -> None:
    """A command that finds the worker draining waits for it without a limit, even if the restarter is gone."""
    worker, _, config = _worker(tmp_path)
    assert worker.answer(Call("stop", None, (True,))).value == worker.info
    state = read_state(WorkerPaths.of(config))
    assert state is not None and state.draining and replace(state, draining=False) == worker.info


def test_the_openai_endpoint_of_each_command_s_environment_travels_with_its_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker runs in its starter's environment: another command's OPENAI_* must reach it in the call, and the
    starter's must not stand in for a command that has none."""
    config = load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert client._client_environment(config) is config
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mine")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    sent = client._client_environment(config)
    assert (sent.openai_api_key, sent.openai_base_url) == ("sk-mine", "http://127.0.0.1:9/v1")
    own = replace(config, openai_api_key="sk-setting")  # a setting wins over the environment, as in process
    assert client._client_environment(own).openai_api_key == "sk-setting"
    monkeypatch.setenv("NEO4J_AUTH", "reader/s3cret")  # read as open_store reads it, for a Neo4j store only
    neo4j = client._client_environment(replace(config, store="neo4j"))
    assert (neo4j.neo4j_user, neo4j.neo4j_password) == ("reader", "s3cret")
    assert client._client_environment(config).neo4j_password is None
    started: dict[str, Any] = {}

    class _Popen:
        def __init__(self, argv: list[str], **kwargs: Any) -> None:
            started.update(kwargs)
            self.stdin = io.BytesIO()
            self.stdin.close = lambda: None  # type: ignore[method-assign]

    monkeypatch.setattr(client.subprocess, "Popen", _Popen)
    WorkerPaths.of(config).ensure()
    process = client._spawn(sent, WorkerPaths.of(config), "token")
    assert not {"OPENAI_API_KEY", "OPENAI_BASE_URL", "NEO4J_AUTH"} & set(started["env"])
    assert pickle.loads(process.stdin.getvalue()) == (sent, "token")  # type: ignore[attr-defined]


def test_the_embedder_is_made_with_its_opener_s_settings_whichever_view_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's own ``embed_batch_size`` (what its status and the kept-settings notice say), not the setting of
    the first call that happens to need the embedder."""
    from kgqa.runtime import app

    made: list[int] = []

    def make_encoder(spec: str, **kwargs: Any) -> object:
        made.append(kwargs["batch_size"])
        return object()

    monkeypatch.setattr(app, "make_encoder", make_encoder)
    config = replace(load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path), embed_batch_size=16)
    kg = app.Kgqa(config, store=object())  # type: ignore[arg-type]
    view = kg.with_config(replace(config, embed_batch_size=7))
    assert view.embedder is kg.embedder and made == [16]
    view.embedder.cache.close()


def test_an_mcp_server_s_worker_clients_wait_at_most_its_call_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgqa.mcp import server

    asked: list[float | None] = []
    monkeypatch.setattr(client, "connect_worker", lambda config, notice, *, wait=None: asked.append(wait))
    config = replace(load_config({"home": tmp_path}, env=QUIET, cwd=tmp_path), mcp_call_timeout=42.0)
    server.default_clients(config)._opener()  # what the pool calls to open a client
    assert asked == [42.0]
