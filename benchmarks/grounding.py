"""Steps 4-5 latency on a loaded SKB (default HPO): constant candidates + scope-expansion rounds per plan.

Plans are built from templates over real node names (seeded sample), parsed and sanitized like LLM output, so the
timed part is exactly what `kgqa ask` will run: embedding each constant's search string (reported separately),
exact-name and name-index lookups (step 4) and the pattern rounds (step 5). Writes
benchmarks/results/grounding.json (with the provenance: commit, uncommitted changes, and the full settings: the
arguments and every configuration field) and the table in docs/benchmarks.md, which names that commit and says
"stale" once the code behind it changed (``--render`` refreshes the table from the JSON without measuring).

    KGQA_HOME=... python benchmarks/grounding.py [--plans 40 --k 20 --l-max 100]
    python benchmarks/grounding.py --render
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from kgqa.cypher import quote
from kgqa.cypher.parser import parse
from kgqa.cypher.sanitize import sanitize
from kgqa.provenance import (
    CODE_PATHS,
    allow_dirty_flag,
    config_settings,
    origin,
    provenance,
    replace_block,
    require_committed,
)
from kgqa.runtime.app import connect
from kgqa.runtime.steps.s4_grounding import constant_vectors, ground
from kgqa.runtime.store.base import graph_schema

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "benchmarks" / "results" / "grounding.json"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = (*CODE_PATHS, "benchmarks/grounding.py")
"""The code behind the figures: a change there makes the table stale."""
TEMPLATES = [
    ("effect/phenotype", "MATCH (g:gene/protein)-[:associated with]->(p:effect/phenotype {{name: {name}}}) RETURN g"),
    ("effect/phenotype", "MATCH (d:disease)-[:phenotype present]->(p:effect/phenotype {{name: {name}}}) RETURN d"),
    ("disease", "MATCH (d:disease {{name: {name}}})-[:phenotype present]->(p:effect/phenotype) RETURN p"),
]


def measure(args: argparse.Namespace) -> dict:
    """Time steps 4-5 on ``args.plans`` seeded plans; the results document, provenance and settings included."""
    rng = random.Random(args.seed)
    prov = provenance()  # before measuring: the code that runs is the code of now
    with connect() as kg:
        schema = graph_schema(kg.schema(args.skb))
        kg.store.await_indexes(args.skb)
        names = {
            label: [row[0] for row in kg.store.read(args.skb, f"MATCH (n:{quote(label)}) RETURN n.name LIMIT 5000")]
            for label in ("effect/phenotype", "disease")
        }
        embed_ms, ground_ms, rounds, found = [], [], [], []
        for _ in range(args.plans):
            label, template = rng.choice(TEMPLATES)
            plan = sanitize(
                parse(template.format(name=json.dumps(rng.choice(names[label]), allow_nan=False))), schema
            ).plan
            start = time.perf_counter()
            vectors = constant_vectors(kg.embedder, plan)
            embed_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            result = ground(kg.store, args.skb, plan, vectors, schema, k=args.k, l_max=args.l_max)
            ground_ms.append((time.perf_counter() - start) * 1000)
            rounds.append(len(result.rounds))
            found.append(len(result.targets))
        config = config_settings(kg.config)
    return {
        "provenance": prov,
        "params": {key: value for key, value in vars(args).items() if key != "render"},
        "config": config,
        "steps_4_5_median_ms": round(statistics.median(ground_ms), 1),
        "steps_4_5_p90_ms": round(sorted(ground_ms)[int(0.9 * len(ground_ms)) - 1], 1),
        "embed_constants_median_ms": round(statistics.median(embed_ms), 1),
        "rounds_median": statistics.median(rounds),
        "targets_median": statistics.median(found),
    }


def table(out: dict) -> str:
    """The docs block for a grounding.json document: its settings, its commit (stale or not) and the figures."""
    p = out["params"]
    date = out.get("provenance", {}).get("date", "")[:10] or "on a date not recorded"
    return "\n".join(
        [
            f"{p['plans']} one-constant plans on `{p['skb']}` (3 templates over real names, seed {p['seed']}), "
            f"k = {p['k']}, l_max = {p['l_max']}.",
            "",
            f"{origin(out, RESULT, ROOT, PATHS).sentence()} Measured {date}.",
            "",
            "| measure | value | target |",
            "|---|---|---|",
            f"| steps 4-5 (candidates + rounds) median / p90 | {out['steps_4_5_median_ms']} ms / "
            f"{out['steps_4_5_p90_ms']} ms | median ≤ 50 ms |",
            f"| embedding the constant (not in steps 4-5 above) median | {out['embed_constants_median_ms']} ms | |",
            f"| rounds per plan / targets per plan (median) | {out['rounds_median']} / {out['targets_median']} | |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skb", default="hpo")
    parser.add_argument("--plans", type=int, default=40)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--l-max", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from grounding.json")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if args.render:
        out = json.loads(RESULT.read_text())
    else:
        out = measure(args)
        RESULT.write_text(json.dumps(out, indent=2, allow_nan=False) + "\n")
    DOC.write_text(
        replace_block(DOC.read_text(), "grounding", table(out), "## Grounding: steps 4-5 (`benchmarks/grounding.py`)")
    )
    print(json.dumps({k: v for k, v in out.items() if k != "config"}, indent=2, allow_nan=False))


if __name__ == "__main__":
    main()
