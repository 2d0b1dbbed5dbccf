"""Loading an SKB: documents with relations, cached embeddings, then one atomic write into the store.

Nodes stream in chunks (render, embed, write) and edges go from numpy arrays grouped by (source label, type, target
label), so memory stays bounded by a chunk, not by the graph.

Node ids are stored as strings for every SKB (STaRK's 42 becomes "42"): FalkorDB's index finds string keys about 5x
faster than integers (measured: 70k vs 13k edges/s when edges look up their endpoints), and one id type keeps
answers, evaluation and Neo4j's uniqueness constraints simple.

Idempotent and interrupt-safe by construction: the graph is written to staging and published only when complete, and
embeddings already computed survive a kill in the cache, so a re-run redoes only the cheap database writes.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

import numpy as np

from kgqa.config import Config
from kgqa.errors import InputError
from kgqa.loaders.documents import relation_texts
from kgqa.loaders.model import Node, NodeId, SkbData, alias_count
from kgqa.loaders.stark_documents import compact_text
from kgqa.loaders.stark_embeddings import DocVectors
from kgqa.runtime.embed import Embedder
from kgqa.runtime.progress import ProgressSink, task
from kgqa.runtime.store.base import AliasRow, NodeRow, SkbMeta, same_model
from kgqa.runtime.store.protocols import GraphStore, GraphWriter
from kgqa.types import LoadReport

STORE_FORMAT = "9"
"""Bumped whenever what a load writes changes (2: string ids, 3: rel_doc and STaRK's own documents, 4: plain_emb,
step 6's stored document vectors, 5: alias nodes, 6: full-text indexes, 7: one document vector per node outside
STaRK, see :func:`index_text`, 8: the embedded store keeps vectors in a directory beside the RDB, and
every node an indexed lower-case name, 9: the vector directory keeps its ids sorted), so older graphs are not
taken as up to date."""
NODE_CHUNK = 20_000
"""Nodes rendered, embedded and written per step: bounds the memory a load needs besides the edge arrays."""


def load_fingerprint(data: SkbData, embedder_name: str, config: Config, doc_vectors: DocVectors | None = None) -> str:
    """Everything that determines the stored graph: the source, the model, the document settings, the format, and
    the imported document vectors (their model and file) if any."""
    key = f"{STORE_FORMAT}|{data.fingerprint}|{embedder_name}|{config.doc_max_tokens}|{config.relation_names_per_type}"
    if doc_vectors is not None:
        key += f"|doc:{doc_vectors.model}|{doc_vectors.digest}"
    return hashlib.sha256(key.encode()).hexdigest()


def check_doc_vectors(data: SkbData, embedder_name: str, doc_vectors: DocVectors) -> None:
    """Nodes without an imported vector (STaRK's file covers the candidate types only) are embedded by the configured
    embedder, which therefore must be the imported vectors' model; else fail, saying which nodes and which model."""
    missing = doc_vectors.missing()
    if not len(missing) or same_model(embedder_name, doc_vectors.model):
        return
    names = data.node_type_names
    counts = np.bincount(data.node_type_codes[missing], minlength=len(names))
    by_type = ", ".join(f"{int(counts[i])} {names[i]}" for i in np.argsort(-counts, kind="stable") if counts[i])
    raise InputError(
        f"{doc_vectors.path.name} has no vector for {len(missing)} of {len(data.nodes)} nodes ({by_type}); "
        f"their documents must be embedded by the same model, '{doc_vectors.model}' (--embedder "
        f"openai:{doc_vectors.model}), not the configured embedder '{embedder_name}'"
    )


def index_text(stark_documents: bool, doc: str, rel_doc: str) -> str:
    """The text of a node's document index where it is not the plain document: STaRK's document with relations,
    compacted (the ``doc`` embeddings STaRK distributes); kgqa's document with the relation summary for another SKB
    given imported vectors (whose model embedded that text). Elsewhere the plain document (:func:`plain_text`) serves
    both the index and step 6: the relation summary added nothing measurable and cost half the load's embedding time
    (docs/benchmarks.md, text_kinds)."""
    return compact_text(doc + rel_doc) if stark_documents else doc + rel_doc


def embedding_text(data: SkbData, node: Node, rel_doc: str) -> str:
    """:func:`index_text` of one node of ``data``."""
    return index_text(data.stark_documents, node.doc, rel_doc)


def plain_text(node: Node) -> str:
    """:func:`plain_document` of one node."""
    return plain_document(node.name, node.doc)


def plain_document(name: str, doc: str) -> str:
    """The text behind step 6's similarity (and, outside STaRK, the document index): a node's document without
    relations (the name when it has none), embedded at the embedder's default length, not ``doc_max_tokens``: the
    text and truncation step 6 used when it embedded documents per question, so its scores did not change."""
    return doc or name


def edge_groups(data: SkbData) -> Iterator[tuple[tuple[str, str, str], np.ndarray]]:
    """Edge positions grouped by (source type, edge type, target type), in sorted order of the names."""
    edges, codes, types = data.edges, data.node_type_codes, data.node_type_names
    if not len(edges):
        return
    width_t, width_n = len(edges.type_names), len(types)
    keys = (codes[edges.source] * width_t + edges.type) * width_n + codes[edges.target]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    bounds = np.r_[starts, len(order)]
    groups = []
    for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        key = int(sorted_keys[start])
        triple = (types[key // (width_t * width_n)], edges.type_names[(key // width_n) % width_t], types[key % width_n])
        groups.append((triple, order[start:end]))
    yield from sorted(groups, key=lambda group: group[0])


def _ids(data: SkbData, positions: np.ndarray) -> list[str]:
    if data.edges.node_ids is None:
        return [str(p) for p in positions.tolist()]
    return [str(data.edges.node_ids[p]) for p in positions.tolist()]


def _doc_vectors(
    embedder: Embedder,
    data: SkbData,
    config: Config,
    nodes: Sequence[Node],
    rel_docs: Sequence[str],
    start: int,
    imported: DocVectors,
    embedded: Callable[[int], None] | None = None,
) -> np.ndarray:
    """The document vectors of the nodes at positions ``start, start + 1, ...``: imported where the file has one,
    else embedded (only those texts are rendered)."""
    rows = imported.rows[start : start + len(nodes)]
    out = np.empty((len(nodes), imported.dimension), dtype=np.float32)
    have = rows >= 0
    out[have] = imported.matrix[rows[have]]
    lacking = np.flatnonzero(~have).tolist()
    if lacking:
        texts = [embedding_text(data, nodes[i], rel_docs[i]) for i in lacking]
        out[lacking] = embedder.embed(texts, config.doc_max_tokens, embedded)
    return out


def _write_nodes(
    writer: GraphWriter,
    embedder: Embedder,
    data: SkbData,
    config: Config,
    nodes: Sequence[Node],
    generic: dict[NodeId, str] | None,
    start: int = 0,
    imported: DocVectors | None = None,
    embedded: Callable[[int], None] | None = None,
) -> None:
    """``embedded(n)``: n more texts resolved (cached or computed), for the load's progress."""
    rel_docs = [node.relations or "" if generic is None else generic[node.id] for node in nodes]
    name_vectors = embedder.embed([n.name for n in nodes], None, embedded)
    doc_vectors: Sequence[np.ndarray | None]
    plain: Sequence[np.ndarray | None] = [None] * len(nodes)
    if imported is None:  # embedded after the graph is published (kgqa.runtime.documents)
        doc_vectors = [None] * len(nodes)
    else:  # imported (those the file lacks embedded now), with step 6's plain-document vectors
        doc_vectors = list(_doc_vectors(embedder, data, config, nodes, rel_docs, start, imported, embedded))
        plain = list(embedder.embed([plain_text(node) for node in nodes], None, embedded))
    by_label: dict[str, list[NodeRow]] = defaultdict(list)
    for node, rel, name_vec, doc_vec, plain_vec in zip(nodes, rel_docs, name_vectors, doc_vectors, plain, strict=True):
        by_label[node.type].append(NodeRow(str(node.id), node.name, node.doc, name_vec, doc_vec, rel, plain_vec))
    for label, rows in sorted(by_label.items()):
        writer.add_nodes(label, rows)
    aliased = [(node, alias) for node in nodes for alias in node.aliases]
    if aliased:
        vectors = embedder.embed([alias for _, alias in aliased], None, embedded)
        writer.add_aliases(
            [
                AliasRow(str(node.id), node.type, node.name, alias, vector)
                for (node, alias), vector in zip(aliased, vectors, strict=True)
            ]
        )


def load_skb(
    store: GraphStore,
    embedder: Embedder,
    data: SkbData,
    config: Config,
    *,
    force: bool = False,
    progress: ProgressSink | None = None,
    doc_vectors: DocVectors | None = None,
) -> LoadReport:
    """``doc_vectors``: precomputed document vectors to store instead of embedding those documents (see
    :func:`check_doc_vectors` for the nodes they lack)."""
    started = time.perf_counter()
    if doc_vectors is not None:
        if len(doc_vectors.rows) != len(data.nodes):
            raise InputError(
                f"{doc_vectors.path.name} was read for {len(doc_vectors.rows)} nodes, not {len(data.nodes)}"
            )
        check_doc_vectors(data, embedder.name, doc_vectors)
    store.check_names(data.node_type_names, data.edges.type_names)  # before anything is written
    fingerprint = load_fingerprint(data, embedder.name, config, doc_vectors)
    current = store.meta(data.name)
    if current is not None and current.fingerprint == fingerprint and not force:
        return LoadReport(
            data.name, True, current.node_count, current.edge_count, 0, 0, time.perf_counter() - started, data.skipped
        )
    before = embedder.stats.computed, embedder.stats.cached
    per_type = config.relation_names_per_type
    generic = None if data.stark_documents else dict(relation_texts(data.nodes, data.edges, per_type))
    meta = SkbMeta(
        name=data.name,
        source=data.source,
        version=data.version,
        embedder=embedder.name,
        dimension=embedder.dimension,
        candidate_types=data.candidate_types,
        node_count=len(data.nodes),
        edge_count=len(data.edges),
        fingerprint=fingerprint,
        loaded_at=datetime.now(UTC).isoformat(timespec="seconds"),
        doc_embedder=None if doc_vectors is None else doc_vectors.model,
        doc_dimension=None if doc_vectors is None else doc_vectors.dimension,
        doc_max_tokens=config.doc_max_tokens,
        stark_documents=data.stark_documents,
    )
    phases: dict[str, float] = {}
    clock = time.perf_counter()
    with store.writer(data.name, meta, progress) as writer:
        texts = len(data.nodes) + alias_count(data.nodes)  # the names and aliases; imported documents: unknown
        with (
            task(progress, "embedding names", texts if doc_vectors is None else None) as embedded,
            task(progress, "writing nodes", len(data.nodes)) as advance,
        ):
            for start in range(0, len(data.nodes), NODE_CHUNK):
                chunk = data.nodes[start : start + NODE_CHUNK]
                _write_nodes(writer, embedder, data, config, chunk, generic, start, doc_vectors, embedded)
                advance(len(chunk))
        phases["nodes"], clock = time.perf_counter() - clock, time.perf_counter()
        with task(progress, "writing edges", len(data.edges)) as advance:
            step = config.load_batch_size * 50
            for (source, rel_type, target), positions in edge_groups(data):
                for begin in range(0, len(positions), step):
                    part = positions[begin : begin + step]
                    sources, targets = _ids(data, data.edges.source[part]), _ids(data, data.edges.target[part])
                    pairs = list(zip(sources, targets, strict=True))
                    writer.add_edges(source, rel_type, target, pairs)
                    advance(len(part))
        phases["edges"], clock = time.perf_counter() - clock, time.perf_counter()
        doc_dimension = None if doc_vectors is None else doc_vectors.dimension
        writer.create_vector_indexes(list(data.node_type_names), embedder.dimension, doc_dimension)
    phases["publish"] = time.perf_counter() - clock
    return LoadReport(
        data.name,
        False,
        len(data.nodes),
        len(data.edges),
        embedder.stats.computed - before[0],
        embedder.stats.cached - before[1],
        time.perf_counter() - started,
        data.skipped,
        {name: round(seconds, 2) for name, seconds in phases.items()},
        0 if doc_vectors is None else int((doc_vectors.rows >= 0).sum()),
    )
