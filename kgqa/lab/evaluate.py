"""``kgqa eval``: run questions through the pipeline and score them as STaRK does, resumably.

Every answered question is appended to ``<out>.jsonl`` as soon as it is done (with its ablation row, ranked ids,
metrics, per-step seconds and statuses, LLM use), so a killed eval continues where it stopped; the LLM response
cache makes even a half-done question cheap. The settings that shape answers are kept beside them in
``<out>.settings.json``: resuming with other settings (another LLM, k, embedder ...) is refused, since mixing
answers from two configurations into one table would be silently wrong.

``results.json`` is written at the end from those records: ``metrics`` (hit@1, hit@5, hit@20, recall@20, mrr, n),
``steps`` (per-step latency median/mean/max and how often each step ran, degraded or was skipped), ``llm`` (calls
and tokens per question) and the per-question results; with ``--ablation`` one such section per row. So that every
figure can be traced to its code (:mod:`kgqa.provenance`), each record keeps the git commit it was made at (and
whether the code had uncommitted changes), and results.json holds ``provenance`` (commit, dirty, versions, date),
``commits`` (records per commit: more than one when a resumed eval spans commits), ``dirty_records`` and, under
``settings.config``, every configuration field (secrets redacted).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kgqa.api import Api
from kgqa.choices import BASELINES, Baseline, Reranker, Steps
from kgqa.config import Config
from kgqa.errors import ConfigError, InputError
from kgqa.lab.metrics import METRICS, evaluate, mean_metrics
from kgqa.lab.qa import Question, read_eval_questions
from kgqa.provenance import CODE_PATHS, code_dirty, config_settings, provenance
from kgqa.runtime.llm import parse_llm_spec
from kgqa.runtime.rows import Rows
from kgqa.runtime.trained import find_trained

if TYPE_CHECKING:
    from kgqa.types import Answer

Mode = Steps | Baseline
Row = tuple[str, Mode] | tuple[str, Mode, Reranker]
"""An eval row: its name in the results, the ``--steps`` setting it runs (or a baseline) and, if the row sets one,
its reranker (else the configured one)."""
ABLATION: tuple[Row, ...] = (
    ("vector strand", "vss"),
    ("graph strand", "graph"),
    ("hybrid", "hybrid"),
    ("hybrid + rerank", "full"),
)
"""The paper's ablation rows (Table 8), as ``--steps`` settings."""
CROSS_ENCODER_ROW: Row = ("hybrid + cross-encoder", "full", "cross-encoder")
"""The row :func:`ablation_rows` adds without an LLM when a cross-encoder is at hand (``kgqa train-reranker``)."""


BASELINE_ROWS: dict[Baseline, Row] = {
    "text2cypher": ("text2cypher (langchain-neo4j)", "text2cypher"),
    "text2cypher-unvalidated": ("text2cypher, no corrector (the chain's default)", "text2cypher-unvalidated"),
}
"""``--baseline``: langchain-neo4j's GraphCypherQAChain with the same LLM (:mod:`kgqa.langchain.baseline`)."""


def row_parts(row: Row) -> tuple[str, Mode, Reranker | None]:
    """A row's name, steps and reranker (None: the configured one)."""
    if len(row) == 2:
        return row[0], row[1], None
    return row


def ablation_rows(config: Config, skb: str) -> list[Row]:
    """The paper's rows, plus "hybrid + cross-encoder" when there is no LLM and a cross-encoder (configured, or
    trained for ``skb``) that "hybrid + rerank" does not already use: without an LLM that row reranks with nothing,
    and the table should show what the cross-encoder adds."""
    rows = list(ABLATION)
    if parse_llm_spec(config.llm)[0] != "none":
        return rows
    available = bool(config.cross_encoder) or find_trained(config.home, skb) is not None
    used = config.reranker == "cross-encoder" or (config.reranker == "auto" and bool(config.cross_encoder))
    if available and not used:
        rows.append(CROSS_ENCODER_ROW)
    return rows


def cross_encoder_model(config: Config, skb: str, rows: Sequence[Row]) -> str | None:
    """Which trained model the cross-encoder of these rows is (its folder and training time), when it is the one
    ``kgqa train-reranker`` made: a retrained model gives other answers, so a resumed eval must see the change."""
    rerankers = {row_parts(row)[2] or config.reranker for row in rows if row_parts(row)[1] == "full"}
    if "cross-encoder" not in rerankers or config.cross_encoder:
        return None
    trained = find_trained(config.home, skb)
    return None if trained is None else trained.key


@dataclass(frozen=True)
class Record:
    row: str
    id: str
    ranked: list[str]
    metrics: dict[str, float]
    seconds: float
    steps: list[dict[str, Any]]
    usage: dict[str, Any]
    commit: str | None = None
    """The git commit the answer was made at (None: unknown, or a record written before commits were kept)."""
    dirty: bool | None = None
    """Whether the answer-shaping code (:data:`kgqa.provenance.CODE_PATHS`) had uncommitted changes then."""


ANSWER_SETTINGS = (
    "store",
    "embedder",
    "doc_max_tokens",
    "top_k",
    "reranker",
    "cross_encoder",
    "alpha",
    "l_max",
    "cypher_mode",
    "hidden_labels",
    "link_threshold",
    "reader",
    "link_aliases",
    "relation_meaning",
    "relation_threshold",
    "lexical_weight",
    "plan_fallback",
    "llm_plan_weight",
    "graph_rank_cap",
    "max_link_ngrams",
    "max_triplets",
    "pattern_limit",
    "rerank_budget_tokens",
    "ef_runtime",
    "relation_names_per_type",
    "llm",
    "llm_temperature",
    "llm_reasoning_effort",
    "llm_context",
)
"""The configuration keys that can change an answer (not timeouts, caches or paths)."""
RECORDED_ONLY = ("config",)
"""Settings written into results.json but not compared on resume: the full configuration also holds keys that do
not change answers (timeouts, paths), and a resumed eval must not be refused for those."""


def records_path(out: Path) -> Path:
    return out.with_name(out.name + ".jsonl")


def settings_path(out: Path) -> Path:
    return out.with_name(out.name + ".settings.json")


def eval_settings(
    kg: Api, skb: str, qa: str, split: str, rows: Sequence[Row], query_embeddings: str | None = None
) -> dict[str, Any]:
    """Everything an eval's answers depend on: the questions, the rows, the answer-shaping configuration and the
    precomputed query vectors if any (compared on resume), plus every configuration field under ``config`` (only
    recorded, see :data:`RECORDED_ONLY`)."""
    config = {key: getattr(kg.config, key) for key in ANSWER_SETTINGS}
    return {
        "skb": skb,
        "qa": qa,
        "split": split,
        "steps": [row_parts(row)[1] for row in rows],
        "rerankers": [row_parts(row)[2] for row in rows] if any(row_parts(row)[2] for row in rows) else None,
        "cross_encoder_model": cross_encoder_model(kg.config, skb, rows),
        **config,
        "embedder_model": kg.embedder_name(),
        "query_embeddings": query_embeddings,
        "config": config_settings(kg.config),
    }


def strict_loads(text: str) -> Any:
    """JSON as RFC 8259 has it: ``NaN``, ``Infinity`` and numbers beyond a float (``1e999``) are refused (Python's
    json takes them), so no non-finite number read from a file reaches a metric or a results file."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)


def strict_dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that refuses a non-finite number (ValueError) instead of writing NaN/Infinity, which JSON has
    not. Every figure kgqa writes is finite by construction; a non-finite one is a bug, not something to print."""
    return json.dumps(value, allow_nan=False, **kwargs)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is beyond a float")
    return value


START_OVER = "the file is left as it is: choose another --out, or delete {files} to start over"


def check_out(out: Path) -> None:
    """Refuse, before any work, an ``--out`` whose earlier files kgqa cannot read: a folder, a results file it did
    not write, settings or records that are not JSON it wrote. Nothing is overwritten that was not read."""
    if out.is_dir():
        raise InputError(f"--out {out} is a folder; name a file such as {out / 'results.json'}")
    if out.exists():
        doc = _read_json(out, START_OVER.format(files=out.name))
        if not isinstance(doc, dict) or "settings" not in doc or "metrics" not in doc:
            raise InputError(f"{out} is not a results file kgqa wrote; choose another --out, or delete it")
    read_settings(out)
    load_records(out)


def _read_json(path: Path, advice: str) -> Any:
    """A JSON file kgqa wrote, read strictly; anything else is an InputError naming the file and ``advice``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return strict_loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise InputError(f"{path} is not UTF-8 text (byte 0x{byte:02x} at offset {exc.start}); {advice}") from exc
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the json module parses
        raise InputError(f"{path} is not JSON kgqa wrote ({str(exc)[:120]}); {advice}") from exc


def read_settings(out: Path) -> dict[str, Any] | None:
    """The settings an earlier run of this ``--out`` recorded, None if there was none."""
    path = settings_path(out)
    if not path.exists():
        return None
    advice = START_OVER.format(files=f"{path.name} and {records_path(out).name}")
    value = _read_json(path, advice)
    if not isinstance(value, dict):
        raise InputError(f"{path} holds {type(value).__name__}, not the settings object kgqa writes; {advice}")
    return value


def _check_settings(out: Path, settings: dict[str, Any]) -> None:
    """Refuse to add to records made with other settings; remember the settings of a new eval."""
    path, records = settings_path(out), records_path(out)
    settings = {
        k: v
        for k, v in json.loads(strict_dumps(settings)).items()  # compare as stored: tuples become lists
        if k not in RECORDED_ONLY
    }
    before = read_settings(out)
    if before is not None:
        changed = [
            f"{key}: {before.get(key)!r} then, {value!r} now"
            for key, value in settings.items()
            if before.get(key) != value
        ]
        if changed:
            raise InputError(
                f"{records} holds answers made with other settings ({'; '.join(changed)}); use another "
                f"--out, or delete {records.name} and {path.name} to start over"
            )
        return
    if records.exists() and records.stat().st_size > 0:
        raise InputError(
            f"{records} has answers but no {path.name}, so their settings are unknown; use another "
            f"--out, or delete {records.name} to start over"
        )
    _write(path, strict_dumps(settings, indent=2) + "\n")


def write_results(out: Path, doc: dict[str, Any]) -> None:
    """results.json, whole or not at all (written beside it, then renamed): a kill never leaves half a file that
    the next run would have to refuse."""
    _write(out, strict_dumps(doc, indent=2) + "\n")


def _write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def load_records(out: Path) -> list[Record]:
    """Records of an earlier (possibly killed) run. A line a kill cut short is ignored (the next run starts a new
    line after it); any other line that is not a record kgqa wrote is refused, naming it, and left as it is."""
    path = records_path(out)
    if not path.exists():
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    records = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            records.append(parse_record(raw))
        except (ValueError, RecursionError) as exc:
            if _torn(raw, exc):
                continue
            advice = START_OVER.format(files=f"{path.name} and {settings_path(out).name}")
            raise InputError(f"{path}:{number} is not a record kgqa wrote ({str(exc)[:120]}); {advice}") from exc
    return records


def parse_record(raw: bytes) -> Record:
    """One line of ``OUT.jsonl``, checked field by field: a hand-edited or foreign line fails here (ValueError), not
    in the summary. A non-finite number is refused (:func:`strict_loads`)."""
    value = strict_loads(raw.decode("utf-8"))
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__}, not an object")
    missing = sorted(RECORD_FIELDS - set(value))
    if missing:
        raise ValueError(f"no {', '.join(missing)}")
    try:
        record = Record(**value)
    except TypeError as exc:
        raise ValueError(str(exc)) from exc
    problem = _record_problem(record)
    if problem:
        raise ValueError(problem)
    return record


RECORD_FIELDS = {"row", "id", "ranked", "metrics", "seconds", "steps", "usage"}
USAGE_FIELDS = ("calls", "cached", "prompt_tokens", "completion_tokens")
STEP_FIELDS: dict[str, type | tuple[type, ...]] = {"step": int, "name": str, "status": str, "seconds": (int, float)}


def _record_problem(r: Record) -> str | None:
    """What in a parsed record :func:`summarize` could not use, else None."""
    if not isinstance(r.row, str) or not isinstance(r.id, str):
        return "row and id must be text"
    if not isinstance(r.ranked, list) or not all(isinstance(i, str) for i in r.ranked):
        return "ranked must be a list of ids"
    if not isinstance(r.metrics, dict) or not all(_number(r.metrics.get(m)) for m in METRICS):
        return f"metrics must hold {', '.join(METRICS)} as numbers"
    if not _number(r.seconds):
        return "seconds must be a number"
    if not isinstance(r.usage, dict) or not all(_number(r.usage.get(k)) for k in USAGE_FIELDS):
        return f"usage must hold {', '.join(USAGE_FIELDS)} as numbers"
    steps_ok = isinstance(r.steps, list) and all(
        isinstance(step, dict) and all(_typed(step.get(k), t) for k, t in STEP_FIELDS.items()) for step in r.steps
    )
    return None if steps_ok else "steps must be a list of {step, name, status, seconds}"


def _number(value: object) -> bool:
    return _typed(value, (int, float))


def _typed(value: object, kind: type | tuple[type, ...]) -> bool:
    return isinstance(value, kind) and not isinstance(value, bool)


def _torn(raw: bytes, exc: ValueError | RecursionError) -> bool:
    """Whether a line that failed to parse is a record a kill cut short: a prefix of one, so its only fault is
    at its end (an unclosed object or string, half a UTF-8 character); the last character of a whole record is ``}``.
    """
    if not raw.lstrip().startswith(b"{"):
        return False
    if isinstance(exc, UnicodeDecodeError):
        return exc.reason == "unexpected end of data"
    text = raw.decode("utf-8", errors="replace").rstrip()
    if isinstance(exc, json.JSONDecodeError):
        return not text.endswith("}") or exc.pos >= len(text)
    return False


@dataclass(frozen=True)
class EvalInput:
    """What an eval reads before the store starts: the questions, the rows refused on reading (already left out of
    the questions) and the questions' precomputed vectors where given."""

    questions: list[Question]
    query_vectors: Mapping[str, np.ndarray] | None
    rows: Rows[Question]


def eval_input(
    qa_path: Path, split: str, limit: int | None, max_chars: int, query_embeddings: Path | None, out: Path
) -> EvalInput:
    """Read an eval's input and check it, each problem named before the store starts: the first ``limit`` usable
    questions of ``split`` (refused rows are skipped and kept in ``rows``, :mod:`kgqa.runtime.rows`), their vectors
    in ``query_embeddings`` (every question must have one), and the results file of an earlier run at ``out``."""
    from kgqa.loaders.stark_embeddings import read_query_vectors

    rows = read_eval_questions(qa_path, split, max_chars)
    questions = [question for _, question in rows.good][:limit]
    query_vectors = None if query_embeddings is None else read_query_vectors(query_embeddings)
    check_vectors(questions, query_vectors, str(query_embeddings))
    check_out(out)
    return EvalInput(questions, query_vectors, rows)


def check_vectors(
    questions: Sequence[Question], query_vectors: Mapping[str, np.ndarray] | None, source: str = "the query embeddings"
) -> None:
    """Every question has a vector in ``query_vectors`` (when given)."""
    if query_vectors is not None:
        absent = next((q.id for q in questions if q.id not in query_vectors), None)
        if absent is not None:
            raise InputError(f"question {absent} has no vector in {source} (of {len(questions)} asked)")


def eval_rows(config: Config, skb: str, ablation: bool, baselines: Sequence[Baseline]) -> list[Row]:
    """The rows of an eval: the configured steps (or the whole ablation) and each baseline named once. A baseline
    needs an LLM and langchain-neo4j: refused here, before any question is answered."""
    rows: list[Row] = ablation_rows(config, skb) if ablation else [(config.steps, config.steps)]
    if baselines:
        if parse_llm_spec(config.llm)[0] == "none":
            raise ConfigError(
                f"--baseline {baselines[0]} needs an LLM: set llm, or --llm openai:MODEL | llama:PATH.gguf"
            )
        if importlib.util.find_spec("langchain_neo4j") is None:
            raise ConfigError(f"--baseline {baselines[0]} needs: pip install 'kgqa[langchain]'")
    return rows + [BASELINE_ROWS[name] for name in dict.fromkeys(baselines)]


def resumed(out: Path, questions: Sequence[Question]) -> Counter[str]:
    """Per row, how many of ``questions`` an earlier run of this eval answered (a resumed eval starts there)."""
    asked = {q.id for q in questions}
    return Counter(r.row for r in load_records(out) if r.id in asked)


def run_eval(
    kg: Api,
    skb: str,
    questions: Sequence[Question],
    rows: Sequence[Row],
    out: Path,
    *,
    settings: dict[str, Any],
    on_answer: Callable[[Record, list[Record]], None] | None = None,
    query_vectors: Mapping[str, np.ndarray] | None = None,
) -> list[Record]:
    """Answer every question of every row not yet in ``<out>.jsonl``; returns all records of this eval.

    ``settings`` (:func:`eval_settings`) must equal those the existing records were made with. New records keep
    the commit of the code answering them (taken once: the code of a running process does not change).
    ``query_vectors``: question id -> the question's vector for the document index (STaRK's query_emb_dict.pt,
    :func:`kgqa.loaders.stark_embeddings.read_query_vectors`); every question must have one."""
    kg.meta(skb)  # fails clearly before any work if the SKB is not loaded
    check_vectors(questions, query_vectors)
    _check_settings(out, settings)
    made_at = provenance()
    commit = made_at["commit"]
    dirty = code_dirty(made_at, CODE_PATHS) if commit else None
    done = {(r.row, r.id): r for r in load_records(out)}
    asked = {q.id for q in questions}
    path = records_path(out)
    torn = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sink = path.open("a", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    with sink:
        if torn:
            sink.write("\n")  # end a line a kill cut short, so the next record starts on its own line
        for question in questions:  # question-major: a killed ablation leaves every row on the same questions
            for row, steps, reranker in map(row_parts, rows):
                if (row, question.id) in done:
                    continue
                start = time.perf_counter()
                vector = None if query_vectors is None else query_vectors[question.id]
                answer = _ask(kg, question.text, skb, steps, reranker, vector)
                ranked = [c.id for c in answer.answers]
                trace = answer.to_json()["trace"]
                record = Record(
                    row,
                    question.id,
                    ranked,
                    evaluate(ranked, question.answers),
                    round(time.perf_counter() - start, 4),
                    trace["steps"],
                    trace["usage"],
                    commit,
                    dirty,
                )
                sink.write(strict_dumps(asdict(record)) + "\n")
                sink.flush()
                done[(row, question.id)] = record
                if on_answer is not None:
                    on_answer(record, [r for r in done.values() if r.row == row and r.id in asked])
    wanted = {(row[0], q.id) for row in rows for q in questions}
    return [r for key, r in done.items() if key in wanted]


def _ask(kg: Api, text: str, skb: str, steps: Mode, reranker: Reranker | None, vector: np.ndarray | None) -> Answer:
    """One question of one row; a row's own reranker applies to that question only."""
    if steps == "text2cypher" or steps == "text2cypher-unvalidated":  # a baseline (BASELINES), narrowed for mypy
        return kg.text2cypher(text, skb, validate=steps == "text2cypher")
    config = kg.config
    if reranker is not None:
        kg.config = replace(config, reranker=reranker)
    try:
        if vector is None:
            return kg.ask(text, skb, steps=steps)
        return kg.ask(text, skb, steps=steps, query_vector=vector)
    finally:
        kg.config = config


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    """One results section: metrics, per-step figures, LLM use and the per-question results."""
    seconds: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for record in records:
        for step in record.steps:
            key = f"{step['step']} {step['name']}"
            statuses[key][step["status"]] += 1
            if step["status"] != "skipped":
                seconds[key].append(step["seconds"])
    steps = {
        key: {
            "ran": counts.get("ran", 0),
            "degraded": counts.get("degraded", 0),
            "skipped": counts.get("skipped", 0),
            **_latency(seconds[key]),
        }
        for key, counts in sorted(statuses.items(), key=lambda item: int(item[0].split()[0]))
    }
    n = max(1, len(records))
    llm = {
        "calls_per_question": round(sum(r.usage["calls"] for r in records) / n, 3),
        "cached_calls_per_question": round(sum(r.usage["cached"] for r in records) / n, 3),
        "prompt_tokens_per_question": round(sum(r.usage["prompt_tokens"] for r in records) / n, 1),
        "completion_tokens_per_question": round(sum(r.usage["completion_tokens"] for r in records) / n, 1),
    }
    metrics = {k: round(v, 4) for k, v in mean_metrics([r.metrics for r in records]).items()}
    return {
        "commits": commits(records),
        "metrics": metrics,
        "seconds_per_question": _latency([r.seconds for r in records]),
        "steps": steps,
        "llm": llm,
        "questions": [{"id": r.id, "ranked": r.ranked, "metrics": r.metrics, "seconds": r.seconds} for r in records],
    }


def commits(records: Sequence[Record]) -> dict[str, int]:
    """How many records were made at each commit (``unknown``: no commit recorded), most first."""
    return dict(Counter(r.commit or "unknown" for r in records).most_common())


def _latency(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "median_s": round(statistics.median(values), 4),
        "mean_s": round(statistics.mean(values), 4),
        "max_s": round(max(values), 4),
    }


def results(records: Sequence[Record], rows: Sequence[Row], settings: dict[str, Any]) -> dict[str, Any]:
    """The results.json document: the provenance of this summary, the settings, the commits of all records, then the
    last kgqa row's section at the top level (not a baseline's) and every row under ``ablation``."""
    by_row = {row[0]: summarize([r for r in records if r.row == row[0]]) for row in rows}
    ours = [row for row in rows if row_parts(row)[1] not in BASELINES] or list(rows)
    main = by_row[ours[-1][0]]  # a baseline's row never heads the results
    doc: dict[str, Any] = {
        "provenance": provenance(),
        "settings": settings,
        "commits": commits(records),
        "dirty_records": sum(bool(r.dirty) for r in records),
        **{k: v for k, v in main.items() if k != "commits"},
    }
    if len(rows) > 1:
        doc["ablation"] = {row: section["metrics"] for row, section in by_row.items()}
        doc["ablation_sections"] = {row: {k: v for k, v in s.items() if k != "questions"} for row, s in by_row.items()}
    return doc


def ablation_table(doc: dict[str, Any]) -> list[list[str]]:
    rows = doc.get("ablation") or {"result": doc["metrics"]}
    return [[row, *(f"{metrics[m]:.3f}" for m in METRICS), str(int(metrics["n"]))] for row, metrics in rows.items()]
