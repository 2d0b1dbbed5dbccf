"""STaRK question files: ``id,query,answer_ids[,answer_ids_source]`` CSVs and ``split/{train,val,test}.index``.

``test-0.1`` is the subset many papers report: ``split/test-0.1.index`` when the folder has it, else what STaRK's
``get_idx_split(test_ratio=0.1)`` takes, the first ``int(0.1 * len(test))`` ids of ``test.index`` in file order.

Accepted layouts for ``--qa``: a CSV file, or a STaRK QA folder (``<dir>/stark_qa/stark_qa.csv`` and
``<dir>/split/*.index``, as in stark_qa downloads); ``--split human`` reads ``stark_qa_human_generated_eval.csv``.
Answer ids may be ints or strings; kgqa keeps them as strings.
"""

from __future__ import annotations

import ast
import codecs
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kgqa.errors import InputError
from kgqa.runtime.rows import RefusedRow, Rows, take_rows

SPLITS = ("train", "val", "test", "test-0.1", "human", "all")
TEST_RATIO = {"test-0.1": 0.1}
MAX_FILE_BYTES = 256 * 1024 * 1024
"""Question and split files are read whole (STaRK's are a few MB)."""
MAX_FIELD_CHARS = 128 * 1024
"""csv's own field limit, kept: STaRK's fields are far shorter."""
_ID = r"""(?:[+-]?\d{1,19}|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
FLAT_LIST = re.compile(rf"\s*[\[(]\s*(?:{_ID}(?:\s*,\s*{_ID})*(?:\s*,)?\s*)?[\])]\s*", re.S)
"""A flat list of ids as STaRK (``[18423, 16]``) and kgqa (``["HP:0001250"]``) write them: integers of at most 19
digits and quoted strings, nothing nested, so parsing it can neither recurse deeply nor build a huge number. No two
whitespace runs are adjacent in the pattern, so a long run of spaces is matched in linear time."""


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    answers: tuple[str, ...]


def _parse_answers(raw: str) -> tuple[str, ...]:
    """A flat list of ids (:data:`FLAT_LIST`), as JSON (which joins escaped surrogate pairs) or a Python literal;
    a refusal says why, not where (:func:`_question_rows` names the line)."""
    if not FLAT_LIST.fullmatch(raw):
        raise InputError(f"answer_ids {raw[:60]!r} is not a list of ids ({_why_not_ids(raw)})")
    try:
        value = json.loads(raw)
    except ValueError:
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise InputError(f"answer_ids {raw[:60]!r} is not a list of ids ({exc})") from exc
    if not isinstance(value, list | tuple):  # "(7)" is 7 and "('a')" is 'a' to Python
        raise InputError(f"answer_ids {raw[:60]!r} is not a list of ids (integers or quoted strings)")
    ids = tuple(str(v) for v in value)
    if not ids:
        raise InputError("answer_ids is empty (a question without answers cannot be scored)")
    bad = next((i for i in ids if _text_problem(i)), None)
    if bad is not None:
        raise InputError(f"answer id {bad[:40]!r} {_text_problem(bad)}")
    return ids


def _why_not_ids(raw: str) -> str:
    """What :data:`FLAT_LIST` refused, as far as a glance can tell."""
    if re.match(r"\s*[\[(]\s*[\[({]", raw):
        return "nested lists are not ids"
    if re.search(r"(?i)\b(nan|inf|infinity)\b|\d\.|\d[eE][+-]?\d", raw):
        return "a float, NaN or Infinity is not an id"
    if re.search(r"\d{20}", raw):
        return "an integer id has at most 19 digits"
    return "integers or quoted strings, comma-separated in brackets"


def _text_problem(text: str) -> str | None:
    """Why a question's text or id is refused: a NUL or a lone surrogate (from an escape) that no store takes."""
    if "\x00" in text:
        return "contains a NUL character"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "is not valid Unicode (a lone surrogate)"
    return None


def read_text(path: Path, what: str = "question file") -> str:
    """A question or split file as text: UTF-8 (a leading BOM is dropped), no NUL; each refusal names the line."""
    if not path.is_file():
        raise InputError(f"no {what} {path}")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise InputError(f"{path} has {size:,} bytes; {what}s over {MAX_FILE_BYTES // 2**20} MiB are refused")
    data = path.read_bytes()
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the {what} as UTF-8"
        ) from exc
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(f"{path}:{text.count(chr(10), 0, nul) + 1}: a NUL byte; a {what} is text without NULs")
    return text


def read_question_rows(path: Path, max_chars: int | None = None, *, strict: bool = False) -> Rows[Question]:
    """A STaRK question CSV under the row policy (:mod:`kgqa.runtime.rows`): each row that is not a question (broken
    quoting, a field over 128 KiB, more or fewer fields than the header, an empty or repeated id, an empty query or
    one longer than ``max_chars``, answer ids that are not a flat list) is refused alone, by the line it starts on;
    what spoils the whole file (not UTF-8, a NUL byte, a header without id, query and answer_ids) is an InputError.
    ``strict``: the first refused row is an InputError too, naming its line (:func:`read_csv`)."""
    source = str(path)
    rows = _question_rows(path, max_chars)
    return take_rows(source, _first_refusal_raises(source, rows) if strict else rows)


def read_csv(path: Path, max_chars: int | None = None) -> list[Question]:
    """A STaRK question CSV, refused whole (naming the line) at its first row that is not a question
    (:func:`read_question_rows` lists what is refused)."""
    return [question for _, question in read_question_rows(path, max_chars, strict=True).good]


def _question_rows(path: Path, max_chars: int | None) -> Iterator[tuple[int, Question | RefusedRow]]:
    """The rows of a question CSV in file order: (the line a row starts on, its question or why it is refused)."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""), strict=True)
    try:
        header = next(reader, [])
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: {_csv_reason(exc)}") from exc
    columns = _columns(path, header)
    seen: dict[str, int] = {}
    while True:
        line = reader.line_num + 1  # where the next row starts (a quoted field may span lines)
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield line, RefusedRow(line, InputError(_csv_reason(exc)))
            continue
        if not row:
            continue  # a blank line
        if len(row) != len(header):
            yield line, RefusedRow(line, InputError(f"{len(row)} field(s), but the header has {len(header)}"))
            continue
        try:
            question = _question(row, columns, max_chars)
        except InputError as exc:
            yield line, RefusedRow(line, exc, row[columns["id"]].strip() or None)
            continue
        if question.id in seen:
            again = InputError(f"id {question.id!r} again (first on line {seen[question.id]})")
            yield line, RefusedRow(line, again, question.id)
            continue
        seen[question.id] = line
        yield line, question


def _first_refusal_raises(
    source: str, rows: Iterator[tuple[int, Question | RefusedRow]]
) -> Iterator[tuple[int, Question | RefusedRow]]:
    """``rows`` until the first refused one, which is raised as an InputError naming its line."""
    for line, row in rows:
        if isinstance(row, RefusedRow):
            raise InputError(row.located(source))
        yield line, row


def _columns(path: Path, header: list[str]) -> dict[str, int]:
    """The position of id, query and answer_ids in the header (each exactly once)."""
    names = [name.strip() for name in header]
    missing = sorted({"id", "query", "answer_ids"} - set(names))
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)} (need id, query, answer_ids)")
    repeated = sorted({n for n in names if names.count(n) > 1} & {"id", "query", "answer_ids"})
    if repeated:
        raise InputError(f"{path}: column {repeated[0]} appears more than once in the header")
    return {name: names.index(name) for name in ("id", "query", "answer_ids")}


def _question(row: list[str], columns: dict[str, int], max_chars: int | None) -> Question:
    """A row as a question; a refusal says why, not where."""
    qid, text = row[columns["id"]].strip(), row[columns["query"]].strip()
    if not qid:
        raise InputError("empty id")
    if not text:
        raise InputError("empty query")
    if max_chars is not None and len(text) > max_chars:
        raise InputError(f"the query has {len(text):,} characters, more than max_question_chars ({max_chars})")
    for field, value in (("id", qid), ("query", text)):
        problem = _text_problem(value)
        if problem:
            raise InputError(f"the {field} {problem}")
    return Question(qid, text, _parse_answers(row[columns["answer_ids"]]))


def _csv_reason(exc: csv.Error) -> str:
    """csv's complaint in the user's terms."""
    text = str(exc)
    if "field larger than field limit" in text:
        return f"a field longer than {MAX_FIELD_CHARS:,} characters (a question file holds short fields)"
    if "unexpected end of data" in text:
        return "a quoted field that is never closed"
    return f"not valid CSV ({text})"


def read_eval_questions(
    qa: Path, split: str = "test", max_chars: int | None = None, *, strict: bool = False
) -> Rows[Question]:
    """The questions of ``split`` from a CSV file or a STaRK QA folder, read by :func:`read_question_rows`: a refused
    row is skipped and kept for the report (``strict``: refused, naming its line). A split index that lists a
    refused row's id skips it; an id that is in no row is refused."""
    if split not in SPLITS:
        raise InputError(f"unknown split '{split}' (use one of: {', '.join(SPLITS)})")
    if not qa.exists():
        raise InputError(f"--qa {qa} does not exist")
    if qa.is_file():
        if split not in ("all", "test", "human"):
            raise InputError(f"--split {split} needs a STaRK QA folder with split/*.index, not a single CSV")
        return read_question_rows(qa, max_chars, strict=strict)
    folder = qa / "stark_qa"
    if not qa.is_dir():
        raise InputError(f"--qa {qa} is neither a question CSV nor a STaRK QA folder")
    if not folder.is_dir():
        raise InputError(f"no question file {folder / 'stark_qa.csv'}: {qa} is neither a CSV nor a STaRK QA folder")
    if split == "human":
        return read_question_rows(folder / "stark_qa_human_generated_eval.csv", max_chars, strict=strict)
    rows = read_question_rows(folder / "stark_qa.csv", max_chars, strict=strict)
    if split == "all":
        return rows
    index = qa / "split" / f"{split}.index"
    ratio = 1.0
    if not index.is_file() and split in TEST_RATIO:
        index, ratio = qa / "split" / "test.index", TEST_RATIO[split]
    wanted = read_text(index, "split file").split()
    wanted = wanted[: int(len(wanted) * ratio)]
    by_id = {question.id: (line, question) for line, question in rows.good}
    refused = {row.key for row in rows.refused if row.key is not None}
    unknown = [i for i in wanted if i not in by_id and i not in refused]
    if unknown:
        raise InputError(f"{index}: {len(unknown)} id(s) not in stark_qa.csv, e.g. {unknown[0][:40]!r}")
    chosen = [by_id[i] for i in wanted if i in by_id]
    if not chosen and wanted:
        raise InputError(f"{index}: every question of split {split} is in a refused row of {rows.source}")
    return Rows(rows.source, chosen, rows.refused)


def load_questions(qa: Path, split: str = "test", max_chars: int | None = None) -> list[Question]:
    """The questions of ``split`` from a CSV file or a STaRK QA folder (:func:`read_eval_questions`), refused whole
    at the first row that is not a question; ``max_chars``: the longest query taken (the configuration's
    ``max_question_chars``)."""
    return [question for _, question in read_eval_questions(qa, split, max_chars, strict=True).good]
