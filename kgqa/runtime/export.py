"""``kgqa export --format neo4j-admin``: a loaded SKB as CSV files for ``neo4j-admin database import full``.

Online loading through Bolt is fine for HPO or PRIME; MAG's 40M edges want the offline importer. One header file and one
data file per label and per (source, type, target); every label is its own ID space (STaRK ids are only unique per SKB,
HPO's carry prefixes, and this keeps both safe); vectors (the indexed ``name_emb`` and ``doc_emb``, and ``plain_emb``,
step 6's, read by id) are ``float[]`` with ``;`` between elements. Alias nodes go in one more node file, without ids.
``post_import.cypher`` holds what the importer cannot do (constraints, vector indexes, kgqa's metadata node), for
cypher-shell; the exact commands are returned and printed.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import math
import re
from pathlib import Path

from kgqa.errors import InputError, StoreError
from kgqa.runtime.store.base import ALIAS_LABEL, SkbMeta, batched
from kgqa.runtime.store.neo4j import post_import_script
from kgqa.runtime.store.protocols import GraphStore
from kgqa.runtime.store.queries import ALIAS_KEY, ALIAS_OF, ALIAS_OF_LABEL, ALIAS_OF_NAME, NAME, NAME_EMB, name_key
from kgqa.types import Export

ARRAY_DELIMITER = ";"
NODE_HEADER = [
    "id:ID({space})",
    "name",
    "name_key",
    "doc",
    "rel_doc",
    "name_emb:float[]",
    "doc_emb:float[]",
    "plain_emb:float[]",
    ":LABEL",
]
EDGE_HEADER = [":START_ID({source})", ":END_ID({target})", ":TYPE"]
ALIAS_HEADER = [ALIAS_OF, ALIAS_OF_LABEL, ALIAS_OF_NAME, NAME, ALIAS_KEY, f"{NAME_EMB}:float[]", ":LABEL"]
"""Alias nodes (store.base.ALIAS_LABEL) have no ID column: no relationship points at them."""


def id_space(label: str) -> str:
    """A file- and CLI-safe ID space name for a label (``gene/protein`` -> ``gene_protein_1a2b3c``)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_") or "label"
    return f"{slug}_{hashlib.sha256(label.encode()).hexdigest()[:6]}"


def _floats(vector: list[float] | None) -> str:
    """A ``float[]`` cell; empty (no property) for a vector the graph does not store. A non-finite element is
    refused (ValueError): neo4j-admin would import ``nan`` as NaN, and a vector index cannot rank by it."""
    if vector is None:
        return ""
    values = [float(x) for x in vector]
    if not all(math.isfinite(x) for x in values):
        raise ValueError("a vector with a non-finite element")
    return ARRAY_DELIMITER.join(map(repr, values))


def _cells(node_id: object, vectors: list[list[float] | None], label: str) -> list[str]:
    """The vector cells of one node, or a StoreError naming it: a stored NaN is the store's fault, not the user's."""
    try:
        return [_floats(vector) for vector in vectors]
    except ValueError as exc:
        raise StoreError(
            f"{label} node {node_id}: {exc} in the stored graph; reload the SKB with kgqa load ... --force"
        ) from exc


def export_neo4j_admin(store: GraphStore, skb: str, meta: SkbMeta, out: Path, *, batch: int = 2000) -> Export:
    schema = store.schema(skb)
    if not schema.has_documents:  # the import would lack them, and the script's document index with them
        raise InputError(
            f"the document vectors of SKB '{skb}' are still being embedded (kgqa server status shows how far); "
            "export it once they are in"
        )
    out.mkdir(parents=True, exist_ok=True)
    node_files, edge_files, nodes, edges = [], [], 0, 0
    alias_files = (out / "aliases.header.csv", out / "aliases.csv") if schema.has_aliases else None
    with contextlib.ExitStack() as stack:
        aliases = None
        if alias_files is not None:
            alias_files[0].write_text(",".join(ALIAS_HEADER) + "\n", encoding="utf-8")
            aliases = csv.writer(stack.enter_context(alias_files[1].open("w", newline="", encoding="utf-8")))
            node_files.append(alias_files)
        for label in (info.name for info in schema.labels):
            space = id_space(label)
            header, data = out / f"nodes_{space}.header.csv", out / f"nodes_{space}.csv"
            with header.open("w", newline="", encoding="utf-8") as handle:
                csv.writer(handle).writerow([h.format(space=space) for h in NODE_HEADER])
            ids = store.label_ids(skb, label)
            with data.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                for chunk in batched(ids, batch):
                    for node_id, name, doc, rel_doc, *vectors in store.node_rows(skb, label, chunk):
                        writer.writerow(
                            [node_id, name, name_key(name), doc, rel_doc or "", *_cells(node_id, vectors, label), label]
                        )
                        nodes += 1
                    if aliases is None:
                        continue
                    for row in store.alias_rows(skb, label, chunk):
                        (vector,) = _cells(f"{row.of} alias {row.alias!r}", [row.emb.tolist()], label)
                        aliases.writerow(
                            [row.of, label, row.name, row.alias, row.alias.strip().lower(), vector, ALIAS_LABEL]
                        )
            node_files.append((header, data))
    for rel in schema.relationships:
        name = f"edges_{id_space(rel.source)}_{id_space(rel.type)}_{id_space(rel.target)}"
        header, data = out / f"{name}.header.csv", out / f"{name}.csv"
        with header.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerow(
                [h.format(source=id_space(rel.source), target=id_space(rel.target)) for h in EDGE_HEADER]
            )
        with data.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            for source, target in store.edge_rows(skb, rel.source, rel.type, rel.target):
                writer.writerow([source, target, rel.type])
                edges += 1
        edge_files.append((header, data))
    post = out / "post_import.cypher"
    labels = [info.name for info in schema.labels]
    post.write_text(post_import_script(labels, meta, aliases=schema.has_aliases), encoding="utf-8")
    parts = [f"--nodes={h.name},{d.name}" for h, d in node_files] + [
        f"--relationships={h.name},{d.name}" for h, d in edge_files
    ]
    command = (
        f"cd {out} && neo4j-admin database import full neo4j --overwrite-destination "
        f"--array-delimiter='{ARRAY_DELIMITER}' " + " ".join(parts)
    )
    return Export(out, node_files, edge_files, post, command, nodes, edges)
