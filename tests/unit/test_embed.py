from pathlib import Path

import numpy as np
import pytest

from kgqa.embed import Embedder, EmbeddingCache, SentenceTransformerEncoder, make_encoder
from kgqa.errors import EmbeddingError


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
