"""The embedded store's vectors: a sidecar directory per published graph, opened by mmap, never rebuilt.

Why not FalkorDB's own vector indexes: FalkorDB persists only an index's definition and rebuilds every HNSW graph
from the RDB at each server start (37 minutes for a MAG-size store, docs/benchmarks.md), and the vectors inside the
graph double the server's memory. Here each label's vectors are raw float32 files beside the RDB; a label of up to
:data:`EXACT_ROWS` nodes is searched exactly (a few milliseconds), a larger one through a usearch HNSW index saved at
load time and memory-mapped at open (``Index.restore(view=True)``), its candidates rescored exactly.

Consistency with the graph: a load writes ``vectors/<token>.partial/``, renames it to ``vectors/<token>/`` when
complete, and only then publishes the graph together with the key naming the token (one MULTI with the RENAME), then
SAVEs. A kill before the SAVE leaves the old RDB, whose key names the old directory, still on disk; directories no
key names are removed at the next open. The manifest repeats the graph's name, token and counts, and an open refuses
a directory that does not match the graph it is asked for.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from kgqa.errors import StoreError
from kgqa.runtime.progress import ProgressSink, task

if TYPE_CHECKING:
    from usearch.index import Index

FORMAT = 2
EXACT_ROWS = 100_000
"""Labels with at most this many nodes are searched exactly: a search takes milliseconds at this size
(benchmarks/hnsw_calibration.py times it), less than an HNSW index costs to build, and exact results move no
answer."""
HNSW_CONNECTIVITY = 16
HNSW_EXPANSION_ADD = 64
"""Half usearch's default: the build takes about half as long, and the recall lost is won back at search time, where
``ef_runtime`` candidates are rescored (docs/benchmarks.md, HNSW calibration)."""
HNSW_DTYPE = "i8"
"""The HNSW graph holds 8-bit vectors (4x less to build and map than float32); its candidates are rescored with the
float32 vectors, so a similarity is never approximate, only which candidates come back."""
PRODUCT_CELLS = 4_000_000
"""Similarities one matrix product of :meth:`VectorTable.top_k_many` makes at most (16 MB of float32, times three
arrays): a question's spans are searched in blocks, so that 1,000 spans against a label of 100,000 nodes do not
take gigabytes."""
PROJECTED_DIMS = 64
"""Dimensions of the first pass of a search with a floor (:meth:`VectorTable.top_k_many`): the stored vectors'
principal directions. On HPO's names (384 dimensions) a span's bound at 0.85 leaves a mean of 1.5-9 rows per label
to score exactly, and the pass reads a sixth of the bytes."""
ROUNDED = 5
"""The decimals of a similarity a search with a floor returns: past them they are float rounding, which differs with
the shape of the product that computes them (the same name's vectors under two labels must tie however they are
searched, with or without the first pass)."""
BOUND_SLACK = 1e-4
"""What the bound gives away to float32 rounding: a row whose bound is this close under the floor is scored too."""
ADD_BATCH = 100_000
MAX_ID_CHARS = 256
"""The id files are fixed-width arrays (memory-mapped, searched by bisection): every row is as wide as the longest
id, so one id of megabytes would make the files of a large label terabytes."""
RELOAD = "load the SKB again with `kgqa load ... --force` (an unforced load finds the graph up to date)"
"""What to do about vectors that cannot be read: their graph's metadata still says the load is current."""
PARTIAL = ".partial"
MANIFEST = "manifest.json"


def estimate_bytes(nodes: int, dimension: int, doc_dimension: int) -> int:
    """An upper bound of a load's vector directory: a name, a document and a plain-document vector per node (float32),
    plus HNSW indexes (8-bit vectors and their links, well under a third of that)."""
    return int(nodes * (2 * dimension + doc_dimension) * 4 * 1.3)


def check_disk(root: Path, need: int) -> None:
    """Refuse a load whose vectors cannot fit on the data directory's disk, before anything is written."""
    root.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(root).free
    if need > free:
        raise StoreError(
            f"the load's vectors need about {need / 2**30:.1f} GiB in {root}, and {free / 2**30:.1f} GiB are free; "
            "free space there, or set KGQA_HOME to a larger disk"
        )


def new_hnsw(dimension: int, ef_runtime: int) -> Index:
    """An empty HNSW index as a load builds it (cosine, :data:`HNSW_DTYPE`, connectivity, expansion)."""
    from usearch.index import Index

    return Index(
        ndim=dimension,
        metric="cos",
        dtype=HNSW_DTYPE,
        connectivity=HNSW_CONNECTIVITY,
        expansion_add=HNSW_EXPANSION_ADD,
        expansion_search=ef_runtime,
    )


def new_token() -> str:
    return secrets.token_hex(8)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class _Table:
    """One label's rows while a load writes them: ids in row order and one open raw file per vector property."""

    number: int
    ids: list[str] = field(default_factory=list)
    dims: dict[str, int] = field(default_factory=dict)
    files: dict[str, IO[bytes]] = field(default_factory=dict)


class VectorWriter:
    """Receives a graph's vectors label by label as a load writes its nodes; :meth:`finish` builds the indexes and
    makes the directory complete. Nothing it writes is read until the graph's key names its token."""

    def __init__(self, root: Path, graph: str, ef_runtime: int) -> None:
        self.token = new_token()
        self.graph = graph
        self._ef_runtime = ef_runtime
        self._root = root
        self._dir = root / (self.token + PARTIAL)
        self._dir.mkdir(parents=True)
        self._tables: dict[str, _Table] = {}

    @property
    def final(self) -> Path:
        return self._root / self.token

    def add(self, label: str, ids: Sequence[str], columns: Mapping[str, np.ndarray]) -> None:
        """Append the rows of ``label`` (``columns``: property -> float matrix, one row per id). Every block of a
        label carries the same properties and dimensions."""
        table = self._tables.get(label)
        if table is None:
            table = self._tables[label] = _Table(len(self._tables))
            table.dims = {prop: int(matrix.shape[1]) for prop, matrix in columns.items()}
        if set(columns) != set(table.dims):
            raise StoreError(f"label {label!r}: vector properties {sorted(columns)} differ from {sorted(table.dims)}")
        longest = max(ids, key=len, default="")
        if len(longest) > MAX_ID_CHARS:
            raise StoreError(
                f"label {label!r}: node id {longest[:40]!r}... has {len(longest):,} characters; the embedded store "
                f"keeps ids of at most {MAX_ID_CHARS}"
            )
        for prop, matrix in columns.items():
            if matrix.shape != (len(ids), table.dims[prop]):
                raise StoreError(
                    f"label {label!r}: {prop} has shape {matrix.shape}, expected ({len(ids)}, {table.dims[prop]})"
                )
            values = np.ascontiguousarray(matrix, dtype=np.float32)
            if not np.isfinite(values).all():
                raise StoreError("refusing to store a vector with NaN or infinite values")
            handle = table.files.get(prop)
            if handle is None:
                handle = table.files[prop] = (self._dir / f"t{table.number}.{prop}.f32").open("wb")
            handle.write(values.tobytes())
        table.ids.extend(ids)

    def finish(
        self,
        indexed: Mapping[str, Collection[str]],
        hnsw: Collection[tuple[str, str]],
        progress: ProgressSink | None = None,
    ) -> None:
        """Close the files, write the id lookup, build an HNSW index for each (label, property) of ``hnsw`` that
        ``indexed`` lists and whose label is larger than :data:`EXACT_ROWS` (the other indexed properties are
        searched exactly; ``progress`` hears each build, minutes at MAG size), write the manifest and rename the
        directory to its final name."""
        tables: dict[str, Any] = {}
        for label, table in self._tables.items():
            for handle in table.files.values():
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()
            rows = len(table.ids)
            ids = np.array(table.ids, dtype=str)
            order = np.argsort(ids, kind="stable").astype(np.int64)
            np.save(self._dir / f"t{table.number}.ids.npy", ids)
            np.save(self._dir / f"t{table.number}.order.npy", order)
            np.save(self._dir / f"t{table.number}.sorted.npy", ids[order])
            del ids, order
            built = []
            for prop in sorted(indexed.get(label, ())):
                if prop not in table.dims:
                    raise StoreError(f"label {label!r} has no vectors {prop!r} to index")
                if rows <= EXACT_ROWS or (label, prop) not in hnsw:
                    continue
                file = self._dir / f"t{table.number}.{prop}.f32"
                matrix = np.memmap(file, np.float32, "r", shape=(rows, table.dims[prop]))
                target = self._dir / f"t{table.number}.{prop}.usearch"
                _build_hnsw(matrix, self._ef_runtime, target, progress, f"indexing {label}.{prop}")
                del matrix
                built.append(prop)
            tables[label] = {
                "number": table.number,
                "rows": rows,
                "dims": table.dims,
                "indexed": sorted(indexed.get(label, ())),
                "hnsw": built,
            }
        manifest = {"format": FORMAT, "token": self.token, "graph": self.graph, "tables": tables}
        _complete(self._dir, self.final, manifest)

    def discard(self) -> None:
        for table in self._tables.values():
            for handle in table.files.values():
                handle.close()
        shutil.rmtree(self._dir, ignore_errors=True)


class ColumnWriter:
    """Adds vector properties (the document vectors a load published its graph without) to a published directory:
    a new directory holding the old one's files as hard links (nothing is copied) and one new file per label and
    property, written in place row by row and complete only once every row has its vector; :meth:`finish` builds
    their HNSW indexes and renames it, as :meth:`VectorWriter.finish` does. The old directory is untouched: answers
    read it until the graph's key names the new token."""

    def __init__(
        self,
        root: Path,
        tables: VectorTables,
        labels: Collection[str],
        columns: Mapping[str, int],
        indexed: Collection[str],
        ef_runtime: int,
    ) -> None:
        """``labels``: those whose every node gets ``columns`` (property -> dimension), of which ``indexed`` are
        searched (:attr:`VectorTable.indexed`)."""
        self.token = new_token()
        self.graph = tables.graph
        self._root = root
        self._tables = tables
        self._columns = dict(columns)
        self._indexed = frozenset(indexed)
        self._ef_runtime = ef_runtime
        self._manifest = json.loads((tables.directory / MANIFEST).read_text())
        """The published directory's manifest, read before anything is linked: a later load may remove it."""
        self._dir = root / (self.token + PARTIAL)
        self._dir.mkdir(parents=True)
        for file in tables.directory.iterdir():
            if file.name != MANIFEST:
                _link(file, self._dir / file.name)
        self._matrices: dict[tuple[str, str], np.memmap[Any, Any]] = {}
        self._filled: dict[str, np.ndarray] = {}
        for label in labels:
            table = tables.table(label)
            self._filled[label] = np.zeros(table.rows, dtype=bool)
            for prop, dim in self._columns.items():
                file = self._dir / f"t{table.number}.{prop}.f32"
                if prop in table.dims:
                    raise StoreError(f"label {label!r} of graph '{self.graph}' already has vectors {prop!r}")
                if table.rows:
                    self._matrices[label, prop] = np.memmap(file, np.float32, "w+", shape=(table.rows, dim))
                else:
                    file.touch()

    def add(self, label: str, ids: Sequence[str], columns: Mapping[str, np.ndarray]) -> None:
        """The vectors of ``ids`` (one row each per property of ``columns``, every property this writer adds)."""
        if set(columns) != set(self._columns):
            raise StoreError(
                f"label {label!r}: vector properties {sorted(columns)} differ from {sorted(self._columns)}"
            )
        filled = self._filled.get(label)
        if filled is None:
            raise StoreError(f"graph '{self.graph}' has no label {label!r} to add vectors to")
        found = self._tables.table(label).rows_of(ids)
        if len(found) != len(set(ids)) or len(set(ids)) != len(ids):
            missing = next((i for i in ids if i not in found), ids[0] if ids else "")
            raise StoreError(f"label {label!r}: node {missing!r} is not stored once in graph '{self.graph}'")
        rows = np.fromiter((found[i] for i in ids), dtype=np.int64, count=len(ids))
        for prop, matrix in columns.items():
            values = np.ascontiguousarray(matrix, dtype=np.float32)
            if values.shape != (len(ids), self._columns[prop]):
                raise StoreError(
                    f"label {label!r}: {prop} has shape {values.shape}, expected ({len(ids)}, {self._columns[prop]})"
                )
            if not np.isfinite(values).all():
                raise StoreError("refusing to store a vector with NaN or infinite values")
            self._matrices[label, prop][rows] = values
        filled[rows] = True

    def finish(self, hnsw: Collection[tuple[str, str]], progress: ProgressSink | None = None) -> None:
        """Check that every row has its vectors, build the HNSW indexes of ``hnsw`` (as :meth:`VectorWriter.finish`),
        write the manifest and rename the directory to its final name."""
        for label, filled in self._filled.items():
            if not filled.all():
                raise StoreError(
                    f"label {label!r} of graph '{self.graph}': {int((~filled).sum())} of {len(filled)} nodes have no "
                    f"{', '.join(sorted(self._columns))}"
                )
        for matrix in self._matrices.values():
            matrix.flush()
        manifest = self._manifest
        for label in self._filled:
            entry = manifest["tables"][label]
            number, rows = int(entry["number"]), int(entry["rows"])
            entry["dims"] = {**entry["dims"], **self._columns}
            entry["indexed"] = sorted({*entry["indexed"], *self._indexed})
            for prop in sorted(self._indexed):
                if rows <= EXACT_ROWS or (label, prop) not in hnsw:
                    continue
                target = self._dir / f"t{number}.{prop}.usearch"
                _build_hnsw(self._matrices[label, prop], self._ef_runtime, target, progress, f"indexing {label}.{prop}")
                entry["hnsw"] = sorted({*entry["hnsw"], prop})
        self._matrices.clear()
        manifest["token"] = self.token
        _complete(self._dir, self._root / self.token, manifest)

    def discard(self) -> None:
        self._matrices.clear()
        shutil.rmtree(self._dir, ignore_errors=True)


def _build_hnsw(matrix: np.ndarray, ef_runtime: int, target: Path, progress: ProgressSink | None, what: str) -> None:
    """An HNSW index of ``matrix``'s rows (keys: row numbers), added in blocks (``progress`` hears each, as
    ``what``), saved to ``target``."""
    rows, dimension = matrix.shape
    index = new_hnsw(dimension, ef_runtime)
    with task(progress, what, rows) as advance:
        for start in range(0, rows, ADD_BATCH):
            stop = min(rows, start + ADD_BATCH)
            index.add(np.arange(start, stop, dtype=np.uint64), np.asarray(matrix[start:stop]), threads=0)
            advance(stop - start)
    index.save(str(target))


def _complete(directory: Path, final: Path, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest`` into ``directory`` durably, then rename it to ``final``: what makes a directory complete
    (its files were flushed by their writers; an open never reads a directory without its manifest)."""
    path = directory / MANIFEST
    path.write_text(json.dumps(manifest, indent=1, allow_nan=False))
    with path.open("rb") as handle:
        os.fsync(handle.fileno())
    _fsync_dir(directory)
    directory.rename(final)
    _fsync_dir(final.parent)


def _link(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source`` (the files are never written again), a copy where links fail."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


class VectorTable:
    """One label's vectors, mapped: the ids in row order, a float32 matrix per property, HNSW indexes."""

    def __init__(self, directory: Path, label: str, entry: Mapping[str, Any], ef_runtime: int) -> None:
        self.label = label
        self.rows = int(entry["rows"])
        self.dims: dict[str, int] = dict(entry["dims"])
        self.indexed = frozenset(entry["indexed"])
        """The properties searched by :meth:`top_k`."""
        self.hnsw = frozenset(entry["hnsw"])
        """Those of them searched through an HNSW index (the rest exactly)."""
        number = self.number = int(entry["number"])
        self.ids = np.load(directory / f"t{number}.ids.npy", mmap_mode="r")
        self._order = np.load(directory / f"t{number}.order.npy", mmap_mode="r")
        self._sorted = np.load(directory / f"t{number}.sorted.npy", mmap_mode="r")
        if {len(self.ids), len(self._order), len(self._sorted)} != {self.rows}:
            raise StoreError(f"vector files of label {label!r} in {directory} are incomplete")
        self._matrices: dict[str, np.ndarray] = {}
        for prop, dim in self.dims.items():
            file = directory / f"t{number}.{prop}.f32"
            if file.stat().st_size != self.rows * int(dim) * 4:
                raise StoreError(f"vector file {file} has {file.stat().st_size} bytes, not {self.rows} x {dim} floats")
            self._matrices[prop] = (
                np.memmap(file, np.float32, "r", shape=(self.rows, int(dim))) if self.rows else np.zeros((0, dim))
            )
        self._hnsw: dict[str, Any] = {}
        for prop in entry["hnsw"]:
            from usearch.index import Index

            index = Index.restore(str(directory / f"t{number}.{prop}.usearch"), view=True, expansion_search=ef_runtime)
            if index is None or len(index) != self.rows:
                raise StoreError(f"vector index {prop} of label {label!r} in {directory} is unreadable or incomplete")
            self._hnsw[prop] = index
        self._ef_runtime = ef_runtime
        self._inverse_norms: dict[str, np.ndarray] = {}
        """1 / each stored vector's length (0 for none), per exactly searched property, computed at first search."""
        self._projections: dict[str, Projection] = {}
        """Per exactly searched property, the first pass of a search with a floor, made at its first such search."""

    def matrix(self, prop: str) -> np.ndarray:
        return self._matrices[prop]

    def similarities(self, prop: str, rows: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of ``vector`` to the stored vectors of ``rows`` (0 where either has no length)."""
        return _cosine(np.asarray(self._matrices[prop][rows]), vector)

    def top_k(self, prop: str, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, cosine similarity) of the ``k`` nearest rows, best first (ties by row)."""
        return self.top_k_many(prop, np.asarray(vector, dtype=np.float32)[None, :], k)[0]

    def top_k_many(
        self, prop: str, vectors: np.ndarray, k: int, floor: float | None = None
    ) -> list[list[tuple[int, float]]]:
        """:meth:`top_k` of each row of ``vectors``; with ``floor``, only the rows at least that similar. Exact
        search makes one matrix product of them all: entity linking looks up every span of a question (dozens) in
        every label, and one product is many times faster than a product per span. With a floor it first bounds
        every row's similarity from the vectors' principal directions (:class:`Projection`) and scores exactly only
        the rows whose bound reaches the floor: the same hits, from a sixth of the bytes."""
        if prop not in self.indexed:
            raise StoreError(f"label {self.label!r} has no vector index on {prop}")
        if not len(vectors):
            return []
        queries = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
        k = min(int(k), self.rows)
        if k <= 0:
            return [[] for _ in range(len(queries))]
        index = self._hnsw.get(prop)
        out: list[list[tuple[int, float]]] = []
        if index is None:
            inverse = self._inverse_norms.get(prop)
            if inverse is None:
                inverse = self._inverse_norms[prop] = _inverse(np.linalg.norm(self._matrices[prop], axis=1))
            matrix = self._matrices[prop]
            if floor is not None and self.rows >= PROJECTED_MIN_ROWS and matrix.shape[1] > 2 * PROJECTED_DIMS:
                projection = self._projections.get(prop)
                if projection is None:
                    projection = self._projections[prop] = Projection.of(matrix, inverse)
                return projection.top_k_above(matrix, inverse, queries, k, floor)
            block = max(1, PRODUCT_CELLS // max(1, self.rows))
            for first in range(0, len(queries), block):
                sims = _cosine_many(matrix, queries[first : first + block], inverse)
                out += _top_k_exact(_rounded(sims, floor), k)
            return _above(out, floor)
        for query in queries:
            found = index.search(query, min(self.rows, max(k, self._ef_runtime)))
            rows = np.asarray(found.keys, dtype=np.int64)
            sims = self.similarities(prop, rows, query)
            out.append(_best(rows, _rounded(sims, floor), k))
        return _above(out, floor)

    def rows_of(self, ids: Sequence[str]) -> dict[str, int]:
        """id -> row of the ids stored here (others absent)."""
        if not len(ids) or not self.rows:
            return {}
        wanted = np.array(list(ids), dtype=str)
        at = np.searchsorted(self._sorted, wanted)
        out: dict[str, int] = {}
        for text, position in zip(wanted.tolist(), at.tolist(), strict=True):
            if position < self.rows and self._sorted[position] == text:
                out[text] = int(self._order[position])
        return out


PROJECTED_MIN_ROWS = 2_048
"""Smaller labels are scored whole: the first pass would save less than it costs."""


@dataclass(frozen=True)
class Projection:
    """The stored unit vectors seen along their ``basis`` (the principal directions of the rows, orthonormal
    columns): ``rows`` (rows x :data:`PROJECTED_DIMS`) and each row's length off the basis (``rest``). For unit
    vectors q and x, q.x = q_p.x_p + q_r.x_r <= q_p.x_p + |q_r| |x_r|: a bound that no row above a floor misses."""

    basis: np.ndarray
    rows: np.ndarray
    rest: np.ndarray

    @staticmethod
    def of(matrix: np.ndarray, inverse_norms: np.ndarray) -> Projection:
        """The projection of ``matrix``'s rows scaled to unit length (zero rows stay zero), read in blocks."""
        dims = matrix.shape[1]
        size = max(1, PRODUCT_CELLS // dims)
        blocks = [slice(first, first + size) for first in range(0, len(matrix), size)]
        gram = np.zeros((dims, dims), dtype=np.float64)
        for rows in blocks:
            unit = _unit_rows(matrix, inverse_norms, rows).astype(np.float64)
            gram += unit.T @ unit
        _, vectors = np.linalg.eigh(gram)
        basis = np.ascontiguousarray(vectors[:, ::-1][:, :PROJECTED_DIMS], dtype=np.float32)
        along = np.empty((len(matrix), PROJECTED_DIMS), dtype=np.float32)
        rest = np.empty(len(matrix), dtype=np.float32)
        for rows in blocks:
            unit = _unit_rows(matrix, inverse_norms, rows)
            along[rows] = unit @ basis
            rest[rows] = _off_basis(unit, along[rows])
        return Projection(basis, along, rest)

    def top_k_above(
        self, matrix: np.ndarray, inverse_norms: np.ndarray, queries: np.ndarray, k: int, floor: float
    ) -> list[list[tuple[int, float]]]:
        """The ``k`` best rows at least ``floor`` similar to each query (ties by row), scoring exactly only the
        rows whose bound reaches the floor."""
        unit = queries * _inverse(np.linalg.norm(queries, axis=1))[:, None]
        along = unit @ self.basis
        rest = _off_basis(unit, along)
        out: list[list[tuple[int, float]]] = []
        block = max(1, PRODUCT_CELLS // max(1, len(self.rows)))
        for first in range(0, len(unit), block):
            bounds = along[first : first + block] @ self.rows.T
            bounds += rest[first : first + block, None] * self.rest[None, :]
            reach = bounds >= floor - BOUND_SLACK
            wanted = np.flatnonzero(reach.any(axis=0))
            if not len(wanted):
                out += [[] for _ in range(len(bounds))]
                continue
            sims = _rescored(unit[first : first + block], matrix, inverse_norms, wanted)
            for line, reached in zip(sims, reach[:, wanted], strict=True):
                keep = reached & (line >= floor)
                out.append(_best(wanted[keep], line[keep], k))
        return out


def _rescored(unit: np.ndarray, matrix: np.ndarray, inverse_norms: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Cosine similarity of the unit queries to the stored ``rows``, in float64, rounded (:data:`ROUNDED`)."""
    stored = np.asarray(matrix[rows], dtype=np.float64) * inverse_norms[rows, None]
    sims: np.ndarray = np.round(unit.astype(np.float64) @ stored.T, ROUNDED).astype(np.float32)
    return sims


def _unit_rows(matrix: np.ndarray, inverse_norms: np.ndarray, rows: slice) -> np.ndarray:
    unit: np.ndarray = np.asarray(matrix[rows], dtype=np.float32) * inverse_norms[rows, None]
    return unit


def _off_basis(unit: np.ndarray, along: np.ndarray) -> np.ndarray:
    """Each unit row's length off the basis, from its length along it (0 for a zero row)."""
    lengths = np.einsum("ij,ij->i", unit, unit) - np.einsum("ij,ij->i", along, along)
    rest: np.ndarray = np.sqrt(np.maximum(lengths, 0.0)).astype(np.float32)
    return rest


def _rounded(sims: np.ndarray, floor: float | None) -> np.ndarray:
    """``sims`` rounded in place to :data:`ROUNDED` decimals for a search with a floor; as they are without one."""
    return sims if floor is None else np.round(sims, ROUNDED, out=sims)


def _above(found: list[list[tuple[int, float]]], floor: float | None) -> list[list[tuple[int, float]]]:
    return found if floor is None else [[(row, sim) for row, sim in hits if sim >= floor] for hits in found]


def _best(rows: np.ndarray, sims: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` best (row, similarity) of ``rows``, by similarity, ties by row."""
    best = np.lexsort((rows, -sims))[:k]
    return [(int(rows[i]), float(sims[i])) for i in best]


def _top_k_exact(sims: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
    """Per row of ``sims`` (queries x stored rows), the ``k`` best (row, similarity), ties by row. Vectorised: one
    partition of the whole block; a query with more rows tied at its k-th similarity than ``k`` takes them all and
    picks by row."""
    rows = sims.shape[1]
    if k >= rows:
        return [_best(np.arange(rows), line, k) for line in sims]
    if k == 1:  # argmax is the first (lowest) row of the largest similarity: the tie rule itself
        best = sims.argmax(axis=1)
        return [[(int(row), float(line[row]))] for line, row in zip(sims, best.tolist(), strict=True)]
    part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    kth = np.take_along_axis(sims, part, axis=1).min(axis=1)
    tied = (sims >= kth[:, None]).sum(axis=1) > k
    out = []
    for line, chosen, threshold, wider in zip(sims, part, kth, tied.tolist(), strict=True):
        candidates = np.flatnonzero(line >= threshold) if wider else chosen
        out.append(_best(candidates, line[candidates], k))
    return out


def _inverse(norms: np.ndarray) -> np.ndarray:
    inverse: np.ndarray = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return inverse


def _cosine_many(matrix: np.ndarray, queries: np.ndarray, inverse_norms: np.ndarray) -> np.ndarray:
    """Cosine similarity of every query to every stored row (queries x rows; 0 where either has no length), from
    the stored rows' inverse lengths: one product and one scaling, no division of the whole block."""
    scaled = queries * _inverse(np.linalg.norm(queries, axis=1))[:, None]
    sims: np.ndarray = np.asarray(scaled @ matrix.T, dtype=np.float32)
    sims *= inverse_norms[None, :]
    return sims


def _cosine(matrix: np.ndarray, vector: np.ndarray, norms: np.ndarray | None = None) -> np.ndarray:
    query = np.asarray(vector, dtype=np.float32)
    lengths = (np.linalg.norm(matrix, axis=1) if norms is None else norms) * float(np.linalg.norm(query))
    dots = np.asarray(matrix @ query, dtype=np.float32)
    return np.divide(dots, lengths, out=np.zeros_like(dots), where=lengths > 0)


class VectorTables:
    """A published graph's vectors, opened from its directory; read-only."""

    def __init__(self, directory: Path, graph: str, token: str, ef_runtime: int) -> None:
        path = directory / MANIFEST
        try:
            manifest = json.loads(path.read_text())
        except FileNotFoundError as exc:
            raise StoreError(f"the vectors of graph '{graph}' ({directory}) cannot be read: {exc}; {RELOAD}") from exc
        except (OSError, ValueError) as exc:
            raise StoreError(f"the vectors of graph '{graph}' ({directory}) are damaged: {exc}; {RELOAD}") from exc
        if manifest.get("format") != FORMAT:
            raise StoreError(
                f"the vector directory {directory} of graph '{graph}' has format {manifest.get('format')}, this kgqa "
                f"reads {FORMAT}: run `kgqa load` for it again"
            )
        if manifest.get("token") != token or manifest.get("graph") != graph:
            raise StoreError(
                f"the vector directory {directory} does not belong to graph '{graph}' (token {token}); "
                "load the SKB again"
            )
        self.token = token
        self.graph = graph
        self.directory = directory
        try:
            self.tables = {
                label: VectorTable(directory, label, entry, ef_runtime) for label, entry in manifest["tables"].items()
            }
        except (OSError, ValueError, LookupError, TypeError, RuntimeError, StoreError) as exc:
            # a file cut short, gone or overwritten (numpy and usearch say so in their own words)
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise StoreError(f"the vectors of graph '{graph}' ({directory}) are damaged: {reason}; {RELOAD}") from exc

    def table(self, label: str) -> VectorTable:
        found = self.tables.get(label)
        if found is None:
            raise StoreError(f"no vectors stored for label {label!r}")
        return found


def remove_unreferenced(root: Path, tokens: Collection[str]) -> None:
    """Remove every vector directory under ``root`` that no published graph names (a killed load's, or the one a
    newer load replaced). Only the process holding the data directory's lock calls it."""
    if not root.is_dir():
        return
    for entry in root.iterdir():
        if entry.is_dir() and entry.name not in tokens:
            shutil.rmtree(entry, ignore_errors=True)
