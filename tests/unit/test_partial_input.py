"""Issue 34, item 6: a question file with some bad rows (``kgqa eval --qa``, ``kgqa ask -`` and ``--questions``)
answers the good rows and reports each bad one by line and reason; ``--strict`` makes a bad row fail the command; a
file without a usable row is refused before any work (kgqa.runtime.rows). Files that spoil every row:
tests/unit/test_malformed_eval.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgqa.errors import InputError
from kgqa.lab.qa import read_eval_questions, read_question_rows
from kgqa.runtime.rows import RefusedRow, Rows, take_rows, usable_rows
from tests.helpers.cli import run
from tests.helpers.terminal import FakeKg

QA = (
    "id,query,answer_ids\n"
    "q1,Which drugs treat migraine?,[7]\n"
    f"q2,{'x' * 4001},[7]\n"
    "q3,  ,[7]\n"
    "q4,a row without its answers\n"
    'q5,"which"drug,[7]\n'
    "q1,Which drugs treat it again?,[7]\n"
    'q6,"a question over\ntwo lines?",[7]\n'
    "q7,Which genes?,[NaN]\n"
)
"""Good rows on lines 2 and 8 (a quoted field spans 8-9); each other row is bad in its own way."""
REASONS = [
    (3, "the query has 4,001 characters, more than max_question_chars (4000)"),
    (4, "empty query"),
    (5, "2 field(s), but the header has 3"),
    (6, "not valid CSV (',' expected after '\"')"),
    (7, "id 'q1' again (first on line 2)"),
    (10, "answer_ids '[NaN]' is not a list of ids (a float, NaN or Infinity is not an id)"),
]


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    path = tmp_path / "qa.csv"
    path.write_text(QA, encoding="utf-8")
    return path


def test_the_good_rows_are_read_and_each_bad_one_is_named_by_its_line(qa: Path) -> None:
    rows = read_question_rows(qa, max_chars=4000)
    assert [(line, q.id, q.text) for line, q in rows.good] == [
        (2, "q1", "Which drugs treat migraine?"),
        (8, "q6", "a question over\ntwo lines?"),
    ]
    assert [(row.line, str(row.error)) for row in rows.refused] == REASONS
    assert rows.report() == [f"skipped {qa}:{line}: {reason}" for line, reason in REASONS]
    assert [row.key for row in rows.refused] == ["q2", "q3", None, None, "q1", "q7"]


def test_a_file_without_a_usable_row_is_refused_naming_the_first(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text("id,query,answer_ids\nq1,,[1]\nq2,which?,[]\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_question_rows(path)
    assert str(exc.value) == f"no question of {path} can be used: {path}:2: empty query (2 rows refused in all)"


def test_a_file_with_only_a_header_is_no_error_of_the_row_policy(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text("id,query,answer_ids\n", encoding="utf-8")
    assert read_question_rows(path) == Rows(str(path))


def test_a_split_skips_the_id_of_a_refused_row_and_refuses_an_unknown_id(tmp_path: Path) -> None:
    (tmp_path / "stark_qa").mkdir()
    (tmp_path / "split").mkdir()
    (tmp_path / "stark_qa" / "stark_qa.csv").write_text(QA, encoding="utf-8")
    (tmp_path / "split" / "test.index").write_text("q6\nq2\nq1\n")
    rows = read_eval_questions(tmp_path, "test", 4000)
    assert [q.id for _, q in rows.good] == ["q6", "q1"] and len(rows.refused) == len(REASONS)
    (tmp_path / "split" / "test.index").write_text("q1\nq99\n")
    with pytest.raises(InputError, match=r"test.index: 1 id\(s\) not in stark_qa.csv, e.g. 'q99'"):
        read_eval_questions(tmp_path, "test", 4000)
    (tmp_path / "split" / "test.index").write_text("q2\nq7\n")
    with pytest.raises(InputError, match="every question of split test is in a refused row of"):
        read_eval_questions(tmp_path, "test", 4000)


def test_the_strict_error_names_the_lines_and_none_without_a_refused_row() -> None:
    rows = take_rows("f.csv", [(2, "a"), (3, RefusedRow(3, InputError("empty query"))), (5, "b")])
    assert rows.good == [(2, "a"), (5, "b")]
    assert str(rows.strict_error()) == "f.csv: 1 row refused (line 3) and --strict is set"
    assert take_rows("f.csv", [(1, "a")]).strict_error() is None


def test_rows_are_passed_on_as_read_from_the_first_usable_one() -> None:
    """``kgqa ask -`` answers a line before it reads the next (a pipe waits for each answer); refused rows before the
    first usable one are held back, so that input without one is refused before any work."""
    read: list[int] = []
    given = [(1, RefusedRow(1, InputError("empty"))), (2, "a"), (3, RefusedRow(3, InputError("bad"))), (4, "b")]

    def rows() -> Iterator[tuple[int, str | RefusedRow]]:
        for line, row in given:
            read.append(line)
            yield line, row

    stream = usable_rows("f", rows())
    assert next(stream) == given[0] and read == [1, 2]
    assert next(stream) == (2, "a") and read == [1, 2]
    assert next(stream) == given[2] and read == [1, 2, 3]
    assert list(stream) == [(4, "b")]
    with pytest.raises(InputError, match=r"^no question of f can be used: f:1: empty$"):
        list(usable_rows("f", given[:1]))
    assert list(usable_rows("f", [])) == []


# ---------------------------------------------------------------------------------------------------------------------
# Through the CLI, on a fake kgqa (tests/helpers/terminal.py): the policy, not the pipeline.
# ---------------------------------------------------------------------------------------------------------------------


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kgqa.cli.session.start", FakeKg)


@pytest.mark.usefixtures("fake")
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_eval_answers_the_good_rows_and_reports_the_bad(
    cli_env: dict[str, str], qa: Path, tmp_path: Path, strict: bool
) -> None:
    out = tmp_path / "r.json"
    result = run(cli_env, "eval", "--skb", "prime", "--qa", str(qa), "--out", str(out), *(["--strict"] * strict))
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("skipped ")] == [f"skipped {qa}:{n}: {r}" for n, r in REASONS]
    assert f"read 2 questions (test) from {qa}; skipped 6 refused rows" in lines
    assert [q["id"] for q in json.loads(out.read_text())["questions"]] == ["q1", "q6"]  # answered either way
    if strict:
        assert result.exit_code == 1
        assert lines[-1] == f"error: {qa}: 6 rows refused (line 3, 4, 5, 6, 7, 10) and --strict is set"
    else:
        assert result.exit_code == 0, result.stderr


LINES = b"Which drugs treat migraine?\n" + b"q" * 4001 + b"\n\n  \ncaf\xe9?\nWhich genes?\n"
"""Good lines 1 and 6; line 2 is too long, 3 and 4 are blank (no question, no error), 5 is not UTF-8."""
TOO_LONG = "the question has 4,001 characters; the limit is 4,000 (max_question_chars)"
NOT_UTF8 = "not UTF-8 text (byte 0xe9); save the questions as UTF-8"


@pytest.mark.usefixtures("fake")
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_ask_batch_answers_the_good_lines_and_reports_the_bad(cli_env: dict[str, str], strict: bool) -> None:
    result = run(cli_env, "ask", "-", "--skb", "prime", "--json", *(["--strict"] * strict), input=LINES)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["line"] for a in answers] == [1, 2, 5, 6]  # one JSON line per input line, in order
    assert answers[0]["question"] == "Which drugs treat migraine?" and answers[3]["answers"]
    assert answers[1]["error"] == {"type": "QuestionError", "message": TOO_LONG}
    assert answers[2] == {"line": 5, "question": None, "error": {"type": "InputError", "message": NOT_UTF8}}
    reported = [f"skipped <stdin>:2: {TOO_LONG}", f"skipped <stdin>:5: {NOT_UTF8}"]
    if strict:
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            *reported,
            "error: <stdin>: 2 rows refused (line 2, 5) and --strict is set",
        ]
    else:
        assert result.exit_code == 0, result.stderr
        assert result.stderr.splitlines() == reported


@pytest.mark.usefixtures("fake")
def test_a_questions_file_is_named_in_the_report(cli_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "questions.txt"
    path.write_bytes(LINES)
    result = run(cli_env, "ask", "--questions", str(path), "--skb", "prime")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [f"skipped {path}:2: {TOO_LONG}", f"skipped {path}:5: {NOT_UTF8}"]
    assert result.stdout.count("Which drugs treat migraine?  [prime;") == 1


def test_ask_batch_without_a_usable_line_is_refused_before_the_store_starts(cli_env: dict[str, str]) -> None:
    """No fake here: the unit guard fails the test if the store starts."""
    result = run(cli_env, "ask", "-", "--skb", "prime", input=b"q" * 4001 + b"\ncaf\xe9?\n")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: no question of <stdin> can be used: <stdin>:1: {TOO_LONG} (2 rows refused in all)\n"
    )
