"""The Neo4j version switch of the Cypher dialect, apart from its texts (:mod:`kgqa.runtime.store.neo4j_queries`,
which re-exports it): the configuration checks ``neo4j_version`` in every command, and the texts' module imports
numpy through the store's base (50 ms of each thin client's start)."""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["SEARCH_SINCE", "Syntax", "syntax_for"]

Syntax = Literal["5", "25"]

SEARCH_SINCE = (2026, 1)
"""The first Neo4j release with the Cypher 25 ``SEARCH`` clause for vector indexes."""

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.\d+)*(?:-[\w.]+)?")


def syntax_for(version: str) -> Syntax:
    """``"25"`` for Neo4j 2026.01 or later, ``"5"`` for 5.x and 2025.x: the version switch of this dialect."""
    match = _VERSION.fullmatch(version.strip())
    if match is None:
        raise ValueError(f"not a Neo4j version: {version!r} (expected e.g. 5.26, 2025.05 or 2026.01.0)")
    return "25" if (int(match[1]), int(match[2])) >= SEARCH_SINCE else "5"
