"""STaRK's precomputed embeddings: finding the file, refusing bad or malicious ones, and a load that stores them as
the document vectors (on a recording store: no server)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from kgqa.config import Config, load_config
from kgqa.errors import InputError
from kgqa.loaders.stark import read_stark
from kgqa.loaders.stark_embeddings import find_doc_embeddings, read_doc_vectors, read_query_vectors
from kgqa.runtime.embed import Embedder, EmbeddingCache
from kgqa.runtime.load import embedding_text, load_fingerprint, load_skb, plain_text
from kgqa.runtime.store.base import SkbMeta, same_model
from tests.helpers.environment import QUIET
from tests.helpers.load_fakes import HashEncoder, RecordingStore
from tests.helpers.stark_embeddings_fixture import DIM, MODEL, write_doc_dict, write_emb_root, write_query_dict
from tests.helpers.stark_fixture import NODES

DOC = "candidate_emb_dict.pt"


# -- finding the file ----------------------------------------------------------------------------------------------


def test_found_from_every_level_of_starks_layout(tmp_path: Path) -> None:
    write_emb_root(tmp_path / "emb")
    model_dir = tmp_path / "emb" / "prime" / MODEL
    for given in (tmp_path / "emb", tmp_path / "emb" / "prime", model_dir, model_dir / "doc", model_dir / "doc" / DOC):
        path, model = find_doc_embeddings("prime", given)
        assert (path.resolve(), model) == ((model_dir / "doc" / DOC).resolve(), MODEL)


def test_several_models_are_listed_in_one_line(tmp_path: Path) -> None:
    for model in ("text-embedding-ada-002", "voyage-large-2-instruct"):
        write_doc_dict(tmp_path / "emb" / "prime" / model / "doc" / DOC)
    with pytest.raises(InputError) as caught:
        find_doc_embeddings("prime", tmp_path / "emb")
    message = str(caught.value)
    assert "several embedding models" in message and "\n" not in message
    assert "text-embedding-ada-002" in message and "voyage-large-2-instruct" in message


def test_nothing_found_or_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        find_doc_embeddings("prime", tmp_path / "nope")
    with pytest.raises(InputError, match=f"no {DOC} under"):
        find_doc_embeddings("prime", tmp_path)


# -- reading and validating ----------------------------------------------------------------------------------------


def test_vectors_are_read_normalised_by_node_position(tmp_path: Path) -> None:
    path = tmp_path / DOC
    matrix = write_doc_dict(path, ids=[5, 2])
    doc = read_doc_vectors(path, MODEL, len(NODES))
    assert doc.dimension == DIM and doc.model == MODEL
    assert doc.missing().tolist() == [0, 1, 3, 4, 6, 7]
    for position in (2, 5):
        expected = matrix[position] / np.linalg.norm(matrix[position])
        np.testing.assert_allclose(doc.matrix[doc.rows[position]], expected, rtol=1e-6)
    assert doc.digest == hashlib.sha256(path.read_bytes()).hexdigest()


def test_row_vectors_of_shape_1_by_d_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / DOC
    torch.save({0: torch.ones(1, DIM), 1: torch.ones(DIM)}, path)
    assert read_doc_vectors(path, MODEL, len(NODES)).matrix.shape == (2, DIM)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (torch.zeros(3, DIM), "must hold a dict of node id -> 1-d float tensor, found Tensor"),
        ({}, "holds no vectors"),
        ({0: torch.ones(DIM), 1: torch.ones(DIM + 1)}, "mixes dimensions: node id 0 has 16, node id 1 has 17"),
        ({0: torch.ones(DIM), len(NODES): torch.ones(DIM)}, "has a vector for node id 8, which is not in the SKB"),
        ({-1: torch.ones(DIM)}, "node id -1, which is not in the SKB"),
        ({"0": torch.ones(DIM)}, "must be keyed by integer node ids, found key '0'"),
        ({0: torch.ones(DIM, dtype=torch.long)}, "must be a float tensor, found torch.int64"),
        ({0: [1.0] * DIM}, "must be a float tensor, found list"),
        ({0: torch.ones(2, DIM)}, "must be 1-d, found shape [2, 16]"),
        ({0: torch.zeros(DIM)}, "the vector of node id 0 is zero or not finite"),
        ({0: torch.full((DIM,), float("nan"))}, "zero or not finite"),
    ],
)
def test_bad_files_are_refused_in_one_line(tmp_path: Path, content: Any, message: str) -> None:
    path = tmp_path / DOC
    torch.save(content, path)
    with pytest.raises(InputError) as caught:
        read_doc_vectors(path, MODEL, len(NODES))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_not_a_torch_file(tmp_path: Path) -> None:
    path = tmp_path / DOC
    path.write_bytes(b"not a tensor file")
    with pytest.raises(InputError, match=r"candidate_emb_dict\.pt is not a valid torch tensor file"):
        read_doc_vectors(path, MODEL, len(NODES))


class Exploit:
    """Runs its payload when unpickled by an unrestricted loader."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("where", ["value", "whole file"])
def test_malicious_file_is_refused_and_nothing_runs(tmp_path: Path, where: str) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / DOC
    payload = {0: Exploit(marker)} if where == "value" else Exploit(marker)
    torch.save(payload, path)  # torch.save pickles whatever it is given
    with pytest.raises(InputError, match=r"candidate_emb_dict\.pt is not a valid torch tensor file"):
        read_doc_vectors(path, MODEL, len(NODES))
    assert not marker.exists()
    with pytest.raises(InputError, match=r"is not a valid torch tensor file"):
        read_query_vectors(path)
    assert not marker.exists()


def test_query_vectors_by_question_id(tmp_path: Path) -> None:
    path = tmp_path / "query_emb_dict.pt"
    written = write_query_dict(path, ids=[3, 9])
    read = read_query_vectors(path)
    assert set(read) == {"3", "9"}
    np.testing.assert_allclose(read["9"], written[9] / np.linalg.norm(written[9]), rtol=1e-6)
    with pytest.raises(InputError, match="does not exist"):
        read_query_vectors(tmp_path / "missing.pt")


def test_same_model() -> None:
    assert same_model("openai:text-embedding-ada-002", "text-embedding-ada-002")
    assert same_model("st:all-MiniLM-L6-v2", "st:all-MiniLM-L6-v2")
    assert not same_model("st:all-MiniLM-L6-v2", "text-embedding-ada-002")


def test_old_metadata_reads_as_one_model() -> None:
    meta = SkbMeta("prime", "s", "1", "st:x", 384, ("drug",), 1, 0, "f", "now")
    assert (meta.doc_model, meta.doc_dim) == ("st:x", 384)
    imported = SkbMeta("prime", "s", "1", "st:x", 384, ("drug",), 1, 0, "f", "now", MODEL, DIM)
    assert (imported.doc_model, imported.doc_dim) == (MODEL, DIM)


# -- a load with imported vectors, on a recording store --------------------------------------------------------------


@pytest.fixture
def settings(tmp_path: Path) -> Config:
    return load_config({"home": tmp_path / "home"}, env=QUIET, cwd=tmp_path)


def _load(tmp_path: Path, prime_dir: Path, settings: Config, encoder: HashEncoder, ids: Sequence[int] | None):
    path = tmp_path / "emb" / "prime" / MODEL / "doc" / DOC
    matrix = write_doc_dict(path, ids)
    data = read_stark("prime", prime_dir)
    doc = read_doc_vectors(path, MODEL, len(data.nodes))
    store = RecordingStore()
    embedder = Embedder(encoder, EmbeddingCache(tmp_path / "cache.sqlite"))
    report = load_skb(store, embedder, data, settings, doc_vectors=doc)  # type: ignore[arg-type]
    return store, report, matrix, data, doc


def test_imported_vectors_are_the_document_vectors(tmp_path: Path, prime_dir: Path, settings: Config) -> None:
    encoder = HashEncoder("st:tiny", 32)
    store, report, matrix, data, doc = _load(tmp_path, prime_dir, settings, encoder, None)
    # the names, their aliases and the documents without relations for step 6 (by the configured embedder): not
    # the documents
    plain = [plain_text(node) for node in data.nodes]
    aliases = [alias for node in data.nodes for alias in node.aliases]
    assert report.imported == len(NODES) and report.embedded == 2 * len(NODES) + len(aliases)
    assert sorted(encoder.texts) == sorted([name for name, *_ in NODES] + plain + aliases)
    assert all(encoder.lengths[text] is None for text in plain)  # the embedder's default length, as step 6 had
    for position in range(len(NODES)):
        row = store.writer_.rows[str(position)]
        np.testing.assert_allclose(row.doc_emb, matrix[position] / np.linalg.norm(matrix[position]), rtol=1e-6)
        assert row.name_emb.shape == (32,)
        assert row.plain_emb is not None and np.array_equal(row.plain_emb, encoder.encode([plain[position]], None)[0])
    assert store.writer_.indexes == (32, DIM)
    meta = store.written
    assert meta is not None
    assert (meta.embedder, meta.dimension, meta.doc_model, meta.doc_dim) == ("st:tiny", 32, MODEL, DIM)
    assert meta.fingerprint != load_fingerprint(data, "st:tiny", settings)  # a load without them is another graph
    assert meta.fingerprint == load_fingerprint(data, "st:tiny", settings, doc)


def test_nodes_without_a_vector_need_the_same_model(tmp_path: Path, prime_dir: Path, settings: Config) -> None:
    drugs = [i for i, (_, t, *_) in enumerate(NODES) if t == 1]
    with pytest.raises(InputError) as caught:
        _load(tmp_path, prime_dir, settings, HashEncoder("st:tiny", 32), drugs)
    message = str(caught.value)
    assert "\n" not in message
    assert "has no vector for 6 of 8 nodes (2 disease, 2 gene/protein, 2 effect/phenotype)" in message
    assert f"'{MODEL}' (--embedder openai:{MODEL})" in message and "'st:tiny'" in message


def test_the_same_model_embeds_only_the_nodes_without_a_vector(
    tmp_path: Path, prime_dir: Path, settings: Config
) -> None:
    drugs = [i for i, (_, t, *_) in enumerate(NODES) if t == 1]
    encoder = HashEncoder(f"openai:{MODEL}", DIM)
    store, report, matrix, data, _ = _load(tmp_path, prime_dir, settings, encoder, drugs)
    assert report.imported == 2
    aliases = {alias for node in data.nodes for alias in node.aliases}
    others = {name for name, *_ in NODES} | set(map(plain_text, data.nodes)) | aliases
    documents = [t for t in encoder.texts if t not in others]
    lacking = [node for node in data.nodes if node.id not in drugs]
    assert sorted(documents) == sorted(embedding_text(data, node, node.relations or "") for node in lacking)
    assert all(encoder.lengths[text] == settings.doc_max_tokens for text in documents)
    for position in drugs:
        expected = matrix[position] / np.linalg.norm(matrix[position])
        np.testing.assert_allclose(store.writer_.rows[str(position)].doc_emb, expected, rtol=1e-6)
    assert store.writer_.indexes == (DIM, DIM)


def test_a_vectors_file_that_cannot_fit_in_memory_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from kgqa.loaders.stark_embeddings import check_memory

    path = tmp_path / "candidate_emb_dict.pt"
    path.write_bytes(b"\0" * 3000)
    check_memory(path, 6000)  # twice the file fits
    check_memory(path, None)  # the kernel does not say: nothing to check
    with pytest.raises(InputError, match=r"needs about 0\.0 GiB of memory and 0\.0 GiB are available.*Neo4j"):
        check_memory(path, 5999)
