"""kgqa's own reads, the same for every store: each runs one text of the shared catalogue
(kgqa/runtime/store/queries.py) through the store's read-only :meth:`read`, so callers ask the store for what they need
instead of assembling queries themselves."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from kgqa.runtime.store import queries as q
from kgqa.runtime.store.base import ALIAS_LABEL, AliasHit, AliasRow, NodeText, Relation, RelationCount


def plain_node(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A node's properties without its vectors (langchain-neo4j's ``sanitize`` drops such lists too): hundreds of
    floats per node help no reader of a row."""
    return {key: value for key, value in properties.items() if key not in q.HIDDEN_PROPERTIES}


def plain_values(value: Any, graph_value: Callable[[Any], Any]) -> Any:
    """``value`` with every driver object in its lists and maps made plain by the dialect's ``graph_value``."""
    if isinstance(value, list):
        return [plain_values(v, graph_value) for v in value]
    if isinstance(value, dict):
        return {k: plain_values(v, graph_value) for k, v in value.items()}
    return graph_value(value)


class CatalogueReads:
    """Mixed into each store; the store provides :meth:`read` (read-only execution in its dialect)."""

    def read(self, graph: str, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        raise NotImplementedError

    def exact_name(self, graph: str, label: str, text: str) -> list[tuple[str, str]]:
        return [(str(i), str(n)) for i, n in self.read(graph, q.exact_name(label), {"key": q.name_key(text)})]

    def example_names(self, graph: str, label: str, n: int) -> list[str]:
        return [str(row[0]) for row in self.read(graph, q.example_names(label), {"n": n})]

    def exact_alias(self, graph: str, labels: Sequence[str], text: str) -> list[AliasHit]:
        rows = self.read(graph, q.EXACT_ALIAS, {"key": text.strip().lower(), "labels": list(labels)})
        return [AliasHit(str(i), str(label), str(name), str(alias), 1.0) for i, label, name, alias in rows]

    def aliases(self, graph: str, label: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = {}
        for node, alias in self.read(graph, q.ALIASES, {"label": label, "ids": list(ids)}):
            found.setdefault(str(node), []).append(str(alias))
        return {node: tuple(aliases) for node, aliases in found.items()}

    def alias_rows(self, graph: str, label: str, ids: Sequence[str]) -> list[AliasRow]:
        rows = self.read(graph, q.ALIAS_ROWS, {"label": label, "ids": list(ids)})
        return [
            AliasRow(str(i), label, str(name), str(alias), np.asarray(emb, dtype=np.float32))
            for i, name, alias, emb in rows
        ]

    def documents(self, graph: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        rows = self.read(graph, q.documents(label), {"ids": list(ids)})
        return [NodeText(str(i), name or "", doc or "", rel_doc or "") for i, name, doc, rel_doc in rows]

    def plain_vectors(self, graph: str, label: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        rows = self.read(graph, q.plain_vectors(label), {"ids": list(ids)})
        return {str(i): np.asarray(v, dtype=np.float32) for i, v in rows if v is not None}

    def relations(self, graph: str, label: str, ids: Sequence[str]) -> list[Relation]:
        rows = self.read(graph, q.relations(label), {"ids": list(ids)})
        return [Relation(str(i), t, bool(out), str(nb), name or "") for i, t, out, nb, name in rows]

    def labels(self, graph: str) -> list[str]:
        return [str(row[0]) for row in self.read(graph, q.LABELS) if row[0] != ALIAS_LABEL]

    def relation_summary(self, graph: str, label: str, node_id: str, k: int) -> list[RelationCount]:
        rows = self.read(graph, q.relation_summary(label), {"id": node_id, "k": k})
        return [
            RelationCount(str(t), str(lab), int(n), int(e), int(out), tuple(str(x) for x in names))
            for t, lab, n, e, out, names in rows
        ]

    def degrees(
        self, graph: str, label: str, ids: Sequence[str], types: Sequence[str], direction: str, other: str
    ) -> dict[str, int]:
        rows = self.read(graph, q.degrees(label, types, direction, other), {"ids": list(ids)})
        return {str(i): int(n) for i, n in rows}

    def label_ids(self, graph: str, label: str) -> list[str]:
        return [str(row[0]) for row in self.read(graph, q.label_ids(label))]

    def reachable(self, graph: str, start: str, hops: Sequence[tuple[str, str]], node_id: str) -> list[tuple[str, str]]:
        return [(str(i), str(n)) for i, n in self.read(graph, q.anchors(start, hops), {"id": node_id})]

    def reaches(self, graph: str, start: str, hops: Sequence[tuple[Sequence[str], str]], node_id: str) -> bool:
        return bool(self.read(graph, q.reaches(start, hops), {"id": node_id}))

    def path_answers(
        self, graph: str, start: str, hops: Sequence[tuple[str, str]], anchor: str, keyword: str
    ) -> list[str]:
        rows = self.read(graph, q.path_answers(start, hops), {"anchor": anchor, "keyword": keyword})
        return [str(row[0]) for row in rows]

    def node_rows(self, graph: str, label: str, ids: Sequence[str]) -> list[list[Any]]:
        return self.read(graph, q.node_rows(label), {"ids": list(ids)})

    def edge_rows(self, graph: str, source: str, rel_type: str, target: str) -> list[tuple[str, str]]:
        return [(str(s), str(t)) for s, t in self.read(graph, q.edge_rows(source, rel_type, target))]
