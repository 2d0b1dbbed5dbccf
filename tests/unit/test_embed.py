import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from kgqa.errors import EmbeddingError
from kgqa.runtime.embed import TOUCH_AFTER, Embedder, EmbeddingCache, SentenceTransformerEncoder, make_encoder, row_cost


@pytest.fixture(scope="module")
def tiny_encoder(tiny_model: Path) -> SentenceTransformerEncoder:
    return SentenceTransformerEncoder(str(tiny_model))


def test_cache_avoids_recomputation_and_survives_reopen(tiny_encoder, tmp_path: Path) -> None:
    texts = ["alpha", "beta", "alpha", "gamma"]
    first = Embedder(tiny_encoder, EmbeddingCache(tmp_path / "c.sqlite"))
    vectors = first.embed(texts, 64)
    assert vectors.shape == (4, tiny_encoder.dimension)
    assert first.stats.computed == 3 and first.stats.cached == 0  # duplicates are embedded once
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(vectors[0], vectors[2])
    first.cache.close()

    second = Embedder(tiny_encoder, EmbeddingCache(tmp_path / "c.sqlite"))
    seen: list[int] = []
    again = second.embed(texts, 64, progress=seen.append)
    assert second.stats.computed == 0 and second.stats.cached == 4
    assert sum(seen) == 4
    np.testing.assert_allclose(again, vectors, atol=1e-6)
    second.embed(["alpha"], 32)  # another token budget is another cache key
    assert second.stats.computed == 1


def test_progress_counts_every_text(tiny_encoder, tmp_path: Path) -> None:
    embedder = Embedder(tiny_encoder, EmbeddingCache(tmp_path / "c.sqlite"), chunk_size=2)
    seen: list[int] = []
    embedder.embed(["a", "b", "c", "a", "d"], None, progress=seen.append)
    assert sum(seen) == 5


def test_default_model_is_the_bundled_minilm_and_is_meaningful(tmp_path: Path) -> None:
    encoder = make_encoder("minilm", device="cpu", batch_size=8, base_url=None, api_key=None)
    assert encoder.name == "st:all-MiniLM-L6-v2" and encoder.dimension == 384
    seizure, epilepsy, car = encoder.encode(["seizure", "epilepsy", "sports car"], None)
    assert float(seizure @ epilepsy) > float(seizure @ car) + 0.2


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="cannot load sentence-transformers model"):
        make_encoder(str(tmp_path / "no-such-model"), device="cpu", batch_size=8, base_url=None, api_key=None)


class _Clock:
    """Seconds since the epoch, set by the test."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def _texts(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


def _bound(encoder: SentenceTransformerEncoder, rows: int) -> float:
    """A bound in MiB that holds ``rows`` of the encoder's vectors."""
    return rows * row_cost(encoder.dimension * 4, f"{encoder.name}|default", 4096) / 2**20


def _held(cache: EmbeddingCache, encoder: SentenceTransformerEncoder, texts: list[str]) -> set[str]:
    """Which of ``texts`` the cache holds (a lookup evicts nothing)."""
    hashes = {hashlib.sha256(t.encode()).digest(): t for t in texts}
    return {hashes[h] for h in cache.get_many(f"{encoder.name}|default", list(hashes))}


def _last_used(path: Path) -> dict[bytes, int]:
    with closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT text_hash, last_used FROM embedding").fetchall())


def test_past_the_bound_the_least_recently_used_go_first(tiny_encoder, tmp_path: Path) -> None:
    clock = _Clock()
    cache = EmbeddingCache(tmp_path / "c.sqlite", max_mb=_bound(tiny_encoder, 20), clock=clock)
    embedder = Embedder(tiny_encoder, cache)
    embedder.embed(_texts("a", 10))
    clock.now += 2 * TOUCH_AFTER
    embedder.embed(_texts("b", 10))
    clock.now += 2 * TOUCH_AFTER
    embedder.embed(_texts("a", 5))  # a0-a4 used again: now the most recent with c
    assert embedder.stats.computed == 20
    embedder.embed(_texts("c", 5))  # 25 rows: down to 90% of 20, the 7 least recently used go
    assert cache.size_bytes() <= _bound(tiny_encoder, 18) * 2**20
    every = _texts("a", 10) + _texts("b", 10) + _texts("c", 5)
    assert set(every) - _held(cache, tiny_encoder, every) == {"a5", "a6", "a7", "a8", "a9", "b0", "b1"}


def test_a_hit_writes_its_use_only_once_the_recorded_use_is_stale(tiny_encoder, tmp_path: Path) -> None:
    path, clock = tmp_path / "c.sqlite", _Clock()
    written = clock.now
    first = Embedder(tiny_encoder, EmbeddingCache(path, clock=clock))
    first.embed(["fresh", "stale"])
    first.cache.close()
    clock.now += TOUCH_AFTER - 1
    second = Embedder(tiny_encoder, EmbeddingCache(path, clock=clock))
    second.embed(["fresh"])  # used within TOUCH_AFTER: nothing to write
    clock.now += 2
    second.embed(["stale"])  # recorded use older than TOUCH_AFTER: written (at the latest on close)
    second.cache.close()
    used = _last_used(path)
    assert used[hashlib.sha256(b"fresh").digest()] == int(written)
    assert used[hashlib.sha256(b"stale").digest()] == int(clock.now)


def _checkpointed_size(path: Path) -> int:
    """The cache file's size once its write-ahead log is written into it (by a connection of its own)."""
    with closing(sqlite3.connect(path)) as db:
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
    return path.stat().st_size


def test_a_load_evicts_none_of_its_own_vectors_so_its_rerun_finds_the_newest(tiny_encoder, tmp_path: Path) -> None:
    """Under LRU a load bigger than the bound would evict its first vectors as it goes, and its re-run (the same
    order) would miss every one; holding eviction until the load ends keeps the newest for the re-run."""
    path = tmp_path / "c.sqlite"
    cache = EmbeddingCache(path, max_mb=_bound(tiny_encoder, 200))
    embedder = Embedder(tiny_encoder, cache)
    texts = _texts("doc", 1000)
    with cache.loading():
        for start in range(0, len(texts), 100):
            embedder.embed(texts[start : start + 100])
        assert len(_held(cache, tiny_encoder, texts)) == 1000  # the bound waits for the load
        peak = _checkpointed_size(path)
    assert cache.size_bytes() <= _bound(tiny_encoder, 180) * 2**20
    assert _held(cache, tiny_encoder, texts) == set(texts[-180:])
    assert _checkpointed_size(path) < peak / 2  # the freed pages went back to the file system
    rerun = Embedder(tiny_encoder, cache)
    with cache.loading():
        for start in range(0, len(texts), 100):
            rerun.embed(texts[start : start + 100])
    assert (rerun.stats.computed, rerun.stats.cached) == (820, 180)


def test_a_cache_file_from_before_the_bound_keeps_its_vectors_oldest_first(tiny_encoder, tmp_path: Path) -> None:
    path, model = tmp_path / "old.sqlite", f"{tiny_encoder.name}|default"
    texts = _texts("old", 30)
    with closing(sqlite3.connect(path)) as db:  # the schema before the size bound
        db.execute(
            "CREATE TABLE embedding (model TEXT NOT NULL, text_hash BLOB NOT NULL, vector BLOB NOT NULL, "
            "PRIMARY KEY (model, text_hash))"
        )
        vectors = tiny_encoder.encode(texts, None)
        rows = [(model, hashlib.sha256(t.encode()).digest(), v.tobytes()) for t, v in zip(texts, vectors, strict=True)]
        db.executemany("INSERT INTO embedding VALUES (?, ?, ?)", rows)
        db.commit()
    embedder = Embedder(tiny_encoder, EmbeddingCache(path))
    np.testing.assert_array_equal(embedder.embed(texts), vectors)
    assert (embedder.stats.computed, embedder.stats.cached) == (0, 30)
    assert embedder.cache.size_bytes() == 30 * row_cost(tiny_encoder.dimension * 4, model, 4096)
    embedder.cache.close()
    smaller = EmbeddingCache(path, max_mb=_bound(tiny_encoder, 10))  # opened under a bound it exceeds: trimmed
    assert _held(smaller, tiny_encoder, texts) == set(texts[-9:])  # written last, used as long ago: kept


def test_the_bound_counts_what_the_file_holds(tmp_path: Path) -> None:
    """384-d vectors (all-MiniLM-L6-v2's): what the bound counts is within a few percent of the file's size."""
    path = tmp_path / "c.sqlite"
    cache = EmbeddingCache(path)
    rng = np.random.default_rng(0)
    items = [(hashlib.sha256(str(i).encode()).digest(), rng.random(384, dtype=np.float32)) for i in range(3000)]
    cache.put_many("st:all-MiniLM-L6-v2|default", items)
    cache.close()
    assert abs(path.stat().st_size / EmbeddingCache(path).size_bytes() - 1) < 0.05


def _vectors(n: int) -> list[tuple[bytes, np.ndarray]]:
    return [(hashlib.sha256(str(i).encode()).digest(), np.full(384, i, dtype=np.float32)) for i in range(n)]


def test_a_cache_file_that_is_not_a_database_says_to_delete_it(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(b"this is not SQLite\n" * 512)
    damaged = r"the embedding cache .* is damaged .*: stop the worker \(kgqa server stop\), delete the file"
    with pytest.raises(EmbeddingError, match=damaged):
        EmbeddingCache(path)


def test_a_truncated_cache_file_says_to_delete_it_and_serves_no_vector(tmp_path: Path) -> None:
    """A torn file: the first read that meets the damage is an error naming the file, never a vector made up."""
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path)
    items = _vectors(2000)
    cache.put_many("m", items)
    cache.close()
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 3)
    with pytest.raises(EmbeddingError, match="is damaged"):
        damaged = EmbeddingCache(path)
        damaged.get_many("m", [h for h, _ in items])
