"""How scale.py's stand-in vectors compare with real MiniLM vectors for the embedded store's HNSW index.

scale.py's stand-in embedder (a text's vector is the normalised sum of random word vectors) makes vectors that are
almost orthogonal to each other, the hardest case for an HNSW index. This builds the index the embedded store builds
for a large label (kgqa/runtime/store/vectors.py: usearch, its dtype, connectivity and expansion, the threads a load
uses) over the same number of (a) real MiniLM vectors, every distinct vector of the HPO load's embedding cache, and
(b) stand-in vectors of scale.py's MAG paper documents (70 synthetic words), and measures the build time and the
recall@10 of the store's search (``ef_runtime`` candidates rescored exactly) against exact cosine search, ties
counted. Queries: for MiniLM, 100 cached vectors with noise (norm 0.3); for the stand-in, 100 eight-word synthetic
questions. Writes benchmarks/results/hnsw_calibration.json and the table in docs/benchmarks.md.

    python benchmarks/hnsw_calibration.py [--cache $KGQA_HOME/cache/embeddings.sqlite]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path

import numpy as np
from scale import HashedWords, _text, _words
from usearch.index import Index

from kgqa.config import load_config
from kgqa.lab.provenance import CODE_PATHS, origin, provenance, replace_block
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
    index = Index(
        ndim=data.shape[1],
        metric="cos",
        dtype=vectors.HNSW_DTYPE,
        connectivity=vectors.HNSW_CONNECTIVITY,
        expansion_add=vectors.HNSW_EXPANSION_ADD,
        expansion_search=EF,
    )
    started = time.perf_counter()
    index.add(np.arange(len(data), dtype=np.uint64), data, threads=2)
    build = time.perf_counter() - started
    unit = data / np.linalg.norm(data, axis=1, keepdims=True)
    found = []
    for query in queries:
        query = query / np.linalg.norm(query)
        tenth = float(np.sort(unit @ query)[-10])
        keys = np.asarray(index.search(query, EF).keys, dtype=np.int64)
        best = np.sort(unit[keys] @ query)[-10:]
        found.append(float(np.mean(best >= tenth - 1e-5)))
    return {"vectors": len(data), "build_seconds": round(build, 1), "recall_at_10": round(float(np.mean(found)), 3)}


def table(result: dict) -> str:
    where = origin(result, OUT, ROOT, PATHS)
    rows = [
        "| vectors | n | build | recall@10 |",
        "|---|---|---|---|",
        *(
            f"| {name} | {r['vectors']:,} | {r['build_seconds']} s | {r['recall_at_10']} |"
            for name, r in result["rows"].items()
        ),
    ]
    return "\n".join(
        [
            f"usearch {vectors.HNSW_DTYPE}, connectivity {vectors.HNSW_CONNECTIVITY}, expansion "
            f"{vectors.HNSW_EXPANSION_ADD}, 2 threads; search: {EF} candidates rescored exactly. {where.sentence()}",
            "",
            *rows,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=load_config({}).home / "cache" / "embeddings.sqlite")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    real = minilm(args.cache)
    picked = real[rng.choice(len(real), 100, replace=False)]
    noisy = picked + 0.3 * rng.standard_normal(picked.shape).astype(np.float32) / np.sqrt(picked.shape[1])
    vocab = _words(rng, 60_000)
    stand_in = HashedWords(384)
    synthetic = stand_in.encode([_text(rng, vocab, 70) for _ in range(len(real))], None)
    questions = stand_in.encode([_text(rng, vocab, 8) for _ in range(100)], None)
    result = {
        "provenance": provenance(),
        "cache": str(args.cache),
        "rows": {
            "MiniLM (HPO load's distinct texts)": measure(real, noisy),
            "scale.py stand-in (70-word documents)": measure(synthetic, questions),
        },
    }
    OUT.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    print(json.dumps(result["rows"], indent=2))
    heading = "## HNSW: stand-in vectors against MiniLM (`benchmarks/hnsw_calibration.py`)"
    DOC.write_text(replace_block(DOC.read_text(), "hnsw_calibration", table(result), heading))


if __name__ == "__main__":
    main()
