"""One node as an analyst inspects it (``kgqa node``): type, name, both stored documents and its relations."""

from __future__ import annotations

from dataclasses import dataclass

from kgqa.errors import InputError
from kgqa.store.base import GraphStore, RelationCount


@dataclass(frozen=True)
class NodeView:
    skb: str
    id: str
    type: str
    name: str
    document: str
    """Without relations: what step 6 ranks by and rerankers read."""
    document_with_relations: str
    """``document`` + the stored relation text: what the vector strand (step 7) embeds (STaRK SKBs compact it
    first, as STaRK did for its published embeddings)."""
    relations: tuple[RelationCount, ...]
    aliases: tuple[str, ...] = ()
    """Other names the node is linked by (entity linking, step 4)."""


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
