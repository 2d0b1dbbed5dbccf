"""The learned reader against the hand-written rules, leaving one phrasing family out (issue 51).

For each phrasing family F of :mod:`kgqa.runtime.reader.families`, a reader is trained on questions generated in every
family but F (``kgqa train-reader``'s recipe, :func:`kgqa.runtime.reader.training.train` with ``families`` without F),
and F's questions of benchmarks/results/families_hpo_questions.csv (made by benchmarks/families_hpo.py, another seed
than the reader's) are asked with it; beside them, the same questions with the rules alone (``reader = false``). So the
reader is measured on phrasing it never saw. Each left-out reader is kept in ``<home>/readers/.lofo/<family>/`` and put
back while its training settings and the graph are the same (a rerun trains nothing; ``--train-only`` trains them all
and asks nothing, for offline study). Each (family, point) is one ``kgqa eval`` run without an LLM into
benchmarks/results/reader_lofo/<family>_<point>.json (resumable); the table goes between the ``reader_lofo`` markers in
docs/results.md. The reader trained for HPO is put back at the end (retrained with every family).

    python benchmarks/reader_lofo.py
    python benchmarks/reader_lofo.py --families lay,esl --limit 20
    python benchmarks/reader_lofo.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``) and families_hpo_questions.csv.
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgqa.config import Config, load_config
from kgqa.errors import ConfigError
from kgqa.lab.evaluate import commits, eval_settings, load_records, results, run_eval
from kgqa.lab.metrics import mean_metrics
from kgqa.lab.qa import load_questions
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader import READERS, find_reader
from kgqa.runtime.reader.families import FAMILIES
from kgqa.runtime.reader.training import ReaderSettings, train

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QUESTIONS = RESULTS / "families_hpo_questions.csv"
META = RESULTS / "families_hpo_questions.meta.json"
OUT = RESULTS / "reader_lofo"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
BLOCK = "reader_lofo"
TITLE = "## The learned reader against the rules, one phrasing family left out (`benchmarks/reader_lofo.py`)"
PATHS = (*CODE_PATHS, "benchmarks/reader_lofo.py")
POINTS = ("rules", "reader")


@dataclass(frozen=True)
class Study:
    """One SKB's leave-family-out study: its questions (a CSV and the meta file naming each question's family),
    where its results and table go, and how a data directory holding it is opened."""

    skb: str
    questions: Path
    meta: Path
    out: Path
    block: str
    title: str
    paths: tuple[str, ...]
    note: str
    overrides: dict[str, Any] = field(default_factory=dict)
    """Configuration beside ``llm`` and ``reader`` (the data directory of a study that keeps its own)."""
    open: Callable[[Config], Kgqa] = Kgqa

    def kgqa(self, **settings: Any) -> Kgqa:
        return self.open(load_config({"llm": "none", **self.overrides, **settings}))


HPO = Study(
    SKB,
    QUESTIONS,
    META,
    OUT,
    BLOCK,
    TITLE,
    PATHS,
    "Questions: families_hpo_questions.csv (benchmarks/families_hpo.py).",
)


def out_file(study: Study, family: str, point: str) -> Path:
    return study.out / f"{family}_{point}.json"


def family_csv(study: Study, family: str, folder: Path) -> Path:
    """F's questions of the study's question file, as their own question file."""
    meta = {str(q["id"]): q["family"] for q in json.loads(study.meta.read_text(encoding="utf-8"))["questions"]}
    path = folder / f"{family}.csv"
    with (
        study.questions.open(encoding="utf-8", newline="") as source,
        path.open("w", encoding="utf-8", newline="") as out,
    ):
        rows = csv.DictReader(source)
        writer = csv.DictWriter(out, fieldnames=list(rows.fieldnames or []))
        writer.writeheader()
        writer.writerows(row for row in rows if meta.get(row["id"]) == family)
    return path


def kept_home(home: Path, family: str | None) -> Path:
    """Where the reader trained without ``family`` (None: the full reader) is kept, as a data directory of its own."""
    return home / READERS / ".lofo" / (family or "none")


def train_without(study: Study, family: str | None) -> None:
    """The reader trained on every family but ``family`` in place: the kept one, when it is the same training."""
    others = tuple(f for f in FAMILIES if f != family)
    with study.kgqa() as kg:
        kept_at = kept_home(kg.config.home, family)
        try:
            kept = find_reader(kept_at, study.skb)
        except ConfigError as exc:
            print(f"{family or 'nothing'} left out: the kept reader is damaged ({exc}); training again")
            kept = None
        if kept is not None:
            kept.save(kg.config.home)  # train() below keeps it when its settings and graph are still the same
        outcome = train(kg, ReaderSettings(study.skb, families=others), notice=print)
        if kept is None or not outcome.already:
            outcome.reader.save(kept_at)
        print(f"{family or 'nothing'} left out: {'kept reader' if outcome.already else 'trained'}", flush=True)


def run_family(study: Study, family: str, limit: int | None, folder: Path) -> None:
    """The reader trained without ``family``, then both points on ``family``'s questions."""
    others = tuple(f for f in FAMILIES if f != family)
    train_without(study, family)
    qa = family_csv(study, family, folder)
    for point in POINTS:
        out = out_file(study, family, point)
        with study.kgqa(reader=point == "reader") as kg:
            rows = [(point, kg.config.steps)]
            settings = eval_settings(kg, study.skb, f"{study.questions.name}, family {family}", "test", rows)
            settings["reader_families"] = list(others) if point == "reader" else None
            records = run_eval(kg, study.skb, load_questions(qa)[:limit], rows, out, settings=settings)
        out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n")
        m = mean_metrics([r.metrics for r in records])
        print(f"{family} {point}: hit@1 {m['hit@1']:.3f} recall@20 {m['recall@20']:.3f} ({len(records)})", flush=True)


def table(study: Study) -> list[str]:
    out = [
        "| family left out | n | rules hit@1 | reader hit@1 | rules recall@20 | reader recall@20 | commit |",
        "|---|---|---|---|---|---|---|",
    ]
    every: dict[str, list[dict[str, float]]] = {p: [] for p in POINTS}
    labels = set()
    for family in FAMILIES:
        found = {p: out_file(study, family, p) for p in POINTS if out_file(study, family, p).exists()}
        if len(found) < len(POINTS):
            continue
        m = {}
        for point, path in found.items():
            doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            records = load_records(path)
            every[point] += [r.metrics for r in records]
            m[point] = mean_metrics([r.metrics for r in records])
            labels.add(origin(doc, path, ROOT, study.paths, commits=commits(records) or None).label())
        out.append(
            f"| {family} | {m['rules']['n']} | {m['rules']['hit@1']:.3f} | {m['reader']['hit@1']:.3f} | "
            f"{m['rules']['recall@20']:.3f} | {m['reader']['recall@20']:.3f} | {' / '.join(sorted(labels))} |"
        )
    if every["rules"]:
        a, b = mean_metrics(every["rules"]), mean_metrics(every["reader"])
        out.append(
            f"| all | {a['n']} | {a['hit@1']:.3f} | {b['hit@1']:.3f} | {a['recall@20']:.3f} | {b['recall@20']:.3f} | |"
        )
    return out


def render(study: Study, extra: Sequence[str] = ()) -> None:
    body = "\n".join(
        [
            "No LLM. Per family F: the rules alone (`reader = false`), and the reader trained on every family but F. "
            + study.note,
            "",
            *table(study),
            *extra,
        ]
    )
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), study.block, body, study.title), encoding="utf-8")
    print(body)


def run(study: Study, families: Sequence[str], limit: int | None, train_only: bool) -> None:
    """Each family of ``families`` left out in turn (or, ``train_only``, its reader trained and kept), then the
    reader trained on every family put back."""
    for family in families:
        if family not in FAMILIES:
            raise SystemExit(f"--families: {family!r} is not one of {', '.join(FAMILIES)}")
    if train_only:
        for family in families:
            train_without(study, family)
    else:
        study.out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as folder:
            for family in families:
                run_family(study, family, limit, Path(folder))
    train_without(study, None)  # the reader trained on every family, back in place


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated families to leave out")
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each family")
    parser.add_argument("--render", action="store_true", help="only rewrite the table from the results files")
    parser.add_argument("--train-only", action="store_true", help="train and keep the left-out readers, ask nothing")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        run(HPO, args.families.split(","), args.limit, args.train_only)
    if not args.train_only:
        render(HPO)


if __name__ == "__main__":
    main()
