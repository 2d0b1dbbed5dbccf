"""``kgqa eval`` on the loaded fixture: results.json, ablation rows, resuming (the metrics themselves:
tests/unit/test_metrics.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import load_config
from kgqa.errors import InputError
from kgqa.lab.evaluate import (
    ABLATION,
    eval_settings,
    load_records,
    parse_record,
    records_path,
    run_eval,
    settings_path,
    strict_loads,
)
from kgqa.lab.metrics import evaluate
from kgqa.lab.qa import Question
from kgqa.runtime.app import Kgqa
from tests.helpers.environment import QUIET
from tests.helpers.stark_qa import STARK


def test_eval_on_an_unloaded_skb_fails_in_one_line(cli_env: dict[str, str]) -> None:
    if not STARK.is_dir():
        pytest.skip(f"no STaRK question sets at {STARK}")
    result = CliRunner().invoke(main, ["eval", "--skb", "prime", "--qa", str(STARK / "primekg")], env=cli_env)
    assert result.exit_code == 1
    assert "read 2801 questions (test)" in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "error: SKB 'prime' is not loaded; run: kgqa load stark --name prime --dir PROCESSED_DIR"
    )


QUESTIONS = [
    Question("q1", "Which drugs are indicated for migraine?", ("3",)),
    Question("q2", "Which drug treats strongyloidiasis?", ("2",)),
    Question("q3", "Which genes do drugs target?", ("4", "5")),
    Question("q4", "What presents with headache?", (1,)),  # type: ignore[arg-type]  # int ids as in STaRK CSVs
]


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path, tmp_path: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    csv = tmp_path / "qa.csv"
    csv.write_text("id,query,answer_ids\n" + "".join(f'{q.id},"{q.text}","{list(q.answers)}"\n' for q in QUESTIONS))
    return {**cli_env, "QA": str(csv)}


def test_eval_writes_results_with_all_sections(loaded: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = CliRunner().invoke(
        main, ["eval", "--skb", "prime", "--qa", loaded["QA"], "--steps", "hybrid", "--out", str(out)], env=loaded
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert set(doc["metrics"]) == {"hit@1", "hit@5", "hit@20", "recall@20", "mrr", "n"} and doc["metrics"]["n"] == 4
    assert all(0.0 <= v <= 1.0 for k, v in doc["metrics"].items() if k != "n")
    assert [q["id"] for q in doc["questions"]] == ["q1", "q2", "q3", "q4"]
    assert doc["questions"][0]["metrics"] == evaluate(doc["questions"][0]["ranked"], {"3"})
    assert set(doc["steps"]["7 vector strand"]) >= {"ran", "degraded", "skipped", "median_s", "mean_s", "max_s"}
    assert doc["steps"]["8 rerank"]["skipped"] == 4
    assert set(doc["llm"]) == {
        "calls_per_question",
        "cached_calls_per_question",
        "prompt_tokens_per_question",
        "completion_tokens_per_question",
    }
    assert doc["settings"]["skb"] == "prime" and doc["settings"]["steps"] == ["hybrid"]
    assert "hit@1" in result.stdout
    assert strict_loads(out.read_text()) == doc  # strict JSON: no NaN or Infinity anywhere
    assert [parse_record(line).id for line in records_path(out).read_bytes().splitlines()] == ["q1", "q2", "q3", "q4"]
    assert strict_loads(settings_path(out).read_text())["top_k"] == 20


def test_a_corrupt_record_ends_a_resumed_eval_in_one_line_and_loses_nothing(
    loaded: dict[str, str], tmp_path: Path
) -> None:
    """A line that is neither a record nor a torn write (bytes that are not UTF-8) stops the resume, naming the file
    and line, before any question is asked; every file of the earlier run stays byte for byte."""
    out = tmp_path / "r.json"
    args = ["eval", "--skb", "prime", "--qa", loaded["QA"], "--steps", "vss", "--out", str(out)]
    assert CliRunner().invoke(main, [*args, "--limit", "2"], env=loaded).exit_code == 0
    with records_path(out).open("ab") as handle:
        handle.write(b"\xff\xfe not a record\n")
    before = {path: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    result = CliRunner().invoke(main, args, env=loaded)
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        f"error: {records_path(out)}:3 is not a record kgqa wrote ('utf-8' codec can't decode byte 0xff in position "
        f"0: invalid start byte); the file is left as it is: choose another --out, or delete {records_path(out).name} "
        f"and {settings_path(out).name} to start over"
    ]
    assert {path: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()} == before


def test_ablation_rows(loaded: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "ablation.json"
    result = CliRunner().invoke(
        main,
        ["eval", "--skb", "prime", "--qa", loaded["QA"], "--ablation", "--limit", "2", "--out", str(out)],
        env=loaded,
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert list(doc["ablation"]) == [row for row, _ in ABLATION]
    assert all(metrics["n"] == 2 for metrics in doc["ablation"].values())
    for row in ("vector strand", "graph strand", "hybrid", "hybrid + rerank"):
        assert row in result.stdout


HYBRID = [("hybrid", "hybrid")]


def _settings(kg: Kgqa, rows: list[tuple[str, str]] = HYBRID) -> dict[str, Any]:
    return eval_settings(kg, "prime", "qa.csv", "test", rows)


def test_a_killed_eval_resumes_without_recomputing(
    loaded: dict[str, str], tiny_embedder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.json"
    asked: list[str] = []
    real_ask = Kgqa.ask

    def counting_ask(self: Kgqa, question: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(question)
        return real_ask(self, question, *args, **kwargs)

    monkeypatch.setattr(Kgqa, "ask", counting_ask)
    config = load_config({"home": loaded["KGQA_HOME"], "embedder": tiny_embedder}, env=QUIET, cwd=tmp_path)

    def kill_after_two(record: Any, so_far: list[Any]) -> None:
        if len(so_far) == 2:
            raise KeyboardInterrupt  # as if killed right after the second answer was written

    with Kgqa(config) as kg, pytest.raises(KeyboardInterrupt):
        run_eval(kg, "prime", QUESTIONS, HYBRID, out, settings=_settings(kg), on_answer=kill_after_two)
    with records_path(out).open("a") as handle:
        handle.write('{"row": "hybrid", "id": "q3", "ranked": [')  # a write torn by SIGKILL
    assert [r.id for r in load_records(out)] == ["q1", "q2"]
    asked.clear()
    with Kgqa(config) as kg:
        records = run_eval(kg, "prime", QUESTIONS, HYBRID, out, settings=_settings(kg))
    assert asked == [q.text for q in QUESTIONS[2:]]  # only the unanswered ones
    assert sorted(r.id for r in records) == ["q1", "q2", "q3", "q4"]
    assert sorted(r.id for r in load_records(out)) == ["q1", "q2", "q3", "q4"]


def test_a_killed_ablation_leaves_every_row_on_the_same_questions(
    loaded: dict[str, str], tiny_embedder: str, tmp_path: Path
) -> None:
    """Rows go question by question, so the rows of a partial ablation compare on the same questions."""
    out = tmp_path / "a.json"
    config = load_config({"home": loaded["KGQA_HOME"], "embedder": tiny_embedder}, env=QUIET, cwd=tmp_path)
    rows = [("vector strand", "vss"), ("graph strand", "graph")]
    written: list[tuple[str, str]] = []

    def kill_after_three(record: Any, so_far: list[Any]) -> None:
        written.append((record.row, record.id))
        if len(written) == 3:
            raise KeyboardInterrupt

    with Kgqa(config) as kg, pytest.raises(KeyboardInterrupt):
        run_eval(kg, "prime", QUESTIONS, rows, out, settings=_settings(kg, rows), on_answer=kill_after_three)
    assert written == [("vector strand", "q1"), ("graph strand", "q1"), ("vector strand", "q2")]
    with Kgqa(config) as kg:
        records = run_eval(kg, "prime", QUESTIONS, rows, out, settings=_settings(kg, rows))
    assert sorted((r.row, r.id) for r in records) == sorted((row, q.id) for row, _ in rows for q in QUESTIONS)


def test_resuming_with_other_settings_is_refused(loaded: dict[str, str], tiny_embedder: str, tmp_path: Path) -> None:
    """Answers made with another k (or LLM, embedder, ...) must never be mixed into one table."""
    out = tmp_path / "r.json"
    config = load_config({"home": loaded["KGQA_HOME"], "embedder": tiny_embedder}, env=QUIET, cwd=tmp_path)
    with Kgqa(config) as kg:
        run_eval(kg, "prime", QUESTIONS[:1], HYBRID, out, settings=_settings(kg))
    assert json.loads(settings_path(out).read_text())["top_k"] == 20
    other = load_config({"home": loaded["KGQA_HOME"], "embedder": tiny_embedder, "top_k": 5}, env=QUIET, cwd=tmp_path)
    with Kgqa(other) as kg, pytest.raises(InputError, match="top_k: 20 then, 5 now"):
        run_eval(kg, "prime", QUESTIONS, HYBRID, out, settings=_settings(kg))
    assert len(load_records(out)) == 1  # nothing added, nothing lost
    settings_path(out).unlink()
    with Kgqa(config) as kg, pytest.raises(InputError, match="settings are unknown"):
        run_eval(kg, "prime", QUESTIONS, HYBRID, out, settings=_settings(kg))
    result = CliRunner().invoke(main, ["eval", "--skb", "prime", "--qa", loaded["QA"], "--out", str(out)], env=loaded)
    assert result.exit_code != 0 and "settings are unknown" in result.output and "Traceback" not in result.output


def test_an_over_long_question_is_skipped_and_reported_not_the_whole_file(
    loaded: dict[str, str], tmp_path: Path
) -> None:
    """Issue 34: one question over max_question_chars refused the whole file; now its row is skipped and named, the
    others are scored, and only --strict fails the command (after scoring them)."""
    qa = tmp_path / "partial.csv"
    qa.write_text(Path(loaded["QA"]).read_text() + f'q5,"{"why " * 1001}","[3]"\n')
    out = tmp_path / "results.json"
    args = ["eval", "--skb", "prime", "--qa", str(qa), "--steps", "graph", "--out", str(out)]
    result = CliRunner().invoke(main, args, env=loaded)
    assert result.exit_code == 0, result.stderr
    skipped = f"skipped {qa}:6: the query has 4,003 characters, more than max_question_chars (4000)"
    assert skipped in result.stderr.splitlines()
    assert json.loads(out.read_text())["metrics"]["n"] == 4
    strict = CliRunner().invoke(main, [*args, "--strict"], env=loaded)  # resumes: nothing is answered again
    assert strict.exit_code == 1
    assert skipped in strict.stderr.splitlines()
    assert strict.stderr.splitlines()[-1] == f"error: {qa}: 1 row refused (line 6) and --strict is set"
    assert json.loads(out.read_text())["metrics"]["n"] == 4
