"""What passes through the store's interface (:mod:`kgqa.runtime.store.protocols`): the rows a load writes, the hits
and texts the steps read, the schema and metadata of a graph, and the checks both dialects share.

Design: reads go through read-only execution only; writes go through a
:class:`~kgqa.runtime.store.protocols.GraphWriter` that replaces a graph atomically when it completes (a load that is
killed midway leaves the previous graph, or none, never half of one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import GraphSchema
from kgqa.errors import InputError, StoreError

if TYPE_CHECKING:  # at run time in _column only: a thin client unpickles a Schema or a SkbMeta without numpy
    import numpy as np

NodeId = str | int

NODE_KEYS = NodeKeys(id="id", name="name")
"""The id and name properties of every node kgqa writes: the one place the stores' catalogues and the compiled
pattern queries (through :func:`graph_schema`) take them from."""

ALIAS_LABEL = "_KgqaAlias"
"""The label of the alias nodes a load writes beside an SKB's nodes, one per (node, alias), each with the alias's
vector in its own name index, so a mention by another name links to the node. Not part of the SKB's schema: the
stores leave it out of labels and counts, and the Cypher front end never sees it."""

USABLE_INDEX = frozenset({"ONLINE", "OPERATIONAL"})
"""The states in which Neo4j (ONLINE) and FalkorDB (OPERATIONAL) answer an index query."""

DOC_VECTORS = "doc_emb"
"""The property of the document vectors in both dialects (their query modules' ``DOC_EMB``)."""

VectorIndex = Literal["name", "doc"]
"""The two vector indexes of every label: node names (constants, method step 4) and documents (answers, step 7)."""


@dataclass(frozen=True)
class NodeRow:
    """One node as written: its id, name, document and the two indexed embeddings (name for constants, document for
    answers), plus the plain document's vector that step 6 reads by id."""

    id: NodeId
    name: str
    doc: str
    name_emb: np.ndarray
    doc_emb: np.ndarray | None
    """None: the document vectors are added after the graph is published (:meth:`GraphStore.documents_writer`); a
    writer takes a block whose rows all have one or all lack one, as for ``plain_emb``."""
    rel_doc: str = ""
    """What follows ``doc`` in the document with relations."""
    plain_emb: np.ndarray | None = None
    """The vector of ``doc`` alone (the name when ``doc`` is empty) by the configured embedder: method step 6's
    similarity, where the document index holds another text (kgqa.runtime.load writes it for STaRK's nodes). None: not
    stored, and step 6 reads ``doc_emb`` instead (outside STaRK it is this very vector; graphs built from raw rows,
    e.g. the store benchmarks, have none either). A writer takes a block whose rows all have it or all lack it."""


def plain_matrix(label: str, rows: Sequence[NodeRow]) -> np.ndarray | None:
    """The rows' ``plain_emb`` as one float32 matrix, or None when no row has one; a block where only some rows
    have it is refused (a property column has one value per node)."""
    return _column(label, [r.plain_emb for r in rows], "a plain document vector")


def doc_matrix(label: str, rows: Sequence[NodeRow]) -> np.ndarray | None:
    """The rows' ``doc_emb`` as one float32 matrix, or None when no row has one (added later), as
    :func:`plain_matrix`."""
    return _column(label, [r.doc_emb for r in rows], "a document vector")


def _column(label: str, vectors: Sequence[np.ndarray | None], what: str) -> np.ndarray | None:
    have = [v for v in vectors if v is not None]
    if not have:
        return None
    if len(have) < len(vectors):
        raise StoreError(f"label {label!r}: {len(vectors) - len(have)} of {len(vectors)} rows lack {what}")
    import numpy as np

    return np.stack(have).astype(np.float32)


@dataclass(frozen=True)
class AliasRow:
    """One alias of node ``of`` (label ``label``, name ``name``), with the alias's name-space vector."""

    of: NodeId
    label: str
    name: str
    alias: str
    emb: np.ndarray


@dataclass(frozen=True)
class AliasHit:
    """A node found through one of its aliases: which alias, and how similar it is to what was searched."""

    id: str
    label: str
    name: str
    alias: str
    similarity: float


@dataclass(frozen=True)
class LabelInfo:
    name: str
    count: int


@dataclass(frozen=True)
class RelationshipInfo:
    type: str
    source: str
    target: str
    count: int


@dataclass(frozen=True)
class IndexInfo:
    label: str
    property: str
    kind: str
    status: str


@dataclass(frozen=True)
class Schema:
    """What the live graph holds; the sanitizer and the CLI read identifiers only from here."""

    labels: tuple[LabelInfo, ...]
    relationships: tuple[RelationshipInfo, ...]
    indexes: tuple[IndexInfo, ...]

    @property
    def node_count(self) -> int:
        return sum(label.count for label in self.labels)

    @property
    def edge_count(self) -> int:
        return sum(rel.count for rel in self.relationships)

    @property
    def has_text_index(self) -> bool:
        """Whether the graph was loaded with full-text indexes (names and documents)."""
        return any(index.kind == "FULLTEXT" for index in self.indexes)

    @property
    def has_documents(self) -> bool:
        """Whether the graph's document vectors are in: every label's document index is listed and usable (Neo4j
        creates them one by one, and fills each before it is ONLINE). A load publishes the graph before them, and
        steps 6-7 and the vector strand run without them until :func:`kgqa.runtime.documents.embed_documents` has
        added them."""
        usable = {
            index.label
            for index in self.indexes
            if index.property == DOC_VECTORS and index.kind == "VECTOR" and index.status in USABLE_INDEX
        }
        return bool(self.labels) and all(label.name in usable for label in self.labels)

    @property
    def has_aliases(self) -> bool:
        """Whether the graph was loaded with aliases (it then has their vector index)."""
        return any(index.label == ALIAS_LABEL and index.kind == "VECTOR" for index in self.indexes)


def graph_schema(schema: Schema) -> GraphSchema:
    """The schema as the Cypher front end sees it: labels, (source, type, target) triples and the node keys."""
    return GraphSchema(
        tuple(label.name for label in schema.labels),
        tuple((r.source, r.type, r.target) for r in schema.relationships),
        NODE_KEYS,
    )


@dataclass(frozen=True)
class SkbMeta:
    """What kgqa records about a loaded SKB, written atomically with the graph."""

    name: str
    source: str
    version: str
    embedder: str
    dimension: int
    candidate_types: tuple[str, ...]
    node_count: int
    edge_count: int
    fingerprint: str
    loaded_at: str
    doc_embedder: str | None = None
    """The model of the document vectors (``doc_emb``, method steps 6-7) when it is not ``embedder``: STaRK's
    precomputed embeddings name it by their folder (``text-embedding-ada-002``). None: ``embedder`` (every graph
    loaded before doc vectors could be imported, and every load that embeds its documents itself)."""
    doc_dimension: int | None = None
    """The dimension of the document vectors and their index; None: ``dimension``."""
    doc_max_tokens: int | None = None
    """The token budget the document index's texts are embedded with where it is not the plain document (STaRK's
    document with relations): the load's setting, which the embedding after the publication keeps."""
    stark_documents: bool = False
    """Whether the document index holds STaRK's document with relations (``doc + rel_doc``, compacted, at
    ``doc_max_tokens``) and step 6 a second vector of the plain document (kgqa.runtime.load.index_text):
    what :func:`kgqa.runtime.documents.embed_documents` embeds for a graph published before its documents."""

    @property
    def doc_model(self) -> str:
        """The model whose vectors the ``doc`` index holds: the question must be embedded by it to search them."""
        return self.doc_embedder or self.embedder

    @property
    def doc_dim(self) -> int:
        return self.doc_dimension or self.dimension


def same_model(embedder: str, model: str) -> bool:
    """Whether the embedder named ``embedder`` (``openai:text-embedding-ada-002``, ``st:all-MiniLM-L6-v2``) is
    ``model``, named either the same way or as STaRK's embedding folders name it (without the ``kind:`` prefix)."""
    return embedder == model or embedder.split(":", 1)[-1] == model


@dataclass(frozen=True)
class VectorHit:
    id: NodeId
    name: str
    label: str
    similarity: float


@dataclass(frozen=True)
class TextHit:
    """A node a full-text index found, with the index's own score (its scale differs by store)."""

    id: str
    name: str
    label: str
    score: float


@dataclass(frozen=True)
class NodeText:
    """A node's name, its document without relations (step 8, the question generator) and the text that
    makes it the document with relations (``doc + rel_doc``)."""

    id: str
    name: str
    doc: str
    rel_doc: str = ""


@dataclass(frozen=True)
class Relation:
    """One edge at a node: its type, whether it points out of the node, and the neighbour's id and name."""

    node: str
    type: str
    out: bool
    neighbour: str
    name: str


@dataclass(frozen=True)
class RelationCount:
    """One relationship type at a node, towards one neighbour label (``kgqa node``)."""

    type: str
    label: str
    neighbours: int
    edges: int
    out: int
    """Edges pointing out of the node; ``edges - out`` point in (PRIME stores both directions of every edge)."""
    names: tuple[str, ...]


NameKind = Literal["label", "relationship type", "property key"]


def refuse_names(
    problem: Callable[[str, NameKind], str | None],
    database: str,
    labels: Sequence[str],
    relationship_types: Sequence[str],
    property_keys: Sequence[str] = (),
) -> None:
    """InputError for the first name ``problem`` (a dialect's rule) finds fault with, naming it, what it is and
    why; a load checks before it writes anything."""
    names: list[tuple[NameKind, Sequence[str]]] = [
        ("label", labels),
        ("relationship type", relationship_types),
        ("property key", property_keys),
    ]
    for kind, group in names:
        for name in group:
            why = problem(name, kind)
            if why is not None:
                shown = repr(name) if len(name) <= 80 else repr(name[:80]) + "..."
                raise InputError(f"{kind} {shown} cannot be stored in {database}: {why}; nothing was written")


_Hit = TypeVar("_Hit", VectorHit, AliasHit)


def at_least(found: list[list[_Hit]], floor: float | None) -> list[list[_Hit]]:
    """Each list of ``found`` without its hits under ``floor`` (all of them without one)."""
    return found if floor is None else [[hit for hit in hits if hit.similarity >= floor] for hits in found]


TEXT_TERM = re.compile(r"[^\W_A-Z]+|[^\W_A-Z]{3,}\*|\"[^\W_A-Z]+(?: [^\W_A-Z]+)+\"")
"""What a full-text term may be: lower-case letters and digits, any script, or such a word of three or more followed
by ``*``, a prefix both RediSearch and Lucene read alike ("symbol starts with KCN": ``kcn*``), or two or more such
words in double quotes, a phrase both read alike (``"related to infection"``); no other index query syntax
(RediSearch's ``|@{}-~``, Lucene's ``:()~^`` and its upper-case operators) can pass through one."""


def check_terms(terms: Sequence[str]) -> list[str]:
    bad = [t for t in terms if not TEXT_TERM.fullmatch(t)]
    if bad:
        raise StoreError(
            f"full-text terms must be plain lower-case words (a prefix of 3+ and *, or a quoted phrase of them), "
            f"got {bad[0]!r}"
        )
    return list(terms)


def batched(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
