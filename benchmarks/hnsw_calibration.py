"""How scale.py's stand-in vectors compare with real MiniLM vectors for the embedded store's HNSW index.

scale.py's stand-in embedder makes a text's vector the normalised sum of random word vectors. With full-rank word
vectors these are almost orthogonal to each other, the hardest case for an HNSW index; real text vectors concentrate
on few directions, so the stand-in draws its word vectors from a low-rank subspace (``scale.WORD_RANK``). This builds
the index the embedded store builds for a large label (kgqa/runtime/store/vectors.py: usearch, its dtype,
connectivity and expansion, all cores) over the same number of (a) real MiniLM vectors, every distinct vector of the
HPO load's embedding cache, (b) scale.py's stand-in vectors of MAG-like paper documents (70 synthetic words), and
(c) the full-rank stand-in, and measures the build time, the participation ratio of the vectors' spectrum (how many
directions they really use) and the recall@10 of the store's search (``ef_runtime`` candidates rescored exactly)
against exact cosine search, ties counted. Queries: for MiniLM, 100 cached vectors with noise (norm 0.3); for the
stand-ins, 100 eight-word synthetic questions. It also times the exact search the store runs for a label of
``vectors.EXACT_ROWS`` rows (the largest searched without HNSW). Writes benchmarks/results/hnsw_calibration.json and
the table in docs/benchmarks.md.

    python benchmarks/hnsw_calibration.py [--cache $KGQA_HOME/cache/embeddings.sqlite]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np
from scale import WORD_RANK, HashedWords, _text, _words

from kgqa.config import load_config
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.store import vectors

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "hnsw_calibration.json"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = (*CODE_PATHS, "benchmarks/hnsw_calibration.py", "benchmarks/scale.py")
EF = 200


def minilm(cache: Path) -> np.ndarray:
    with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT vector FROM embedding WHERE model LIKE '%minilm%' AND length(vector) = 1536")
        matrix = np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(-1, 384)
    return np.unique(matrix, axis=0)


def measure(data: np.ndarray, queries: np.ndarray) -> dict:
    index = vectors.new_hnsw(data.shape[1], EF)
    started = time.perf_counter()
    index.add(np.arange(len(data), dtype=np.uint64), data, threads=0)
    build = time.perf_counter() - started
    unit = data / np.linalg.norm(data, axis=1, keepdims=True)
    spectrum = np.linalg.svd(unit[:20_000], compute_uv=False) ** 2
    found = []
    for query in queries:
        query = query / np.linalg.norm(query)
        tenth = float(np.sort(unit @ query)[-10])
        keys = np.asarray(index.search(query, EF).keys, dtype=np.int64)
        best = np.sort(unit[keys] @ query)[-10:]
        found.append(float(np.mean(best >= tenth - 1e-5)))
    return {
        "vectors": len(data),
        "build_seconds": round(build, 1),
        "recall_at_10": round(float(np.mean(found)), 3),
        "participation_ratio": round(float(spectrum.sum() ** 2 / (spectrum**2).sum()), 1),
    }


def exact_search_ms(data: np.ndarray, queries: np.ndarray) -> dict:
    """Median and max of the store's exact top-10 (kgqa's own path: cached norms, argpartition) over
    ``vectors.EXACT_ROWS`` rows drawn from ``data``."""
    rows = data[np.random.default_rng(1).choice(len(data), vectors.EXACT_ROWS, replace=True)]
    with tempfile.TemporaryDirectory() as root:
        writer = vectors.VectorWriter(Path(root), "calibration", EF)
        writer.add("x", [str(i) for i in range(len(rows))], {"doc_emb": rows})
        writer.finish({"x": ["doc_emb"]}, set())
        table = vectors.VectorTables(writer.final, "calibration", writer.token, EF).table("x")
        table.top_k("doc_emb", queries[0], 10)  # norms computed once per table, as the store caches them
        times = []
        for query in queries:
            started = time.perf_counter()
            table.top_k("doc_emb", query, 10)
            times.append(1000 * (time.perf_counter() - started))
    return {"rows": len(rows), "median_ms": round(float(np.median(times)), 1), "max_ms": round(max(times), 1)}


def table(result: dict) -> str:
    where = origin(result, OUT, ROOT, PATHS)
    rows = [
        "| vectors | n | directions used | build | recall@10 |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {r['vectors']:,} | {r['participation_ratio']} | {r['build_seconds']} s | {r['recall_at_10']} |"
            for name, r in result["rows"].items()
        ),
    ]
    exact = result["exact_search"]
    return "\n".join(
        [
            f"usearch {vectors.HNSW_DTYPE}, connectivity {vectors.HNSW_CONNECTIVITY}, expansion "
            f"{vectors.HNSW_EXPANSION_ADD}, all cores; search: {EF} candidates rescored exactly. "
            "Directions used: the participation ratio of the vectors' spectrum (of 384). "
            f"{where.sentence()}",
            "",
            *rows,
            "",
            f"Exact search (no HNSW) over {exact['rows']:,} MiniLM rows, the most a label is searched exactly: "
            f"median {exact['median_ms']} ms, max {exact['max_ms']} ms per top-10 over 100 queries.",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=load_config({}).home / "cache" / "embeddings.sqlite")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    rng = np.random.default_rng(0)
    real = minilm(args.cache)
    picked = real[rng.choice(len(real), 100, replace=False)]
    noisy = picked + 0.3 * rng.standard_normal(picked.shape).astype(np.float32) / np.sqrt(picked.shape[1])
    vocab = _words(rng, 60_000)
    documents = [_text(rng, vocab, 70) for _ in range(len(real))]
    asked = [_text(rng, vocab, 8) for _ in range(100)]
    rows = {"MiniLM (HPO load's distinct texts)": measure(real, noisy)}
    for label, rank in (
        (f"scale.py stand-in, rank {WORD_RANK} (70-word documents)", WORD_RANK),
        ("full-rank stand-in (before 2026-11-26)", None),
    ):
        stand_in = HashedWords(384, rank=rank)
        rows[label] = measure(stand_in.encode(documents, None), stand_in.encode(asked, None))
    result = {
        "provenance": provenance(),
        "cache": str(args.cache),
        "rows": rows,
        "exact_search": exact_search_ms(real, noisy),
    }
    OUT.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    print(json.dumps(result["rows"], indent=2))
    heading = "## HNSW: stand-in vectors against MiniLM (`benchmarks/hnsw_calibration.py`)"
    DOC.write_text(replace_block(DOC.read_text(), "hnsw_calibration", table(result), heading))


if __name__ == "__main__":
    main()
