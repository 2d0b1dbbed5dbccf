"""The second half of a load: the document vectors of a graph published without them.

A load publishes the graph once its nodes, edges, names and aliases are in (kgqa.runtime.load): linking rides on the
names, and full-text search over the documents works from the first second. The documents' vectors, about 90% of
the embedding time, serve step 6's similarity and the vector strand; they are embedded here, after the publication,
from the texts the store holds, and published all at once by the store (:meth:`GraphStore.documents_writer`).

Resumable by construction: every vector goes through the embedding cache as it is computed, so a killed run's
successor reads those back and embeds only the rest; a run that finds the documents in does nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kgqa.config import Config
from kgqa.errors import StoreError
from kgqa.runtime.embed import Embedder
from kgqa.runtime.load import index_text, plain_document
from kgqa.runtime.progress import ProgressSink, task
from kgqa.runtime.store.protocols import GraphStore

CHUNK = 10_000
"""Nodes read and embedded per step: the embedder pads less the more texts it can sort by length at once."""
TASK = "embedding documents"
"""The progress task of :func:`embed_documents`, counted in texts (two per node where the index holds STaRK's
document with relations); ``kgqa server status`` and the trace read it by this name."""


@dataclass(frozen=True)
class DocumentsReport:
    graph: str
    nodes: int
    computed: int
    """Texts embedded now (the rest came from the cache: a resumed run)."""
    cached: int
    seconds: float
    already: bool = False


def embed_documents(
    store: GraphStore, embedder: Embedder, graph: str, config: Config, progress: ProgressSink | None = None
) -> DocumentsReport:
    """Embed and publish the document vectors of ``graph`` (nothing if it has them): per label, the plain document
    (:func:`plain_document`) and, where the index holds STaRK's document with relations, that text too."""
    started = time.perf_counter()
    meta = store.meta(graph)
    if meta is None:
        raise StoreError(f"graph '{graph}' is not loaded")
    schema = store.schema(graph)
    if schema.has_documents:
        return DocumentsReport(graph, schema.node_count, 0, 0, 0.0, already=True)
    if embedder.name != meta.embedder:
        raise StoreError(
            f"graph '{graph}' was loaded with '{meta.embedder}', not the configured embedder '{embedder.name}': "
            f"load it again (kgqa load {graph} --force)"
        )
    before = embedder.stats.computed, embedder.stats.cached
    with (
        store.documents_writer(graph, progress) as writer,
        task(progress, TASK, schema.node_count * (2 if meta.stark_documents else 1)) as advance,
    ):
        for label in sorted(info.name for info in schema.labels):
            ids = store.label_ids(graph, label)
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start : start + CHUNK]
                texts = {text.id: text for text in store.documents(graph, label, chunk)}
                missing = [i for i in chunk if i not in texts]
                if missing:
                    raise StoreError(f"graph '{graph}': node {missing[0]!r} of {label} has no document to embed")
                nodes = [texts[i] for i in chunk]
                plain = embedder.embed([plain_document(n.name, n.doc) for n in nodes], None, advance)
                if meta.stark_documents:
                    index = [index_text(True, n.doc, n.rel_doc) for n in nodes]
                    budget = meta.doc_max_tokens or config.doc_max_tokens
                    writer.add(label, chunk, embedder.embed(index, budget, advance), plain)
                else:
                    writer.add(label, chunk, plain)
    return DocumentsReport(
        graph,
        schema.node_count,
        embedder.stats.computed - before[0],
        embedder.stats.cached - before[1],
        round(time.perf_counter() - started, 2),
    )
