"""Scale benchmark at STaRK's own vector size: MAG's candidate set with 1536-d text-embedding-ada-002 vectors.

STaRK distributes ada-002 document vectors for each SKB's candidates (``emb/mag/text-embedding-ada-002/doc/
candidate_emb_dict.pt``), which ``kgqa load --embeddings`` imports; the nodes the file lacks, and every name, are then
embedded by the same model (``--embedder openai:text-embedding-ada-002``). For the whole MAG graph that is 1.87M
nodes x 3 vectors x 1536 floats, about 45 GB with indexes: the load refuses it before writing where the disk or the
memory cannot hold it (kgqa/runtime/store/vectors.py ``check_disk``, kgqa/loaders/stark_embeddings.py
``check_memory``), and docs/stark.md says what to use instead. What fits on the 24 GiB reference machine, and what
this measures, is MAG's candidate set: a MAG-layout folder whose 699,709 papers (STaRK's MAG candidates) carry
scale.py's synthetic titles, abstracts and citation edges (24M, skewed), with one node of each other MAG type (the
reader wants every type), loaded with a synthetic ``candidate_emb_dict.pt`` in STaRK's format (every paper, 1536-d)
and scale.py's stand-in embedder at 1536-d under ada-002's name for the names and plain documents (its vectors and
the file's come from the same hashed words, so questions find their papers).

Reports what scale.py does (load by phase, peak RSS of kgqa and the server, RDB + vector directory on disk, three
fresh opens, steps 4-7 over generated questions, HNSW recall@10), plus the seconds to read the vectors file.
Writes benchmarks/results/scale_ada.json and its table in docs/benchmarks.md.

    python benchmarks/scale_ada.py [--data /tmp/kgqa-scale] [--home-dir DIR]
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil
import torch
from scale import (
    MAG_COUNTS,
    HashedWords,
    UncachedEmbeddings,
    _measure_steps,
    _open_seconds,
    _peak_server_mib,
    _save,
    _skewed,
    _text,
    _words,
    mag_paper,
    step_cells,
)

from kgqa.config import load_config
from kgqa.loaders.stark_files import MAG_EDGE_TYPES, MAG_NODE_TYPES
from kgqa.provenance import (
    CODE_PATHS,
    allow_dirty_flag,
    config_settings,
    origin,
    provenance,
    replace_block,
    require_committed,
)
from kgqa.runtime.app import Kgqa, read_load_input
from kgqa.runtime.embed import Embedder
from kgqa.runtime.store.falkordb import VECTORS_DIR

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "scale_ada.json"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = (*CODE_PATHS, "benchmarks/scale.py", "benchmarks/scale_ada.py")
MODEL = "text-embedding-ada-002"
DIM = 1536
CITES = 24_002_116
CHUNK = 1024
"""Rows per tensor storage in the vectors file (STaRK's own files hold one view per node of batch tensors)."""


def write_candidates(root: Path, seed: int, fraction: float, encoder: HashedWords) -> Path:
    """The MAG-layout folder and its ``emb/mag/<model>/doc/candidate_emb_dict.pt``; returns the emb root."""
    rng = np.random.default_rng(seed)
    vocab = _words(rng, 60_000)
    papers = max(1, int(MAG_COUNTS[3] * fraction))
    info: dict[int, dict] = {}
    for i, kind in enumerate(MAG_NODE_TYPES[t] for t in range(3)):
        info[i] = {"id": i, "mag_id": 10**9 + i, "DisplayName": _text(rng, vocab, 2), "type": kind}
    texts = []
    for i in range(3, 3 + papers):
        info[i] = mag_paper(rng, vocab, i)
        texts.append(f"{info[i]['title']} {info[i]['abstract']}")
    types = np.array([0, 1, 2, *([3] * papers)])
    cites = 1
    assert MAG_EDGE_TYPES[cites] == "paper___cites___paper"
    n = int(CITES * fraction)
    src, dst = _skewed(rng, 3, papers, n, 1.5), _skewed(rng, 3, papers, n, 2.0)
    _save(root / "mag" / "processed", info, types, src, dst, np.full(n, cites))
    del info
    gc.collect()
    vectors: dict[int, torch.Tensor] = {}
    for start in range(0, papers, CHUNK):
        block = torch.from_numpy(encoder.encode(texts[start : start + CHUNK], None))
        for offset, row in enumerate(block):
            vectors[3 + start + offset] = row
    folder = root / "emb" / "mag" / MODEL / "doc"
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(vectors, folder / "candidate_emb_dict.pt")
    return root / "emb"


def measure(args: argparse.Namespace) -> dict:
    encoder = HashedWords(DIM)
    encoder.name = f"openai:{MODEL}"
    data_root = args.data / f"mag-candidates-seed{args.seed}-x{args.fraction}"
    started = time.perf_counter()
    if not (data_root / "emb" / "mag" / MODEL / "doc" / "candidate_emb_dict.pt").is_file():
        # in a child process, so this one's peak RSS is the load's own (writing the data peaks at 15 GiB)
        writer = multiprocessing.get_context("spawn").Process(
            target=write_candidates, args=(data_root, args.seed, args.fraction, encoder)
        )
        writer.start()
        writer.join()
        if writer.exitcode != 0:
            raise SystemExit(f"writing the synthetic data in {data_root} failed (exit {writer.exitcode})")
    generate_seconds = time.perf_counter() - started
    encoder.seconds = 0.0
    result: dict = {
        "provenance": provenance(),
        "settings": {"args": {k: str(v) for k, v in vars(args).items()}},
        "embedder": f"stand-in-hashed-words-{DIM}-rank24 named openai:{MODEL}",
        "machine_memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "generate_seconds": round(generate_seconds, 1),
    }
    with tempfile.TemporaryDirectory(dir=args.home_dir) as directory:
        home = Path(directory)
        config = load_config({"home": home, "llm": "none"})
        with Kgqa(config, embedder=Embedder(encoder, UncachedEmbeddings())) as kg:
            result["settings"].update(config_settings(kg.config))
            started = time.perf_counter()
            data, doc_vectors = read_load_input("mag", data_root / "mag", data_root / "emb")
            result["read_seconds"] = round(time.perf_counter() - started, 1)
            assert doc_vectors is not None and doc_vectors.dimension == DIM
            result["imported_vectors"] = int((doc_vectors.rows >= 0).sum())
            report = kg.load(data, doc_vectors=doc_vectors)
            del data, doc_vectors
            gc.collect()
            vectors = home / "falkordb" / VECTORS_DIR
            result.update(
                {
                    "nodes": report.nodes,
                    "edges": report.edges,
                    "load_seconds": round(report.seconds, 1),
                    "phases": report.phases,
                    "embed_seconds": round(encoder.seconds, 1),
                    "peak_rss_kgqa_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                    "peak_rss_server_mib": _peak_server_mib(getattr(kg.store, "server_pid", None)),
                    "store_mib": round((home / "falkordb" / "kgqa.rdb").stat().st_size / 2**20),
                    "vectors_mib": round(sum(f.stat().st_size for f in vectors.rglob("*") if f.is_file()) / 2**20),
                }
            )
            steps = argparse.Namespace(size="mag", questions=args.questions, seed=args.seed)
            result.update(_measure_steps(steps, kg))
        result["open_seconds"] = [_open_seconds(home, "mag") for _ in range(args.opens)]
    return result


def table(result: dict) -> str:
    where = origin(result, OUT, ROOT, PATHS)
    p = result["phases"]
    return "\n".join(
        [
            f"MAG's candidate set (papers) with {DIM}-d vectors: {result['imported_vectors']:,} document vectors "
            "imported from a synthetic `candidate_emb_dict.pt` in STaRK's format "
            f"(read in {result['read_seconds']} s), "
            f"names and plain documents by {result['embedder']}; {result['questions']} generated questions "
            f"(steps: median / max). {where.sentence()}",
            "",
            "| nodes | edges | load (nodes / edges / publish; embedding) | peak RSS kgqa / server | "
            "store (RDB + vectors) | fresh open | step 4 | step 5 | step 6 | step 7 | HNSW recall@10 |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
            f"| {result['nodes']:,} | {result['edges']:,} | {result['load_seconds']} s ({p.get('nodes')} / "
            f"{p.get('edges')} / {p.get('publish')} s; {result['embed_seconds']} s) | "
            f"{result['peak_rss_kgqa_mib']:,} / {result['peak_rss_server_mib']:,} MiB | {result['store_mib']:,} + "
            f"{result['vectors_mib']:,} MiB | {statistics.median(result['open_seconds'])} s | {step_cells(result)} |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--opens", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "kgqa-scale")
    parser.add_argument("--home-dir", type=Path, default=None, help="where the temporary kgqa home goes")
    parser.add_argument("--fraction", type=float, default=1.0, help="shrink every count (smoke runs; not tabled)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the JSON file")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        result = measure(args)
        args.out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
        print(json.dumps({k: v for k, v in result.items() if k != "settings"}, indent=2))
        if args.out != OUT:
            return
    heading = "## Scale at 1536-d: MAG's candidate set with ada-002-size vectors (`benchmarks/scale_ada.py`)"
    DOC.write_text(replace_block(DOC.read_text(), "scale_ada", table(json.loads(OUT.read_text())), heading))


if __name__ == "__main__":
    main()
