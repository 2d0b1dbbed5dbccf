"""A kgqa worker served from a thread of the test process over its real socket, lock and state file, around a
stand-in for :class:`kgqa.runtime.app.Kgqa`: the clients' restart, drain and job protocol tested without starting
a store or a model. Its pid is a ``sleep`` process (alive while the worker serves), so the signals a client sends
a worker that does not answer reach that process, not the tests."""

from __future__ import annotations

import fcntl
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgqa.config import Config
from kgqa.runtime.locks import ReadWriteLock
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.worker.common import WorkerInfo, WorkerPaths, build_id, settings_digests, worker_settings
from kgqa.runtime.worker.service import Admission, Worker, _Server, write_state

GENEROUS = 60.0
"""Seconds a stand-in or a test waits for an event that comes within milliseconds unless kgqa is broken."""


class StandIn:
    """Answers ``schema`` and runs ``load_source`` until released (or cancelled), under the store's publish lock
    as the worker reads."""

    class _Store:
        def __init__(self) -> None:
            self.publishing = ReadWriteLock()

    background = None
    """No follow-ups: its loads are stand-ins."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.store = self._Store()
        self.loading = threading.Event()
        self.release = threading.Event()

    def with_config(self, config: Config) -> StandIn:
        return self

    def schema(self, skb: str) -> str:
        return f"schema of {skb} from {self.name}"

    def load_source(self, skb: str, directory: Path | None = None, *, progress: ProgressSink, **_: Any) -> str:
        task = progress.add_task(f"loading {skb}", total=1)
        self.loading.set()
        for _tick in range(int(GENEROUS / 0.01)):
            if self.release.wait(0.01):
                progress.update(task, completed=1)  # raises Cancelled once the job is cancelled, as a load does
                return f"{skb} loaded by {self.name}"
            progress.update(task, completed=0)
        raise AssertionError(f"the load in {self.name} was neither released nor cancelled within {GENEROUS:g} s")


class ThreadedWorker:
    """Serves ``kg`` for ``config``'s data directory until stopped as a worker stops (``kgqa server stop``, a
    restart's drain)."""

    def __init__(self, config: Config, kg: StandIn, starter: str | None = None) -> None:
        """``starter``: the token of the command that starts it, whose first call a restart waits for."""
        self.paths = WorkerPaths.of(config)
        self.paths.ensure()
        self._lock = self.paths.lock.open("a+", encoding="utf-8")
        fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a worker holds it for its whole life
        self.process = subprocess.Popen(["sleep", "600"])
        self.kg = kg
        info = WorkerInfo(
            pid=self.process.pid,
            build=build_id(),
            settings=settings_digests(config),
            home=str(config.home),
            idle_timeout=0.0,
            started_at="now",
            own=worker_settings(config),
        )
        self.worker = Worker(kg, info, self.paths, Admission.of(config), starter)  # type: ignore[arg-type]
        self.paths.socket.unlink(missing_ok=True)
        self._server = _Server(str(self.paths.socket), self.worker)
        self.worker.shutdown = self._server.shutdown
        write_state(self.paths, info)
        self.thread = threading.Thread(target=self._serve, name=f"worker {kg.name}", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            self._server.serve_forever(poll_interval=0.02)
            self._server.server_close()
            self.paths.socket.unlink(missing_ok=True)
            self.worker.drain()
        finally:
            self.worker.finished.set()
            self.paths.state.unlink(missing_ok=True)
            fcntl.flock(self._lock, fcntl.LOCK_UN)  # before its process ends, as a worker's lock goes before it exits
            self._lock.close()
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        """End it whatever its state (a test's cleanup)."""
        self.kg.release.set()
        self.worker.stop()
        self.thread.join(GENEROUS)


def spawning(workers: list[ThreadedWorker], name: Callable[[int], str]) -> Callable[..., subprocess.Popen[bytes]]:
    """A stand-in for the client's ``_spawn``: the next worker is a :class:`ThreadedWorker` of a new :class:`StandIn`
    (appended to ``workers``) with the spawning command's settings and token."""

    def spawn(config: Config, paths: WorkerPaths, starter: str) -> subprocess.Popen[bytes]:
        started = ThreadedWorker(config, StandIn(name(len(workers))), starter)
        workers.append(started)
        return started.process  # type: ignore[return-value]

    return spawn
