"""The neighbourhoods STaRK's documents list, computed with numpy the way STaRK's SKB class computes them.

STaRK's SKB makes the edge list undirected when it is not (torch_geometric ``to_undirected`` with ``reduce='mean'``:
both directions, duplicate pairs merged and their type ids averaged, then truncated) and reads neighbours from a
coalesced sparse adjacency per edge type (sorted ascending, each neighbour once). PRIME ships both directions
already; MAG and AMAZON do not, and an AMAZON pair that is both also_buy and also_view ends up with one type.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def is_undirected(source: np.ndarray, target: np.ndarray, count: int) -> bool:
    """torch_geometric's test: the multiset of (source, target) pairs equals that of (target, source)."""
    forward = np.sort(source * count + target)
    backward = np.sort(target * count + source)
    return bool(np.array_equal(forward, backward))


def to_undirected(
    source: np.ndarray, target: np.ndarray, types: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both directions of every edge, one entry per (source, target) pair, its type the truncated mean."""
    keys = np.concatenate([source * count + target, target * count + source])
    doubled = np.concatenate([types, types])
    order = np.argsort(keys, kind="stable")
    keys, doubled = keys[order], doubled[order]
    unique, starts = np.unique(keys, return_index=True)
    sums = np.add.reduceat(doubled, starts)
    sizes = np.diff(np.append(starts, len(keys)))
    return unique // count, unique % count, sums // sizes


@dataclass(frozen=True)
class Adjacency:
    """Per node, its (edge type, neighbour) pairs sorted by type then neighbour, each pair once."""

    indptr: np.ndarray
    types: np.ndarray
    neighbours: np.ndarray

    def of(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = self.indptr[node], self.indptr[node + 1]
        return self.types[start:end], self.neighbours[start:end]

    def neighbours_of(self, node: int, edge_type: int) -> list[int]:
        """STaRK's ``get_neighbor_nodes(node, type)``: ascending node ids."""
        types, neighbours = self.of(node)
        lo, hi = np.searchsorted(types, [edge_type, edge_type + 1])
        return [int(n) for n in neighbours[lo:hi]]


def stark_adjacency(source: np.ndarray, target: np.ndarray, types: np.ndarray, count: int) -> Adjacency:
    if not is_undirected(source, target, count):
        source, target, types = to_undirected(source, target, types, count)
    type_count = int(types.max()) + 1 if len(types) else 1
    keys = np.unique((source * type_count + types) * count + target)
    rows = keys // (type_count * count)
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=count), out=indptr[1:])
    return Adjacency(indptr, (keys // count) % type_count, keys % count)
