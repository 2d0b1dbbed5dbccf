"""One node as an analyst inspects it (``kgqa node``): type, name, both stored documents and its relations."""

from __future__ import annotations

from kgqa.errors import InputError
from kgqa.runtime.store.protocols import GraphStore
from kgqa.types import NodeView


def describe_node(store: GraphStore, skb: str, node_id: str, names_per_type: int = 5) -> NodeView:
    """Find the node by id under any label (one indexed lookup per label) and read what kgqa stored for it."""
    for label in store.labels(skb):
        found = store.documents(skb, label, [node_id])
        if found:
            text = found[0]
            relations = tuple(store.relation_summary(skb, label, node_id, names_per_type))
            aliases = store.aliases(skb, label, [node_id]).get(text.id, ())
            return NodeView(skb, text.id, label, text.name, text.doc, text.doc + text.rel_doc, relations, aliases)
    raise InputError(f"SKB '{skb}' has no node with id '{node_id}'")
