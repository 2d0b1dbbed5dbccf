"""Malformed input files for ``kgqa eval``, as data: tests/fixtures/malformed/eval.csv gives each case the file it
spoils (``qa``: the question CSV; ``split``: a STaRK QA folder's split/test.index; ``settings``/``records``/
``results``: what an earlier run left at ``--out``; ``query_embeddings``: the file of ``--query-embeddings``;
``missing``/``folder``/``out_folder``: a path that is not a file),
the file's content, the exit code and a fragment of the one-line error.

``content`` is text with Python's byte escapes (``\\xe9``, ``\\x00``, ``\\n``; ``\\u`` stays as written, for JSON) and
``<TEXT*N>`` for TEXT repeated N times. Each case runs through the CLI (the unit guard fails the test if the store
starts: every refusal comes first) and through the function that reads the file; a refused file is never changed,
and nothing is written beside it. A ``qa`` case spoils the whole file or its only row: a file with some usable rows
is answered, its bad rows skipped and reported (tests/unit/test_partial_input.py)."""

from __future__ import annotations

import codecs
import csv
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kgqa.errors import InputError
from kgqa.lab.evaluate import check_out, load_records, parse_record, read_eval_questions, strict_dumps, strict_loads
from kgqa.lab.metrics import evaluate, mean_metrics, rank_by_scores
from kgqa.lab.qa import load_questions
from kgqa.loaders.stark_embeddings import read_query_vectors
from tests.helpers.cli import run

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "malformed" / "eval.csv"
GOOD_QA = "id,query,answer_ids\nq1,Which drugs are indicated for migraine?,[3]\n"
NEVER = ("Traceback", "internal error")
MAX_CHARS = 4000
"""The configuration's default max_question_chars, which the CLI applies."""


@dataclass(frozen=True)
class Case:
    case: str
    file: str
    content: bytes
    exit_code: int
    message: str


def expand(content: str) -> bytes:
    """The table's ``content``: ``<TEXT*N>`` repeated, then byte escapes decoded."""
    content = re.sub(r"<(.+?)\*(\d+)>", lambda m: m.group(1) * int(m.group(2)), content, flags=re.S)
    decoded: bytes = codecs.escape_decode(content.encode("utf-8"))[0]  # type: ignore[attr-defined]
    return decoded


def read_table(path: Path = TABLE) -> list[Case]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Case(row["case"], row["file"], expand(row["content"]), int(row["exit_code"]), row["message"])
            for row in csv.DictReader(handle)
        ]


CASES = read_table()


@dataclass(frozen=True)
class Setup:
    qa: Path
    out: Path
    split: str
    query_embeddings: Path | None = None


def arrange(case: Case, tmp: Path) -> Setup:
    """The files of one case under ``tmp``: a good question CSV unless the case spoils it, and ``--out`` r.json."""
    qa, out, split = tmp / "qa.csv", tmp / "r.json", "test"
    qa.write_text(GOOD_QA, encoding="utf-8")
    if case.file == "qa":
        qa.write_bytes(case.content)
    elif case.file == "split":
        qa = tmp / "stark"
        (qa / "stark_qa").mkdir(parents=True)
        (qa / "split").mkdir()
        (qa / "stark_qa" / "stark_qa.csv").write_text(GOOD_QA, encoding="utf-8")
        (qa / "split" / "test.index").write_bytes(case.content)
    elif case.file == "missing":
        qa = tmp / "does_not_exist.csv"
    elif case.file == "folder":
        qa = tmp / "empty"
        qa.mkdir()
    elif case.file == "out_folder":
        out.mkdir()
    elif case.file == "query_embeddings":
        (tmp / "q.pt").write_bytes(case.content)
        return Setup(qa, out, split, tmp / "q.pt")
    else:
        target = {"settings": tmp / "r.json.settings.json", "records": tmp / "r.json.jsonl", "results": out}
        target[case.file].write_bytes(case.content)
    return Setup(qa, out, split)


def snapshot(tmp: Path) -> dict[str, bytes | None]:
    """Every path under ``tmp`` with its bytes (None for a folder)."""
    return {str(p.relative_to(tmp)): p.read_bytes() if p.is_file() else None for p in sorted(tmp.rglob("*"))}


def test_the_table_is_well_formed() -> None:
    assert len({c.case for c in CASES}) == len(CASES)
    kinds = {"qa", "split", "settings", "records", "results", "missing", "folder", "out_folder", "query_embeddings"}
    assert {c.file for c in CASES} == kinds
    assert all(c.message and c.exit_code == 1 for c in CASES)  # files are exit 1, never 70


def test_the_expansions_build_what_the_cases_need() -> None:
    by_name = {c.case: c for c in CASES}
    assert len(by_name["field_over_128_kib"].content) > 128 * 1024
    assert by_name["deeply_nested_answer_ids"].content.count(b"[") == 100_000
    assert b"\x00" in by_name["nul_byte"].content and b"\xe9" in by_name["non_utf8_file"].content
    assert b"\\ud800" in by_name["lone_surrogate_answer_id"].content  # a JSON escape, as written


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.case)
def test_eval_refuses_in_one_line_before_the_store_starts(case: Case, cli_env: dict[str, str], tmp_path: Path) -> None:
    setup = arrange(case, tmp_path)
    before = snapshot(tmp_path)
    vectors = [] if setup.query_embeddings is None else ["--query-embeddings", str(setup.query_embeddings)]
    result = run(cli_env, "eval", "--skb", "prime", "--qa", str(setup.qa), "--out", str(setup.out), *vectors)
    output = result.output + result.stderr
    assert result.exit_code == case.exit_code, output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and case.message in lines[0], output
    assert not any(text in output for text in NEVER), output
    assert snapshot(tmp_path) == before  # nothing overwritten, nothing written beside


@pytest.mark.parametrize("reader", [read_eval_questions, load_questions], ids=["eval-reader", "strict-reader"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.case)
def test_the_reader_refuses_with_the_same_message(case: Case, reader: Callable[..., object], tmp_path: Path) -> None:
    """Both readers: eval's (a file none of whose rows is usable, kgqa.runtime.rows) and kgqa.lab.qa's, which
    refuses a file at its first bad row."""
    setup = arrange(case, tmp_path)
    with pytest.raises(InputError) as exc:
        reader(setup.qa, setup.split, max_chars=MAX_CHARS)
        check_out(setup.out)
        if setup.query_embeddings is not None:
            read_query_vectors(setup.query_embeddings)
    assert case.message in str(exc.value) and "\n" not in str(exc.value)
    assert type(exc.value).exit_code == case.exit_code


def test_the_missing_file_is_named_as_given(tmp_path: Path) -> None:
    """Not as ".../does_not_exist.csv/stark_qa/stark_qa.csv", a path the user never gave."""
    with pytest.raises(InputError) as exc:
        load_questions(tmp_path / "does_not_exist.csv")
    assert str(exc.value) == f"--qa {tmp_path / 'does_not_exist.csv'} does not exist"


# ---------------------------------------------------------------------------------------------------------------------
# What is still read: a torn last record, a BOM, both answer-id spellings; strict JSON in and out.
# ---------------------------------------------------------------------------------------------------------------------

RECORD = {
    "row": "hybrid",
    "id": "q1",
    "ranked": ["3"],
    "metrics": {"hit@1": 1.0, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 1.0},
    "seconds": 0.25,
    "steps": [{"step": 1, "name": "target type", "status": "ran", "detail": "", "seconds": 0.01}],
    "usage": {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0},
}


@pytest.mark.parametrize("cut", [1, 25, 60, -1], ids=["brace", "in-a-key", "in-a-list", "last-brace"])
def test_a_record_a_kill_cut_short_is_skipped_wherever_it_was_cut(cut: int, tmp_path: Path) -> None:
    line = strict_dumps(RECORD).encode()
    torn = line[:cut]
    (tmp_path / "r.json.jsonl").write_bytes(line + b"\n" + torn + b"\n" + line.replace(b'"q1"', b'"q2"') + b"\n")
    assert [r.id for r in load_records(tmp_path / "r.json")] == ["q1", "q2"]


def test_a_record_cut_inside_a_utf8_character_is_skipped(tmp_path: Path) -> None:
    line = strict_dumps({**RECORD, "id": "q\u00e9"}, ensure_ascii=False).encode()
    cut = line.index("\u00e9".encode()) + 1  # half of the two-byte character
    (tmp_path / "r.json.jsonl").write_bytes(line[:cut])
    assert load_records(tmp_path / "r.json") == []


def test_both_answer_id_spellings_and_a_bom_are_read(tmp_path: Path) -> None:
    qa = tmp_path / "qa.csv"
    rows = '1,q one,[18423]\n2,q two,"[\'a\', 2]"\n3,q three,"[""HP:1"", ""\\u00e9\\ud83d\\ude00""]"\n'
    qa.write_bytes(codecs.BOM_UTF8 + ("id,query,answer_ids\n" + rows).encode())
    assert [q.answers for q in load_questions(qa)] == [("18423",), ("a", "2"), ("HP:1", "\u00e9\U0001f600")]


@pytest.mark.parametrize("text", ["NaN", "-Infinity", "1e999", '{"a": [Infinity]}'])
def test_strict_loads_refuses_non_finite_numbers(text: str) -> None:
    with pytest.raises(ValueError):
        strict_loads(text)


def test_strict_dumps_refuses_non_finite_numbers() -> None:
    with pytest.raises(ValueError):
        strict_dumps({"mrr": math.nan})
    assert strict_dumps({"mrr": 0.5}) == '{"mrr": 0.5}'


def test_metrics_are_finite_even_for_degenerate_questions() -> None:
    """Decided: a metric is never non-finite (no gold answer scores 0, no question means n=0 and zeros), so results
    are written with allow_nan=False and a non-finite metric is a bug that fails loudly, not a null."""
    for ranked, gold in (([], []), ([], ["1"]), (["1"], []), (["1"] * 50, ["1"])):
        assert all(math.isfinite(v) for v in evaluate(ranked, gold).values())
    assert (
        strict_dumps(mean_metrics([]))
        == '{"hit@1": 0.0, "hit@5": 0.0, "hit@20": 0.0, "recall@20": 0.0, "mrr": 0.0, "n": 0}'
    )


def test_a_nan_score_ranks_last_and_the_order_is_defined() -> None:
    """Decided: a NaN score ranks below every number (-inf included), ties and NaNs in insertion order."""
    scores = {"a": math.nan, "b": 0.5, "c": -math.inf, "d": math.nan, "e": math.inf, "f": 0.5}
    assert rank_by_scores(scores) == ["e", "b", "f", "c", "a", "d"]
    assert evaluate(rank_by_scores({"x": math.nan, "gold": 0.1}), {"gold"})["mrr"] == 1.0


def test_a_parsed_record_round_trips() -> None:
    record = parse_record(strict_dumps(RECORD).encode())
    assert (record.id, record.ranked, record.metrics["mrr"]) == ("q1", ["3"], 1.0)


def _json_of(value: Any) -> str:
    from kgqa.cli.output import json_text

    return json_text(value)


def test_printed_json_has_null_for_a_non_finite_score() -> None:
    """Decided: what kgqa prints (ask/explain/node/schema --json) shows a non-finite score as null, never NaN."""
    assert _json_of({"answers": [{"score": math.nan}, {"score": math.inf}, {"score": 0.5}]}) == (
        '{"answers": [{"score": null}, {"score": null}, {"score": 0.5}]}'
    )
