"""A complete graph on the embedded FalkorDB that reads can be made to run past their time limit on, and a read
retried while the store restarts its server."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from kgqa.errors import StoreTimeoutError
from kgqa.runtime.store.base import NodeRow, SkbMeta
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.server import WATCHDOG_GRACE

LIMIT = 1.0
"""The stores' query_timeout here, in seconds."""
BOUND = LIMIT + WATCHDOG_GRACE + 25.0
"""When a read past the limit must have ended at the latest: a correctness bound, not a benchmark."""
SIZE = 40
CHAIN = "MATCH (v0:X)" + "".join(f"-[:r]-(v{i + 1}:X)" for i in range(20)) + " RETURN v0.id, v20.id"
"""20 undirected hops over a complete graph: FalkorDB 4.16 does not check its time limit inside this plan's
traversals (it ran for minutes past it), as with the issue's 20-hop ``parent-child`` chain on HPO."""
COUNT = "MATCH (n:X) RETURN count(n)"
T = TypeVar("T")


def complete_graph(store: FalkorStore, name: str = "k") -> None:
    """``SIZE`` nodes, one ``r`` edge between every two, loaded (and saved) as a load writes them."""
    vector = np.ones(4, dtype=np.float32) / 2
    rows = [NodeRow(f"n{i}", f"node {i}", "", vector, vector) for i in range(SIZE)]
    pairs = [(f"n{i}", f"n{j}") for i in range(SIZE) for j in range(i + 1, SIZE)]
    meta = SkbMeta(name, "test", "1", "test", 4, ("X",), SIZE, len(pairs), "fp", "2026-01-01")
    with store.writer(name, meta) as writer:
        writer.add_nodes("X", rows)
        writer.add_edges("X", "r", "X", pairs)


def after_restart(read: Callable[[], T]) -> T:
    """``read``, asked again while the store says the server is restarting: a read waits for a restart only about
    ``LIMIT`` seconds, and starting the server may take longer."""
    deadline = time.monotonic() + BOUND
    while True:
        try:
            return read()
        except StoreTimeoutError as exc:
            if "the server is restarting" not in str(exc) or time.monotonic() > deadline:
                raise
