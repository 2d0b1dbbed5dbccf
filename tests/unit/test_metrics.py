"""STaRK metrics against hand-computed values, and the real STaRK question files (``kgqa eval`` itself:
tests/integration/test_eval.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgqa.errors import InputError
from kgqa.lab.metrics import evaluate, mean_metrics, rank_by_scores
from kgqa.lab.qa import load_questions, read_csv
from tests.helpers.stark_qa import STARK


def test_metrics_by_hand() -> None:
    ranked = ["a", "b", "c", "d", "e", "f"]
    # gold at ranks 2 and 6, one gold answer never retrieved
    assert evaluate(ranked, {"b", "f", "z"}) == {
        "hit@1": 0.0,
        "hit@5": 1.0,
        "hit@20": 1.0,
        "recall@20": 2 / 3,
        "mrr": 0.5,
    }
    assert evaluate(ranked, {"a"}) == {"hit@1": 1.0, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 1.0}
    assert evaluate(ranked, {"f"})["hit@5"] == 0.0 and evaluate(ranked, {"f"})["mrr"] == pytest.approx(1 / 6)
    assert evaluate([], {"a"}) == {"hit@1": 0.0, "hit@5": 0.0, "hit@20": 0.0, "recall@20": 0.0, "mrr": 0.0}
    # recall@20 only counts the first 20
    long = [str(i) for i in range(30)]
    assert evaluate(long, {"5", "25"})["recall@20"] == 0.5 and evaluate(long, {"25"})["hit@20"] == 0.0


def test_string_and_int_ids_compare_equal() -> None:
    assert (
        evaluate(["42", "7"], [7])
        == evaluate([42, 7], ["7"])
        == {"hit@1": 0.0, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 0.5}
    )


def test_ties_keep_list_order() -> None:
    assert rank_by_scores({"x": 0.5, "y": 0.9, "z": 0.5, "w": 0.9}) == ["y", "w", "x", "z"]
    assert evaluate(rank_by_scores({"x": 0.5, "gold": 0.5}), {"gold"})["mrr"] == 0.5


def test_mean_metrics() -> None:
    rows = [evaluate(["a"], {"a"}), evaluate(["a", "b"], {"b"})]
    assert mean_metrics(rows) == {"hit@1": 0.5, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 0.75, "n": 2}


def test_real_stark_question_files_load() -> None:
    if not STARK.is_dir():
        pytest.skip(f"no STaRK question sets at {STARK}")
    test = load_questions(STARK / "primekg", "test")
    assert len(test) == 2801 and all(q.answers for q in test)
    assert len(load_questions(STARK / "primekg", "human")) == 109
    assert len(load_questions(STARK / "mag", "val")) > 0 and len(load_questions(STARK / "amazon", "test")) > 0
    subset = load_questions(STARK / "primekg", "test-0.1")
    assert subset == test[:280]  # STaRK's get_idx_split(test_ratio=0.1): int(0.1 * 2801) ids in file order


def test_test_subset_file_wins_over_the_ratio(tmp_path: Path) -> None:
    (tmp_path / "stark_qa").mkdir()
    (tmp_path / "split").mkdir()
    rows = "".join(f"{i},question {i},[{i}]\n" for i in range(30))
    (tmp_path / "stark_qa" / "stark_qa.csv").write_text("id,query,answer_ids\n" + rows)
    (tmp_path / "split" / "test.index").write_text("\n".join(str(i) for i in range(29, 9, -1)))
    assert [q.id for q in load_questions(tmp_path, "test-0.1")] == ["29", "28"]
    (tmp_path / "split" / "test-0.1.index").write_text("7\n3\n")
    assert [q.id for q in load_questions(tmp_path, "test-0.1")] == ["7", "3"]


def test_bad_question_files_are_input_errors(tmp_path: Path) -> None:
    bad = tmp_path / "q.csv"
    bad.write_text("id,question\n1,x\n")
    with pytest.raises(InputError, match="missing column"):
        read_csv(bad)
    bad.write_text("id,query,answer_ids\n1,hello,not a list\n")
    with pytest.raises(InputError, match=r"q\.csv:2: answer_ids 'not a list' is not a list"):
        read_csv(bad)
    with pytest.raises(InputError, match="unknown split"):
        load_questions(tmp_path, "dev")
    with pytest.raises(InputError, match="no question file"):
        load_questions(tmp_path, "test")
