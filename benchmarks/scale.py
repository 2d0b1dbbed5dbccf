"""Scale benchmark: seeded synthetic SKBs in STaRK's real layout at PRIME size and MAG size, through kgqa's loader.

PRIME size: 129,375 nodes of PRIME's 10 types, 8,100,498 edges (18 relation types, every edge stored in both
directions, as PRIME ships). MAG size: 1,872,968 nodes (author, institution, field_of_study, paper, in STaRK's id
order) and 39,802,116 one-way edges, in MAG's folder (no type-dict files). Degrees are skewed (low ids popular).
The folder is written once per (size, seed) under --data and reused. The embedder is a stand-in (hashed bag of
words, --dim, 384 as MiniLM's), fast and deterministic, so the figures measure kgqa and the store, not a model; its
vectors are not cached (the time it computes them is reported apart: the targets exclude embedding). Its vectors
are sums of random word vectors from a low-rank subspace (:data:`WORD_RANK`), calibrated against MiniLM's by
benchmarks/hnsw_calibration.py: the HNSW build is a little slower and the recall the same (docs/benchmarks.md).

Reports: load time by phase, edges/s of the edge phase, peak RSS of kgqa and of the FalkorDB server, the store's size
on disk (RDB and vector directory), the seconds a fresh ``kgqa`` process takes to open the store and answer a first
vector search, median/max of steps 4-7 over generated questions (``kgqa questions``, no LLM: the linked-entity plan),
and the recall@10 of the HNSW-indexed labels against exact search for those questions. Writes
benchmarks/results/scale_<size>.json (provenance, settings) and the table in docs/benchmarks.md.

    python benchmarks/scale.py --size prime [--data /tmp/kgqa-scale]
    python benchmarks/scale.py --size mag
    python benchmarks/scale.py --render
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import pickle
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil
import torch

from kgqa.config import Config, load_config
from kgqa.errors import StoreTimeoutError
from kgqa.loaders.stark import read_stark
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
from kgqa.runtime.app import Kgqa
from kgqa.runtime.embed import Embedder, EmbeddingCache
from kgqa.runtime.llm import Completion, Message
from kgqa.runtime.reader.questions import generate
from kgqa.runtime.store.falkordb import VECTORS_DIR, FalkorStore
from kgqa.runtime.store.queries import INDEX_PROPERTY

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = (*CODE_PATHS, "benchmarks/scale.py")
PRIME_TYPES = [
    "disease",
    "gene/protein",
    "molecular_function",
    "drug",
    "pathway",
    "anatomy",
    "effect/phenotype",
    "biological_process",
    "cellular_component",
    "exposure",
]
PRIME_COUNTS = [17080, 27671, 11169, 7957, 2516, 14035, 15311, 28642, 4176, 818]
"""PRIME's nodes per type (sum 129,375)."""
PRIME_RELATIONS = [
    ("ppi", 1, 1),
    ("carrier", 3, 1),
    ("enzyme", 3, 1),
    ("target", 3, 1),
    ("transporter", 3, 1),
    ("contraindication", 3, 0),
    ("indication", 3, 0),
    ("off-label use", 3, 0),
    ("synergistic interaction", 3, 3),
    ("associated with", 1, 0),
    ("parent-child", 7, 7),
    ("phenotype absent", 0, 6),
    ("phenotype present", 0, 6),
    ("side effect", 3, 6),
    ("interacts with", 1, 7),
    ("linked to", 9, 0),
    ("expression present", 5, 1),
    ("expression absent", 5, 1),
]
"""(relation, source type, target type) in PrimeSKB.RELATION_TYPES order."""
MAG_COUNTS = [1104554, 8740, 59965, 699709]
MAG_EDGES = [
    ("author___affiliated_with___institution", 1_000_000),
    ("paper___cites___paper", 24_002_116),
    ("paper___has_topic___field_of_study", 7_500_000),
    ("author___writes___paper", 7_300_000),
]
SIZES = {"prime": (sum(PRIME_COUNTS), 8_100_498), "mag": (sum(MAG_COUNTS), sum(n for _, n in MAG_EDGES))}


class UncachedEmbeddings(EmbeddingCache):
    """No cache: a MAG-size load's 5.6M stand-in vectors would only fill a SQLite file the benchmark never reads."""

    def __init__(self) -> None:
        pass

    def get_many(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        return {}

    def put_many(self, model: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        return None

    @contextlib.contextmanager
    def loading(self) -> Iterator[None]:
        yield

    def close(self) -> None:
        return None


WORD_RANK = 24
"""The stand-in word vectors span this many dimensions: text vectors of a real encoder concentrate on few directions
(MiniLM's over HPO's texts: participation ratio 12.6 of 384), and an HNSW index over full-rank random sums is far
harder to build and search than over real vectors (benchmarks/hnsw_calibration.py compares the two)."""


class HashedWords:
    """Stand-in encoder: each word maps (crc32) to a fixed random vector in a :data:`WORD_RANK`-dimensional subspace;
    a text is their normalised sum. ``rank`` None: full-rank word vectors (the stand-in before 2026-11-26)."""

    name = "stand-in-hashed-words"

    def __init__(self, dimension: int, rank: int | None = WORD_RANK) -> None:
        self.dimension = dimension
        rng = np.random.default_rng(0)
        if rank is None:
            self.name = f"stand-in-hashed-words-{dimension}"
            self._table = rng.standard_normal((1 << 16, dimension)).astype(np.float32)
        else:
            self.name = f"stand-in-hashed-words-{dimension}-rank{rank}"
            basis = rng.standard_normal((rank, dimension))
            self._table = (rng.standard_normal((1 << 16, rank)) @ basis).astype(np.float32)

    seconds = 0.0
    """Time spent encoding, summed (the load's embedding time)."""

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self._encode(texts, max_tokens)
        finally:
            self.seconds += time.perf_counter() - started

    def _encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            words = re.findall(r"\w+", text[: 8 * (max_tokens or 64)].lower())[: max_tokens or 64] or ["empty"]
            vector = self._table[[zlib.crc32(w.encode()) & 0xFFFF for w in words]].sum(axis=0)
            out[i] = vector / (np.linalg.norm(vector) or 1.0)
        return out


def _words(rng: np.random.Generator, count: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vi", "so", "pe", "da", "gu", "ri", "zo", "fa", "be", "xi"]
    return ["".join(syllables[s] for s in rng.integers(0, len(syllables), rng.integers(2, 5))) for _ in range(count)]


def _skewed(rng: np.random.Generator, start: int, count: int, size: int, power: float = 2.0) -> np.ndarray:
    """``size`` ids in [start, start + count), low ids more often (degree skew like real graphs)."""
    return start + (count * rng.random(size) ** power).astype(np.int64)


def _text(rng: np.random.Generator, vocab: list[str], n: int) -> str:
    return " ".join(vocab[i] for i in rng.integers(0, len(vocab), n))


def _save(folder: Path, node_info: dict, types: np.ndarray, src: np.ndarray, dst: np.ndarray, rel: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "node_info.pkl").open("wb") as handle:
        pickle.dump(node_info, handle, protocol=4)
    torch.save(torch.from_numpy(types), folder / "node_types.pt")
    torch.save(torch.from_numpy(np.stack([src, dst])), folder / "edge_index.pt")
    torch.save(torch.from_numpy(rel), folder / "edge_types.pt")


def write_prime_like(root: Path, seed: int, fraction: float = 1.0) -> Path:
    rng = np.random.default_rng(seed)
    vocab = _words(rng, 30_000)
    counts = [max(1, int(c * fraction)) for c in PRIME_COUNTS]
    starts = np.cumsum([0, *counts])
    types = np.repeat(np.arange(len(counts)), counts)
    info = {}
    for i in range(int(starts[-1])):
        kind = PRIME_TYPES[types[i]]
        details = {"description": _text(rng, vocab, 20), "mondo_id": i} if kind in ("disease", "drug") else {}
        info[i] = {"id": i, "type": kind, "name": _text(rng, vocab, 2), "source": "SYN", "details": details}
    pairs = int(SIZES["prime"][1] * fraction) // 2
    share = rng.multinomial(pairs, np.full(len(PRIME_RELATIONS), 1 / len(PRIME_RELATIONS)))
    src, dst, rel = [], [], []
    for r, ((_, s, t), n) in enumerate(zip(PRIME_RELATIONS, share, strict=True)):
        a, b = _skewed(rng, starts[s], counts[s], n), _skewed(rng, starts[t], counts[t], n)
        src += [a, b]
        dst += [b, a]
        rel += [np.full(n, r), np.full(n, r)]
    folder = root / "primekg" / "processed"
    _save(folder, info, types, np.concatenate(src), np.concatenate(dst), np.concatenate(rel))
    for name, value in (
        ("node_type_dict", dict(enumerate(PRIME_TYPES))),
        ("edge_type_dict", {i: r for i, (r, _, _) in enumerate(PRIME_RELATIONS)}),
    ):
        with (folder / f"{name}.pkl").open("wb") as handle:
            pickle.dump(value, handle, protocol=4)
    return root / "primekg"


def mag_paper(rng: np.random.Generator, vocab: list[str], i: int) -> dict:
    """Paper ``i``'s node_info entry as STaRK's MAG has it, with a synthetic title (9 words) and abstract (70)."""
    return {
        "id": i,
        "mag_id": 2 * 10**9 + i,
        "title": _text(rng, vocab, 9),
        "abstract": _text(rng, vocab, 70),
        "Date": f"20{10 + i % 12}-0{1 + i % 9}-1{i % 10}",
        "OriginalVenue": -1 if i % 3 else _text(rng, vocab, 3),
        "JournalDisplayName": _text(rng, vocab, 3),
        "ConferenceSeriesDisplayName": -1,
        "ConferenceInstancesDisplayName": -1,
        "DocType": "Journal",
        "PaperRank": 20000 + i % 5000,
        "PaperCitationCount": int(i % 211),
        "type": "paper",
    }


def write_mag_like(root: Path, seed: int, fraction: float = 1.0) -> Path:
    rng = np.random.default_rng(seed)
    vocab = _words(rng, 60_000)
    counts = [max(1, int(c * fraction)) for c in MAG_COUNTS]
    starts = np.cumsum([0, *counts])
    types = np.repeat(np.arange(4), counts)
    info: dict[int, dict] = {}
    for i in range(int(starts[3])):
        kind = MAG_NODE_TYPES[int(types[i])]
        info[i] = {
            "id": i,
            "mag_id": 10**9 + i,
            "DisplayName": _text(rng, vocab, 2),
            "PaperCount": int(i % 97),
            "CitationCount": -1 if i % 5 == 0 else int(i % 1013),
            "Rank": 20000 + i % 3000,
            "type": kind,
        }
    for i in range(int(starts[3]), int(starts[4])):
        info[i] = mag_paper(rng, vocab, i)
    ends = {"author": 0, "institution": 1, "field_of_study": 2, "paper": 3}
    src, dst, rel = [], [], []
    for r, (name, total) in enumerate(MAG_EDGES):
        n = int(total * fraction)
        s, _, t = name.split("___")
        src.append(_skewed(rng, starts[ends[s]], counts[ends[s]], n, 1.5))
        dst.append(_skewed(rng, starts[ends[t]], counts[ends[t]], n, 3.0 if t == "field_of_study" else 2.0))
        rel.append(np.full(n, r))
    assert [MAG_EDGE_TYPES[i] for i in range(4)] == [name for name, _ in MAG_EDGES]
    _save(root / "mag" / "processed", info, types, np.concatenate(src), np.concatenate(dst), np.concatenate(rel))
    return root / "mag"


def _peak_server_mib(pid: int | None) -> float | None:
    if pid is None:
        return None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024)
    return None


def _open_seconds(home: Path, skb: str) -> float:
    """Wall time of a fresh process that opens the store, reads the SKB's metadata and schema, as every command does,
    and answers one vector search on its largest label (which maps that label's vectors)."""
    code = (
        "import time; t = time.perf_counter(); import numpy as np; from kgqa.runtime.app import connect\n"
        f"kg = connect(home={str(home)!r}); kg.meta({skb!r}); kg.store.await_indexes({skb!r}, timeout=3600)\n"
        f"schema = kg.schema({skb!r}); label = max(schema.labels, key=lambda x: x.count).name\n"
        f"kg.store.vector_top_k({skb!r}, label, 'doc', np.ones(kg.meta({skb!r}).doc_dim), 10)\n"
        "print(time.perf_counter() - t); kg.close()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return round(float(done.stdout.strip().splitlines()[-1]), 2)


def _stage_file(args: argparse.Namespace) -> Path:
    return args.out or RESULTS / f"scale_{args.size}.json"


def _saved_stages(args: argparse.Namespace, commit: str | None) -> dict:
    """What an earlier run of the same command at the same commit, with the same kept home, already measured."""
    path = _stage_file(args)
    if args.home is None or not path.is_file():
        return {}
    saved = json.loads(path.read_text())
    same = saved.get("provenance", {}).get("commit") == commit and saved.get("home") == str(args.home)
    return saved if same and not saved.get("complete", True) else {}


def _measure_load(args: argparse.Namespace, kg: Kgqa, home: Path, encoder: HashedWords) -> dict:
    writer = write_prime_like if args.size == "prime" else write_mag_like
    skb = args.size
    data_root = args.data / f"{skb}-seed{args.seed}-x{args.fraction}"
    skb_root = data_root / ("primekg" if skb == "prime" else "mag")
    started = time.perf_counter()
    if not (skb_root / "processed" / "node_info.pkl").is_file():
        writer(data_root, args.seed, args.fraction)
        gc.collect()
    generate_seconds = time.perf_counter() - started
    started = time.perf_counter()
    data = read_stark(skb, skb_root)
    read_seconds = time.perf_counter() - started
    report = kg.load(data)
    del data
    gc.collect()
    rdb = home / "falkordb" / "kgqa.rdb"
    vectors = home / "falkordb" / VECTORS_DIR
    vector_bytes = sum(f.stat().st_size for f in vectors.rglob("*") if f.is_file()) if vectors.is_dir() else 0
    return {
        "nodes": report.nodes,
        "edges": report.edges,
        "generate_seconds": round(generate_seconds, 1),
        "read_seconds": round(read_seconds, 1),
        "load_seconds": round(report.seconds, 1),
        "phases": report.phases,
        "edges_per_second": round(report.edges / report.phases["edges"]) if report.phases.get("edges") else None,
        "peak_rss_kgqa_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "peak_rss_server_mib": _peak_server_mib(getattr(kg.store, "server_pid", None)),
        "store_mib": round(rdb.stat().st_size / 2**20) if rdb.exists() else None,
        "vectors_mib": round(vector_bytes / 2**20),
        "embed_seconds": round(encoder.seconds, 1),
    }


def _measure_steps(args: argparse.Namespace, kg: Kgqa) -> dict:
    """Steps 4-7 per generated question; a question whose query runs past the store's timeout is counted, not timed."""
    skb = args.size
    schema = kg.schema(skb)
    types = list(kg.meta(skb).candidate_types)
    questions = generate(kg.store, skb, schema, types, args.questions, args.seed)
    steps: dict[int, list[float]] = {4: [], 5: [], 6: [], 7: []}
    joined: list[float] = []
    """steps 4-7 of the questions whose plan joins two or more constants (issue 52's MAG target)"""
    timed_out = 0
    for question in questions:
        try:
            answer = kg.ask(question.query, skb, steps="hybrid")
        except StoreTimeoutError:
            timed_out += 1
            continue
        timed = [r for r in answer.trace.steps if r.step in steps and r.status != "skipped"]
        for record in timed:
            steps[record.step].append(record.seconds)
        if max((_constants(p["params"]) for p in answer.trace.plans), default=0) >= 2:
            joined.append(sum(r.seconds for r in timed))
    return {
        "questions": len(questions),
        "timed_out": timed_out,
        "recall_at_10": _recall(kg, skb, [q.query for q in questions]),
        "steps": {
            str(step): {"median": round(statistics.median(v), 4), "max": round(max(v), 4), "n": len(v)}
            for step, v in steps.items()
            if v
        },
        "multi_constant_steps_4_7": (
            {"median": round(statistics.median(joined), 4), "max": round(max(joined), 4), "n": len(joined)}
            if joined
            else None
        ),
    }


def _constants(params: dict) -> int:
    """The constants of a plan by its recorded parameters (each constant's candidates are ``c0``, ``c1``, ...:
    kgqa.cypher.compile.pattern_query)."""
    return sum(bool(re.fullmatch(r"c\d+", name)) for name in params)


WRITES, TOPIC = "author___writes___paper", "paper___has_topic___field_of_study"
JOIN_PAPERS = (
    f"MATCH (p:paper) WHERE p.id IN $ids MATCH (a:author)-[:{WRITES}]->(p) "
    f"MATCH (p)-[:{TOPIC}]->(f:field_of_study) RETURN p.id, collect(DISTINCT a.name), collect(DISTINCT f.name)"
)


@dataclass(frozen=True)
class Join:
    """A question of one author's papers on one or two fields of study (fields are MAG's hubs), the oracle Cypher
    for it, and its exact answers."""

    text: str
    cypher: str
    gold: frozenset[str]


class JoinOracle:
    """A scripted LLM that answers step 1 with 'paper' and step 2 with the join's correct Cypher."""

    name = "scripted-join-oracle"

    def __init__(self, joins: Sequence[Join]) -> None:
        self.cypher = {j.text: j.cypher for j in joins}

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        prompt = "\n".join(m.content for m in messages)
        question = prompt.rsplit("Question: ", 1)[1].strip().splitlines()[0].strip()
        text = "paper" if "Which type of node is the answer" in prompt else self.cypher[question]
        return Completion(text, len(prompt.split()), len(text.split()), 0.0, "stop")


def join_questions(kg: Kgqa, count: int, seed: int, fraction: float) -> list[Join]:
    """``count`` questions of two constants (an author and a field) and ``count`` of three (and a second field), from
    random well-linked papers of the MAG-size graph (written with ``fraction``); the exact answers by the names, from
    the store."""
    rng = np.random.default_rng(seed)
    counts = [max(1, int(c * fraction)) for c in MAG_COUNTS]
    first = sum(counts[:3])
    # among the most-linked twentieth of the papers (the writer skews edges toward low ids): a paper drawn from all
    # of them seldom has an author and two fields
    ids = [str(i) for i in rng.integers(first, first + max(1, counts[3] // 20), size=count * 10)]
    rows = [r for r in kg.store.read("mag", JOIN_PAPERS, {"ids": ids}) if len(r[2]) >= 2]
    joins: list[Join] = []
    for fields in (1, 2):
        for _, authors, topics in rows[:count]:
            author, named = authors[0], topics[:fields]
            parts = [f"(a:author {{name: {json.dumps(author)}}})-[:{WRITES}]->(y:paper)"]
            parts += [f"(y)-[:{TOPIC}]->(f{i}:field_of_study {{name: {json.dumps(f)}}})" for i, f in enumerate(named)]
            cypher = "```cypher\nMATCH " + ", ".join(parts) + "\nRETURN y\n```"
            gold = {str(r[0]) for r in kg.store.read("mag", cypher.split("\n")[1] + " RETURN y.id")}
            joins.append(Join(f"Which papers did {author} write on {' and '.join(named)}?", cypher, frozenset(gold)))
    return joins


def _measure_joins(args: argparse.Namespace, config: Config, encoder: HashedWords) -> dict:
    """Steps 4-7 of questions whose correct LLM plan joins two or three constants through MAG's hubs (issue 52)."""
    with Kgqa(config, embedder=Embedder(encoder, UncachedEmbeddings())) as kg:
        joins = join_questions(kg, max(1, args.questions // 4), args.seed, args.fraction)
    if not joins:
        raise SystemExit("no paper of the sample has an author and two fields of study")
    seconds: list[float] = []
    hits, timeouts = 0, 0
    with Kgqa(config, embedder=Embedder(encoder, UncachedEmbeddings()), llm=JoinOracle(joins)) as kg:
        for join in joins:
            answer = kg.ask(join.text, "mag", steps="hybrid")
            seconds.append(
                sum(r.seconds for r in answer.trace.steps if r.step in (4, 5, 6, 7) and r.status != "skipped")
            )
            hits += bool(answer.answers) and str(answer.answers[0].id) in join.gold
            step5 = next((r for r in answer.trace.steps if r.step == 5), None)
            timeouts += step5 is not None and "ran past the time limit" in step5.detail
    return {
        "joins": len(joins),
        "joins_steps_4_7": {"median": round(statistics.median(seconds), 4), "max": round(max(seconds), 4)},
        "joins_hit_at_1": round(hits / len(joins), 3),
        "joins_timed_out_rounds": timeouts,
    }


def _recall(kg: Kgqa, skb: str, questions: Sequence[str]) -> dict[str, float]:
    """Per HNSW-indexed (label, property): the share of the store's top 10 for the questions' vectors that are as
    similar as the exact 10th best by cosine (ties count: two-word stand-in names share similarities), over the
    questions (labels searched exactly are left out: theirs is 1 by construction)."""
    tables = kg.store.vectors(skb).tables if isinstance(kg.store, FalkorStore) else {}
    vectors = kg.embedder.embed(list(questions))
    out = {}
    for label, table in sorted(tables.items()):
        for prop in sorted(table.hnsw):
            index = next(name for name, p in INDEX_PROPERTY.items() if p == prop)
            matrix = table.matrix(prop)
            found = []
            for vector in vectors:
                tenth = float(np.sort(matrix @ vector)[-10])
                hits = kg.store.vector_top_k(skb, label, index, vector, 10)
                found.append(sum(h.similarity >= tenth - 1e-5 for h in hits) / 10)
            out[f"{label}.{prop}"] = round(float(np.mean(found)), 3)
    return out


def measure_asks(args: argparse.Namespace) -> dict:
    """``--asks-only``: steps 4-7 of the generated questions and the oracle joins on the store a saved run left in
    ``--home``, by this commit's code (recorded as ``asks_provenance``; load and opens keep the commit that loaded):
    a change of step 5 or 6 is re-measured without loading 40 million edges again."""
    path = _stage_file(args)
    if args.home is None or not path.is_file():
        raise SystemExit(f"--asks-only needs --home and the results file {path} of the run that filled it")
    result = json.loads(path.read_text())
    if result.get("home") != str(args.home) or "load_seconds" not in result or not result.get("complete"):
        raise SystemExit(f"{path} is not a complete loaded run in {args.home}")
    result["asks_provenance"] = provenance()
    config = load_config({"home": args.home, "llm": "none"})
    encoder = HashedWords(args.dim)
    with Kgqa(config, embedder=Embedder(encoder, UncachedEmbeddings())) as kg:
        result.update(_measure_steps(args, kg))
    if args.size == "mag":
        result.update(_measure_joins(args, config, encoder))
    return result


def measure_opens(args: argparse.Namespace) -> dict:
    """``--opens-only``: fresh opens of the store a saved run left in ``--home``, by this commit's code (recorded as
    ``open_provenance``; the rest of the file keeps the commit that loaded and asked)."""
    path = _stage_file(args)
    if args.home is None or not path.is_file():
        raise SystemExit(f"--opens-only needs --home and the results file {path} of the run that filled it")
    result = json.loads(path.read_text())
    if result.get("home") != str(args.home) or "load_seconds" not in result:
        raise SystemExit(f"{path} is not a loaded run in {args.home}")
    result["open_seconds"] = []
    result["open_provenance"] = provenance()
    for _ in range(args.opens):
        result["open_seconds"].append(_open_seconds(args.home, args.size))
        path.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    result["complete"] = "steps" in result and len(result["open_seconds"]) == args.opens
    return result


def measure(args: argparse.Namespace) -> dict:
    """Load, then steps 4-7, then fresh opens. With ``--home`` each finished stage is saved (``complete``: false) and
    the same command at the same commit goes on from the first stage not saved."""
    prov = provenance()
    skb = args.size
    result = _saved_stages(args, prov["commit"]) or {
        "provenance": prov,
        "settings": {"args": {k: str(v) for k, v in vars(args).items() if k != "render"}},
        "size": skb,
        "target_nodes": SIZES[skb][0],
        "target_edges": SIZES[skb][1],
        "embedder": f"{HashedWords(args.dim).name} (stand-in, {args.dim}-d)",
        "machine_memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "home": None if args.home is None else str(args.home),
        "complete": False,
    }

    def save() -> None:
        if args.home is not None:
            _stage_file(args).parent.mkdir(parents=True, exist_ok=True)
            _stage_file(args).write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")

    with contextlib.ExitStack() as stack:
        if args.home is None:
            home = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=args.home_dir)))
        else:
            home = args.home
            home.mkdir(parents=True, exist_ok=True)
        config = load_config({"home": home, "llm": "none"})
        encoder = HashedWords(args.dim)
        embedder = Embedder(encoder, UncachedEmbeddings())
        with Kgqa(config, embedder=embedder) as kg:
            result["settings"].update(config_settings(kg.config))
            if "load_seconds" not in result:
                result.update(_measure_load(args, kg, home, encoder))
                save()
            if "steps" not in result:
                result.update(_measure_steps(args, kg))
                save()
        if skb == "mag" and "joins" not in result:
            result.update(_measure_joins(args, config, encoder))
            save()
        while len(result.setdefault("open_seconds", [])) < args.opens:
            result["open_seconds"].append(_open_seconds(home, skb))
            save()
    result["complete"] = True
    return result


def step_cells(result: dict) -> str:
    """The table cells steps 4-7 (median / max) and HNSW recall@10 of one result (scale.py's and scale_ada.py's)."""
    steps = result["steps"]
    cells = [
        f"{steps[n]['median'] * 1000:.0f} / {steps[n]['max'] * 1000:.0f} ms" if n in steps else "n/a"
        for n in ("4", "5", "6", "7")
    ]
    cells.append(", ".join(f"{k} {v}" for k, v in result.get("recall_at_10", {}).items()) or "all exact")
    return " | ".join(cells)


def table(results: dict[str, dict]) -> str:
    lines = [
        "| SKB size | nodes | edges | load (nodes / edges / publish; embedding) | edges/s | peak RSS kgqa / server | "
        "store (RDB + vectors) | fresh open | step 4 | step 5 | step 6 | step 7 | HNSW recall@10 | commit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size, r in results.items():
        p = r["phases"]
        where = origin(r, RESULTS / f"scale_{size}.json", ROOT, PATHS).sentence()
        if "asks_provenance" in r:  # steps re-measured on the store an earlier commit loaded (--asks-only)
            asked_by = origin({"provenance": r["asks_provenance"]}, RESULTS / f"scale_{size}.json", ROOT, PATHS)
            where = f"steps: {asked_by.sentence()}; load and opens: {where}"
        embedding = f"; {r['embed_seconds']} s" if "embed_seconds" in r else ""
        lines.append(
            f"| {size} | {r['nodes']:,} | {r['edges']:,} | {r['load_seconds']} s ({p.get('nodes')} / {p.get('edges')} "
            f"/ {p.get('publish')} s{embedding}) | {r['edges_per_second']:,} | {r['peak_rss_kgqa_mib']:,} / "
            f"{r['peak_rss_server_mib']:,} MiB | {r['store_mib']:,} + {r.get('vectors_mib', 0):,} MiB | "
            f"{statistics.median(r['open_seconds'])} s | {step_cells(r)} | {where} |"
        )
    first = next(iter(results.values()))
    asked = ", ".join(
        f"{size} {r['questions']}" + (f" ({r['timed_out']} timed out, not timed)" if r.get("timed_out") else "")
        for size, r in results.items()
    )
    joins = [
        f"{size}: {r['joins']} questions, steps 4-7 median {r['joins_steps_4_7']['median'] * 1000:.0f} ms, max "
        f"{r['joins_steps_4_7']['max'] * 1000:.0f} ms, hit@1 {r['joins_hit_at_1']}, rounds at `query_timeout` "
        f"{r['joins_timed_out_rounds']}"
        for size, r in results.items()
        if "joins" in r
    ]
    multi = [
        f"{size}: {m['n']}, steps 4-7 median {m['median'] * 1000:.0f} ms, max {m['max'] * 1000:.0f} ms"
        for size, r in results.items()
        if (m := r.get("multi_constant_steps_4_7"))
    ]
    if multi:
        lines += ["", "Generated questions whose plan joins two or more constants: " + "; ".join(multi) + "."]
    if joins:
        lines += [
            "",
            "Questions whose correct LLM plan (a scripted oracle) joins an author and one or two of their paper's "
            "fields of study, MAG's hubs (issue 52's target: steps 4-7 at most 1 s): " + "; ".join(joins) + ".",
        ]
    return "\n".join(
        [
            f"Synthetic SKBs in STaRK's layout, embedder {first['embedder']}; generated questions without an LLM: "
            f"{asked} (steps: median / max). Targets (issue 33): MAG fresh open <= 120 s, PRIME <= 15 s; MAG load "
            "<= 30 min without embedding; steps 4-7 median <= 200 ms, max <= 5 s; step 4 median <= 20 ms; peak RSS "
            "(kgqa + server) <= 20 GiB.",
            "",
            *lines,
        ]
    )


def write_table() -> None:
    found = {s: RESULTS / f"scale_{s}.json" for s in SIZES}
    results = {s: json.loads(path.read_text()) for s, path in found.items() if path.exists()}
    results = {s: r for s, r in results.items() if r.get("complete", True)}
    if not results:
        return
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    DOC.write_text(replace_block(text, "scale", table(results), "## Scale: STaRK-size SKBs (`benchmarks/scale.py`)"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=sorted(SIZES), default="prime")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--opens", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "kgqa-scale")
    parser.add_argument("--home-dir", type=Path, default=None, help="where the temporary kgqa home goes")
    parser.add_argument(
        "--home", type=Path, default=None, help="a kgqa home kept after the run: stages are saved and a rerun resumes"
    )
    parser.add_argument("--fraction", type=float, default=1.0, help="shrink every count (smoke runs; not tabled)")
    parser.add_argument(
        "--out", type=Path, default=None, help="results file (default benchmarks/results/scale_SIZE.json)"
    )
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the JSON files")
    parser.add_argument(
        "--opens-only", action="store_true", help="with --home: only the fresh opens of a saved run, by this code"
    )
    parser.add_argument(
        "--asks-only",
        action="store_true",
        help="with --home: only steps 4-7 and the joins on a saved run's store, by this code",
    )
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        result = measure_opens(args) if args.opens_only else measure_asks(args) if args.asks_only else measure(args)
        out = args.out or RESULTS / f"scale_{args.size}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
        print(json.dumps(result, indent=2, allow_nan=False))
        if args.fraction != 1.0:
            return
    write_table()


if __name__ == "__main__":
    main()
