"""STaRK's processed SKB folders (``skb/{prime,mag,amazon}/processed``), read without importing ``stark_qa``.

Format (see docs/stark-format.md of the shared docs): ``node_info.pkl`` (int id -> field dict), ``edge_index.pt``
([2, E] LongTensor), ``edge_types.pt`` ([E]), ``edge_type_dict.pkl``, ``node_types.pt`` ([N]),
``node_type_dict.pkl``. Tensors are read with ``torch.load(weights_only=True)`` and pickles with an unpickler that
admits only plain Python containers, so a malicious folder cannot run code.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

from kgqa.errors import InputError
from loaders.documents import render
from loaders.model import Edge, Node, SkbData, fingerprint_files

FILES = (
    "node_info.pkl",
    "edge_index.pt",
    "edge_types.pt",
    "edge_type_dict.pkl",
    "node_types.pt",
    "node_type_dict.pkl",
)
READER_VERSION = "1"
CANDIDATE_TYPES: dict[str, tuple[str, ...] | None] = {
    "prime": None,
    "mag": ("paper",),
    "amazon": ("product",),
}
"""Answer types per SKB as in STaRK; ``None`` means every node type (PRIME)."""
NAME_KEYS = ("name", "title", "DisplayName", "brand_name", "category_name", "color_name")
_SAFE_GLOBALS = {
    ("builtins", n)
    for n in ("dict", "list", "tuple", "set", "frozenset", "str", "int", "float", "bool", "bytes", "complex")
} | {("collections", "OrderedDict")}


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


def resolve_dir(path: Path) -> Path:
    """Accept the ``processed`` folder itself or a folder that contains it; name what is missing otherwise."""
    if not path.exists():
        raise InputError(f"STaRK directory {path} does not exist")
    if not path.is_dir():
        raise InputError(f"STaRK path {path} is not a directory")
    if not (path / FILES[0]).exists() and (path / "processed").is_dir():
        path = path / "processed"
    missing = [name for name in FILES if not (path / name).is_file()]
    if missing:
        raise InputError(f"STaRK directory {path} is missing {', '.join(missing)} (expected the unzipped processed/)")
    return path


def _pickle(path: Path) -> Any:
    try:
        return _SafeUnpickler(io.BytesIO(path.read_bytes())).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError) as exc:
        raise InputError(f"{path.name} is not a valid STaRK pickle: {exc}") from exc


def _tensor(path: Path, ndim: int) -> list[Any]:
    import torch

    try:
        tensor = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a bad file; all mean the same to the user
        raise InputError(f"{path.name} is not a valid torch tensor file: {exc}") from exc
    if not isinstance(tensor, torch.Tensor) or tensor.dim() != ndim or tensor.dtype not in (torch.int64, torch.int32):
        raise InputError(f"{path.name} must hold a {ndim}-d integer tensor")
    return tensor.tolist()


def _name(info: dict[str, Any], node_type: str, node_id: int) -> str:
    for key in NAME_KEYS:
        value = info.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return f"{node_type} {node_id}"


def _document(info: dict[str, Any], node_type: str, name: str) -> str:
    """STaRK get_doc_info style: name, type, source first, other fields next, ``details`` as an indented block."""
    skip = {"id", "type", "name", "title", "details", "source", *NAME_KEYS}
    head: list[tuple[str, Any]] = [("name", name), ("type", node_type), ("source", info.get("source"))]
    head += [(key, value) for key, value in info.items() if key not in skip]
    details = info.get("details")
    return render(head, details if isinstance(details, dict) else None)


def read_stark(name: str, directory: Path) -> SkbData:
    if name not in CANDIDATE_TYPES:
        raise InputError(f"unknown STaRK SKB '{name}' (use one of: {', '.join(CANDIDATE_TYPES)})")
    directory = resolve_dir(directory)
    node_info = _pickle(directory / "node_info.pkl")
    node_type_names = _pickle(directory / "node_type_dict.pkl")
    edge_type_names = _pickle(directory / "edge_type_dict.pkl")
    for file, value in (
        ("node_info.pkl", node_info),
        ("node_type_dict.pkl", node_type_names),
        ("edge_type_dict.pkl", edge_type_names),
    ):
        if not isinstance(value, dict):
            raise InputError(f"{file} must hold a dict, found {type(value).__name__}")
    node_types = _tensor(directory / "node_types.pt", 1)
    edge_index = _tensor(directory / "edge_index.pt", 2)
    edge_types = _tensor(directory / "edge_types.pt", 1)
    count = len(node_types)
    if sorted(node_info) != list(range(count)):
        raise InputError(f"node_info.pkl must have keys 0..{count - 1} to match node_types.pt ({count} nodes)")
    if len(edge_index) != 2 or len(edge_index[0]) != len(edge_types):
        raise InputError(f"edge_index.pt must be [2, E] with E = len(edge_types.pt) = {len(edge_types)}")
    unknown = {t for t in node_types if t not in node_type_names} | {t for t in edge_types if t not in edge_type_names}
    if unknown:
        raise InputError(f"type ids {sorted(unknown)[:5]} are missing from node_type_dict.pkl/edge_type_dict.pkl")

    nodes = []
    for node_id, type_id in enumerate(node_types):
        info = node_info[node_id]
        if not isinstance(info, dict):
            raise InputError(f"node_info.pkl entry {node_id} must be a dict")
        node_type = str(node_type_names[type_id])
        node_name = _name(info, node_type, node_id)
        nodes.append(Node(node_id, node_type, node_name, _document(info, node_type, node_name)))
    edges = []
    for head, tail, type_id in zip(edge_index[0], edge_index[1], edge_types, strict=True):
        if not (0 <= head < count and 0 <= tail < count):
            raise InputError(
                f"edge_index.pt refers to node {head if not 0 <= head < count else tail}, outside 0..{count - 1}"
            )
        edges.append(Edge(head, str(edge_type_names[type_id]), tail))

    present = {node.type for node in nodes}
    candidates = CANDIDATE_TYPES[name] or tuple(sorted(present))
    absent = [t for t in candidates if t not in present]
    if absent:
        raise InputError(f"{directory} has no '{absent[0]}' nodes; is it really the STaRK '{name}' SKB?")
    return SkbData(
        name=name,
        source=f"STaRK {name} processed SKB from {directory}",
        version=f"stark-{name}",
        candidate_types=candidates,
        nodes=nodes,
        edges=edges,
        fingerprint=fingerprint_files(directory, FILES, f"stark-reader-{READER_VERSION}"),
    )
