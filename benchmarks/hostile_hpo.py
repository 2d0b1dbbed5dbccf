"""Hostile input on the real HPO graph (issue 18's acceptance): how long kgqa takes to bound or refuse it, and whether
the store still answers afterwards.

- ``kgqa explain`` (subprocess) of a 300-hop ``parent-child`` chain and of a cartesian pattern: exit code, seconds,
  triplets kept, parts dropped.
- The compiled query of a 20-hop chain (sanitized with max_triplets = 20, so the watchdog, not the plan bound, is
  what stops it) and of the 8-hop chain ``kgqa explain`` keeps by default, each run through the store's read path
  under the configured ``query_timeout``: rows or the timeout message, seconds, and the seconds of a plain read
  right after (the server is usable).
- A 1 MB question (refused) and a question of ``max_question_chars`` characters (answered, no LLM): seconds.

HPO is loaded into ``--home`` (kept between runs; ``kgqa load hpo`` says "up to date"). Writes
benchmarks/results/hostile_hpo.json and the table in docs/limits.md.

    python benchmarks/hostile_hpo.py [--home /tmp/kgqa-latency]
    python benchmarks/hostile_hpo.py --render
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kgqa.config import Config, load_config
from kgqa.cypher.compile import pattern_query
from kgqa.cypher.parser import parse
from kgqa.cypher.sanitize import sanitize
from kgqa.errors import KgqaError, StoreTimeoutError
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.store.base import graph_schema

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "hostile_hpo.json"
DOC = ROOT / "docs" / "limits.md"
PATHS = (*CODE_PATHS, "benchmarks/hostile_hpo.py")
KGQA = [sys.executable, "-m", "kgqa.cli"]
PHENOTYPE = "`effect/phenotype`"
SENTENCE = "Which genes are associated with Marfan syndrome and with generalized tonic-clonic seizures? "


def chain(hops: int) -> str:
    return f"MATCH (a:{PHENOTYPE})" + "".join(f"-[:`parent-child`]-(x{i})" for i in range(hops)) + " RETURN a"


CARTESIAN = (
    f"OPTIONAL MATCH (a:disease {{name: 'Marfan syndrome'}}) OPTIONAL MATCH (b:{PHENOTYPE}) "
    "MATCH (c:`gene/protein`), (d:disease) RETURN a"
)


def _explain(env: dict[str, str], cypher: str) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [*KGQA, "explain", "--skb", "hpo", "--cypher", cypher, "--json"], env=env, capture_output=True, text=True
    )
    seconds = round(time.perf_counter() - started, 2)
    out = json.loads(done.stdout) if done.stdout.strip() else {}
    return {
        "exit": done.returncode,
        "seconds": seconds,
        "triplets": len(out.get("plan", {}).get("triplets", [])),
        "dropped": len(out.get("dropped", [])),
        "error": out.get("error", {}).get("message", done.stderr.strip()[-200:] if done.returncode else ""),
    }


def _run_compiled(kg: Kgqa, hops: int, max_triplets: int) -> dict[str, Any]:
    schema = graph_schema(kg.schema("hpo"))
    plan = sanitize(parse(chain(hops)), schema, max_triplets=max_triplets).plan
    query = pattern_query(plan, schema.keys, limit=kg.config.pattern_limit)
    started = time.perf_counter()
    try:
        rows = kg.store.read("hpo", query.text, query.params)
        outcome = f"{len(rows)} rows"
    except StoreTimeoutError as exc:
        outcome = f"timeout: {exc}"
    seconds = round(time.perf_counter() - started, 2)
    started = time.perf_counter()
    kg.store.read("hpo", "MATCH (n:disease) RETURN count(n)")
    after = round(time.perf_counter() - started, 2)
    return {"triplets": len(plan.triplets), "outcome": outcome, "seconds": seconds, "next_read_seconds": after}


def _ask(kg: Kgqa, question: str) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        answer = kg.ask(question, "hpo", steps="hybrid")
        outcome = f"{len(answer.answers)} answers"
    except KgqaError as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    return {"chars": len(question), "outcome": outcome[:200], "seconds": round(time.perf_counter() - started, 2)}


def measure(home: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGQA_")}
    env.update({"KGQA_HOME": str(home), "HF_HUB_OFFLINE": "1", "KGQA_LLM": "none", "KGQA_WORKER_IDLE_TIMEOUT": "0"})
    subprocess.run([*KGQA, "load", "hpo"], env=env, check=True, cwd=ROOT)
    out: dict[str, Any] = {
        "explain_chain_300": _explain(env, chain(300)),
        "explain_cartesian": _explain(env, CARTESIAN),
    }
    config: Config = load_config({"home": home, "llm": "none", "worker_idle_timeout": 0})
    out["settings"] = {
        name: getattr(config, name)
        for name in ("query_timeout", "max_triplets", "pattern_limit", "max_question_chars", "max_link_ngrams")
    }
    with Kgqa(config) as kg:
        kg.store.await_indexes("hpo")
        out["compiled_chain_20"] = _run_compiled(kg, 20, 20)
        out["compiled_chain_default"] = _run_compiled(kg, 20, config.max_triplets)
        out["question_1mb"] = _ask(kg, (SENTENCE * (2**20 // len(SENTENCE) + 1))[: 2**20])
        out["question_at_limit"] = _ask(kg, (SENTENCE * 100)[: config.max_question_chars])
    return out


def table(result: dict[str, Any]) -> str:
    where = origin(result, OUT, ROOT, PATHS)
    s = result["settings"]
    rows = [
        "| input | outcome | seconds | then |",
        "|---|---|---|---|",
    ]
    for key, label in (
        ("explain_chain_300", "`kgqa explain`, 300-hop chain"),
        ("explain_cartesian", "`kgqa explain`, cartesian pattern"),
    ):
        r = result[key]
        outcome = f"exit {r['exit']}, {r['triplets']} triplets kept, {r['dropped']} drop lines" + (
            f": {r['error']}" if r["error"] else ""
        )
        rows.append(f"| {label} | {outcome} | {r['seconds']} | |")
    for key, label in (
        ("compiled_chain_20", "compiled 20-hop chain (max_triplets 20)"),
        ("compiled_chain_default", f"compiled chain as explain keeps it ({s['max_triplets']} hops)"),
    ):
        r = result[key]
        rows.append(f"| {label} | {r['outcome'][:120]} | {r['seconds']} | next read {r['next_read_seconds']} s |")
    for key, label in (
        ("question_1mb", "1 MB question"),
        ("question_at_limit", f"{s['max_question_chars']}-character question, no LLM"),
    ):
        r = result[key]
        rows.append(f"| {label} | {r['outcome'][:120]} | {r['seconds']} | |")
    return "\n".join(
        [
            f"On HPO (MiniLM, embedded FalkorDB, 2 cores), with query_timeout = {s['query_timeout']} s, max_triplets = "
            f"{s['max_triplets']}, pattern_limit = {s['pattern_limit']}, max_question_chars = "
            f"{s['max_question_chars']}. {where.sentence()}",
            "",
            *rows,
        ]
    )


def write_table() -> None:
    if not OUT.exists():
        return
    text = DOC.read_text() if DOC.exists() else "# Limits\n"
    heading = "## Measured: hostile input on HPO (`benchmarks/hostile_hpo.py`)"
    DOC.write_text(replace_block(text, "hostile", table(json.loads(OUT.read_text())), heading))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "kgqa-latency")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the JSON file")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        result = {"provenance": provenance(), **measure(args.home)}
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
        print(json.dumps(result, indent=2, allow_nan=False))
    write_table()


if __name__ == "__main__":
    main()
