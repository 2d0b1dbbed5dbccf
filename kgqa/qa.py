"""STaRK question files: ``id,query,answer_ids[,answer_ids_source]`` CSVs and ``split/{train,val,test}.index``.

``test-0.1`` is the subset many papers report: ``split/test-0.1.index`` when the folder has it, else what STaRK's
``get_idx_split(test_ratio=0.1)`` takes, the first ``int(0.1 * len(test))`` ids of ``test.index`` in file order.

Accepted layouts for ``--qa``: a CSV file, or a STaRK QA folder (``<dir>/stark_qa/stark_qa.csv`` and
``<dir>/split/*.index``, as in stark_qa downloads); ``--split human`` reads ``stark_qa_human_generated_eval.csv``.
Answer ids may be ints or strings; kgqa keeps them as strings.
"""

from __future__ import annotations

import ast
import csv
from dataclasses import dataclass
from pathlib import Path

from kgqa.errors import InputError

SPLITS = ("train", "val", "test", "test-0.1", "human", "all")
TEST_RATIO = {"test-0.1": 0.1}


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    answers: tuple[str, ...]


def _parse_answers(raw: str, where: str) -> tuple[str, ...]:
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError) as exc:
        raise InputError(f"{where}: answer_ids {raw[:60]!r} is not a list") from exc
    if not isinstance(value, list | tuple) or not all(isinstance(v, int | str) for v in value):
        raise InputError(f"{where}: answer_ids must be a list of ids, got {raw[:60]!r}")
    return tuple(str(v) for v in value)


def read_csv(path: Path) -> list[Question]:
    if not path.is_file():
        raise InputError(f"no question file {path}")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"id", "query", "answer_ids"} - set(reader.fieldnames or ())
        if missing:
            raise InputError(f"{path}: missing column(s) {', '.join(sorted(missing))} (need id, query, answer_ids)")
        out = []
        for line, row in enumerate(reader, 2):
            where = f"{path}:{line}"
            if not (row["query"] or "").strip():
                raise InputError(f"{where}: empty query")
            out.append(Question(str(row["id"]).strip(), row["query"].strip(), _parse_answers(row["answer_ids"], where)))
    return out


def load_questions(qa: Path, split: str = "test") -> list[Question]:
    """The questions of ``split`` from a CSV file or a STaRK QA folder."""
    if split not in SPLITS:
        raise InputError(f"unknown split '{split}' (use one of: {', '.join(SPLITS)})")
    if qa.is_file():
        if split not in ("all", "test", "human"):
            raise InputError(f"--split {split} needs a STaRK QA folder with split/*.index, not a single CSV")
        return read_csv(qa)
    folder = qa / "stark_qa"
    if split == "human":
        return read_csv(folder / "stark_qa_human_generated_eval.csv")
    questions = read_csv(folder / "stark_qa.csv")
    if split == "all":
        return questions
    index = qa / "split" / f"{split}.index"
    ratio = 1.0
    if not index.is_file() and split in TEST_RATIO:
        index, ratio = qa / "split" / "test.index", TEST_RATIO[split]
    if not index.is_file():
        raise InputError(f"no split file {index}")
    wanted = index.read_text().split()
    wanted = wanted[: int(len(wanted) * ratio)]
    by_id = {q.id: q for q in questions}
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise InputError(f"{index}: {len(unknown)} id(s) not in stark_qa.csv, e.g. {unknown[0]}")
    return [by_id[i] for i in wanted]
