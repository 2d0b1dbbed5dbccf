"""Node documents in STaRK's style ("- name: ... / - type: ... / - details: ..." lines), plus relation summaries.

The relation summary lists each node's 1-hop relations (neighbour names per relation type) for what reads a document
with its relations (``kgqa node``, and step 7's text where the document index holds it: kgqa/runtime/load.py); reading
the whole neighbourhood would be unbounded for hubs, so each relation lists at most ``per_type`` names, then a count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .model import Edge, Node, NodeId

MAX_VALUE_CHARS = 2000
MAX_LIST_ITEMS = 25


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        items = [_value(v) for v in value[:MAX_LIST_ITEMS] if v not in (None, "")]
        more = len(value) - MAX_LIST_ITEMS
        text = "; ".join(items) + (f"; ... ({more} more)" if more > 0 else "")
    elif isinstance(value, Mapping):
        text = "; ".join(f"{k}: {_value(v)}" for k, v in value.items() if v not in (None, ""))
    else:
        text = str(value).strip()
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + " ..."


def render(fields: Iterable[tuple[str, Any]], details: Mapping[str, Any] | None = None) -> str:
    """Top-level ``- key: value`` lines, then an optional ``- details:`` block of indented ``- key: value`` lines.

    Empty values are left out rather than rendered as blanks, so documents stay short for the embedder.
    """
    lines = [f"- {key}: {_value(value)}" for key, value in fields if value not in (None, "", [], {})]
    detail_lines = [f"  - {k}: {_value(v)}" for k, v in (details or {}).items() if v not in (None, "", [], {})]
    if detail_lines:
        lines.append("- details:")
        lines.extend(detail_lines)
    return "\n".join(lines)


def relation_texts(nodes: Sequence[Node], edges: Iterable[Edge], per_type: int) -> dict[NodeId, str]:
    """Each node's ``- relations:`` block (outgoing then incoming, in a stable order), or '' without edges."""
    names = {node.id: node.name for node in nodes}
    out_rel: dict[NodeId, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    in_rel: dict[NodeId, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for edge in edges:
        out_rel[edge.source][edge.type].append(names[edge.target])
        in_rel[edge.target][edge.type].append(names[edge.source])
    texts: dict[NodeId, str] = {}
    for node in nodes:
        lines = []
        for direction, table in (("", out_rel.get(node.id)), (" (incoming)", in_rel.get(node.id))):
            for rel_type, found in sorted((table or {}).items()):
                neighbours = sorted(set(found))
                shown = ", ".join(neighbours[:per_type])
                more = len(neighbours) - per_type
                lines.append(f"  - {rel_type}{direction}: {shown}" + (f" ... ({more} more)" if more > 0 else ""))
        texts[node.id] = "\n- relations:\n" + "\n".join(lines) if lines else ""
    return texts
