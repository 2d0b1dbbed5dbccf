"""STaRK's SKBs (PRIME, MAG, AMAZON) from the processed folders STaRK's own classes load.

Nodes are rendered on access (documents with STaRK's templates, :mod:`kgqa.loaders.stark_documents`); edges stay numpy
arrays as in the tensors. Node ids are STaRK's 0..N-1, so answer ids match STaRK's question sets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, overload

import numpy as np

from kgqa.errors import InputError, KgqaError

from .model import EdgeArrays, Node, SkbData, aliases_of, fingerprint_files
from .plain_data import PlainCheck, PlainDataError
from .stark_documents import AmazonDocuments, MagDocuments, PrimeDocuments, clean_dict, node_name
from .stark_files import find_folder, read_index_tensor, read_pickle, text_problem, type_dicts
from .stark_graph import Adjacency, stark_adjacency

READER_VERSION = "2"
CANDIDATE_TYPES: dict[str, tuple[str, ...] | None] = {
    "prime": None,
    "mag": ("paper",),
    "amazon": ("product",),
}
"""Answer types per SKB as in STaRK; ``None`` means every node type (PRIME)."""
NAME_KEYS = {
    "prime": ("name",),
    "mag": ("title", "DisplayName"),
    "amazon": ("title", "brand_name", "category_name", "color_name"),
}


class StarkNodes(Sequence[Node]):
    """Nodes rendered on access: name, STaRK's document and its relation text."""

    def __init__(
        self,
        name: str,
        info: Mapping[int, Mapping[str, Any]],
        codes: np.ndarray,
        node_type_dict: Mapping[int, str],
        edge_type_dict: Mapping[int, str],
        edges: EdgeArrays,
    ) -> None:
        self._skb = name
        self._info = info
        self._codes = codes
        self._types = node_type_dict
        self._edges = edges
        self._prime = PrimeDocuments(node_type_dict, edge_type_dict)
        self._mag = MagDocuments(node_type_dict, edge_type_dict)
        self._amazon = AmazonDocuments(node_type_dict, edge_type_dict)

    @cached_property
    def adjacency(self) -> Adjacency:
        return stark_adjacency(self._edges.source, self._edges.target, self._edges.type, len(self))

    @cached_property
    def _names(self) -> list[str]:
        """PRIME's relation lists print each neighbour's cleaned ``name`` as STaRK's Node has it."""
        return [str(clean_dict(self._info[i]).get("name")) for i in range(len(self))]

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> Node: ...
    @overload
    def __getitem__(self, index: slice) -> list[Node]: ...
    def __getitem__(self, index: int | slice) -> Node | list[Node]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._node(index)

    def __iter__(self) -> Iterator[Node]:
        for i in range(len(self)):
            yield self._node(i)

    def alias_count(self) -> int:
        """The aliases of all nodes, from the records alone: rendering every document to count them took a MAG-size
        load minutes."""
        if self._skb != "prime":
            return 0
        return sum(len(prime_aliases(self._name(i)[1], self._info[i])) for i in range(len(self)))

    def _name(self, i: int) -> tuple[str, str]:
        """(type, name) of node ``i``."""
        info = self._info[i]
        node_type = self._types[int(self._codes[i])]
        fields = clean_dict(info) if self._skb == "prime" else info
        return node_type, node_name(fields, NAME_KEYS[self._skb], f"{node_type} {i}")

    def _node(self, i: int) -> Node:
        """Node ``i`` as STaRK renders it. The entry passed :func:`check_node_info`, so what still fails here is a
        field of the wrong shape for STaRK's template (a generif entry without text, a review that is not a dict):
        named as the file's fault, node and all, instead of ending the load as an internal error."""
        try:
            node = self._render(i)
        except KgqaError:
            raise
        except Exception as exc:  # whatever a field of the wrong shape raises in STaRK's template is the file's fault
            what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
            raise InputError(f"node_info.pkl entry {i} has a field STaRK's documents cannot render ({what})") from exc
        for field, text in (("name", node.name), ("document", node.doc), ("relations", node.relations or "")):
            problem = text_problem(text)
            if problem:
                raise InputError(f"node_info.pkl entry {i}: the node's {field} cannot be stored: {problem}")
        bad_alias = next((a for a in node.aliases if text_problem(a)), None)
        if bad_alias is not None:
            raise InputError(f"node_info.pkl entry {i}: an alias cannot be stored: {text_problem(bad_alias)}")
        return node

    def _render(self, i: int) -> Node:
        info = self._info[i]
        node_type, name = self._name(i)
        aliases: tuple[str, ...] = ()
        if self._skb == "prime":
            doc = self._prime.document(info)
            relations = self._prime.relations(i, self.adjacency, self._codes, self._names)
            aliases = prime_aliases(name, info)
        elif self._skb == "mag":
            doc = MagDocuments.document(info)
            relations = self._mag.relations(i, self._info, self.adjacency)
        else:
            doc = self._amazon.document(info, node_type)
            relations = self._amazon.relations(i, node_type, self._info, self.adjacency)
        return Node(i, node_type, name, doc, relations, aliases)


PRIME_ALIAS_KEYS = ("name", "alias", "other_names")
"""The mygene fields of a PRIME gene that STaRK's documents gloss as its names ("gene name", "other gene names",
"extended other gene names"); the node's own name is its symbol."""


def prime_aliases(name: str, info: Mapping[str, Any]) -> tuple[str, ...]:
    details = info.get("details")
    if not isinstance(details, Mapping):
        return ()
    values: list[object] = []
    for key in PRIME_ALIAS_KEYS:
        value = details.get(key)
        values.extend(value if isinstance(value, list | tuple) else [] if value is None else [value])
    return aliases_of(name, (v for v in values if isinstance(v, str | int | float)))


def _check(
    info: Any,
    codes: np.ndarray,
    edge_index: np.ndarray,
    edge_types: np.ndarray,
    node_type_dict: Mapping[int, str],
    edge_type_dict: Mapping[int, str],
) -> None:
    count = len(codes)
    if not isinstance(info, dict):
        raise InputError(f"node_info.pkl must hold a dict, found {type(info).__name__}")
    if len(info) != count or info.keys() != set(range(count)):
        raise InputError(f"node_info.pkl must have keys 0..{count - 1} to match node_types.pt ({count} nodes)")
    bad = next((i for i in range(count) if not isinstance(info[i], dict)), None)
    if bad is not None:
        raise InputError(f"node_info.pkl entry {bad} must be a dict")
    for ends in edge_index:
        outside = ends[(ends < 0) | (ends >= count)]
        if len(outside):
            raise InputError(f"edge_index.pt refers to node {int(outside[0])}, outside 0..{count - 1}")
    for file, used, known in (("node_types.pt", codes, node_type_dict), ("edge_types.pt", edge_types, edge_type_dict)):
        unknown = sorted(set(np.unique(used).tolist()) - set(known))
        if unknown:
            raise InputError(f"{file} uses type ids {unknown[:5]} that the SKB's type dict does not name")


def check_node_info(info: Mapping[int, Any], size: int) -> None:
    """Every entry plain enough to render (:mod:`kgqa.loaders.plain_data`), checked before anything is written.
    ``size``: the file's bytes, which bound how many values it can honestly hold."""
    check = PlainCheck(VALUES_PER_BYTE * size + MIN_BUDGET, outer=(info,))
    for node, entry in info.items():
        try:
            check.check(entry)
        except PlainDataError as exc:
            raise InputError(f"node_info.pkl entry {node}{exc.where()} {exc.problem}") from exc


VALUES_PER_BYTE = 2
"""Every value a pickle holds costs at least one byte (a shared one, a 2-byte memo reference); twice the file's size
leaves room for STaRK's own sharing and still stops a shared-reference bomb."""
MIN_BUDGET = 100_000


def read_stark(name: str, directory: Path) -> SkbData:
    if name not in CANDIDATE_TYPES:
        raise InputError(f"unknown STaRK SKB '{name}' (use one of: {', '.join(CANDIDATE_TYPES)})")
    folder = find_folder(name, directory)
    node_type_dict, edge_type_dict = type_dicts(folder)
    codes = read_index_tensor(folder.path / "node_types.pt", 1)
    edge_index = read_index_tensor(folder.path / "edge_index.pt", 2)
    edge_types = read_index_tensor(folder.path / "edge_types.pt", 1)
    if edge_index.shape[0] != 2 or edge_index.shape[1] != len(edge_types):
        raise InputError(f"edge_index.pt must be [2, E] with E = len(edge_types.pt) = {len(edge_types)}")
    type_ids = sorted(edge_type_dict)
    edges = EdgeArrays(
        edge_index[0],
        edge_index[1],
        np.searchsorted(type_ids, edge_types),
        tuple(edge_type_dict[t] for t in type_ids),
    )
    info = read_pickle(folder.path / "node_info.pkl")
    _check(info, codes, edge_index, edge_types, node_type_dict, edge_type_dict)
    check_node_info(info, (folder.path / "node_info.pkl").stat().st_size)
    nodes = StarkNodes(name, info, codes, node_type_dict, edge_type_dict, edges)
    present = {node_type_dict[c] for c in np.unique(codes).tolist()}
    for code in np.unique(codes).tolist():
        first = int(np.argmax(codes == code))
        written = info[first].get("type")
        if written is not None and written != node_type_dict[code]:
            raise InputError(
                f"node {first} is a '{str(written)[:80]}' in node_info.pkl but a '{node_type_dict[code]}' by the type "
                f"ids; "
                f"is {folder.path} really the STaRK '{name}' SKB?"
            )
    candidates = CANDIDATE_TYPES[name] or tuple(sorted(present))
    absent = [t for t in candidates if t not in present]
    if absent:
        raise InputError(f"{folder.path} has no '{absent[0]}' nodes; is it really the STaRK '{name}' SKB?")
    names = sorted(node_type_dict)
    return SkbData(
        name=name,
        source=f"STaRK {name} processed SKB from {folder.path}",
        version=f"stark-{name}",
        candidate_types=candidates,
        nodes=nodes,
        edges=edges,
        node_type_codes=np.searchsorted(names, codes),
        node_type_names=tuple(node_type_dict[t] for t in names),
        fingerprint=fingerprint_files(folder.path, folder.files, f"stark-reader-{READER_VERSION}"),
        stark_documents=True,
    )
