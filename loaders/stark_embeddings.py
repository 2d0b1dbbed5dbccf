"""STaRK's precomputed embeddings, read without running pickled code.

STaRK distributes ``emb/<skb>/<model>/doc/candidate_emb_dict.pt`` (candidate node id -> the embedding of STaRK's
document with relations, compacted: the text kgqa's vector strand embeds) and
``emb/<skb>/<model>/query/query_emb_dict.pt`` (question id -> the question's embedding by the same model). Both are
``torch.save`` of a dict of tensors, read here with ``torch.load(weights_only=True)``
(:func:`kgqa.loaders.stark_files.read_torch`), validated, and turned into one L2-normalised float32 matrix. STaRK's code
stacks the values with ``.view(1, -1)``, and older files hold ``[1, D]`` tensors: a leading dimension of 1 is
accepted as a vector.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.errors import InputError

from .stark_files import check_dense, read_torch, torch_module

DOC_FILE = "candidate_emb_dict.pt"
QUERY_FILE = "query_emb_dict.pt"


@dataclass(frozen=True)
class DocVectors:
    """Imported document vectors: ``matrix[rows[p]]`` is the vector of the node at position ``p`` (``rows[p]`` is -1
    for a node the file has no vector for)."""

    model: str
    """The ``<model>`` folder the file sits in (``text-embedding-ada-002``)."""
    path: Path
    digest: str
    """SHA-256 of the file: part of the load's fingerprint."""
    matrix: np.ndarray
    rows: np.ndarray

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[1])

    def missing(self) -> np.ndarray:
        """Positions of the nodes without a vector."""
        return np.flatnonzero(self.rows < 0)


def find_doc_embeddings(skb: str, path: Path) -> tuple[Path, str]:
    """(the candidate_emb_dict.pt, its model) from the emb root, ``<skb>/``, ``<skb>/<model>/``, its ``doc/`` folder
    or the file itself."""
    if not path.exists():
        raise InputError(f"embeddings path {path} does not exist")
    if path.is_file():
        return path, _model_of(path)
    patterns = (DOC_FILE, f"doc/{DOC_FILE}", f"*/doc/{DOC_FILE}", f"{skb}/*/doc/{DOC_FILE}")
    found = sorted({file for pattern in patterns for file in path.glob(pattern) if file.is_file()})
    if not found:
        where = ", ".join(p.replace(DOC_FILE, "").rstrip("/") or "." for p in patterns)
        raise InputError(f"no {DOC_FILE} under {path} (looked in: {where})")
    if len(found) > 1:
        models = ", ".join(f"{_model_of(file)} ({file.relative_to(path)})" for file in found)
        raise InputError(f"several embedding models under {path}: {models}; point --embeddings at one of them")
    return found[0], _model_of(found[0])


def _model_of(file: Path) -> str:
    """The ``<model>`` of ``<model>/doc/candidate_emb_dict.pt`` (STaRK's layout), else the file's own folder."""
    folder = file.resolve().parent
    return folder.parent.name if folder.name == "doc" else folder.name


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _vectors(path: Path, key_ok: Callable[[int], bool], what: str) -> tuple[list[int], np.ndarray]:
    """The file's keys (ints, in file order) and its vectors as one normalised float32 matrix, validated.

    The tensors are taken out of the dict one by one, so a multi-GB file does not sit in memory twice."""
    torch = torch_module()

    value: Any = read_torch(path)
    if not isinstance(value, dict):
        raise InputError(f"{path.name} must hold a dict of {what} -> 1-d float tensor, found {type(value).__name__}")
    if not value:
        raise InputError(f"{path.name} holds no vectors")
    keys = list(value)
    bad = next((k for k in keys if isinstance(k, bool) or not isinstance(k, int)), None)
    if bad is not None:
        raise InputError(f"{path.name} must be keyed by integer {what}s, found key {bad!r}")
    outside = next((k for k in keys if not key_ok(k)), None)
    if outside is not None:
        raise InputError(f"{path.name} has a vector for {what} {outside}, which is not in the SKB")
    matrix: np.ndarray | None = None
    for row, key in enumerate(keys):
        tensor = value.pop(key)
        if not isinstance(tensor, torch.Tensor) or not tensor.dtype.is_floating_point:
            kind = tensor.dtype if isinstance(tensor, torch.Tensor) else type(tensor).__name__
            raise InputError(f"{path.name}: the value of {what} {key} must be a float tensor, found {kind}")
        check_dense(tensor, f"{path.name}: {what} {key}")
        if tensor.dim() == 2 and tensor.shape[0] == 1:
            tensor = tensor[0]
        if tensor.dim() != 1:
            raise InputError(f"{path.name}: the vector of {what} {key} must be 1-d, found shape {list(tensor.shape)}")
        if matrix is None:
            matrix = np.empty((len(keys), tensor.shape[0]), dtype=np.float32)
        if tensor.shape[0] != matrix.shape[1]:
            raise InputError(
                f"{path.name} mixes dimensions: {what} {keys[0]} has {matrix.shape[1]}, {what} {key} has "
                f"{tensor.shape[0]}"
            )
        matrix[row] = tensor.detach().to(torch.float32).numpy()
    assert matrix is not None
    finite = np.isfinite(matrix).all(axis=1)
    norms = np.linalg.norm(matrix, axis=1)
    bad_row = next((i for i in range(len(keys)) if not finite[i] or norms[i] == 0), None)
    if bad_row is not None:
        raise InputError(f"{path.name}: the vector of {what} {keys[bad_row]} is zero or not finite")
    matrix /= norms[:, None]
    return keys, matrix


def available_memory() -> int | None:
    """Bytes of memory the kernel can give without swapping (``MemAvailable``), or None where it does not say."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(path: Path, available: int | None) -> None:
    """Refuse, before reading anything, a vectors file that cannot fit: reading holds the file's tensors and the
    float32 matrix made of them at once, about twice the file's size (1.87M ada-002 vectors of 1536-d are 11 GiB)."""
    need = 2 * path.stat().st_size
    if available is not None and need > available:
        raise InputError(
            f"{path.name} is {path.stat().st_size / 2**30:.1f} GiB: importing it needs about {need / 2**30:.1f} GiB "
            f"of memory and {available / 2**30:.1f} GiB are available; load this SKB into Neo4j (KGQA_STORE=neo4j), "
            "or load it without --embeddings (the configured embedder's smaller vectors), see docs/stark.md"
        )


def read_doc_vectors(path: Path, model: str, node_count: int) -> DocVectors:
    """The document vectors of ``path`` for an SKB of ``node_count`` nodes (STaRK ids are positions 0..N-1)."""
    check_memory(path, available_memory())
    keys, matrix = _vectors(path, lambda k: 0 <= k < node_count, "node id")
    rows = np.full(node_count, -1, dtype=np.int64)
    rows[np.asarray(keys, dtype=np.int64)] = np.arange(len(keys))
    return DocVectors(model, path, _sha256(path), matrix, rows)


def read_query_vectors(path: Path) -> Mapping[str, np.ndarray]:
    """Question id (as a string, as :class:`kgqa.lab.qa.Question` keeps it) -> normalised question vector."""
    if not path.is_file():
        raise InputError(f"query embeddings file {path} does not exist")
    keys, matrix = _vectors(path, lambda k: True, "question id")
    return {str(key): matrix[row] for row, key in enumerate(keys)}
