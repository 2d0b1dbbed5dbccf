"""Steps 4-7 per question with no LLM and with a scripted oracle LLM (issue 52): the median, p99 and maximum seconds,
how often a step-5 round reached ``query_timeout``, which bound cut a round, and hit@1 / recall@20.

Two question sets, on HPO (the real model, in the configured ``--home``):

- ``natural``: the hand-written natural set (benchmarks/natural/hpo_{dev,test}.jsonl, both halves; gold from
  benchmarks/natural_gold.py's specs). Only timings and aggregate figures are printed, never a test question.
- ``hubs``: intersections written here from the graph, with a seed: two and three findings of which the first is one
  of HPO's most-annotated phenotypes ('Seizure', 'Intellectual disability', ...), "X but explicitly not Y" (a
  hub present, a finding absent), and genes of two findings. Gold is computed from the graph as natural_gold.py does.

The oracle (a scripted chat model, as benchmarks/llm_axis.py's): step 1 the gold type; step 2 correct Cypher for the
spec's ``all`` constraints with every constant by its exact name; the ``none`` constraints and the textual word are
left out, as a careful model writing kgqa's Cypher subset would. No step 8.

Records go to benchmarks/results/step5_oracle_<mode>.jsonl (resumable: a question already recorded is skipped;
``--redo`` starts over) and the summary to benchmarks/results/step5_oracle.json, with its table in
docs/benchmarks.md.

    python benchmarks/step5_oracle.py [--home /tmp/kh] [--modes none,oracle] [--sets natural,hubs]
    python benchmarks/step5_oracle.py --render
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from natural_gold import Graph, Spec, answers, read_questions

from kgqa.config import load_config
from kgqa.cypher.identifiers import quote
from kgqa.lab.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.loaders.hpo import read_hpo
from kgqa.runtime.app import Kgqa
from kgqa.runtime.llm import Completion, Message

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
OUT = RESULTS / "step5_oracle.json"
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = (*CODE_PATHS, "benchmarks/step5_oracle.py", "benchmarks/natural_gold.py", "benchmarks/natural")
MODES = ("none", "oracle")
SETS = ("natural", "hubs")
SKB = "hpo"
PRESENT, ABSENT, ASSOCIATED = "phenotype present", "phenotype absent", "associated with"
DISEASE, PHENOTYPE, GENE = "disease", "effect/phenotype", "gene/protein"


@dataclass(frozen=True)
class Question:
    id: str
    set: str
    text: str
    spec: Spec
    gold: tuple[str, ...]


def natural_questions() -> list[Question]:
    graph = Graph.from_data(read_hpo())
    out = []
    for half in ("dev", "test"):
        for q in read_questions(ROOT / "benchmarks" / "natural" / f"hpo_{half}.jsonl"):
            out.append(Question(q["id"], "natural", q["question"], q["gold"], tuple(answers(q["gold"], graph))))
    return out


def hub_questions(seed: int = 52) -> list[Question]:
    """Intersections with hubs (see the module's docstring), each with a non-empty gold of at most 100 answers."""
    data = read_hpo()
    graph = Graph.from_data(data)
    name = {str(n.id): n.name for n in data.nodes}
    diseases_of = graph.into[PRESENT]
    by_count = sorted(diseases_of, key=lambda p: -len(diseases_of[p]))
    hubs = by_count[:15]
    middling = [p for p in by_count if 20 <= len(diseases_of[p]) <= 400]
    absent = [p for p, ds in graph.into[ABSENT].items() if len(ds) >= 3]
    rng = random.Random(seed)
    out: list[Question] = []

    def add(kind: str, text: str, spec: Spec) -> None:
        gold = answers(spec, graph)
        if 1 <= len(gold) <= 100 and text not in {q.text for q in out}:
            out.append(Question(f"h{len(out) + 1:03d}-{kind}", "hubs", text, spec, tuple(gold)))

    def has(rel: str, node: str, direction: str = "out") -> dict[str, str]:
        return {"rel": rel, "dir": direction, "node": node}

    def draw(kind: str, wanted: int, tries: int, make: Callable[[], tuple[str, Spec] | None]) -> None:
        """Up to ``wanted`` questions of ``kind`` from at most ``tries`` draws of ``make`` (None: a draw to skip)."""
        for _ in range(tries):
            if sum(q.id.endswith(f"-{kind}") for q in out) >= wanted:
                return
            made = make()
            if made is not None:
                add(kind, *made)

    def two() -> tuple[str, Spec]:
        a, b = rng.choice(hubs), rng.choice(middling)
        return f"Which diseases have {name[a]} and {name[b]}?", {
            "target": DISEASE,
            "all": [has(PRESENT, a), has(PRESENT, b)],
        }

    def three() -> tuple[str, Spec] | None:
        a, b, c = rng.choice(hubs), rng.choice(hubs), rng.choice(middling)
        spec = {"target": DISEASE, "all": [has(PRESENT, a), has(PRESENT, b), has(PRESENT, c)]}
        return None if a == b else (f"Which diseases present {name[a]}, {name[b]} and {name[c]}?", spec)

    def but_not() -> tuple[str, Spec]:
        a, b = rng.choice(hubs), rng.choice(absent)
        spec = {"target": DISEASE, "all": [has(PRESENT, a), has(ABSENT, b)]}
        return f"Which diseases with {name[a]} are explicitly annotated as not having {name[b]}?", spec

    def genes() -> tuple[str, Spec]:
        a, b = rng.choice(hubs), rng.choice(middling)
        spec = {"target": GENE, "all": [has(ASSOCIATED, a), has(ASSOCIATED, b)]}
        return f"Which genes are associated with both {name[a]} and {name[b]}?", spec

    draw("two", 12, 200, two)
    draw("three", 10, 400, three)
    draw("butnot", 10, 400, but_not)
    draw("genes", 8, 200, genes)
    issue = "Diseases with seizures that are explicitly annotated as not having intellectual disability?"
    add("issue", issue, {"target": DISEASE, "all": [has(PRESENT, "HP:0001250"), has(ABSENT, "HP:0001249")]})
    return out


def oracle_cypher(spec: Spec, name: dict[str, str], type_of: dict[str, str]) -> str:
    """Correct Cypher for ``spec``'s ``all`` constraints (nested ``of`` specs as a path), constants by exact name."""
    parts: list[str] = []
    counter = iter(range(1000))

    def walk(variable: str, label: str, spec: Spec) -> None:
        for constraint in spec.get("all", []):
            rel = quote(constraint["rel"])
            left, right = ("-", "->") if constraint["dir"] == "out" else ("<-", "-")
            other = f"n{next(counter)}"
            if "node" in constraint:
                node = constraint["node"]
                end = f"({other}:{quote(type_of[node])} {{name: {json.dumps(name[node], ensure_ascii=False)}}})"
                parts.append(f"({variable}){left}[:{rel}]{right}{end}")
            else:
                inner = constraint["of"]
                parts.append(f"({variable}){left}[:{rel}]{right}({other}:{quote(inner['target'])})")
                walk(other, inner["target"], inner)
        del label

    walk("y", spec["target"], spec)
    return f"```cypher\nMATCH (y:{quote(spec['target'])}), " + ",\n      ".join(parts) + "\nRETURN y\n```"


class Oracle:
    """A scripted chat model answering kgqa's step-1 and step-2 prompts from each question's spec."""

    name = "scripted-oracle-spec"

    def __init__(self, questions: Sequence[Question], name: dict[str, str], type_of: dict[str, str]) -> None:
        self.specs = {" ".join(q.text.split()): q.spec for q in questions}
        self.names, self.type_of = name, type_of

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        prompt = "\n".join(m.content for m in messages)
        question = " ".join(prompt.rsplit("Question: ", 1)[1].strip().splitlines()[0].split())
        spec = self.specs[question]
        if "Which type of node is the answer" in prompt:
            text = spec["target"]
        else:
            text = oracle_cypher(spec, self.names, self.type_of)
        return Completion(text, len(prompt.split()), len(text.split()), 0.0, "stop")


STEPS = ("4", "5", "6", "7")


def measure(kg: Kgqa, question: Question) -> dict[str, Any]:
    started = time.perf_counter()
    answer = kg.ask(question.text, SKB, steps="hybrid")
    wall = time.perf_counter() - started
    seconds = {str(r.step): r.seconds for r in answer.trace.steps if str(r.step) in STEPS and r.status != "skipped"}
    step5 = next((r for r in answer.trace.steps if str(r.step) == "5"), None)
    detail = step5.detail if step5 is not None else ""
    ids = [str(a.id) for a in answer.answers[:20]]
    gold = set(question.gold)
    return {
        "id": question.id,
        "set": question.set,
        "seconds_4_7": round(sum(seconds.values()), 4),
        "seconds": seconds,
        "wall": round(wall, 4),
        "timeouts": len(re.findall(r"ran past the time limit", detail)),
        "cuts": sorted(set(re.findall(r"\(bound: (\w+)\)", detail))),
        "rounds": [len(p["rounds"]) for p in answer.trace.plans],
        "estimates": [
            [r["scope"], p["estimated_rows"].get(str(r["scope"])), r["seconds"]]
            for p in answer.trace.plans
            for r in p["rounds"]
            if p.get("estimated_rows")
        ],
        "max_l": max((r["scope"] for p in answer.trace.plans for r in p["rounds"]), default=0),
        "hit1": float(bool(ids) and ids[0] in gold),
        "recall20": len(gold & set(ids)) / len(gold),
    }


def records_file(mode: str, tag: str = "") -> Path:
    return RESULTS / f"step5_oracle_{mode}{'_' + tag if tag else ''}.jsonl"


def run(home: Path, modes: Sequence[str], sets: Sequence[str], redo: bool, overrides: dict[str, Any], tag: str) -> None:
    questions = [q for s in sets for q in (natural_questions() if s == "natural" else hub_questions())]
    data = read_hpo()
    name = {str(n.id): n.name for n in data.nodes}
    type_of = {str(n.id): n.type for n in data.nodes}
    for mode in modes:
        path = records_file(mode, tag)
        if redo:
            path.unlink(missing_ok=True)
        done = {json.loads(line)["id"] for line in path.open(encoding="utf-8")} if path.exists() else set()
        settings = {"home": str(home), "llm": "none", "llm_cache": False, "worker_idle_timeout": 0, **overrides}
        llm = Oracle(questions, name, type_of) if mode == "oracle" else None
        commit = provenance()["commit"]
        with Kgqa(load_config(settings), llm=llm) as kg, path.open("a", encoding="utf-8") as out:
            kg.ask(questions[0].text, SKB, steps="hybrid")  # loads the models: not timed
            for question in questions:
                if question.id in done:
                    continue
                record = {**measure(kg, question), "commit": commit}
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(mode, record["id"], record["seconds_4_7"], record["timeouts"], record["max_l"], flush=True)


VARIANTS = {
    "before": "before: kgqa at 8557fc3, rounds to k or l_max in symbol order",
    "": "all bounds (the defaults)",
    "no-stall": "expansion_stall off",
    "order-only": "expansion_stall off, round_cost_cap 10^12: only the binding order",
}
"""Tags of the alternatives measured against each other (``--tag``), with the settings each was run with; ``before``
is this script run in a checkout of 8557fc3 (the commit before issue 52's bounds) with ``--tag before``."""


def summary() -> dict[str, Any]:
    """Figures per mode, alternative and set; ``commits``: how many records each commit made (the table's origin:
    stale where the code changed since any of them; the ``before`` records are 8557fc3's by design, and left out)."""
    result: dict[str, Any] = {"provenance": provenance(), "modes": {}, "commits": {}}
    for mode, tag in ((m, t) for m in MODES for t in VARIANTS):
        path = records_file(mode, tag)
        if not path.exists():
            continue
        records = [json.loads(line) for line in path.open(encoding="utf-8")]
        if tag != "before":
            for record in records:
                commit = record.get("commit", "unknown")
                result["commits"][commit] = result["commits"].get(commit, 0) + 1
        by_set: dict[str, Any] = {}
        for name in (*SETS, "all"):
            rows = [r for r in records if name == "all" or r["set"] == name]
            if not rows:
                continue
            times = sorted(r["seconds_4_7"] for r in rows)
            by_set[name] = {
                "questions": len(rows),
                "median_ms": round(statistics.median(times) * 1000, 1),
                "p99_ms": round(times[min(len(times) - 1, round(0.99 * (len(times) - 1)))] * 1000, 1),
                "max_ms": round(times[-1] * 1000, 1),
                "over_1s": sum(t > 1 for t in times),
                "timeouts": sum(r["timeouts"] for r in rows),
                "cut": sum(bool(r["cuts"]) for r in rows),
                "hit1": round(statistics.mean(r["hit1"] for r in rows), 3),
                "recall20": round(statistics.mean(r["recall20"] for r in rows), 3),
            }
        result["modes"][f"{mode} ({VARIANTS[tag]})" if tag else mode] = by_set
    return result


def table(result: dict[str, Any]) -> str:
    where = origin(result, OUT, ROOT, PATHS)
    lines = [
        "| LLM | set | questions | steps 4-7 median / p99 / max (ms) | over 1 s | rounds at `query_timeout` | "
        "questions a bound cut | hit@1 | recall@20 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, by_set in result["modes"].items():
        for name, s in by_set.items():
            lines.append(
                f"| {mode} | {name} | {s['questions']} | "
                f"{s['median_ms']:.0f} / {s['p99_ms']:.0f} / {s['max_ms']:.0f} | "
                f"{s['over_1s']} | {s['timeouts']} | {s['cut']} | {s['hit1']:.3f} | {s['recall20']:.3f} |"
            )
    return "\n".join(
        [
            f"Steps 4-7 per question (hybrid, no rerank), in process, on 2 cores. {where.sentence()} Targets (issue "
            "52): median <= 100 ms, every question <= 1 s, no round at `query_timeout`, oracle hit@1 within 0.01 "
            "of before.",
            "",
            *lines,
        ]
    )


def write_table(result: dict[str, Any]) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    heading = "## Step 5's bounds: no LLM and a scripted oracle LLM (`benchmarks/step5_oracle.py`)"
    DOC.write_text(replace_block(text, "step5_oracle", table(result), heading))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path("/tmp/kh"))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--redo", action="store_true", help="start the records over")
    parser.add_argument("--tag", default="", choices=list(VARIANTS), help="an alternative's records (see VARIANTS)")
    parser.add_argument("--settings", default="{}", help="kgqa settings of the alternative, as JSON")
    parser.add_argument("--render", action="store_true", help="only summarize the records and rewrite the table")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        run(args.home, args.modes.split(","), args.sets.split(","), args.redo, json.loads(args.settings), args.tag)
    result = summary()
    OUT.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    print(json.dumps(result["modes"], indent=2))
    write_table(result)


if __name__ == "__main__":
    main()
