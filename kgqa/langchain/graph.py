"""langchain-neo4j's ``GraphStore`` over kgqa's store, read-only: what lets langchain-neo4j's chains (the
text2cypher baseline) run on the embedded FalkorDB as well as on Neo4j.

The schema is what ``Neo4jGraph`` would show of an SKB (formatted by the same ``format_schema``): every label with
its text properties and every (source, type, target) triple, without kgqa's own alias nodes and without the vector
properties, which ``Neo4jGraph(sanitize=True)`` leaves out of results too. Queries run through the store's read-only
path (FalkorDB's GRAPH.RO_QUERY; a Neo4j read transaction after an EXPLAIN that must plan them read-only) with the
store's time limit, and with at most ``limit`` rows.
"""

from __future__ import annotations

import re
from typing import Any

from neo4j_graphrag.schema import format_schema

from kgqa.errors import StoreError
from kgqa.runtime.store import queries as q
from kgqa.runtime.store.base import ALIAS_LABEL
from kgqa.runtime.store.protocols import GraphStore

NODE_PROPERTIES = (q.ID, q.NAME, q.DOC, q.REL_DOC)
"""The properties every kgqa node carries besides its vectors."""
_LIMIT = re.compile(r"\bLIMIT\b", re.IGNORECASE)
_RETURN = re.compile(r"\bRETURN\b", re.IGNORECASE)
_TOKENS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/|[^'\"`/]+|/", re.DOTALL)


def without_comments(query: str) -> str:
    """``query`` without its ``//`` and ``/* */`` comments (strings and quoted names kept as they are)."""
    return "".join(t for t in _TOKENS.findall(query) if not t.startswith(("//", "/*")))


def with_limit(query: str, limit: int) -> str:
    """``query`` returning at most ``limit`` rows: a trailing integer LIMIT above it is lowered, one at or below it
    kept, and without any a LIMIT is added. A LIMIT of a parameter or an expression stays as written (it runs, or
    fails, as it would for langchain-neo4j; the chain keeps its first k rows either way)."""
    text = without_comments(query).strip().rstrip(";").rstrip()
    last = list(_LIMIT.finditer(text))[-1:]
    argument = text[last[0].end() :].strip() if last else ""
    if not last or _RETURN.search(argument):  # no LIMIT after the final RETURN
        return f"{text}\nLIMIT {limit}"
    if not argument.isdigit() or int(argument) <= limit:
        return text
    return f"{text[: last[0].start()]}LIMIT {limit}"


class KgqaGraph:
    """An SKB of a kgqa store as a langchain-neo4j ``GraphStore`` (read-only)."""

    def __init__(self, store: GraphStore, skb: str, *, limit: int | None = None) -> None:
        """``limit``: the most rows a query returns (a LIMIT is added or lowered); None leaves queries as they are."""
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.store = store
        self.skb = skb
        self.limit = limit
        self.schema = ""
        self.structured_schema: dict[str, Any] = {}
        self.last_query = ""
        """The text of the last query run, as sent (with its LIMIT): what a trace shows."""
        self.refresh_schema()

    @property
    def get_schema(self) -> str:
        return self.schema

    @property
    def get_structured_schema(self) -> dict[str, Any]:
        return self.structured_schema

    def query(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Rows of a read-only query as dicts by column (see GraphStore.read_records); a write, a syntax error or a
        timeout raises :class:`~kgqa.errors.StoreError`."""
        self.last_query = query if self.limit is None else with_limit(query, self.limit)
        return self.store.read_records(self.skb, self.last_query, params or {})

    def refresh_schema(self) -> None:
        live = self.store.schema(self.skb)
        labels = sorted(info.name for info in live.labels if info.name != ALIAS_LABEL)
        props = [{"property": name, "type": "STRING"} for name in NODE_PROPERTIES]
        self.structured_schema = {
            "node_props": {label: props for label in labels},
            "rel_props": {},
            "relationships": [
                {"start": rel.source, "type": rel.type, "end": rel.target}
                for rel in sorted(live.relationships, key=lambda r: (r.source, r.type, r.target))
                if ALIAS_LABEL not in (rel.source, rel.target)
            ],
            "metadata": {"constraint": [], "index": []},
        }
        self.schema = format_schema(self.structured_schema, is_enhanced=False)

    def add_graph_documents(self, graph_documents: list[Any], include_source: bool = False) -> None:
        raise StoreError("kgqa's graph is read-only here: load an SKB with kgqa load")
