"""The client side of the kgqa worker: find the data directory's worker (starting it when there is none, replacing
one that died or runs other code or settings, and saying so), and :class:`RemoteKgqa`, which offers the methods of
:class:`kgqa.runtime.app.Kgqa` that the commands use and runs them in the worker.

Importing this module loads neither torch nor the store's client: that is what keeps a command cheap.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import fcntl
import functools
import inspect
import json
import os
import pickle
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from kgqa.api import CALLS, JOB_CALLS, LOCAL_ARGUMENTS, Api, check_arguments
from kgqa.config import Config, open_home
from kgqa.errors import ConfigError, KgqaError, StoreLockedError, WorkerBusyError, WorkerError, WorkerStoppingError
from kgqa.runtime import logfiles
from kgqa.runtime.worker.common import (
    Call,
    JobState,
    Reply,
    WorkerInfo,
    WorkerPaths,
    WorkerStatus,
    build_id,
    peer_uid,
    receive,
    send,
    settings_digests,
)

if TYPE_CHECKING:
    from kgqa.runtime.progress import ProgressSink

Notice = Callable[[str], None]
POLL = 0.2
"""Seconds between a job's progress polls."""
CANCEL_WAIT = 60.0
"""Seconds an interrupted command waits for the worker to end its job cleanly."""
STOP_TIMEOUT = 90.0
"""Seconds ``kgqa server stop`` waits for a clean stop before it kills the worker."""
LOAD_LOST = (
    "the kgqa worker stopped during the load; run the load again (the embedded store keeps the graph loaded before "
    "until a load completes; a Neo4j database may hold part of this one)"
)
ANSWER_TIMEOUT = 30.0
"""Seconds to wait for a worker's answer to hello, status or stop (its serving threads answer these at once)."""
WORKER_GONE_RETRIES = 3
"""Times a call is sent again to a worker that went away as it was sent (each a new worker) before it fails."""
LOG_MAX_BYTES = 10 * 2**20
"""A worker log over this size is kept as ``worker.log.1`` (replacing the one before) when the next worker starts."""


@dataclasses.dataclass(frozen=True)
class Patience:
    """How long one call waits for another command's start or restart of the worker, all its waits together:
    ``wait`` seconds from the call (an MCP tool call's own bound), or as long as that takes (None)."""

    wait: float | None = None
    until: float | None = None

    @classmethod
    def of(cls, wait: float | None) -> Patience:
        return cls(wait, None if wait is None else time.monotonic() + wait)

    def bound(self, timeout: float) -> float:
        """``timeout``, or the time this call has left if that is shorter."""
        return timeout if self.until is None else max(0.0, min(timeout, self.until - time.monotonic()))

    def expired(self) -> bool:
        return self.until is not None and time.monotonic() > self.until


class _Connection:
    """One connection to the worker: pickled calls and replies in turn."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._file = sock.makefile("rwb")
        self.broken = False
        """A call was cut between sending and reading its reply (Ctrl-C, a timeout): the reply may still come,
        and would be read as the next call's, so the connection is closed and not used again."""

    def call(self, method: str, config: Config | None, /, *args: Any, **kwargs: Any) -> Any:
        return self.request(Call(method, config, args, kwargs))

    def request(self, call: Call) -> Any:
        if self.broken:
            raise ConnectionResetError("the connection to the kgqa worker was closed after an interrupted call")
        try:
            send(self._file, call)
            reply: Reply = receive(self._file)
        except BaseException:
            self.broken = True
            self.close()
            raise
        if reply.error is not None:
            raise reply.error
        return reply.value

    def timeout(self, seconds: float | None) -> None:
        self._sock.settimeout(seconds)

    def close(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError):
            self._file.close()
        self._sock.close()


def _connect(paths: WorkerPaths) -> _Connection | None:
    """A connection to a worker that answers, or None when none listens. The directory is checked to be the
    user's and so is the process listening: replies are unpickled."""
    paths.ensure()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(paths.socket))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    uid = peer_uid(sock)
    if uid != os.getuid():
        sock.close()
        raise WorkerError(f"the process listening on {paths.socket} belongs to another user (uid {uid}); refusing it")
    return _Connection(sock)


def _hello(paths: WorkerPaths, starter: str | None = None) -> tuple[_Connection, WorkerInfo] | None:
    """The worker's connection and identity; None when none listens or it is on its way out. ``starter``: the token
    this command started it with (the worker then knows its starter's connection)."""
    conn = _connect(paths)
    if conn is None:
        return None
    conn.timeout(ANSWER_TIMEOUT)
    try:
        info = conn.request(Call("hello", None, starter=starter))
    except TimeoutError:
        conn.close()
        raise WorkerError(
            f"the kgqa worker does not answer within {ANSWER_TIMEOUT:.0f} s (log: {paths.log}); "
            "kgqa server stop ends it"
        ) from None
    except (EOFError, OSError, pickle.UnpicklingError):
        conn.close()  # a worker on its way out
        return None
    conn.timeout(None)  # answers take as long as they take (an LLM, a load)
    return conn, info


def _lock_free(path: Path) -> bool:
    """Whether nobody holds the lock file (no worker alive, whatever its state file says)."""
    with path.open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


@contextlib.contextmanager
def _starting(paths: WorkerPaths, notice: Notice, patience: Patience) -> Iterator[bool]:
    """Hold the start lock; whether this command was told it waits for a restart. Another command holds it while it
    starts the worker (seconds), or while the worker it restarts for other settings ends the calls in flight: this
    command then waits too (and says so), within its ``patience``."""
    with paths.start_lock.open("a+", encoding="utf-8") as handle:
        told = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            state = read_state(paths)
            if not told and state is not None and state.draining:
                notice(_draining(state))
                told = True
            if patience.expired():
                if state is not None and state.draining:
                    raise _restarting(paths, patience)
                raise WorkerBusyError(
                    f"another command is starting the kgqa worker of {paths.root.parent}, not ready within "
                    f"{patience.wait or 0:g} s; try again shortly"
                )
            time.sleep(POLL / 2)
        try:
            yield told
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _draining(state: WorkerInfo) -> str:
    return (
        f"the kgqa worker (pid {state.pid}) restarts for another command's settings once it has ended the calls in "
        "flight; waiting for it"
    )


def _restarting(paths: WorkerPaths, patience: Patience) -> WorkerBusyError:
    return WorkerBusyError(
        f"the kgqa worker of {paths.root.parent} restarts for another command's settings and has not ended the "
        f"calls in flight within {patience.wait or 0:g} s; try again shortly"
    )


def read_state(paths: WorkerPaths) -> WorkerInfo | None:
    try:
        return WorkerInfo.from_json(json.loads(paths.state.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _log_tail(paths: WorkerPaths, lines: int = 3) -> str:
    try:
        text = paths.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return " | ".join(text[-lines:]) or "empty log"


def _client_environment(config: Config) -> Config:
    """``config`` with what this command's environment gives where its settings give nothing: the OpenAI endpoint
    and key (OPENAI_BASE_URL, OPENAI_API_KEY) and Neo4j's credentials (NEO4J_AUTH=user/password, as
    :func:`kgqa.runtime.app.open_store` reads them). The worker runs in the environment of the command that started
    it, so these travel with each call, as the settings do."""
    changes: dict[str, Any] = {}
    for name, variable in (("openai_base_url", "OPENAI_BASE_URL"), ("openai_api_key", "OPENAI_API_KEY")):
        if not getattr(config, name) and os.environ.get(variable):
            changes[name] = os.environ[variable]
    auth = os.environ.get("NEO4J_AUTH", "")
    if config.store == "neo4j" and config.neo4j_password is None and "/" in auth:
        changes["neo4j_user"], changes["neo4j_password"] = auth.split("/", 1)
    return dataclasses.replace(config, **changes) if changes else config


WORKER_ENVIRONMENT_DROPS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "NEO4J_AUTH")
"""Not in the worker's environment: each call brings its own (:func:`_client_environment`)."""


def _spawn(config: Config, paths: WorkerPaths, starter: str) -> subprocess.Popen[bytes]:
    """Start a worker in its own session (a terminal's Ctrl-C is not for it), its configuration and its starter's
    token on stdin."""
    environment = {name: value for name, value in os.environ.items() if name not in WORKER_ENVIRONMENT_DROPS}
    logfiles.rotate(paths.log, LOG_MAX_BYTES)  # kept once: a crashed worker's stacks outlive its restart
    with paths.log.open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", "-m", "kgqa.runtime.worker"],  # a crash: its stacks in the log
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=log,
            cwd=paths.root,
            start_new_session=True,
            close_fds=True,
            env=environment,
        )
    assert process.stdin is not None
    process.stdin.write(pickle.dumps((config, starter)))
    process.stdin.close()
    return process


def _wait_ready(
    paths: WorkerPaths, pid: int, process: subprocess.Popen[bytes] | None, timeout: float, starter: str | None = None
) -> tuple[_Connection, WorkerInfo] | None:
    """Wait until the worker ``pid`` answers (it listens once its store is open). None when ``pid`` is a worker this
    command did not start (``process`` None) and it exited instead: it was stopping, not starting."""
    deadline = time.monotonic() + timeout
    while True:
        found = _hello(paths, starter)
        if found is not None:
            return found
        exited = process.poll() is not None if process is not None else not _alive(pid)
        if exited and process is None:
            return None
        if exited:
            raise WorkerError(f"the kgqa worker could not start: {_log_tail(paths)} (log: {paths.log})")
        if time.monotonic() > deadline:
            raise WorkerError(f"the kgqa worker (pid {pid}) did not start within {timeout:.0f} s (log: {paths.log})")
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def connect_worker(config: Config, notice: Notice, *, wait: float | None = None) -> Api:
    """The worker of ``config``'s data directory, started if needed. ``notice`` hears why a worker was replaced,
    and which of this command's worker settings the running worker keeps.

    A worker opened with other store or model settings is restarted, under the start lock: it first ends the
    calls in flight (other clients' work runs to its end), and the commands arriving meanwhile wait for the lock,
    then are served by the new worker or restart it in turn. ``wait`` bounds those waits (an MCP tool call's own
    bound, all of them together): past it, :class:`WorkerBusyError`; None waits as long as the calls in flight take."""
    return _connect_worker(config, notice, Patience.of(wait))


def _connect_worker(config: Config, notice: Notice, patience: Patience) -> Api:
    config = _client_environment(config)
    open_home(config.home)  # once a command, before anything is written: a home it cannot use is one line
    paths = WorkerPaths.of(config)
    paths.ensure()
    build, settings = build_id(), settings_digests(config)
    found = _hello(paths)
    if found is not None and found[1].differences(build, settings) is None:
        return _served(config, *found, notice, None, patience.wait)
    if found is not None:
        found[0].close()
    with _starting(paths, notice, patience) as told:
        found, starter = _hello(paths), None
        while True:
            if found is not None:
                conn, info = found
                why = info.differences(build, settings)
                if why is None:
                    return _served(config, conn, info, notice, starter, patience.wait)
                conn.close()
                if starter is not None:  # python -m kgqa.runtime.worker imports other code (another sys.path?)
                    stop_worker(config)
                    raise WorkerError(f"the kgqa worker this command started cannot serve it: {why}")
                _restart(config, info, why, notice, patience)
            found, starter = _start_worker(config, paths, notice if not told else _quiet, patience)


def _served(
    config: Config, conn: _Connection, info: WorkerInfo, notice: Notice, starter: str | None, wait: float | None
) -> Api:
    kept = info.kept(config)
    if kept is not None:
        notice(f"the kgqa worker (pid {info.pid}) keeps its own {kept}; kgqa server stop applies this command's")
    return cast(Api, RemoteKgqa(config, conn, info, notice, starter=starter, wait=wait))


def _quiet(_: str) -> None:
    """The notice of a command that was already told why it waits."""


def _restart(config: Config, info: WorkerInfo, why: str, notice: Notice, patience: Patience) -> None:
    """Stop the worker ``info`` for one with ``config``'s settings (the caller holds the start lock), once it has
    ended the calls in flight."""
    try:
        busy = worker_status(config)
    except (WorkerError, EOFError, OSError):  # gone, or going, meanwhile: the stop below finds out
        busy = None
    calls = 0 if busy is None else busy.in_flight
    waiting = f"; it ends the {calls} call{'s' * (calls != 1)} in flight first" if calls else ""
    notice(f"restarting the kgqa worker (pid {info.pid}): {why}{waiting}")
    stop_worker(config, drain=True, patience=patience)


def _start_worker(
    config: Config, paths: WorkerPaths, notice: Notice, patience: Patience
) -> tuple[tuple[_Connection, WorkerInfo], str | None]:
    """Start a worker (the caller holds the start lock), or wait for one another command is starting (whose command
    was killed meanwhile) or restarting; with the token this command started it with, None when it did not."""
    timeout = config.server_start_timeout + 60.0
    state = read_state(paths)
    if state is not None and not _lock_free(paths.lock):
        build = build_id()
        if state.build != build:
            # a worker of other code (kgqa was upgraded under it) may not read this command's calls at all, so it
            # never answers hello: stop it by its state file, which any version can read
            why = f"it runs kgqa {state.build}, this command is kgqa {build}"
            notice(f"restarting the kgqa worker (pid {state.pid}): {why}")
            stop_worker(config, drain=True, patience=patience)
        elif state.draining:  # its restarter was killed while it ends the calls in flight: they end, then it does
            notice(_draining(state))
            _wait_for_lock(paths, patience.until, lambda: _restarting(paths, patience))
        else:
            # started by a command that was then killed, or stopping: wait for it to answer, or to be gone
            found = _wait_ready(paths, state.pid, None, patience.bound(timeout))
            if found is not None:
                return found, None
            _wait_for_lock(paths, time.monotonic() + patience.bound(timeout), lambda: _held(paths, timeout))
        state = read_state(paths)  # a worker that ends cleanly removes it: one left behind had died
    if state is not None:
        notice(f"the kgqa worker (pid {state.pid}) had died; starting a new one (its log: {paths.log})")
        paths.state.unlink(missing_ok=True)
    starter = secrets.token_hex(8)
    process = _spawn(config, paths, starter)
    found = _wait_ready(paths, process.pid, process, patience.bound(timeout), starter)
    assert found is not None  # a process of ours that exits raises instead
    return found, starter


def _held(paths: WorkerPaths, timeout: float) -> WorkerError:
    return WorkerError(f"the previous kgqa worker did not let go of {paths.lock} within {timeout:.0f} s")


def _wait_for_lock(paths: WorkerPaths, deadline: float | None, expired: Callable[[], KgqaError]) -> None:
    """Wait until no worker holds the data directory, until ``deadline`` (monotonic; None: without a limit)."""
    while not _lock_free(paths.lock):
        if deadline is not None and time.monotonic() > deadline:
            raise expired()
        time.sleep(0.05)


def served_by_worker(config: Config) -> Api | None:
    """The client of the worker that holds ``config``'s data directory, None when none answers (the directory is
    then held by some other process). A worker opened with other store or model settings cannot serve these: that
    is a StoreLockedError saying which setting differs."""
    paths = WorkerPaths.of(config)
    found = _hello(paths)
    if found is None:
        return None
    conn, info = found
    why = info.differences(build_id(), settings_digests(_client_environment(config)))
    if why is not None:
        conn.close()
        raise StoreLockedError(
            f"data directory {config.home} is served by the kgqa worker (pid {info.pid}), which cannot serve these "
            f"settings: {why}; use its settings, or stop it (kgqa server stop)"
        )
    return cast(Api, RemoteKgqa(config, conn, info, lambda _: None))


def worker_status(config: Config) -> WorkerStatus | None:
    """The running worker's status, None when there is none (nothing is started)."""
    paths = WorkerPaths.of(config)
    if not paths.root.is_dir():
        return None
    found = _hello(paths)
    if found is None:
        return None
    conn, _ = found
    conn.timeout(ANSWER_TIMEOUT)
    try:
        status: WorkerStatus = conn.call("status", None)
        return status
    finally:
        conn.close()


def stop_worker(
    config: Config, timeout: float = STOP_TIMEOUT, *, drain: bool = False, patience: Patience | None = None
) -> WorkerInfo | None:
    """Stop the worker (it finishes the calls in flight, cancels a load, closes the store) and wait until it and
    its store server are gone; kill them if they do not stop within ``timeout``. None when no worker ran.

    ``drain`` (a restart for other settings): the worker ends every call in flight, loads included, and this waits
    for it within ``patience`` (by default as long as that takes; past it, :class:`WorkerBusyError`, and the worker
    goes on ending them); nothing is cancelled or killed (``kgqa server stop`` still ends it). A worker that neither
    answers the stop nor records the drain in its state file is ended within ``timeout`` all the same."""
    paths = WorkerPaths.of(config)
    if not paths.root.is_dir():
        return None
    state = read_state(paths)
    try:
        found = _hello(paths)
    except WorkerError:  # hung: the signals below end it
        found = None
    info = state
    answered = False
    if found is not None:
        conn, info = found
        conn.timeout(ANSWER_TIMEOUT)
        with contextlib.suppress(EOFError, OSError):  # gone meanwhile, or hung (TimeoutError): the signals end it
            conn.call("stop", None, drain)
            answered = True
        conn.close()
        if drain and not answered:  # its answer was late (a loaded machine): it records the drain before it answers
            late = read_state(paths)
            answered = late is not None and late.pid == info.pid and late.draining
    elif state is None or _lock_free(paths.lock):
        paths.state.unlink(missing_ok=True)  # a worker that died left it
        return None
    else:  # still starting (it listens once its store is open), or not answering: SIGTERM stops it either way
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGTERM)
    assert info is not None
    if drain and answered:
        patience = patience or Patience()
        _wait_for_lock(paths, patience.until, lambda: _restarting(paths, patience))
    else:
        deadline = time.monotonic() + timeout
        while not _lock_free(paths.lock) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _lock_free(paths.lock):
            with contextlib.suppress(ProcessLookupError):
                os.kill(info.pid, signal.SIGKILL)  # the store server dies with it (PR_SET_PDEATHSIG)
    deadline = time.monotonic() + 10
    for pid in (info.pid, info.store_pid):
        while pid is not None and _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
    paths.state.unlink(missing_ok=True)
    return info


class _Link:
    """A client's connection to the worker, shared by its views (:meth:`RemoteKgqa.with_config`): one call at a
    time on it (calls and replies alternate on the socket), so that threads of one client (a LangChain batch) may
    share it. A load runs on a link of its own (:meth:`RemoteKgqa._job`)."""

    def __init__(self, conn: _Connection | None, info: WorkerInfo, starter: str | None = None) -> None:
        self.conn, self.info = conn, info
        self.starter = starter
        """The token of the worker this link's command started, sent with its first call."""
        self.lock = threading.RLock()

    def take_starter(self) -> str | None:
        starter, self.starter = self.starter, None
        return starter

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


class RemoteKgqa:
    """The methods of :class:`kgqa.runtime.app.Kgqa` the commands use, run by the worker with this command's
    settings."""

    def __init__(
        self,
        config: Config,
        conn: _Connection,
        info: WorkerInfo,
        notice: Notice,
        *,
        starter: str | None = None,
        wait: float | None = None,
    ) -> None:
        self.config = config
        self._link = _Link(conn, info, starter)
        self._notice = notice
        self._wait = wait
        self._owner = True

    @property
    def info(self) -> WorkerInfo:
        return self._link.info

    def __enter__(self) -> RemoteKgqa:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection; a view (:meth:`with_config`) closes nothing."""
        if self._owner:
            self._link.close()

    def with_config(self, config: Config) -> RemoteKgqa:
        """This client with another call's settings, on the same connection (the worker checks that the settings
        that open the store and the models are its own)."""
        view = copy.copy(self)
        view.config, view._owner = config, False
        return view

    def _call(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        with self._link.lock:
            return self._request(self._link, method, args, kwargs)

    def _request(self, link: _Link, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run ``method`` in ``link``'s worker. A worker that went away between two calls (idle timeout, stopped,
        died, restarted for another client's settings) is replaced, and the call repeated: every call but a load
        only reads. A view whose store or model settings the worker was not opened with restarts it the same way."""
        sent = _client_environment(self.config)
        if link.conn is None:
            found = _hello(WorkerPaths.of(sent))
            if found is not None:
                link.conn, link.info = found
        if link.conn is not None and link.info.differences(link.info.build, settings_digests(sent)) is None:
            try:
                return link.conn.request(Call(method, sent, args, kwargs, link.take_starter()))
            except (EOFError, ConnectionError, BrokenPipeError):
                if method in JOB_CALLS:
                    raise WorkerError(LOAD_LOST) from None
            except WorkerStoppingError:
                pass  # refused before any work: the next worker answers it
        refused: dict[int, float] = {}
        patience, gone = Patience.of(self._wait), 0
        while True:
            link.close()
            fresh = cast(RemoteKgqa, _connect_worker(self.config, self._notice, patience))
            link.conn, link.info, link.starter = fresh._link.conn, fresh.info, fresh._link.starter
            assert link.conn is not None
            try:
                return link.conn.request(Call(method, sent, args, kwargs, link.take_starter()))
            except (EOFError, ConnectionError) as exc:  # this one went away too, as the call reached it
                gone += 1
                if method in JOB_CALLS:
                    raise WorkerError(LOAD_LOST) from None
                if gone >= WORKER_GONE_RETRIES:
                    raise WorkerError(
                        f"the kgqa worker went away {gone} times as this call reached it ({type(exc).__name__}); "
                        f"its log: {WorkerPaths.of(sent).log}"
                    ) from None
            except WorkerStoppingError:
                # found again while it still listens, stopping: wait until it is gone (a worker that another
                # command restarts in the meantime is another pid, and waits anew)
                first = refused.setdefault(link.info.pid, time.monotonic())
                if time.monotonic() - first > STOP_TIMEOUT:
                    raise
                time.sleep(POLL)

    def _job(self, method: str, /, *args: Any, progress: ProgressSink | None = None, **kwargs: Any) -> Any:
        """Run ``method`` as a job in the worker, replaying its progress into ``progress``. Ctrl-C cancels it there
        (for a load: the graph loaded before stays) and waits for it to end.

        The job has connections of its own: its polls never wait for this client's other calls (a view of it may be
        restarting the worker, which waits for this job), and its cancel goes on a second one, opened as it starts
        (a restarting worker takes no new connection), should Ctrl-C cut the first mid-message."""
        link = _Link(None, self.info, self._link.take_starter())
        control: _Connection | None = None
        paths = WorkerPaths.of(self.config)
        try:
            job = self._request(link, method, args, kwargs)
            assert link.conn is not None
            try:
                control = _second(paths, link.info.pid)
                state = _follow(link.conn, job, progress)
            except KeyboardInterrupt:
                _cancel(job, [link.conn, control], lambda: _second(paths, link.info.pid))
                raise
            except (EOFError, ConnectionError):  # the worker died, and its job with it
                raise WorkerError(LOAD_LOST) from None
        finally:
            link.close()
            if control is not None:
                control.close()
        if state.error is not None:
            raise state.error
        return state.result


def _second(paths: WorkerPaths, pid: int) -> _Connection | None:
    """Another connection to the worker ``pid``, or None (it is gone, takes no new connection as it drains, or was
    replaced): best effort, for a job's cancel."""
    try:
        found = _hello(paths)
    except (WorkerError, ConfigError, OSError):
        return None
    if found is not None and found[1].pid == pid:
        return found[0]
    if found is not None:
        found[0].close()
    return None


def _cancel(job: int, connections: list[_Connection | None], fresh: Callable[[], _Connection | None]) -> None:
    """Cancel ``job`` and wait for it to end, on the first of ``connections`` that an interrupt did not cut, else on a
    ``fresh`` one."""
    usable = [conn for conn in connections if conn is not None and not conn.broken]
    made = None if usable else fresh()
    for conn in [*usable, made]:
        if conn is None:
            continue
        try:
            conn.call("job_cancel", None, job)
            deadline = time.monotonic() + CANCEL_WAIT
            while not conn.call("job_poll", None, job).done and time.monotonic() < deadline:
                time.sleep(POLL)
        except WorkerError:
            pass  # the job ended and its result was taken in the meantime
        except (EOFError, OSError):
            continue  # the worker is gone, and its job with it (or this connection was cut: the next one)
        finally:
            if conn is made:
                conn.close()
        return


def _follow(conn: _Connection, job: int, progress: ProgressSink | None) -> JobState:
    tasks: list[Any] = []
    while True:
        state: JobState = conn.call("job_poll", None, job)
        if progress is not None:
            for index, (description, total, completed) in enumerate(state.tasks):
                if index == len(tasks):
                    tasks.append(progress.add_task(description, total=total))
                progress.update(tasks[index], total=total, completed=completed)
        if state.done:
            return state
        time.sleep(POLL)


def _portable(value: Any) -> Any:
    """An argument as the worker must see it: a path resolved against this command's working directory (the
    worker's is another), any other collection of items but a list, a string or a mapping (a tuple, a generator, a
    view) as a list, since not every iterable pickles; an array stays as it is."""
    if isinstance(value, Path):
        return value.resolve()
    if (
        isinstance(value, Iterable)
        and not isinstance(value, str | bytes | list | Mapping)
        and not hasattr(value, "__array__")
    ):
        return list(value)
    return value


def _remote(name: str) -> Callable[..., Any]:
    """The method ``name`` of :class:`RemoteKgqa`: the declaration's signature (a call that does not fit it fails here,
    as it would in process), its arguments sent to the worker, a job followed until it ends."""
    declared = getattr(Api, name)
    signature = inspect.signature(declared)

    def call(self: RemoteKgqa, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs)
        check_arguments(name, dict(list(bound.arguments.items())[1:]))  # refused here, never in the worker
        sent = {key: _portable(value) for key, value in list(bound.arguments.items())[1:] if key not in LOCAL_ARGUMENTS}
        if name in JOB_CALLS:
            return self._job(name, progress=bound.arguments.get("progress"), **sent)
        return self._call(name, **sent)

    functools.update_wrapper(call, declared)
    call.__qualname__ = f"RemoteKgqa.{name}"
    return call


for _name in CALLS:
    setattr(RemoteKgqa, _name, _remote(_name))
