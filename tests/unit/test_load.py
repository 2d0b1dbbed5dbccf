"""What a load stores for step 6 and when it counts as out of date (on a recording store: no server)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgqa.config import Config, load_config
from kgqa.loaders.model import Node
from kgqa.loaders.stark import read_stark
from kgqa.runtime import load
from kgqa.runtime.documents import embed_documents
from kgqa.runtime.embed import Embedder, EmbeddingCache
from kgqa.runtime.load import embedding_text, load_fingerprint, load_skb, plain_text
from kgqa.runtime.store.falkordb import FalkorStore
from tests.helpers.environment import QUIET
from tests.helpers.load_fakes import HashEncoder, RecordingStore


class CheckingStore(RecordingStore):
    check_names = FalkorStore.check_names  # the embedded store's name rule (no server needed)


@pytest.fixture
def settings(tmp_path: Path) -> Config:
    return load_config({"home": tmp_path / "home"}, env=QUIET, cwd=tmp_path)


def test_the_plain_text_is_the_document_else_the_name() -> None:
    """Step 6 compared the question with ``doc or name`` (scoring.node_documents); the stored vector must be
    of the same text."""
    assert plain_text(Node("1", "disease", "migraine", "- name: migraine\n")) == "- name: migraine\n"
    assert plain_text(Node("2", "effect/phenotype", "Headache", "")) == "Headache"


def test_a_graph_of_the_previous_store_format_is_reloaded(
    tmp_path: Path, prime_dir: Path, settings: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Graphs loaded before the embedded store's vector directory kept its ids sorted cannot be read: their
    fingerprint (format 8) is not up to date, so ``kgqa load`` rebuilds them, while a graph of this format is left
    alone."""
    data = read_stark("prime", prime_dir)
    encoder = HashEncoder("st:tiny", 8)
    embedder = Embedder(encoder, EmbeddingCache(tmp_path / "cache.sqlite"))
    store = CheckingStore()
    monkeypatch.setattr(load, "STORE_FORMAT", "8")
    load_skb(store, embedder, data, settings)  # type: ignore[arg-type]
    monkeypatch.undo()
    assert load.STORE_FORMAT == "9"
    store.writer_.aliases.clear()
    old = store.written
    assert old is not None and old.fingerprint != load_fingerprint(data, "st:tiny", settings)
    report = load_skb(store, embedder, data, settings)  # type: ignore[arg-type]
    assert not report.up_to_date and store.written is not old
    assert load_skb(store, embedder, data, settings).up_to_date  # type: ignore[arg-type]
    # the graph is published without document vectors; embed_documents adds them, by the configured embedder
    rows = store.writer_.rows
    assert len(rows) == len(data.nodes)
    assert all(row.doc_emb is None and row.plain_emb is None for row in rows.values())
    assert not store.schema(data.name).has_documents
    embed_documents(store, embedder, data.name, settings)  # type: ignore[arg-type]
    assert store.documents_ is not None and store.schema(data.name).has_documents
    vectors = store.documents_.vectors
    for node in data.nodes:
        label, doc, plain = vectors[str(node.id)]
        assert label == node.type and plain is not None
        assert np.array_equal(plain, encoder.encode([plain_text(node)], None)[0])
        text = embedding_text(data, node, node.relations or "")
        assert np.array_equal(doc, encoder.encode([text], settings.doc_max_tokens)[0])
    # at the embedder's default length, as step 6 embedded them; the documents with relations at doc_max_tokens
    assert {encoder.lengths[plain_text(node)] for node in data.nodes} == {None}
    assert {encoder.lengths[embedding_text(data, n, n.relations or "")] for n in data.nodes} == {
        settings.doc_max_tokens
    }
    # every alias of every node, as its own row with the alias's name-space vector
    written = [(a.of, a.label, a.name, a.alias) for a in store.writer_.aliases]
    assert written == [(str(n.id), n.type, n.name, alias) for n in data.nodes for alias in n.aliases]
    gene_name = ("CYP3A4", "cytochrome P450 family 3 subfamily A member 4")
    assert gene_name in [(a.name, a.alias) for a in store.writer_.aliases]
    for row in store.writer_.aliases:
        assert np.array_equal(row.emb, encoder.encode([row.alias], None)[0])
        assert encoder.lengths[row.alias] is None


def test_a_load_reports_every_text_it_embeds_as_it_goes(tmp_path: Path, prime_dir: Path, settings: Config) -> None:
    """Progress counts texts, not node chunks of 20,000: a line every 30 s has something to say (issue 31)."""
    from kgqa.runtime.progress import LineProgress

    data = read_stark("prime", prime_dir)
    embedder = Embedder(HashEncoder("st:tiny", 8), EmbeddingCache(tmp_path / "cache.sqlite"), chunk_size=4)
    lines: list[str] = []
    store = CheckingStore()
    with LineProgress(lines.append, every=0) as progress:
        load_skb(store, embedder, data, settings, progress=progress)  # type: ignore[arg-type]
        embed_documents(store, embedder, data.name, settings, progress)  # type: ignore[arg-type]
    texts = len(data.nodes) + sum(len(node.aliases) for node in data.nodes)
    embedding = [line for line in lines if line.startswith("embedding names: ")]
    assert len(embedding) > 3  # one per chunk of 4 texts resolved, not one per node chunk
    assert embedding[-1].startswith(f"embedding names: {texts:,}/{texts:,} (100%)")
    assert any(line.startswith(f"writing nodes: {len(data.nodes):,}/{len(data.nodes):,} (100%)") for line in lines)
    documents = 2 * len(data.nodes)  # STaRK's document with relations and the plain document
    embedding = [line for line in lines if line.startswith("embedding documents: ")]
    assert len(embedding) > 3
    assert embedding[-1].startswith(f"embedding documents: {documents:,}/{documents:,} (100%)")


def test_outside_stark_one_vector_of_the_plain_document_serves_the_index_and_step_6(
    tmp_path: Path, prime_dir: Path, settings: Config
) -> None:
    """An SKB whose index would hold kgqa's own document with relations (not STaRK's) stores one document vector per
    node: the plain document's, at the default length, as ``doc_emb``, and no ``plain_emb`` (step 6 reads
    ``doc_emb`` where ``plain_emb`` is absent); nothing is embedded at ``doc_max_tokens``, and the progress counts
    a name and one document per node."""
    from dataclasses import replace

    from kgqa.runtime.progress import LineProgress

    data = replace(read_stark("prime", prime_dir), stark_documents=False)
    encoder = HashEncoder("st:tiny", 8)
    embedder = Embedder(encoder, EmbeddingCache(tmp_path / "cache.sqlite"))
    store = CheckingStore()
    lines: list[str] = []
    with LineProgress(lines.append, every=0) as progress:
        load_skb(store, embedder, data, settings, progress=progress)  # type: ignore[arg-type]
        embed_documents(store, embedder, data.name, settings, progress)  # type: ignore[arg-type]
    assert store.documents_ is not None
    for node in data.nodes:
        _, doc, plain = store.documents_.vectors[str(node.id)]
        assert plain is None
        assert np.array_equal(doc, encoder.encode([plain_text(node)], None)[0])
    assert settings.doc_max_tokens not in set(encoder.lengths.values())
    assert [line for line in lines if line.startswith("embedding documents: ")][-1].startswith(
        f"embedding documents: {len(data.nodes):,}/{len(data.nodes):,} (100%)"
    )
