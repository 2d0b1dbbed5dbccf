"""Diseases named the way people type them: the eponym without its common ending ("genes for marfan", "what does
angelman look like"), with the rules and with the reader (issue 51).

People leave a name's common ending out ("rett", "loeys-dietz", "tay-sachs"). The rules link such a word to nothing
(it is no name, and embeds far from every name); the reader completes it from the SKB's own names
(kgqa.runtime.reader.spelling.completions). This set measures that, and nothing else: from HPO's diseases whose name
is an eponym of one or two words and one of the two commonest last words of its disease names ("Marfan syndrome",
"Tay-Sachs disease"; names the reader completes, as :func:`completions` reads HPO's names and aliases, whose eponym
names no node itself), a seeded sample, each asked two ways with the
eponym as the name has it: "Which genes are associated with {eponym}?" and "What are the features of {eponym}?".
Gold: the genes associated with, or the phenotypes present in, every disease of that very name (OMIM and Orphanet
often name one disease alike; step 4 grounds through all of them), computed from :func:`kgqa.loaders.hpo.read_hpo`.
A frame is ours, so this is no measure of phrasing; the natural and left-out-family sets are (docs/results.md).

    python benchmarks/eponyms_hpo.py            # the questions (once), both points, the table
    python benchmarks/eponyms_hpo.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``) and, for the ``reader`` point, its reader.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgqa.config import load_config
from kgqa.lab.evaluate import commits, eval_settings, load_records, results, run_eval
from kgqa.lab.metrics import mean_metrics
from kgqa.lab.qa import load_questions
from kgqa.loaders.hpo import read_hpo
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader import find_reader
from kgqa.runtime.reader.spelling import completions
from kgqa.runtime.text import PART

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QUESTIONS = RESULTS / "eponyms_hpo_questions.csv"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
BLOCK = "eponyms_hpo"
TITLE = "## Diseases typed by their eponym alone (`benchmarks/eponyms_hpo.py`)"
PATHS = (*CODE_PATHS, "benchmarks/eponyms_hpo.py")
POINTS: dict[str, dict[str, Any]] = {"rules": {"reader": False}, "reader": {}}
DISEASES = 60
SEED = 51
KIND_WORDS = 2
"""Names asked about end in one of this many commonest last words of HPO's disease names ("syndrome", "disease")."""
EPONYM_WORDS = 2
"""The most words an eponym has here ("Marfan", "Loeys-Dietz", "Prader-Willi")."""
FRAMES = (
    ("genes", "associated with", "Which genes are associated with {}?"),
    ("features", "phenotype present", "What are the features of {}?"),
)


def eponym(name: str, ends: Mapping[str, str]) -> str | None:
    """``name`` as typed without its ending, where its first words (at most :data:`EPONYM_WORDS`) are what ``ends``
    (:func:`completions`) completes to the whole name: "Tay-Sachs disease" -> "Tay-Sachs"."""
    words = list(PART.finditer(name))
    whole = " ".join(m.group().lower() for m in words)
    for size in range(1, min(EPONYM_WORDS, len(words) - 1) + 1):
        if ends.get(" ".join(m.group().lower() for m in words[:size])) == whole:
            return name[: words[size - 1].end()]
    return None


def make_questions() -> None:
    """The question file: a seeded sample of the diseases whose eponym the reader completes, two frames each."""
    data = read_hpo()
    ends = completions([t for n in data.nodes for t in (n.name, *n.aliases)])
    by_name: defaultdict[str, list[str]] = defaultdict(list)
    for node in data.nodes:
        if node.type == "disease":
            by_name[node.name.lower()].append(str(node.id))
    linked: dict[str, defaultdict[str, set[str]]] = {rel: defaultdict(set) for _, rel, _ in FRAMES}
    kind = {str(n.id): n.type for n in data.nodes}
    for edge in data.edges:
        source, target = str(edge.source), str(edge.target)
        if edge.type in linked:  # gene -associated with-> disease; disease -phenotype present-> phenotype
            disease, other = (target, source) if kind[source] != "disease" else (source, target)
            linked[edge.type][disease].add(other)
    names = {t.lower() for n in data.nodes for t in (n.name, *n.aliases)}
    last = Counter(words[-1].lower() for n in data.nodes if n.type == "disease" and (words := PART.findall(n.name)))
    kinds = {word for word, _ in last.most_common(KIND_WORDS)}
    chosen = []
    for node in sorted(data.nodes, key=lambda n: str(n.id)):
        if node.type != "disease" or by_name[node.name.lower()][0] != str(node.id):
            continue
        short = eponym(node.name, ends)
        ids = by_name[node.name.lower()]
        if short is None or short.lower() in names or node.name[len(short) :].strip().lower() not in kinds:
            continue
        if all(any(linked[rel][i] for i in ids) for _, rel, _ in FRAMES):
            chosen.append((short, ids))
    rows = []
    for short, ids in random.Random(SEED).sample(chosen, min(DISEASES, len(chosen))):
        for tag, rel, frame in FRAMES:
            gold = sorted({a for i in ids for a in linked[rel][i] if kind[a] != "disease"})
            rows.append({"id": f"{ids[0]}:{tag}", "query": frame.format(short), "answer_ids": json.dumps(gold)})
    with QUESTIONS.open("w", encoding="utf-8", newline="") as sink:
        writer = csv.DictWriter(sink, ["id", "query", "answer_ids"])
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} questions from {len(chosen)} diseases named by an eponym and endings", flush=True)


def out_file(point: str) -> Path:
    return RESULTS / f"eponyms_hpo_{point}.json"


def run_point(point: str) -> None:
    config = load_config({"llm": "none", **POINTS[point]})
    reader = find_reader(config.home, SKB) if config.reader else None
    if config.reader and reader is None:
        raise SystemExit(f"point {point!r} needs the reader: kgqa train-reader --skb {SKB}")
    rows = [(point, config.steps)]
    out = out_file(point)
    with Kgqa(config) as kg:
        settings = eval_settings(kg, SKB, str(QUESTIONS.relative_to(ROOT)), "test", rows)
        settings["reader_trained"] = None if reader is None else reader.info
        records = run_eval(kg, SKB, load_questions(QUESTIONS), rows, out, settings=settings)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    m = mean_metrics([r.metrics for r in records])
    print(f"{point}: hit@1 {m['hit@1']:.3f} recall@20 {m['recall@20']:.3f} ({len(records)})", flush=True)


def render() -> None:
    found = {p: out_file(p) for p in POINTS if out_file(p).exists()}
    lines = [
        "| frame | n | " + " | ".join(f"{p} hit@1 / recall@20" for p in found) + " |",
        "|---|---|" + "---|" * len(found),
    ]
    by_point = {p: load_records(path) for p, path in found.items()}
    for tag in ["all", *(tag for tag, _, _ in FRAMES)]:
        cells, n = [], 0
        for records in by_point.values():
            chosen = [r.metrics for r in records if tag == "all" or r.id.endswith(f":{tag}")]
            n = max(n, len(chosen))
            m = mean_metrics(chosen)
            cells.append(f"{m['hit@1']:.3f} / {m['recall@20']:.3f}")
        lines.append(f"| {tag} | {n} | " + " | ".join(cells) + " |")
    labels = []
    for point, path in found.items():
        doc = json.loads(path.read_text(encoding="utf-8"))
        labels.append(f"{point}: {origin(doc, path, ROOT, PATHS, commits=commits(by_point[point]) or None).label()}")
    body = "\n".join([f"Commits: {'; '.join(labels)}.", "", *lines])
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), BLOCK, body, TITLE), encoding="utf-8")
    print(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--render", action="store_true", help="only rewrite the table from the results files")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        if not QUESTIONS.exists():
            make_questions()
        for point in POINTS:
            run_point(point)
    render()


if __name__ == "__main__":
    main()
