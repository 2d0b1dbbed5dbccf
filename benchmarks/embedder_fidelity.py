"""Embedding backends on the texts an HPO load embeds: speed, and fidelity to torch fp32 (issue 31, item 1).

For each text kind a load embeds (names, aliases, documents with relations at ``doc_max_tokens``, plain documents at
the model's default length) a fixed random sample of HPO's texts is embedded by every backend of the bundled
MiniLM (``minilm``: sentence-transformers on torch fp32, the reference; ``onnx:minilm``; ``onnx-int8:minilm``,
kgqa's default since bb0bbc8). The ``document`` kind is the text STaRK's document index holds (outside STaRK, since
store format 7, the index holds the plain document).
Fidelity: the cosine of each vector to torch fp32's (mean, 1st percentile, min) per kind. Speed: texts per second
over all kinds, one call per kind as a load makes them, after one warm-up call; the export of an ONNX backend is
timed apart (it happens once per data directory). Nothing is cached: the encoders are called directly.

    python benchmarks/embedder_fidelity.py                 # 500 texts per kind
    python benchmarks/embedder_fidelity.py --per-kind 100

It writes benchmarks/results/embedder_fidelity.json (with the commit) and the table between the
``embedder_fidelity`` markers in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.config import load_config
from kgqa.loaders.hpo import read_hpo
from kgqa.provenance import allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.embed import make_encoder
from kgqa.runtime.load import embedding_text, plain_text

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "embedder_fidelity.json"
DOC = ROOT / "docs" / "benchmarks.md"
BLOCK = "embedder_fidelity"
TITLE = "## Embedding backends: speed and fidelity to torch fp32 (`benchmarks/embedder_fidelity.py`)"
BACKENDS = ("minilm", "onnx:minilm", "onnx-int8:minilm")
PATHS = (
    "kgqa/runtime/embed.py",
    "kgqa/runtime/onnx_encoder.py",
    "kgqa/runtime/load.py",
    "benchmarks/embedder_fidelity.py",
)


def samples(per_kind: int, seed: int) -> dict[str, tuple[list[str], int | None]]:
    """kind -> (texts, token budget) as a load embeds them, ``per_kind`` of each drawn with ``seed``."""
    data = read_hpo()
    config = load_config({})
    rng = random.Random(seed)
    nodes = list(data.nodes)
    picked = rng.sample(nodes, min(per_kind, len(nodes)))
    aliases = [alias for node in nodes for alias in node.aliases]
    documented = [node for node in nodes if node.doc]
    with_docs = rng.sample(documented, min(per_kind, len(documented)))
    return {
        "name": ([node.name for node in picked], None),
        "alias": (rng.sample(aliases, min(per_kind, len(aliases))), None),
        "document": ([embedding_text(data, node, node.relations or "") for node in with_docs], config.doc_max_tokens),
        "plain": ([plain_text(node) for node in with_docs], None),
    }


def measure(per_kind: int, seed: int) -> dict[str, Any]:
    kinds = samples(per_kind, seed)
    rows: dict[str, Any] = {}
    reference: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as models:
        for spec in BACKENDS:
            start = time.perf_counter()
            encoder = make_encoder(
                spec, device="cpu", batch_size=64, base_url=None, api_key=None, models_dir=Path(models)
            )
            ready = time.perf_counter() - start
            encoder.encode(["warm-up"], None)
            per_kind_rows = {}
            total, seconds = 0, 0.0
            for kind, (texts, budget) in kinds.items():
                start = time.perf_counter()
                vectors = encoder.encode(texts, budget)
                seconds += time.perf_counter() - start
                total += len(texts)
                if spec == BACKENDS[0]:
                    reference[kind] = vectors
                cosine = np.sum(vectors * reference[kind], axis=1)
                per_kind_rows[kind] = {
                    "n": len(texts),
                    "cosine_mean": round(float(cosine.mean()), 4),
                    "cosine_p1": round(float(np.percentile(cosine, 1)), 4),
                    "cosine_min": round(float(cosine.min()), 4),
                }
            rows[spec] = {
                "ready_seconds": round(ready, 2),
                "texts_per_second": round(total / seconds, 1),
                "kinds": per_kind_rows,
            }
    return rows


def render(doc: dict[str, Any]) -> str:
    lines = [
        f"{doc['per_kind']} texts per kind drawn from HPO (seed {doc['seed']}), {doc['cpus']} CPU(s); cosine "
        f"to torch fp32's vector per text: mean / 1st percentile / min. Ready: model load, plus the one-time export "
        f"for an ONNX backend. Commit {origin(doc, OUT, ROOT, PATHS).label()}.",
        "",
        "| backend | ready (s) | texts/s | speed-up | " + " | ".join(doc["kinds"]) + " |",
        "|---|---|---|---|" + "---|" * len(doc["kinds"]),
    ]
    base = doc["rows"][BACKENDS[0]]["texts_per_second"]
    for spec, row in doc["rows"].items():
        cells = [
            f"{k['cosine_mean']:.4f} / {k['cosine_p1']:.4f} / {k['cosine_min']:.4f}" for k in row["kinds"].values()
        ]
        speed = row["texts_per_second"]
        lines.append(
            f"| `{spec}` | {row['ready_seconds']} | {speed} | {speed / base:.2f}x | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-kind", type=int, default=500)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the results file")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        rows = measure(args.per_kind, args.seed)
        doc = {
            "per_kind": args.per_kind,
            "seed": args.seed,
            "cpus": os.cpu_count(),
            "kinds": list(next(iter(rows.values()))["kinds"]),
            "rows": rows,
            "provenance": provenance(),
        }
        OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    doc = json.loads(OUT.read_text(encoding="utf-8"))
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, render(doc), TITLE), encoding="utf-8")
    print(render(doc))


if __name__ == "__main__":
    main()
