"""What the kgqa worker and its clients share: where the worker lives in a data directory, who it is (the kgqa build
and the settings it opened its store and models with), and the wire format.

The wire format is pickled :class:`Call` and :class:`Reply` objects over a unix socket in a directory only the user
can enter (mode 0700), and the worker also checks the peer's uid: the same trust as the user's own files.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import socket
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kgqa._version import __version__
from kgqa.config import Config, make_home
from kgqa.errors import WorkerError
from kgqa.runtime.background import TaskState

WORKER_DIR = "worker"
OPENING_SETTINGS = ("home", "store", "embedder", "device", "query_timeout")
"""What any worker opens its store and models with: a command with other values needs another worker (the store's
dialect and the embedder's kind add theirs, :func:`opening_settings`)."""
FALKORDB_SETTINGS = ("ef_runtime",)
NEO4J_SETTINGS = ("neo4j_uri", "neo4j_user", "neo4j_password", "neo4j_database", "neo4j_row_cap", "load_batch_size")
OPENAI_EMBEDDER_SETTINGS = ("openai_base_url", "openai_api_key")
WORKER_SETTINGS = (
    "embed_batch_size",
    "embed_cache_mb",
    "server_start_timeout",
    "server_hang_timeout",
    "worker_idle_timeout",
    "worker_max_calls",
    "worker_max_waiting",
    "worker_queue_timeout",
)
"""The running worker's own (capacity, caches, its store server's supervision): a command with other values is
served by it as it is, told so, and they apply from its next start. They change no answer. Every other setting (k,
steps, the LLM and its endpoint, the reranker, ...) travels with each call."""


def opening_settings(config: Config) -> tuple[str, ...]:
    """The settings ``config``'s store and embedder are opened with: the OpenAI endpoint only where the embedder
    is served by it (an LLM's endpoint travels with the call), a dialect's only for that store."""
    dialect = NEO4J_SETTINGS if config.store == "neo4j" else FALKORDB_SETTINGS
    served = OPENAI_EMBEDDER_SETTINGS if config.embedder.startswith("openai:") else ()
    return (*OPENING_SETTINGS, *dialect, *served)


@dataclass(frozen=True)
class WorkerPaths:
    """The worker's files, in ``<home>/worker`` (mode 0700)."""

    root: Path

    @classmethod
    def of(cls, config: Config) -> WorkerPaths:
        return cls(config.home / WORKER_DIR)

    @property
    def socket(self) -> Path:
        return self.root / "worker.sock"

    @property
    def state(self) -> Path:
        """The running worker's :class:`WorkerInfo` (JSON), removed when it stops cleanly."""
        return self.root / "worker.json"

    @property
    def lock(self) -> Path:
        """Locked by the running worker for its whole life: free means no worker, whatever the state file says."""
        return self.root / "worker.lock"

    @property
    def start_lock(self) -> Path:
        """Held by a client while it starts a worker, so two commands never start two."""
        return self.root / "start.lock"

    @property
    def log(self) -> Path:
        return self.root / "worker.log"

    def ensure(self) -> None:
        """Create the directory private to the user, or refuse one that another user owns or can enter; the data
        directory it is in is made first (:func:`kgqa.config.make_home`; the command proved it writable once,
        :func:`kgqa.runtime.worker.client.connect_worker`)."""
        make_home(self.root.parent)
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = self.root.stat()
        if info.st_uid != os.getuid():
            raise WorkerError(f"{self.root} belongs to another user (uid {info.st_uid}); refusing to use it")
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.chmod(self.root, 0o700)


PACKAGE = Path(__file__).resolve().parents[2]
"""The installed kgqa package (this file is kgqa/runtime/worker/common.py)."""


def build_id(package: Path = PACKAGE) -> str:
    """The kgqa version and a digest of its source files (kgqa.cypher and kgqa.loaders included: in a checkout they
    are symlinked folders, followed here): a worker running other code is never reused."""
    digest = hashlib.sha256(__version__.encode())
    files = [
        Path(folder) / name
        for folder, _, names in os.walk(package, followlinks=True)
        for name in names
        if name.endswith(".py")
    ]
    for path in sorted(files, key=lambda p: p.relative_to(package)):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def settings_digests(config: Config) -> dict[str, str]:
    """A digest per opening setting of ``config``: comparable between worker and client without revealing
    secrets."""
    return {
        name: hashlib.sha256(repr(getattr(config, name)).encode()).hexdigest()[:16] for name in opening_settings(config)
    }


def worker_settings(config: Config) -> dict[str, Any]:
    """The values of :data:`WORKER_SETTINGS` (no secret among them): a worker's own, shown by its status."""
    return {name: getattr(config, name) for name in WORKER_SETTINGS}


@dataclass(frozen=True)
class WorkerInfo:
    """Who a worker is (also its state file)."""

    pid: int
    build: str
    settings: dict[str, str]
    """:func:`settings_digests` of the settings it was started with."""
    home: str
    idle_timeout: float
    started_at: str
    store_pid: int | None = None
    """The embedded FalkorDB server's pid (None for Neo4j)."""
    own: dict[str, Any] = field(default_factory=dict)
    """:func:`worker_settings` of the settings it was started with."""
    draining: bool = False
    """Set in the state file once a restart for other settings asked it to end its calls in flight: the commands
    that arrive meanwhile wait for it without a limit of their own, whoever asked for the restart."""

    def differences(self, build: str, settings: dict[str, str]) -> str | None:
        """Why a client with ``build`` and ``settings`` (:func:`settings_digests`) must not use this worker; None
        when it may."""
        if build != self.build:
            return f"it runs kgqa {self.build}, this command is kgqa {build}"
        names = [*settings, *(name for name in self.settings if name not in settings)]
        changed = [name for name in names if self.settings.get(name) != settings.get(name)]
        if changed:
            return f"it was started with other settings ({', '.join(changed)})"
        return None

    def kept(self, config: Config) -> str | None:
        """Which of ``config``'s :data:`WORKER_SETTINGS` this worker does not share (it keeps its own); None when
        it shares them all."""
        theirs = worker_settings(config)
        kept = [
            f"{name} {self.own[name]!r} (this command: {theirs[name]!r})"
            for name in WORKER_SETTINGS
            if name in self.own and self.own[name] != theirs[name]
        ]
        return ", ".join(kept) or None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorkerInfo:
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


@dataclass(frozen=True)
class WorkerStatus:
    """A running worker as ``kgqa server status`` shows it."""

    info: WorkerInfo
    in_flight: int
    """Commands being served now (a load counts until it ends)."""
    idle_for: float
    """Seconds since the last command ended (0 while serving)."""
    rss_mib: dict[str, float] = field(default_factory=dict)
    """Resident memory of the worker and of its store server."""
    waiting: int = 0
    """Of ``in_flight``, the calls waiting for a turn (``worker_max_calls`` run at once)."""
    background: dict[str, tuple[bool, str | None, tuple[TaskState, ...]]] = field(default_factory=dict)
    """What follows the loads (kgqa.runtime.background): skb -> (running, error, tasks)."""


@dataclass(frozen=True)
class Call:
    """One request: a worker method, the client's whole configuration (per-call settings come from it) and the
    method's arguments."""

    method: str
    config: Config | None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    starter: str | None = None
    """The token the worker was started with, on the first call of the command that started it (a restart waits for
    that call: :data:`kgqa.runtime.worker.service.FIRST_CALL_WAIT`)."""


@dataclass(frozen=True)
class Reply:
    value: Any = None
    error: BaseException | None = None


class Writable(Protocol):
    def write(self, data: bytes, /) -> Any: ...

    def flush(self) -> Any: ...


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...

    def readline(self, size: int = ..., /) -> bytes: ...


def send(stream: Writable, message: Call | Reply) -> None:
    """Pickled whole first: a value that cannot be pickled raises here, before a byte reaches the stream."""
    stream.write(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    stream.flush()


def receive(stream: Readable) -> Any:
    """The next message; EOFError when the other side closed the connection."""
    return pickle.load(stream)


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end of a unix socket (SO_PEERCRED: pid, uid, gid)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def rss_mib(pid: int | None) -> float | None:
    """Resident memory of a process from /proc, None when it is gone."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


@dataclass(frozen=True)
class JobState:
    """A long call (a load) as its client polls it: progress tasks (description, total, completed), and once done
    its result or error."""

    tasks: tuple[tuple[str, float | None, float], ...]
    done: bool
    result: Any = None
    error: BaseException | None = None


class RemoteBug(Exception):
    """An unexpected error inside the worker (a bug): the client reports it as an internal error; the traceback is
    in the worker's log."""
