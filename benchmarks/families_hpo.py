"""Answer quality per phrasing family on HPO questions, and leave-one-family-out (issue 30, item 3).

The natural phrasing tables (family ``analyst``) and the template sentence (``template``) were read while the no-LLM
linker was tuned, so figures on them flatter it. This benchmark asks the same kind of questions in every family of
:mod:`kgqa.runtime.reader.families` (``clinical``, ``conversational``, ``terse`` were written without reading how the
linker reads questions, then read for its misses; ``lay`` was written afterwards, blind to the linker and its fixes, and
its misses read since; ``student`` was written blind after that) and with every textual-condition kind, and reports
quality per family, kind, condition and anchor mention. Leave-one-family-out: over a small grid of configuration
overrides (``lexical_weight`` x ``link_threshold``), each family F is scored at the grid point with the best mean hit@1
over the OTHER families, as if the configuration had been tuned without F, next to F at the default and to the tuned
families.

The questions are made once (``--n`` per family, one ``generate`` call per family with the same seed, so
``analyst`` and ``template`` word the same samples and the ``analyst`` set is the tuned generator's), interleaved
family by family so that ``--limit`` takes every family, into benchmarks/results/families_hpo_questions.csv (+
.meta.json with each question's family, kind, direction, condition and mention). Each grid point is one ``kgqa
eval`` run without an LLM, kgqa's default steps, into benchmarks/results/families_hpo_<point>.json; its records
(``.jsonl``) make a killed run resume. The tables go between the ``families_hpo`` markers in docs/results.md.

    python benchmarks/families_hpo.py                          # questions, every grid point, the tables
    python benchmarks/families_hpo.py --points default --limit 25
    python benchmarks/families_hpo.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from statistics import median
from typing import Any

from kgqa.config import Config, load_config
from kgqa.lab.evaluate import (
    Record,
    commits,
    eval_settings,
    load_records,
    records_path,
    results,
    run_eval,
    settings_path,
)
from kgqa.lab.metrics import mean_metrics
from kgqa.lab.qa import load_questions
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, provenance, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader.families import FAMILIES, TUNED
from kgqa.runtime.reader.questions import MAX_WORD_SHARE, GeneratedQuestion, generate, write

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
BLOCK = "families_hpo"
TITLE = "## Answer quality per phrasing family, and leave-one-family-out (`benchmarks/families_hpo.py`)"
AFTER = "quality_hpo"
"""The section this one follows in docs/results.md."""
DEFAULTS = {f.name: f.default for f in dataclasses.fields(Config)}
LEXICAL_WEIGHTS = (0.5, 1.0, 2.0)
LINK_THRESHOLDS = (0.8, 0.85, 0.9)


def point_name(lexical: float, link: float) -> str:
    if (lexical, link) == (DEFAULTS["lexical_weight"], DEFAULTS["link_threshold"]):
        return "default"
    return f"lexical-{lexical:g}_link-{link:g}"


GRID: dict[str, dict[str, Any]] = {
    point_name(w, t): {"lexical_weight": w, "link_threshold": t} for w in LEXICAL_WEIGHTS for t in LINK_THRESHOLDS
}
"""grid point -> configuration overrides; ``default`` is kgqa's own configuration."""
assert "default" in GRID, "the grid must hold kgqa's default lexical_weight and link_threshold"
PATHS = (*CODE_PATHS, "benchmarks/families_hpo.py")
"""The code behind a figure: a change there makes it stale."""
GROUPS = ("kind", "condition", "mention")


@dataclasses.dataclass(frozen=True)
class Files:
    """Where the questions and results live (``--out-dir``, for a trial run away from the published ones)."""

    folder: Path

    @property
    def questions(self) -> Path:
        return self.folder / "families_hpo_questions.csv"

    @property
    def meta(self) -> Path:
        return self.questions.with_name(self.questions.stem + ".meta.json")

    def out(self, point: str) -> Path:
        return self.folder / f"families_hpo_{point}.json"


def interleave(groups: Sequence[Sequence[GeneratedQuestion]]) -> list[GeneratedQuestion]:
    """The questions of every family by turns (family 1's first, family 2's first, ...), renumbered."""
    out: list[GeneratedQuestion] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return [dataclasses.replace(q, id=str(number)) for number, q in enumerate(out)]


def write_families(
    kg: Kgqa, skb: str, n: int, seed: int, families: Sequence[str], out: Path
) -> list[GeneratedQuestion]:
    """``n`` questions generated in each of ``families`` (one ``generate`` call per family, the same seed), by turns,
    written to ``out`` with the .meta.json that names each question's family."""
    made: list[list[GeneratedQuestion]] = []
    meta = kg.meta(skb)
    schema = kg.schema(skb)
    for family in families:
        found = generate(kg.store, skb, schema, meta.candidate_types, n, seed, phrasing="natural", families=[family])
        print(f"{family}: {len(found)} questions", flush=True)
        made.append(found)
    questions = interleave(made)
    info = {
        "skb": skb,
        "seed": seed,
        "requested_per_family": n,
        "families": list(families),
        "n": len(questions),
        "per_family": {family: len(group) for family, group in zip(families, made, strict=True)},
        "phrasing": "natural",
        "max_word_share": MAX_WORD_SHARE,
        "source": meta.source,
        "provenance": provenance(),
    }
    write(questions, out, info)
    return questions


def questions_file(files: Files, n: int, seed: int, families: Sequence[str]) -> Path:
    """The question set: made on first use, afterwards only checked to be the one asked for."""
    if files.questions.exists():
        meta = json.loads(files.meta.read_text()) if files.meta.exists() else {}
        made_with = (meta.get("seed"), meta.get("requested_per_family"), meta.get("families"))
        if made_with != (seed, n, list(families)):
            raise SystemExit(
                f"{files.questions} was made with seed, n per family and families {made_with}, not "
                f"{(seed, n, list(families))}; use those, or delete it, its .meta.json and families_hpo_*.json* "
                "to start over"
            )
        return files.questions
    with Kgqa(load_config({"llm": "none"})) as kg:
        questions = write_families(kg, SKB, n, seed, families, files.questions)
    print(f"wrote {len(questions)} questions to {files.questions}", flush=True)
    return files.questions


def run_point(files: Files, point: str, qa: Path, limit: int | None) -> None:
    """One ``kgqa eval`` run at grid point ``point``, resumed from its records; writes its results file."""
    config = load_config({"llm": "none", **GRID[point]})
    rows = [(point, config.steps)]
    out = files.out(point)

    def show(record: Record, so_far: list[Record]) -> None:
        print(point, len(so_far), record.id, f"{record.seconds:.2f} s", record.metrics, flush=True)

    qa_name = str(qa.relative_to(ROOT)) if qa.is_relative_to(ROOT) else str(qa)
    with Kgqa(config) as kg:
        settings = eval_settings(kg, SKB, qa_name, "test", rows)
        records = run_eval(kg, SKB, load_questions(qa)[:limit], rows, out, settings=settings, on_answer=show)
    out.write_text(json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Scores:
    """One grid point's per-question metrics, with each question's metadata."""

    doc: dict[str, Any]
    path: Path
    rows: list[tuple[dict[str, Any], dict[str, float]]]
    """(question metadata, metrics) per answered question."""

    def select(self, **where: str) -> list[dict[str, float]]:
        return [m for q, m in self.rows if all(str(q.get(k)) == v for k, v in where.items())]

    def mean(self, metric: str, **where: str) -> float | None:
        chosen = self.select(**where)
        return mean_metrics(chosen)[metric] if chosen else None


def load_scores(files: Files) -> dict[str, Scores]:
    if not files.meta.exists():
        return {}
    meta = {str(q["id"]): q for q in json.loads(files.meta.read_text())["questions"]}
    out = {}
    for point in GRID:
        path = files.out(point)
        if path.exists():
            doc = json.loads(path.read_text())
            rows = [(meta[str(q["id"])], q["metrics"]) for q in doc["questions"] if str(q["id"]) in meta]
            out[point] = Scores(doc, path, rows)
    return out


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _cell(scores: Scores, **where: str) -> str:
    chosen = scores.select(**where)
    return f"{mean_metrics(chosen)['hit@1']:.2f} ({len(chosen)})" if chosen else "-"


def seen(family: str) -> str:
    """How much development saw of a family: tuned on it, read its misses, or not at all (blind)."""
    return "yes" if FAMILIES[family].tuned else "read" if FAMILIES[family].read else "no (blind)"


def family_table(scores: Scores, families: Sequence[str]) -> list[str]:
    out = [
        "| family | tuned | n | hit@1 | hit@5 | recall@20 | MRR | commit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_id = {r.id: r for r in load_records(scores.path)}
    for family in [*families, None]:
        where = {"family": family} if family else {}
        chosen = scores.select(**where)
        if not chosen:
            continue
        m = mean_metrics(chosen)
        ids = {str(q["id"]) for q, _ in scores.rows if family is None or q.get("family") == family}
        made_at = commits([r for i, r in by_id.items() if i in ids])
        label = origin(scores.doc, scores.path, ROOT, PATHS, commits=made_at or None).label()
        name = family or "all"
        tuned = "" if family is None else seen(family)
        out.append(
            f"| {name} | {tuned} | {len(chosen)} | {m['hit@1']:.3f} | {m['hit@5']:.3f} | {m['recall@20']:.3f} | "
            f"{m['mrr']:.3f} | {label} |"
        )
    return out


GROUNDING_STEPS = (4, 5, 6, 7)
"""Steps 4-7: kgqa's own work between the plan and the answer (issue 30's bound: median 50 ms, max 500 ms)."""


def steps_4_to_7(scores: Scores) -> str:
    """The seconds of steps 4-7 per question at the default configuration: median, max (which question) and how
    many exceed 0.5 s, on this machine."""
    spent = sorted(
        (sum(s["seconds"] for s in r.steps if s["step"] in GROUNDING_STEPS), r.id) for r in load_records(scores.path)
    )
    if not spent:
        return "Steps 4-7: no records."
    over = sum(seconds > 0.5 for seconds, _ in spent)
    top, worst = spent[-1]
    cpus = scores.doc["provenance"].get("cpus")
    return (
        f"Steps 4-7 (no LLM, {len(spent)} questions, {cpus} CPU(s)): median {median([s for s, _ in spent]):.3f} s, "
        f"max {top:.3f} s (question {worst}), {over} over 0.5 s."
    )


def group_table(scores: Scores, key: str, families: Sequence[str]) -> list[str]:
    """hit@1 (n) per value of ``key`` (rows) and family (columns)."""
    values = sorted({str(q.get(key)) for q, _ in scores.rows})
    out = [
        f"| {key} | all | " + " | ".join(families) + " |",
        "|---|---|" + "---|" * len(families),
    ]
    for value in values:
        cells = [_cell(scores, **{key: value, "family": f}) for f in families]
        out.append(f"| {value} | {_cell(scores, **{key: value})} | " + " | ".join(cells) + " |")
    return out


def macro(scores: Scores, metric: str, families: Iterable[str]) -> float | None:
    """The mean over ``families`` of each family's mean ``metric`` (each family weighs the same)."""
    values = [v for v in (scores.mean(metric, family=f) for f in families) if v is not None]
    return sum(values) / len(values) if values else None


def leave_one_out(done: dict[str, Scores], families: Sequence[str]) -> list[str]:
    """Per family F: the grid point with the best mean hit@1 over the other families, F there and at the default,
    and the gap to the tuned families (their mean hit@1 at the default, F left out)."""
    if "default" not in done:
        return ["The default point has not been measured yet."]
    default = done["default"]
    out = [
        "| family | tuned | point chosen without it | hit@1 there | recall@20 there | hit@1 default | "
        "recall@20 default | gap to tuned (hit@1) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for family in families:
        if default.mean("hit@1", family=family) is None:
            continue
        others = [f for f in families if f != family]
        ranked = [(macro(s, "hit@1", others), point) for point, s in done.items()]
        scored = [(v, p) for v, p in ranked if v is not None]
        if not scored:
            continue
        best = max(v for v, _ in scored)
        tied = sorted(p for v, p in scored if v == best)
        point = "default" if "default" in tied else tied[0]
        there = done[point]
        tuned = macro(default, "hit@1", [f for f in TUNED if f in families and f != family])
        hit = there.mean("hit@1", family=family)
        gap = None if tuned is None or hit is None else hit - tuned
        out.append(
            f"| {family} | {seen(family)} | {point} | {_f(hit)} | "
            f"{_f(there.mean('recall@20', family=family))} | {_f(default.mean('hit@1', family=family))} | "
            f"{_f(default.mean('recall@20', family=family))} | {'-' if gap is None else f'{gap:+.3f}'} |"
        )
    return out


def grid_table(done: dict[str, Scores], families: Sequence[str]) -> list[str]:
    """hit@1 per grid point (rows) and family (columns), with each point's commit."""
    out = [
        "| point | lexical_weight | link_threshold | n | " + " | ".join(families) + " | commit |",
        "|---|---|---|---|" + "---|" * (len(families) + 1),
    ]
    for point, scores in done.items():
        overrides = GRID[point]
        cells = [_f(scores.mean("hit@1", family=f)) for f in families]
        label = origin(scores.doc, scores.path, ROOT, PATHS).label()
        out.append(
            f"| {point} | {overrides['lexical_weight']:g} | {overrides['link_threshold']:g} | {len(scores.rows)} | "
            + " | ".join(cells)
            + f" | {label} |"
        )
    return out


def table(files: Files) -> str:
    done = load_scores(files)
    if not done:
        return "No grid point measured yet: run `python benchmarks/families_hpo.py`."
    meta = json.loads(files.meta.read_text())
    families = [f for f in meta["families"] if f in FAMILIES]
    head = [
        f"Questions: `{files.questions.name}` ({meta['n']} questions: `kgqa questions --skb hpo --phrasing natural "
        f"--families F --n {meta['requested_per_family']} --seed {meta['seed']}` for each family F, interleaved), "
        "no LLM, kgqa's default steps, k = 20. Tuned: the family was read while the linker was developed.",
        "",
    ]
    if "default" in done:
        default = done["default"]
        head += ["Per family, at the default configuration:", "", *family_table(default, families), ""]
        head += [steps_4_to_7(default), ""]
        for key in GROUPS:
            head += [f"hit@1 per {key} and family (n in brackets), default configuration:", ""]
            head += [*group_table(default, key, families), ""]
    head += [
        "Leave one family out: for each family, the grid point with the best mean hit@1 over the other families "
        "(each family weighing the same), the family's figures there and at the default, and its hit@1 there minus "
        "the mean hit@1 of the tuned families (itself left out) at the default.",
        "",
        *leave_one_out(done, families),
        "",
        "hit@1 per grid point and family:",
        "",
        *grid_table(done, families),
    ]
    return "\n".join(head)


def write_doc(doc: Path, body: str) -> None:
    """The ``families_hpo`` block of ``doc``, placed after the ``quality_hpo`` section the first time."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    start, end = f"<!-- {BLOCK}:start -->", f"<!-- {BLOCK}:end -->"
    after = f"<!-- {AFTER}:end -->"
    if (start not in text or end not in text) and after in text:
        cut = text.find("\n## ", text.index(after))
        cut = len(text) if cut < 0 else cut + 1
        text = text[:cut] + f"{TITLE}\n\n{start}\n{end}\n\n" + text[cut:]
    doc.write_text(replace_block(text, BLOCK, body, TITLE), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=80, help="questions per family")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated, of {', '.join(FAMILIES)}")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (quick looks)")
    parser.add_argument("--points", default=",".join(GRID), help=f"comma-separated, of {', '.join(GRID)}")
    parser.add_argument("--redo", default="", help="grid points whose records are deleted and measured again")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs tables from the results files")
    parser.add_argument("--out-dir", type=Path, default=RESULTS, help="where questions and results go (trial runs)")
    parser.add_argument("--doc", type=Path, default=DOC, help="the markdown file the tables go into")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    files = Files(args.out_dir.resolve())
    if not args.render:
        families = [f for f in args.families.split(",") if f]
        points = [p for p in args.points.split(",") if p]
        redo = [p for p in args.redo.split(",") if p]
        unknown = sorted(set(points + redo) - set(GRID)) + sorted(set(families) - set(FAMILIES))
        if unknown:
            parser.error(f"unknown point(s) or famil(ies) {', '.join(unknown)}; points are {', '.join(GRID)}")
        for point in redo:
            for path in (files.out(point), records_path(files.out(point)), settings_path(files.out(point))):
                path.unlink(missing_ok=True)
        qa = questions_file(files, args.n, args.seed, families)
        for point in points:
            run_point(files, point, qa, args.limit)
    body = table(files)
    write_doc(args.doc, body)
    print(body)


if __name__ == "__main__":
    main()
