"""Steps 4-7 per question with no LLM and with a scripted oracle LLM (issues 52 and 68): the median, p99 and maximum
seconds, how often a step-5 round reached ``query_timeout``, which bound cut a round, the store reads an ask made,
and hit@1 / recall@20 (over the questions whose gold is not empty).

Three question sets, on HPO (the real model, in the configured ``--home``):

- ``natural``: the hand-written natural set (benchmarks/natural/hpo_{dev,test}.jsonl, both halves; gold from
  benchmarks/natural_gold.py's specs). Only timings and aggregate figures are printed, never a test question.
- ``hubs`` (issue 52, kept as it was so that its records stay comparable): intersections written here from the graph,
  with a seed: two and three findings of which the first is one of HPO's most-annotated phenotypes ('Seizure',
  'Intellectual disability', ...), "X but explicitly not Y" (a hub present, a finding absent), and genes of two
  findings; only questions with 1-100 answers.
- ``degree`` (issue 68): drawn from the graph by degree of 'phenotype present' (diseases per phenotype), with a seed,
  in shapes, the worst cases for step 5 being intersections of hubs: ``hubpair`` (two of the 20 most-annotated
  phenotypes), ``hubrare`` (each of those hubs with a rare phenotype, 2-15 diseases, that co-occurs with it),
  ``hubpair-not`` and ``hubrare-not`` (the second finding negated: 'phenotype absent', drawn from the phenotypes that
  have such edges, about half with answers), and ``three`` (two hubs and a rare or middling phenotype; a few of three
  hubs). Each shape has 2-3 wordings, always with the exact HPO names. A question whose gold is empty is kept (an
  intersection without answers expands furthest); only one with over 100 answers is dropped. The shapes are
  interleaved, so that the first few questions (``--limit``) sample every shape.

Gold is computed from the graph as natural_gold.py does.

Each record counts the ask's store reads (``reads``: FalkorDB's queries; its vector lookups run in process) and the
read transactions the Neo4j dialect's store sends for the same store calls, made again after the ask through the unit
tests' fake driver (``neo4j_reads``; each one an EXPLAIN and the query; ``neo4j_stopped``: calls that stopped on the
fake's empty answers, counted as far as they got).

Modes: ``none`` (no LLM); ``oracle``, a scripted chat model (as benchmarks/llm_axis.py's): step 1 the gold type; step
2 correct Cypher for the spec's ``all`` constraints with every constant by its exact name and label; the ``none``
constraints and the textual word are left out, as a careful model writing kgqa's Cypher subset would. No step 8.
``oracle-bare``: the same oracle writing its constants without a label (``(v1 {name: "Seizure"})``), as the hidden
benchmark's oracle does; the answer and a nested plan's intermediate nodes keep theirs.

Records go to benchmarks/results/step5_oracle_<mode>.jsonl (resumable: a question already recorded is skipped;
``--redo`` starts over) and the summary to benchmarks/results/step5_oracle.json, with its tables (per set; per shape
of the ``degree`` set) in docs/benchmarks.md. With ``--results DIR`` (a smoke run) records and summary go to DIR and
the docs are left alone.

    python benchmarks/step5_oracle.py [--home /tmp/kh] [--modes none,oracle,oracle-bare] [--sets natural,hubs,degree]
    python benchmarks/step5_oracle.py --sets degree --list       # the questions, their shapes and gold sizes
    python benchmarks/step5_oracle.py --results /tmp/s5smoke --limit 3 --sets degree --allow-dirty
    python benchmarks/step5_oracle.py --render
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import random
import re
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from natural_gold import Graph, Spec, answers, read_questions

from kgqa.config import load_config
from kgqa.cypher.identifiers import quote
from kgqa.loaders.hpo import read_hpo
from kgqa.loaders.model import SkbData
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.llm import Completion, Message
from kgqa.runtime.store.base import SkbMeta
from kgqa.runtime.store.protocols import GraphStore

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(1, str(ROOT))  # tests.helpers.neo4j_fakes: the fake driver the Neo4j query count runs through
RESULTS = ROOT / "benchmarks" / "results"
SUMMARY = "step5_oracle.json"
OUT = RESULTS / SUMMARY
DOC = ROOT / "docs" / "benchmarks.md"
PATHS = (*CODE_PATHS, "benchmarks/step5_oracle.py", "benchmarks/natural_gold.py", "benchmarks/natural")
MODES = ("none", "oracle", "oracle-bare")
SETS = ("natural", "hubs", "degree", "issue")
SHAPES = ("hubpair", "hubrare", "hubpair-not", "hubrare-not", "three")
"""The ``degree`` set's shapes, in the order the per-shape table shows them."""
SKB = "hpo"
PRESENT, ABSENT, ASSOCIATED = "phenotype present", "phenotype absent", "associated with"
DISEASE, PHENOTYPE, GENE = "disease", "effect/phenotype", "gene/protein"
MAX_GOLD = 100
"""A generated question with more answers is dropped (natural_gold.py's bound: recall@20 means little beyond it)."""
HUBS = 20
RARE = (2, 15)
MIDDLING = (20, 400)
"""Bounds (inclusive) on the diseases a phenotype is present in, for the ``degree`` set's hubs, rare and middling
phenotypes."""


@dataclass(frozen=True)
class Question:
    id: str
    set: str
    text: str
    spec: Spec
    gold: tuple[str, ...]
    shape: str = ""
    """The kind of a generated question (``degree``: one of :data:`SHAPES`; ``hubs``: its id's suffix)."""


@functools.cache
def hpo() -> tuple[SkbData, Graph]:
    """HPO as kgqa loads it, and its graph for the gold: read once per run (a few seconds)."""
    data = read_hpo()
    return data, Graph.from_data(data)


def natural_questions() -> list[Question]:
    graph = hpo()[1]
    out = []
    for half in ("dev", "test"):
        for q in read_questions(ROOT / "benchmarks" / "natural" / f"hpo_{half}.jsonl"):
            out.append(Question(q["id"], "natural", q["question"], q["gold"], tuple(answers(q["gold"], graph))))
    return out


def has(rel: str, node: str, direction: str = "out") -> dict[str, str]:
    return {"rel": rel, "dir": direction, "node": node}


ISSUE_68: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Which diseases have both seizures and cafe-au-lait spots?", ((PRESENT, "HP:0001250"), (PRESENT, "HP:0000957"))),
    (
        "Which disorders show scoliosis together with intellectual disability?",
        ((PRESENT, "HP:0002650"), (PRESENT, "HP:0001249")),
    ),
    (
        "Which diseases list hypotonia but are annotated as not having seizures?",
        ((PRESENT, "HP:0001252"), (ABSENT, "HP:0001250")),
    ),
    (
        "Which conditions have microcephaly, global developmental delay and failure to thrive?",
        ((PRESENT, "HP:0000252"), (PRESENT, "HP:0001263"), (PRESENT, "HP:0001508")),
    ),
)
"""Issue 68's own examples (question, then each finding as (relation, HPO id)): whatever their gold's size."""


def issue_questions() -> list[Question]:
    graph = hpo()[1]
    out = []
    for number, (text, findings) in enumerate(ISSUE_68, 1):
        spec = {"target": DISEASE, "all": [has(rel, node) for rel, node in findings]}
        out.append(Question(f"i{number}", "issue", text, spec, tuple(answers(spec, graph)), "issue"))
    return out


def hub_questions(seed: int = 52) -> list[Question]:
    """Intersections with hubs (see the module's docstring), each with a non-empty gold of at most 100 answers."""
    data, graph = hpo()
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
            out.append(Question(f"h{len(out) + 1:03d}-{kind}", "hubs", text, spec, tuple(gold), kind))

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


WORDINGS = {
    "two": (
        "Which diseases have both {a} and {b}?",
        "Which diseases present with {a} and {b}?",
        "What diseases are annotated with {a} as well as {b}?",
    ),
    "not": (
        "Which diseases have {a} but are annotated as not having {b}?",
        "Which diseases with {a} are explicitly annotated as not having {b}?",
        "What diseases present {a} and are annotated as lacking {b}?",
    ),
    "three": (
        "Which diseases have {a}, {b} and {c}?",
        "Which diseases present with {a}, {b} and also {c}?",
        "What diseases are annotated with {a}, {b} and {c}?",
    ),
}
"""The ``degree`` set's wordings (one drawn per question): two findings, the second negated, three findings."""


def degree_questions(seed: int = 68) -> list[Question]:
    """Issue 68's set (see the module's docstring): hubs and rare phenotypes by degree of 'phenotype present', gold of
    0-100 answers, the shapes interleaved."""
    data, graph = hpo()
    name = {str(n.id): n.name for n in data.nodes}
    diseases_of, absent_of, phenotypes_of = graph.into[PRESENT], graph.into[ABSENT], graph.out[PRESENT]
    by_count = sorted(diseases_of, key=lambda p: (-len(diseases_of[p]), p))
    hubs = by_count[:HUBS]
    rare = {p for p in by_count if RARE[0] <= len(diseases_of[p]) <= RARE[1]}
    middling = {p for p in by_count if MIDDLING[0] <= len(diseases_of[p]) <= MIDDLING[1]}
    absent_hubs = [p for p in hubs if p in absent_of]
    # the negated rare ones: present in at most RARE[1] diseases, none too (some are only ever annotated absent)
    absent_rare = sorted(p for p in absent_of if len(diseases_of.get(p, ())) <= RARE[1])
    rng = random.Random(seed)
    made: dict[str, list[Question]] = {shape: [] for shape in SHAPES}
    seen: set[frozenset[tuple[str, str]]] = set()
    texts: set[str] = set()

    def add(shape: str, wording: str, rels: Sequence[str], nodes: Sequence[str]) -> bool:
        """Add the question (``rels[i]`` to ``nodes[i]``, all of them) unless it is asked already or its gold is over
        :data:`MAX_GOLD`; whether it was added."""
        spec = {"target": DISEASE, "all": [has(rel, node) for rel, node in zip(rels, nodes, strict=True)]}
        key = frozenset(zip(rels, nodes, strict=True))
        text = rng.choice(WORDINGS[wording]).format(**{k: name[n] for k, n in zip("abc", nodes, strict=False)})
        gold = answers(spec, graph)
        if len(gold) > MAX_GOLD or key in seen or text in texts:
            return False
        seen.add(key)
        texts.add(text)
        made[shape].append(Question("", "degree", text, spec, tuple(gold), shape))
        return True

    @functools.cache
    def around(hub: str) -> frozenset[str]:
        """The phenotypes present in some disease the hub is present in."""
        return frozenset(p for d in diseases_of[hub] for p in phenotypes_of[d]) - {hub}

    # two hubs: every pair with at most MAX_GOLD diseases in common (few: hubs mostly share hundreds), up to 15
    pairs = [list(pair) for pair in itertools.combinations(hubs, 2)]
    rng.shuffle(pairs)
    for pair in pairs:
        rng.shuffle(pair)
        if len(made["hubpair"]) < 15:
            add("hubpair", "two", (PRESENT, PRESENT), pair)
    # each hub with a rare phenotype that co-occurs with it (so the intersection has answers)
    for hub in hubs:
        add("hubrare", "two", (PRESENT, PRESENT), (hub, rng.choice(sorted(around(hub) & rare) or sorted(rare))))

    def negated(shape: str, pool: Sequence[str], wanted: int) -> None:
        """Hubs in random order, each with a finding of ``pool`` absent, up to ``wanted``: every other one drawn among
        those that leave answers (where the hub has such), the rest from all of ``pool``."""
        for hub in rng.sample(hubs, len(hubs)):
            if len(made[shape]) >= wanted:
                return
            choices = [p for p in pool if p != hub]
            answered = [p for p in choices if diseases_of[hub] & absent_of[p]]
            absent = rng.choice(answered if answered and len(made[shape]) % 2 == 0 else choices)
            add(shape, "not", (PRESENT, ABSENT), (hub, absent))

    negated("hubpair-not", absent_hubs, 10)
    negated("hubrare-not", absent_rare, 10)

    def hubs_and_other() -> list[str]:
        a, b = rng.sample(hubs, 2)
        return [a, b, rng.choice(sorted(around(a) & (rare | middling)))]

    # three: two hubs and a rare or middling phenotype co-occurring with the first, then a few of three hubs
    for wanted, draw in ((12, hubs_and_other), (16, lambda: rng.sample(hubs, 3))):
        for _ in range(400):
            if len(made["three"]) >= wanted:
                break
            add("three", "three", (PRESENT, PRESENT, PRESENT), draw())

    ordered = [q for group in itertools.zip_longest(*made.values()) for q in group if q is not None]
    return [replace(q, id=f"g{number:03d}-{q.shape}") for number, q in enumerate(ordered, 1)]


def oracle_cypher(spec: Spec, name: dict[str, str], type_of: dict[str, str], labelled: bool = True) -> str:
    """Correct Cypher for ``spec``'s ``all`` constraints (nested ``of`` specs as a path), constants by exact name;
    ``labelled=False``: the constants without their label, in the hidden benchmark's form
    ``MATCH (y:disease)-[:`phenotype present`]->(v1 {name: "Seizure"}), (y)-[...]->(v2 {...}) RETURN y``."""
    parts: list[str] = []
    counter = itertools.count(0 if labelled else 1)
    prefix = "n" if labelled else "v"

    def walk(variable: str, spec: Spec) -> None:
        for constraint in spec.get("all", []):
            rel = quote(constraint["rel"])
            left, right = ("-", "->") if constraint["dir"] == "out" else ("<-", "-")
            other = f"{prefix}{next(counter)}"
            if "node" in constraint:
                node = constraint["node"]
                label = f":{quote(type_of[node])}" if labelled else ""
                end = f"({other}{label} {{name: {json.dumps(name[node], ensure_ascii=False)}}})"
                parts.append(f"({variable}){left}[:{rel}]{right}{end}")
            else:
                inner = constraint["of"]
                parts.append(f"({variable}){left}[:{rel}]{right}({other}:{quote(inner['target'])})")
                walk(other, inner)

    walk("y", spec)
    answer = f"(y:{quote(spec['target'])})"
    if labelled:
        return f"```cypher\nMATCH {answer}, " + ",\n      ".join(parts) + "\nRETURN y\n```"
    first = answer + parts[0].removeprefix("(y)")
    return "```cypher\nMATCH " + ", ".join([first, *parts[1:]]) + " RETURN y\n```"


class Oracle:
    """A scripted chat model answering kgqa's step-1 and step-2 prompts from each question's spec (``labelled``:
    whether its Cypher labels the constants)."""

    def __init__(
        self, questions: Sequence[Question], name: dict[str, str], type_of: dict[str, str], labelled: bool = True
    ) -> None:
        self.specs = {" ".join(q.text.split()): q.spec for q in questions}
        self.names, self.type_of, self.labelled = name, type_of, labelled
        self.name = "scripted-oracle-spec" + ("" if labelled else "-bare")

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        prompt = "\n".join(m.content for m in messages)
        question = " ".join(prompt.rsplit("Question: ", 1)[1].strip().splitlines()[0].split())
        spec = self.specs[question]
        if "Which type of node is the answer" in prompt:
            text = spec["target"]
        else:
            text = oracle_cypher(spec, self.names, self.type_of, self.labelled)
        return Completion(text, len(prompt.split()), len(text.split()), 0.0, "stop")


STEPS = ("4", "5", "6", "7")


SHADOWED = (
    "await_indexes",
    "schema",
    "meta",
    "vector_top_k",
    "vector_top_k_many",
    "alias_top_k",
    "alias_top_k_many",
    "read",
    "read_records",
    "text_scores",
    "text_top_k",
    "exact_alias",
    "exact_name",
    "aliases",
    "alias_rows",
    "example_names",
    "documents",
    "plain_vectors",
    "plain_similarities",
    "relations",
    "relation_summary",
    "label_ids",
    "degrees",
    "walk_degrees",
    "reaches",
    "node_rows",
)
"""The store's read methods an ask may call (kgqa.runtime.store.protocols.GraphStore)."""


@dataclass
class Counts:
    reads: int = 0
    """the FalkorDB store's queries (``read`` and ``read_records``; its vector lookups run in process)"""
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    """the outermost calls of the store's read methods, with their arguments, in order"""


@contextmanager
def counted_reads(store: GraphStore) -> Iterator[Counts]:
    """Count the store's reads while the block runs, and record its outermost calls (:func:`neo4j_reads` makes them
    again on the Neo4j dialect, once the ask is timed). The whole ask's: steps 1-3 read a little too."""
    counts = Counts()
    lock = threading.Lock()
    depth = threading.local()
    methods = {name: getattr(store, name) for name in SHADOWED if hasattr(store, name)}

    def counting(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            outermost = getattr(depth, "n", 0) == 0
            depth.n = getattr(depth, "n", 0) + 1
            try:
                with lock:
                    counts.reads += name in ("read", "read_records")
                    if outermost:
                        counts.calls.append((name, args, kwargs))
                return call(*args, **kwargs)
            finally:
                depth.n -= 1

        return counted

    for name, call in methods.items():
        setattr(store, name, counting(name, call))
    try:
        yield counts
    finally:
        for name in methods:
            delattr(store, name)  # the class's method again


def neo4j_reads(calls: Sequence[tuple[str, tuple[Any, ...], dict[str, Any]]], meta: SkbMeta) -> tuple[int, int]:
    """The read transactions the Neo4j dialect's store sends for ``calls`` (an ask's, :class:`Counts`), through the
    unit tests' fake driver (tests/helpers/neo4j_fakes.py), which answers every query with no rows: issue 68's query
    count of the same asks on Neo4j. A call whose Neo4j twin needs rows to go on (an alias lookup reads the alias
    rows of its hits) counts as far as it got with none: a lower bound. Returns the transactions and how many calls
    stopped on an error so (recorded, never hidden)."""
    from tests.helpers.neo4j_fakes import FakeDriver, store_with  # the repository's own fake, not a copy

    # the SKB is there, with the metadata the FalkorDB store holds: each call goes past its check
    driver = FakeDriver([("m.json AS json", [[SKB, json.dumps(asdict(meta))]])])
    twin = store_with(driver)
    twin._known.add(SKB)
    before, stopped = len(driver.timeouts), 0
    for name, args, kwargs in calls:
        try:
            getattr(twin, name)(*args, **kwargs)
        except Exception:  # empty answers may break what a call does next: its transactions so far count
            stopped += 1
    return len(driver.timeouts) - before, stopped


def measure(kg: Kgqa, question: Question) -> dict[str, Any]:
    """One question's record; hit@1 and recall@20 are None where its gold is empty (nothing to hit)."""
    with counted_reads(kg.store) as counts:
        started = time.perf_counter()
        answer = kg.ask(question.text, SKB, steps="hybrid")
        wall = time.perf_counter() - started
    meta = kg.store.meta(SKB)
    assert meta is not None, f"no SKB {SKB!r} in {kg.config.home}"
    neo4j = neo4j_reads(counts.calls, meta)  # after the ask: not timed
    seconds = {str(r.step): r.seconds for r in answer.trace.steps if str(r.step) in STEPS and r.status != "skipped"}
    step5 = next((r for r in answer.trace.steps if str(r.step) == "5"), None)
    detail = step5.detail if step5 is not None else ""
    ids = [str(a.id) for a in answer.answers[:20]]
    gold = set(question.gold)
    return {
        "id": question.id,
        "set": question.set,
        "shape": question.shape,
        "gold": len(gold),
        "seconds_4_7": round(sum(seconds.values()), 4),
        "seconds": seconds,
        "wall": round(wall, 4),
        "reads": counts.reads,
        "neo4j_reads": neo4j[0],
        "neo4j_stopped": neo4j[1],
        "degraded": step5 is not None and step5.status == "degraded",
        "bounds": list(answer.trace.bounds),
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
        "hit1": float(bool(ids) and ids[0] in gold) if gold else None,
        "recall20": len(gold & set(ids)) / len(gold) if gold else None,
    }


def records_file(mode: str, tag: str = "", results: Path = RESULTS) -> Path:
    return results / f"step5_oracle_{mode}{'_' + tag if tag else ''}.jsonl"


def questions_of(sets: Sequence[str], limit: int | None = None) -> list[Question]:
    """The questions of ``sets``, in order; ``limit``: only the first so many of each set (a smoke run)."""
    makers = {
        "natural": natural_questions,
        "hubs": hub_questions,
        "degree": degree_questions,
        "issue": issue_questions,
    }
    return [q for s in sets for q in makers[s]()[:limit]]


def run(
    home: Path,
    modes: Sequence[str],
    questions: Sequence[Question],
    redo: bool,
    overrides: dict[str, Any],
    tag: str,
    results: Path = RESULTS,
) -> None:
    data = hpo()[0]
    name = {str(n.id): n.name for n in data.nodes}
    type_of = {str(n.id): n.type for n in data.nodes}
    results.mkdir(parents=True, exist_ok=True)
    for mode in modes:
        path = records_file(mode, tag, results)
        if redo:
            path.unlink(missing_ok=True)
        done = {json.loads(line)["id"] for line in path.open(encoding="utf-8")} if path.exists() else set()
        settings = {"home": str(home), "llm": "none", "llm_cache": False, "worker_idle_timeout": 0, **overrides}
        llm = Oracle(questions, name, type_of, labelled=mode == "oracle") if mode.startswith("oracle") else None
        commit = provenance()["commit"]
        with Kgqa(load_config(settings), llm=llm) as kg, path.open("a", encoding="utf-8") as out:
            kg.ask(questions[0].text, SKB, steps="hybrid")  # loads the models: not timed
            for question in questions:
                if question.id in done:
                    continue
                record = {**measure(kg, question), "commit": commit}
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(
                    mode,
                    record["id"],
                    record["seconds_4_7"],
                    f"reads={record['reads']}",
                    f"gold={record['gold']}",
                    f"hit1={record['hit1']}",
                    f"timeouts={record['timeouts']}",
                    f"max_l={record['max_l']}",
                    f"degraded={record['degraded']}",
                    flush=True,
                )


VARIANTS = {
    "before": "before: kgqa at 8557fc3, rounds to k or l_max in symbol order",
    "before68": "before: kgqa at 9c249c0, constants written without labels searched in every label",
    "": "all bounds (the defaults)",
    "no-stall": "expansion_stall off",
    "order-only": "expansion_stall off, round_cost_cap 10^12: only the binding order",
}
"""Tags of the alternatives measured against each other (``--tag``), with the settings each was run with; ``before``
is this script run in a checkout of 8557fc3 (the commit before issue 52's bounds) with ``--tag before``, ``before68``
in one of 9c249c0 (before issue 68) with ``--tag before68``."""


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _mean(values: Sequence[float | None]) -> float | None:
    """The mean of the values that are not None (a question with an empty gold has no hit@1); None if none is."""
    known = [v for v in values if v is not None]
    return round(statistics.mean(known), 3) if known else None


def figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Timings and quality of some records (one set's, or one shape's)."""
    times = sorted(r["seconds_4_7"] for r in rows)
    return {
        "questions": len(rows),
        "with_gold": sum(r["hit1"] is not None for r in rows),
        "median_ms": _ms(statistics.median(times)),
        "p99_ms": _ms(times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]),
        "max_ms": _ms(times[-1]),
        "over_1s": sum(t > 1 for t in times),
        "timeouts": sum(r["timeouts"] for r in rows),
        "cut": sum(bool(r["cuts"]) for r in rows),
        "degraded": sum(bool(r.get("degraded")) for r in rows),
        "max_reads": max((r["reads"] for r in rows if "reads" in r), default=None),
        "max_neo4j_reads": max((r["neo4j_reads"] for r in rows if "neo4j_reads" in r), default=None),
        "hit1": _mean([r["hit1"] for r in rows]),
        "recall20": _mean([r["recall20"] for r in rows]),
    }


def summary(results: Path = RESULTS) -> dict[str, Any]:
    """Figures per mode, alternative and set, and per shape of the ``degree`` set (``shapes``); ``commits``: how many
    records each commit made (the table's origin: stale where the code changed since any of them; the ``before`` and
    ``before68`` records are earlier code's by design, and left out)."""
    result: dict[str, Any] = {"provenance": provenance(), "modes": {}, "shapes": {}, "commits": {}}
    for mode, tag in ((m, t) for m in MODES for t in VARIANTS):
        path = records_file(mode, tag, results)
        if not path.exists():
            continue
        records = [json.loads(line) for line in path.open(encoding="utf-8")]
        if not tag.startswith("before"):
            for record in records:
                commit = record.get("commit", "unknown")
                result["commits"][commit] = result["commits"].get(commit, 0) + 1
        label = f"{mode} ({VARIANTS[tag]})" if tag else mode
        by_set = {}
        for name in (*SETS, "all"):
            rows = [r for r in records if name == "all" or r["set"] == name]
            if rows:
                by_set[name] = figures(rows)
        result["modes"][label] = by_set
        degree = [r for r in records if r["set"] == "degree"]
        by_shape = {shape: figures(rows) for shape in SHAPES if (rows := [r for r in degree if r["shape"] == shape])}
        if by_shape:
            result["shapes"][label] = by_shape
    return result


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def table(result: dict[str, Any]) -> str:
    where = origin(result, OUT, ROOT, PATHS)
    lines = [
        "| LLM | set | questions (with gold) | steps 4-7 median / p99 / max (ms) | over 1 s | "
        "rounds at `query_timeout` | questions a bound cut | hit@1 | recall@20 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, by_set in result["modes"].items():
        for name, s in by_set.items():
            lines.append(
                f"| {mode} | {name} | {s['questions']} ({s.get('with_gold', s['questions'])}) | "
                f"{s['median_ms']:.0f} / {s['p99_ms']:.0f} / {s['max_ms']:.0f} | "
                f"{s['over_1s']} | {s['timeouts']} | {s['cut']} | {_cell(s['hit1'])} | {_cell(s['recall20'])} |"
            )
    shapes = [
        "| LLM | shape | questions (with gold) | steps 4-7 median / max (ms) | over 1 s | step 5 degraded | "
        "store reads at most (FalkorDB / Neo4j dialect) | hit@1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, by_shape in result.get("shapes", {}).items():
        for shape, s in by_shape.items():
            shapes.append(
                f"| {mode} | {shape} | {s['questions']} ({s['with_gold']}) | {s['median_ms']:.0f} / {s['max_ms']:.0f} "
                f"| {s['over_1s']} | {s['degraded']} | {s['max_reads']} / {s.get('max_neo4j_reads', '-')} "
                f"| {_cell(s['hit1'])} |"
            )
    return "\n".join(
        [
            f"Steps 4-7 per question (hybrid, no rerank), in process, on 2 cores. {where.sentence()} Targets (issue "
            "52): median <= 100 ms, every question <= 1 s, no round at `query_timeout`, oracle hit@1 within 0.01 "
            "of before. Targets (issue 68): on the `degree` and `natural` sets, with the oracle and with no LLM, "
            "steps 4-7 at most 1 s a question and a median at most 100 ms. hit@1 and recall@20 are over the "
            "questions with gold (a `degree` question may have none).",
            "",
            *lines,
            *(["", "Per shape of the `degree` set (issue 68):", "", *shapes] if result.get("shapes") else []),
        ]
    )


def write_table(result: dict[str, Any]) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    heading = "## Step 5's bounds: no LLM and a scripted oracle LLM (`benchmarks/step5_oracle.py`)"
    DOC.write_text(replace_block(text, "step5_oracle", table(result), heading))


def list_questions(questions: Sequence[Question]) -> None:
    """Each question's id, shape and gold size (a generated one's text too; never a natural one's: it is test data),
    then per set and shape how many questions and how many with an empty gold."""
    for q in questions:
        print(q.id, q.set, q.shape or "-", len(q.gold), q.text if q.set != "natural" else "", sep="\t")
    print()
    groups: dict[tuple[str, str], list[Question]] = {}
    for q in questions:
        groups.setdefault((q.set, q.shape), []).append(q)
    for (name, shape), group in groups.items():
        empty = sum(not q.gold for q in group)
        print(f"{name} {shape or '-'}: {len(group)} questions, {empty} with an empty gold")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path("/tmp/kh"))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions of each set (smoke runs)")
    parser.add_argument("--redo", action="store_true", help="start the records over")
    parser.add_argument("--tag", default="", choices=list(VARIANTS), help="an alternative's records (see VARIANTS)")
    parser.add_argument("--settings", default="{}", help="kgqa settings of the alternative, as JSON")
    parser.add_argument("--render", action="store_true", help="only summarize the records and rewrite the table")
    parser.add_argument("--list", action="store_true", help="only list the sets' questions (shape, gold size)")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="records and summary here; other than the default: docs untouched"
    )
    allow_dirty_flag(parser)
    args = parser.parse_args()
    sets, modes = args.sets.split(","), args.modes.split(",")
    for value, known in ((sets, SETS), (modes, MODES)):
        if unknown := sorted(set(value) - set(known)):
            parser.error(f"unknown {', '.join(unknown)} (choose among {', '.join(known)})")
    if args.list:
        list_questions(questions_of(sets, args.limit))
        return
    require_committed(args.allow_dirty)
    results = args.results.resolve()
    if not args.render:
        run(args.home, modes, questions_of(sets, args.limit), args.redo, json.loads(args.settings), args.tag, results)
    result = summary(results)
    (results / SUMMARY).write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    print(json.dumps({"modes": result["modes"], "shapes": result["shapes"]}, indent=2))
    if results == RESULTS.resolve():
        write_table(result)


if __name__ == "__main__":
    main()
