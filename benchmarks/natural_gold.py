"""Gold answers for the hand-written natural HPO question set (benchmarks/natural/hpo_{dev,test}.jsonl).

Every question carries a small structured spec; its gold answers are computed here from the HPO graph as
:func:`kgqa.loaders.hpo.read_hpo` reads it, never typed by hand::

    spec := {"target": "disease" | "gene/protein" | "effect/phenotype",
             "all":  [constraint, ...],   # the answer satisfies every one (intersection); empty only with text
             "none": [constraint, ...],   # optional: the answer satisfies none of them
             "text": "word"}              # optional: the node's name, aliases or document contain the word
    constraint := {"rel": edge type, "dir": "out" | "in", "node": id}  # out: answer -rel-> node; in: node -rel-> answer
                | {"rel": edge type, "dir": "out" | "in", "of": spec}  # the other end is any answer of the nested spec

Hierarchy is one parent-child edge, never its transitive closure.

Usage: ``python benchmarks/natural_gold.py`` writes benchmarks/results/natural_hpo_{dev,test}.csv (id, query,
answer_ids as a JSON list); it refuses (exit 1, naming the question) a spec whose gold is empty or over 100 answers.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgqa.loaders.hpo import read_hpo
from kgqa.loaders.model import SkbData

HERE = Path(__file__).resolve().parent
SPLITS = ("dev", "test")
MAX_ANSWERS = 100
TARGETS = ("disease", "gene/protein", "effect/phenotype")
Spec = dict[str, Any]


@dataclass
class Graph:
    """The HPO graph as id-keyed adjacency sets, per edge type and direction."""

    type_of: dict[str, str]
    text_of: dict[str, str]
    """Name, aliases and document of each node, joined, for the ``text`` condition."""
    out: dict[str, dict[str, set[str]]]
    """out[rel][source] = targets."""
    into: dict[str, dict[str, set[str]]]
    """into[rel][target] = sources."""

    @classmethod
    def from_data(cls, data: SkbData) -> Graph:
        out: defaultdict[str, defaultdict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        into: defaultdict[str, defaultdict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for edge in data.edges:
            source, target = str(edge.source), str(edge.target)
            out[edge.type][source].add(target)
            into[edge.type][target].add(source)
        return cls(
            type_of={str(n.id): n.type for n in data.nodes},
            text_of={str(n.id): "\n".join([n.name, *n.aliases, n.doc]) for n in data.nodes},
            out={rel: dict(table) for rel, table in out.items()},
            into={rel: dict(table) for rel, table in into.items()},
        )


def _neighbours(graph: Graph, rel: str, direction: str, ends: set[str]) -> set[str]:
    """Nodes x with x -rel-> end (``out``) or end -rel-> x (``in``) for some end in ``ends``."""
    if direction not in ("out", "in"):
        raise ValueError(f"dir must be 'out' or 'in', not {direction!r}")
    table = graph.into if direction == "out" else graph.out
    if rel not in table:
        raise ValueError(f"unknown edge type {rel!r}")
    found: set[str] = set()
    for end in ends:
        found |= table[rel].get(end, set())
    return found


def _satisfying(constraint: Spec, graph: Graph) -> set[str]:
    if ("node" in constraint) == ("of" in constraint):
        raise ValueError(f"a constraint names exactly one of 'node' or 'of': {constraint}")
    if "node" in constraint:
        if constraint["node"] not in graph.type_of:
            raise ValueError(f"unknown node {constraint['node']!r}")
        ends = {constraint["node"]}
    else:
        ends = set(answers(constraint["of"], graph))
    return _neighbours(graph, constraint["rel"], constraint["dir"], ends)


def answers(spec: Spec, graph: Graph) -> list[str]:
    """The sorted ids of the nodes that satisfy ``spec``."""
    target = spec["target"]
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}")
    if not spec.get("all") and "text" not in spec:
        raise ValueError("a spec needs a constraint in 'all' or a 'text'")
    result = {node for node, kind in graph.type_of.items() if kind == target}
    for constraint in spec.get("all", []):
        result &= _satisfying(constraint, graph)
    for constraint in spec.get("none", []):
        result -= _satisfying(constraint, graph)
    if "text" in spec:
        word = re.compile(rf"\b{re.escape(spec['text'])}\b", re.IGNORECASE)
        result = {node for node in result if word.search(graph.text_of[node])}
    return sorted(result)


def read_questions(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=HERE / "natural", help="folder with hpo_{dev,test}.jsonl")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="folder for natural_hpo_{split}.csv")
    args = parser.parse_args(argv)

    graph = Graph.from_data(read_hpo())
    rows: dict[str, list[tuple[str, str, str]]] = {}
    for split in SPLITS:
        rows[split] = []
        for question in read_questions(args.questions / f"hpo_{split}.jsonl"):
            try:
                gold = answers(question["gold"], graph)
            except (KeyError, ValueError) as error:
                print(f"{question['id']}: bad gold spec: {error}", file=sys.stderr)
                return 1
            if not gold or len(gold) > MAX_ANSWERS:
                print(f"{question['id']}: gold has {len(gold)} answers (need 1..{MAX_ANSWERS})", file=sys.stderr)
                return 1
            rows[split].append((question["id"], question["question"], json.dumps(gold)))
    args.out.mkdir(parents=True, exist_ok=True)
    for split, split_rows in rows.items():
        path = args.out / f"natural_hpo_{split}.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "query", "answer_ids"])
            writer.writerows(split_rows)
        print(f"wrote {path} ({len(split_rows)} questions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
