"""``kgqa node`` and ``kgqa schema``: what a loaded SKB holds."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from kgqa.cli import session
from kgqa.cli.options import skb_option
from kgqa.cli.output import json_text, plain, print_block, stdout
from kgqa.cli.root import main


@main.command()
@click.argument("node_id", metavar="ID")
@skb_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def node(ctx: click.Context, node_id: str, skb: str, as_json: bool) -> None:
    """A node's type, name, both stored documents and its relations (counts per type, a few names each)."""
    with session.connect(ctx) as kg:
        view = kg.node(skb, node_id)
    if as_json:
        from dataclasses import asdict

        click.echo(json_text(asdict(view), indent=2, ensure_ascii=False))
        return
    console = stdout()
    console.print(
        f"[bold]{escape(view.name)}[/bold] {escape(f'({view.type}, id {view.id}, {view.skb})')}", highlight=False
    )
    if view.aliases:
        console.print("also known as: " + "; ".join(view.aliases), markup=False, highlight=False)
    console.rule("document (step 6, rerankers)")
    print_block(console, view.document)
    console.rule("document with relations (STaRK's step 7 embeds it; elsewhere step 7 embeds the one above)")
    print_block(console, view.document_with_relations)
    table = Table(title="relations")
    for column in ("type", "neighbour label", "neighbours", "out", "in", "names"):
        table.add_column(column, justify="right" if column in ("neighbours", "out", "in") else "left")
    for rel in view.relations:
        more = rel.neighbours - len(rel.names)
        names = ", ".join(rel.names) + (f", ... ({more} more)" if more > 0 else "")
        cells = (rel.type, rel.label, str(rel.neighbours), str(rel.out), str(rel.edges - rel.out), names)
        table.add_row(*map(plain, cells))
    console.print(table)


@main.command()
@skb_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.pass_context
def schema(ctx: click.Context, skb: str, as_json: bool) -> None:
    """Labels, relationship types with their endpoint labels, counts and indexes of a loaded SKB."""
    with session.connect(ctx) as kg:
        meta = kg.meta(skb)
        info = kg.schema(skb)
    if as_json:
        from dataclasses import asdict

        click.echo(json_text({"meta": asdict(meta), "schema": asdict(info)}, indent=2))
        return
    console = stdout()
    console.print(
        f"[bold]{skb}[/bold]: {escape(meta.source)}; {info.node_count} nodes, {info.edge_count} edges; "
        f"embedder {escape(meta.embedder)} ({meta.dimension}-d); loaded {meta.loaded_at}"
        + (f"; document vectors {escape(meta.doc_model)} ({meta.doc_dim}-d)" if meta.doc_embedder else "")
    )
    labels = Table(title="labels")
    labels.add_column("label")
    labels.add_column("nodes", justify="right")
    labels.add_column("answer type")
    for label in info.labels:
        labels.add_row(plain(label.name), str(label.count), "yes" if label.name in meta.candidate_types else "")
    rels = Table(title="relationship types")
    for column in ("source", "type", "target", "edges"):
        rels.add_column(column, justify="right" if column == "edges" else "left")
    for rel in info.relationships:
        rels.add_row(*map(plain, (rel.source, rel.type, rel.target, str(rel.count))))
    indexes = Table(title="indexes")
    for column in ("label", "property", "kind", "status"):
        indexes.add_column(column)
    for index in info.indexes:
        indexes.add_row(*map(plain, (index.label, index.property, index.kind, index.status)))
    console.print(labels, rels, indexes)
