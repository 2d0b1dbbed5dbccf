"""The kgqa worker: one background process per data directory that holds the open store, the loaded embedder and the
LLM clients, so that a command after the first one skips starting the store server and importing the models.

Started by a command (``python -m kgqa.runtime.worker``, its configuration pickled on stdin); serves :class:`Call`
objects on ``<home>/worker/worker.sock``, one thread per connection; exits after ``worker_idle_timeout`` seconds without
a command, on ``kgqa server stop`` or on SIGTERM, closing the store (its server stops with it; if the worker is killed,
the server dies with it by PR_SET_PDEATHSIG). It opens the store in its main thread, which lives as long as it does:
the store server's death signal follows the thread that started it.

A load runs as a job (a thread) that its client polls for progress; a job whose client stops polling (killed, or
interrupted) is cancelled, leaving the previous graph intact, as an interrupted load does. Answers read under the
store's publish lock, so a load's atomic publish never falls inside one answer.
"""

from __future__ import annotations

import collections
import fcntl
import functools
import itertools
import json
import logging
import math
import os
import pickle
import signal
import socketserver
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import IO, Any

from kgqa.api import CALLS, JOB_CALLS
from kgqa.config import Config
from kgqa.errors import KgqaError, WorkerBusyError, WorkerError, WorkerStoppingError
from kgqa.runtime.app import Kgqa
from kgqa.runtime.background import Background
from kgqa.runtime.progress import JobProgress
from kgqa.runtime.store.protocols import ManagedServer
from kgqa.runtime.worker.common import (
    Call,
    JobState,
    RemoteBug,
    Reply,
    WorkerInfo,
    WorkerPaths,
    WorkerStatus,
    build_id,
    peer_uid,
    receive,
    rss_mib,
    send,
    settings_digests,
    worker_settings,
)

log = logging.getLogger("kgqa.worker")

ORPHANED_AFTER = 30.0
"""Seconds without a poll after which a job's client counts as gone and the job is cancelled."""
STOP_WAIT = 60.0
"""Seconds a stopping worker waits for the commands it serves to end before it closes the store anyway (a restart
for another client's settings waits for them without a limit of its own: :meth:`Worker.stop`)."""
FIRST_CALL_WAIT = 10.0
"""Seconds after it is ready that a worker asked to restart waits for its first call: the one its starter makes
(within milliseconds), so that two clients restarting it in turn each get an answer."""


class Admission:
    """At most ``running`` calls answered at once, at most ``waiting`` waiting for a turn, none waiting longer than
    ``wait`` seconds: beyond that a call is refused as busy at once, so that a worker past its capacity answers
    every client quickly, and the queue, the memory it holds and the wait it means stay bounded."""

    def __init__(self, running: int, waiting: int, wait: float) -> None:
        self.max_running, self.max_waiting, self.wait = running, waiting, wait
        self._running = 0
        self._queue: collections.deque[object] = collections.deque()
        """The waiting calls' tokens, first come first served: a call arriving as a turn frees does not pass them."""
        self._closed = False
        self._cond = threading.Condition()

    @classmethod
    def of(cls, config: Config) -> Admission:
        return cls(config.worker_max_calls, config.worker_max_waiting, config.worker_queue_timeout)

    def _busy(self, why: str) -> WorkerBusyError:
        return WorkerBusyError(
            f"the kgqa worker is busy: {why} (worker_max_calls {self.max_running}, worker_max_waiting "
            f"{self.max_waiting}, worker_queue_timeout {self.wait:g} s); try again shortly"
        )

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self._cond:
            if self._closed:
                raise WorkerStoppingError("the kgqa worker is stopping; run the command again")
            if self._running >= self.max_running or self._queue:
                if len(self._queue) >= self.max_waiting:
                    raise self._busy(f"{self._running} calls running and {len(self._queue)} waiting")
                token = object()
                self._queue.append(token)
                try:
                    ready = self._cond.wait_for(
                        lambda: self._closed or (self._running < self.max_running and self._queue[0] is token),
                        self.wait,
                    )
                finally:
                    self._queue.remove(token)
                    self._cond.notify_all()  # the next in line may go now
                if self._closed:
                    raise WorkerStoppingError("the kgqa worker is stopping; run the command again")
                if not ready:
                    raise self._busy(f"no turn within {self.wait:g} s")
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def close(self) -> None:
        """Refuse every waiting and later call as the worker stops (their clients send them to the next worker);
        the calls running finish."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def counts(self) -> tuple[int, int]:
        with self._cond:
            return self._running, len(self._queue)


@dataclass
class Job:
    id: int
    progress: JobProgress
    cancelled: threading.Event
    polled: float
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


def portable(exc: BaseException, log_path: str) -> BaseException:
    """The error to send to the client: kgqa's own errors as they are (their messages and exit codes are the
    client's), anything else as a :class:`RemoteBug` pointing at the traceback in the log."""
    if isinstance(exc, KgqaError):
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # an error whose arguments do not survive pickling: report its text
            return WorkerError(str(exc))
    log.error("internal error:\n%s", "".join(traceback.format_exception(exc)))
    return RemoteBug(f"{type(exc).__name__}: {exc} (in the kgqa worker; traceback in {log_path})")


class Worker:
    """Serves calls on one open :class:`Kgqa`; counts what is in flight to know when it is idle."""

    def __init__(
        self,
        kg: Kgqa,
        info: WorkerInfo,
        paths: WorkerPaths,
        admission: Admission | None = None,
        starter: str | None = None,
    ) -> None:
        self.kg = kg
        self.info = info
        self.paths = paths
        self._lock = threading.Lock()
        self._in_flight = 0
        self._idle_since = time.monotonic()
        self._jobs: dict[int, Job] = {}
        self._job_ids = itertools.count(1)
        self.admission = admission or Admission.of(Config())
        self.stopping = threading.Event()
        self.ready_at = time.monotonic()
        self.starter = starter
        """The token of the command that started this worker (:attr:`Call.starter`)."""
        self.served = threading.Event()
        """Set once the starter's first call has been admitted, or its first connection closed without one (``kgqa
        server start``, a starter that died): :data:`FIRST_CALL_WAIT`. At once for a worker without a starter."""
        if starter is None:
            self.served.set()
        self.drain_asked = threading.Event()
        """Set once a restart asked for a drain: from then on only the starter's first call is admitted (the others go
        to the next worker), so that nothing new holds the restart up while it waits for that call."""
        self.finished = threading.Event()
        """Set once the calls are drained, before the store closes: ends :meth:`watch`."""
        self._cut_at = math.inf
        """When a stopping worker stops waiting for its calls (infinite while a restart drains them)."""
        self.shutdown: Callable[[], None] = lambda: None
        """Set by :func:`serve`: ends the accept loop (from any thread but the loop's own)."""

    def answer(self, call: Call) -> Reply:
        counted = call.method not in ("hello", "status", "job_poll")
        if counted:
            with self._lock:
                self._in_flight += 1
        started = time.perf_counter()
        try:
            return Reply(value=self._dispatch(call))
        except Exception as exc:
            return Reply(error=portable(exc, str(self.paths.log)))
        finally:
            if counted:
                with self._lock:
                    self._in_flight -= 1
                    self._idle_since = time.monotonic()
                log.info("%s %.3f s", call.method, time.perf_counter() - started)

    def _dispatch(self, call: Call) -> Any:
        if call.method == "hello":
            return self.info
        if call.method == "status":
            return self.status()
        if call.method == "stop":
            drain = bool(call.args and call.args[0])
            if drain:
                self.drain_asked.set()
            if drain and not self.stopping.is_set():  # before the answer: a command after its restarter sees it
                try:
                    write_state(self.paths, replace(self.info, draining=True))
                except OSError as exc:  # the drain goes on; a command waiting meanwhile has its usual bound
                    log.warning("could not record the restart's drain in %s: %s", self.paths.state, exc)
            threading.Thread(target=self.stop, kwargs={"drain": drain}, name="stop", daemon=True).start()
            return self.info
        if call.method == "job_poll":
            return self._poll(*call.args)
        if call.method == "job_cancel":
            return self._cancel(*call.args)
        if call.method in CALLS:
            if self.stopping.is_set() or (self.drain_asked.is_set() and not self.is_starter(call)):
                raise WorkerStoppingError("the kgqa worker is stopping; run the command again")
            view = self._view(call.config)
            if call.method in JOB_CALLS:
                return self._start_job(view, call)
            with self.admission.turn(), self.kg.store.publishing.read():
                self._admitted(call)
                return getattr(view, call.method)(*call.args, **call.kwargs)
        raise WorkerError(f"the kgqa worker has no call '{call.method}'")

    def _admitted(self, call: Call) -> None:
        if self.is_starter(call):
            self.served.set()

    def is_starter(self, call: Call) -> bool:
        return self.starter is not None and call.starter == self.starter

    def _view(self, config: Config | None) -> Kgqa:
        if config is None:
            raise WorkerError("the call carries no configuration")
        why = self.info.differences(self.info.build, settings_digests(config))
        if why is not None:
            raise WorkerError(f"this worker cannot serve the command: {why}; run kgqa server stop")
        return self.kg.with_config(config)

    def _start_job(self, view: Kgqa, call: Call) -> int:
        """Start a load; one at a time, as the data directory's lock allows one loading process without a worker
        (two loads of one SKB would share its staging graph)."""
        cancelled = threading.Event()
        with self._lock:
            running = [j.id for j in self._jobs.values() if not j.done.is_set()]
            if running:
                raise WorkerError(
                    f"the kgqa worker is already running a load (job {running[0]}); wait for it to end or interrupt it"
                )
            job = Job(next(self._job_ids), JobProgress(cancelled), cancelled, time.monotonic())
            self._jobs[job.id] = job
            self._in_flight += 1
        self._admitted(call)

        def run() -> None:
            try:
                job.result = getattr(view, call.method)(*call.args, progress=job.progress, **call.kwargs)
            except Exception as exc:
                job.error = portable(exc, str(self.paths.log))
            finally:
                with self._lock:
                    self._in_flight -= 1
                    self._idle_since = time.monotonic()
                job.done.set()
                log.info("job %d (%s) ended: %s", job.id, call.method, type(job.error).__name__ if job.error else "ok")

        threading.Thread(target=run, name=f"job-{job.id}", daemon=True).start()
        return job.id

    def _job(self, job_id: int) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise WorkerError(f"the kgqa worker has no job {job_id}")
        return job

    def _poll(self, job_id: int) -> JobState:
        job = self._job(job_id)
        job.polled = time.monotonic()
        done = job.done.is_set()
        if done:
            with self._lock:
                self._jobs.pop(job_id, None)
        return JobState(job.progress.snapshot(), done, job.result if done else None, job.error if done else None)

    def _cancel(self, job_id: int) -> None:
        self._job(job_id).cancelled.set()

    def status(self) -> WorkerStatus:
        with self._lock:
            busy = self._in_flight
            idle = 0.0 if busy else time.monotonic() - self._idle_since
        store = self.kg.store
        store_pid = store.server_pid if isinstance(store, ManagedServer) else None  # now: it may have been restarted
        memory = {"worker": rss_mib(os.getpid()), "store": rss_mib(store_pid)}
        info = replace(self.info, store_pid=store_pid)
        rss = {k: v for k, v in memory.items() if v is not None}
        follow = self.kg.background.states() if self.kg.background is not None else {}
        return WorkerStatus(info, busy, round(idle, 1), rss, self.admission.counts()[1], follow)

    def watch(self, interval: float = 0.5) -> None:
        """Replace a store server that died, cancel orphaned jobs (also while the calls drain); stop once idle for
        the idle timeout."""
        timeout = self.info.idle_timeout
        store = self.kg.store
        managed = store if isinstance(store, ManagedServer) else None  # the embedded store's; Neo4j is not ours
        while not self.finished.wait(interval):
            if managed is not None:
                managed.supervise()
            now = time.monotonic()
            with self._lock:
                jobs = list(self._jobs.values())
            for job in jobs:
                if now - job.polled <= ORPHANED_AFTER:
                    continue
                if job.done.is_set():  # its client never came back for the result
                    with self._lock:
                        self._jobs.pop(job.id, None)
                elif not job.cancelled.is_set():
                    log.warning("job %d: no poll for %.0f s, its client is gone; cancelling it", job.id, ORPHANED_AFTER)
                    job.cancelled.set()
            if self.stopping.is_set():
                continue
            following = self.kg.background is not None and self.kg.background.busy()
            with self._lock:
                if following:  # the documents' embedding counts as work: idle from when it ends
                    self._idle_since = now
                idle = not self._in_flight and now - self._idle_since >= timeout
                drained = not self._in_flight
            failure = managed.failure if managed is not None else None
            if failure is not None and drained:  # only reopening the store mends it: the next command starts a worker
                log.error("the store cannot answer (%s); stopping", failure)
                self.stop()
            elif timeout > 0 and idle:
                log.info("idle for %.0f s; stopping", timeout)
                self.stop()

    def stop(self, *, drain: bool = False) -> None:
        """End the accept loop; :func:`serve` then waits for the calls in flight and closes the store. Calls that
        arrive meanwhile, or wait for a turn, are refused as :class:`WorkerStoppingError`: their clients take them
        to the next worker.

        ``drain`` (a restart for another client's settings): loads run to their end, and the wait has no limit of
        its own (each call has its own: ``query_timeout``, ``llm_timeout``, a load its client's polls); first the
        worker answers its starter's call (:data:`FIRST_CALL_WAIT`). Otherwise (``kgqa server stop``, SIGTERM, idle)
        a load is cancelled and the calls get ``STOP_WAIT`` seconds, a restart's drain under way included."""
        if drain:
            self.served.wait(max(0.0, self.ready_at + FIRST_CALL_WAIT - time.monotonic()))
        else:
            with self._lock:
                self._cut_at = min(self._cut_at, time.monotonic() + STOP_WAIT)
                jobs = list(self._jobs.values())
            for job in jobs:
                job.cancelled.set()
        with self._lock:
            if self.stopping.is_set():
                return
            self.stopping.set()
        log.info("stopping%s", " once the calls in flight end (a restart)" if drain else "")
        self.admission.close()
        if self.kg.background is not None:  # resumed by the next worker, from the embedding cache
            self.kg.background.cancel(wait=0)
        self.shutdown()

    def drain(self) -> None:
        """Wait for the calls in flight, and while a restart drains them for the loads' results too (a load's
        client takes its result with its next poll; an orphaned one is dropped by :meth:`watch`)."""
        while True:
            with self._lock:
                cut = self._cut_at
                pending = self._in_flight + (len(self._jobs) if cut == math.inf else 0)
            if not pending:
                return
            if time.monotonic() >= cut:
                log.warning("stopping with %d calls still in flight", pending)
                return
            time.sleep(0.05)


class _Handler(socketserver.StreamRequestHandler):
    server: _Server
    from_starter = False
    """Whether this is the connection the worker's starter saw it ready on (its hello carries the token)."""

    def handle(self) -> None:
        if peer_uid(self.request) != os.getuid():
            log.warning("refused a connection from another user")
            return
        worker = self.server.worker
        while True:
            try:
                call = receive(self.rfile)
            except (EOFError, OSError):
                return  # the client closed the connection, or died
            except Exception as exc:  # not a Call this kgqa can read (a cut message, another version's class)
                log.warning("dropped a connection that sent an unreadable call: %s: %s", type(exc).__name__, exc)
                return
            if not isinstance(call, Call):
                log.warning("dropped a connection that sent a %s instead of a call", type(call).__name__)
                return
            self.from_starter = self.from_starter or (call.method == "hello" and worker.is_starter(call))
            reply = worker.answer(call)
            try:
                send(self.wfile, reply)
            except OSError:
                return  # the client went away before its answer: nothing to clean up
            except Exception as exc:  # the answer does not pickle (send writes nothing then): say so instead
                send(self.wfile, Reply(error=portable(exc, str(worker.paths.log))))

    def finish(self) -> None:
        """Runs after :meth:`handle` however it ended."""
        try:
            super().finish()
        finally:
            if self.from_starter:  # its command is done with it, with a call or without one (kgqa server start)
                self.server.worker.served.set()


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, path: str, worker: Worker) -> None:
        self.worker = worker
        old = os.umask(0o177)  # the socket is the user's alone from the moment it exists
        try:
            super().__init__(path, _Handler)
        finally:
            os.umask(old)


def write_state(paths: WorkerPaths, info: WorkerInfo) -> None:
    tmp = paths.state.with_name(f"{paths.state.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # one per writer
    tmp.write_text(json.dumps(info.to_json(), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    tmp.replace(paths.state)


def serve(config: Config, starter: str | None = None) -> int:
    """Run a worker for ``config`` until it stops, ``starter`` the token of the command that starts it; the exit code
    says why it could not start (see the log)."""
    paths = WorkerPaths.of(config)
    paths.ensure()
    lock: IO[str] = paths.lock.open("a+", encoding="utf-8")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log.error("another kgqa worker runs for %s", config.home)
        return 3
    started = time.monotonic()
    info = WorkerInfo(
        pid=os.getpid(),
        build=build_id(),
        settings=settings_digests(config),
        home=str(config.home),
        idle_timeout=config.worker_idle_timeout,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        own=worker_settings(config),
    )
    write_state(paths, info)
    try:
        try:
            kg = Kgqa(config)
        except KgqaError as exc:
            log.error("error: %s", exc)
            return 2
        info = replace(info, store_pid=kg.store.server_pid if isinstance(kg.store, ManagedServer) else None)
        worker = Worker(kg, info, paths, Admission.of(config), starter)
        watcher = threading.Thread(target=worker.watch, name="watch", daemon=True)
        try:
            paths.socket.unlink(missing_ok=True)  # left by a worker that was killed; we hold the lock
            server = _Server(str(paths.socket), worker)
            worker.shutdown = server.shutdown
            signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=worker.stop, daemon=True).start())
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            write_state(paths, info)
            log.info("ready in %.1f s (pid %d, %s)", time.monotonic() - started, info.pid, info.build)
            watcher.start()
            kg.background = Background()
            threading.Thread(target=lambda: _warm_up(kg), name="warm-up", daemon=True).start()
            server.serve_forever(poll_interval=0.2)
            server.server_close()  # a command arriving now starts the next worker instead of waiting on this one
            paths.socket.unlink(missing_ok=True)
            worker.drain()
        finally:
            worker.finished.set()
            if watcher.is_alive():  # not in the middle of replacing the store server as it closes
                watcher.join()
            if kg.background is not None:
                kg.background.cancel()
            kg.close()
            log.info("stopped")
        return 0
    finally:
        paths.socket.unlink(missing_ok=True)
        paths.state.unlink(missing_ok=True)
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


def _warm_up(kg: Kgqa) -> None:
    """Load the embedder, then resume what a killed load or worker left: the graphs still without their document
    vectors (kgqa.runtime.background)."""
    log.info("embedder %s ready", kg.embedder.name)
    background = kg.background
    if background is None:
        return
    try:
        pending = [skb for skb in kg.store.graphs() if not kg.store.schema(skb).has_documents]
    except KgqaError as exc:
        log.warning("could not look for graphs without document vectors: %s", exc)
        return
    for skb in pending:
        log.info("resuming the document vectors of %s", skb)
        background.start(skb, functools.partial(kg.follow_up, skb))


def main() -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(process)d %(threadName)s %(message)s"
    )
    sent = pickle.load(sys.stdin.buffer)
    if not (isinstance(sent, tuple) and len(sent) == 2 and isinstance(sent[0], Config)):
        log.error("expected a kgqa Config and its starter's token on stdin, got %s", type(sent).__name__)
        return 2
    config, starter = sent
    return serve(config, starter if isinstance(starter, str) else None)
