"""``kgqa train-reranker`` on the loaded PRIME fixture with the tiny random BERT as base model: the model and its
manifest are saved, a rerun resumes instead of redoing work, ``--reranker cross-encoder`` then uses the model
without a path, and ``kgqa eval --ablation`` gains its row."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import load_config
from kgqa.errors import ConfigError
from kgqa.lab.train_reranker import Paths, TrainSettings, read_examples, train
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader.questions import split_of
from kgqa.runtime.steps.s8_rerank import fit_budget, render_as, rerank_documents
from kgqa.runtime.trained import find_trained
from tests.helpers.environment import QUIET

ARGS = ["--questions", "4", "--negatives", "2", "--seed", "3"]


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env


def _train(env: dict[str, str], *extra: str) -> Any:
    base = env["KGQA_EMBEDDER"].removeprefix("onnx:")  # the tiny model's folder (the embedder runs it through ONNX)
    args = ["train-reranker", "--skb", "prime", *ARGS, "--base-model", base, *extra]
    return CliRunner().invoke(main, args, env=env)


def test_train_reranker_saves_a_model_that_cross_encoder_uses_without_a_path(
    loaded: dict[str, str], home: Path, tiny_model: Path, tmp_path: Path
) -> None:
    config = load_config({"home": home, "embedder": f"onnx:{tiny_model}"}, env=QUIET, cwd=tmp_path)
    by_name = replace(config, reranker="cross-encoder")
    with Kgqa(by_name) as kg, pytest.raises(ConfigError, match="run kgqa train-reranker --skb prime"):
        kg.ask("Which drugs treat migraine?", "prime")

    result = _train(loaded)
    assert result.exit_code == 0, result.output
    paths = Paths(home, "prime")
    manifest = json.loads(paths.manifest.read_text())
    assert manifest["complete"] and manifest["stopped"] is None and manifest["steps"] == manifest["total_steps"] > 0
    assert manifest["questions"] == 4 and manifest["pairs"] == manifest["positives"] + manifest["negatives"]
    assert manifest["positives"] >= 4 and manifest["settings"]["base_model"] == str(tiny_model)
    assert (paths.model / "config.json").is_file() and not paths.checkpoints.exists()
    questions = json.loads(paths.questions.with_name("questions.meta.json").read_text())
    assert questions["split"] == "train"
    assert all(split_of(q["gold_id"]) == "train" for q in questions["questions"])
    examples = read_examples(paths)
    assert len(examples) == 4
    for example, info in zip(examples.values(), questions["questions"], strict=True):
        labels = {d.id: d.label for d in example.docs}
        assert {i for i, label in labels.items() if label} <= set(info["answer_ids"])
        assert not {i for i, label in labels.items() if not label} & set(info["answer_ids"])
        assert 1 <= sum(labels.values()) <= 2 and len(labels) - sum(labels.values()) <= 2
    assert "trained" in result.output

    again = _train(loaded)  # the same settings: nothing to do
    assert again.exit_code == 0 and "already trained" in again.output
    other = _train(loaded, "--epochs", "2")
    assert other.exit_code == 1 and "other settings" in other.output and "--force" in other.output

    # the trained model reranks without a path, scoring the merged candidates' texts led by their evidence
    trained = find_trained(home, "prime")
    assert trained is not None and trained.manifest.evidence
    question = "Which drugs treat migraine?"
    with Kgqa(by_name) as kg:
        answer = kg.ask(question, "prime", top_k=4)
        merged = kg.ask(question, "prime", top_k=4, steps="hybrid").answers
        docs = rerank_documents(kg.store, "prime", merged)
        texts = render_as(docs, fit_budget(docs, config.rerank_budget_tokens), evidence=True)
        by_path = kg.with_config(replace(by_name, cross_encoder=str(trained.path))).ask(question, "prime", top_k=4)
    assert answer.trace.reranker == "cross-encoder" and answer.trace.record(8).status == "ran"
    assert "with the pipeline's evidence" in answer.trace.record(8).detail
    assert texts[0].startswith(f"{merged[0].name} ({merged[0].type}) [rank 1, ")
    from sentence_transformers import CrossEncoder  # torch: only where a test needs it, not at collection

    scores = CrossEncoder(str(trained.path), local_files_only=True).predict([(question, t) for t in texts])
    assert [c.id for c in answer.answers] == [merged[i].id for i in sorted(range(len(texts)), key=lambda i: -scores[i])]
    assert len(set(map(float, scores))) == len(scores)  # no ties: the order is the model's
    # a model given by path is any CrossEncoder: it reads the documents alone
    assert "evidence" not in by_path.trace.record(8).detail


def test_a_killed_or_budget_stopped_run_resumes_without_redoing_work(
    loaded: dict[str, str], config: Any, tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgqa.lab.train_reranker as tr

    settings = TrainSettings("prime", questions=4, negatives=2, seed=3, base_model=str(tiny_model), batch_size=2)
    settings = replace(settings, epochs=2.0, embedder=config.embedder)
    made: list[str] = []
    real = tr.question_example

    def killed_after_two(kg: Any, question: Any, s: TrainSettings) -> Any:
        if len(made) == 2:
            raise KeyboardInterrupt
        made.append(question.id)
        return real(kg, question, s)

    monkeypatch.setattr(tr, "question_example", killed_after_two)
    with pytest.raises(KeyboardInterrupt):
        train(config, settings)
    paths = Paths(config.home, "prime")
    assert list(read_examples(paths)) == made == ["0", "1"] and find_trained(config.home, "prime") is None

    def counted(kg: Any, question: Any, s: TrainSettings) -> Any:
        made.append(question.id)
        return real(kg, question, s)

    monkeypatch.setattr(tr, "question_example", counted)
    notices: list[str] = []
    stopped = train(config, settings, max_minutes=1e-9, checkpoint_steps=100, notice=notices.append)
    assert made == ["0", "1", "2", "3"]  # the two made before the kill were read back
    manifest = stopped.trained.manifest
    assert not manifest.complete and manifest.stopped == "time budget of 1e-09 min"
    assert manifest.steps == 1 < manifest.total_steps and manifest.questions == 4
    assert (paths.checkpoints / "checkpoint-1").is_dir()  # saved at the stop, though not a checkpoint step
    assert (stopped.trained.path / "model.safetensors").is_file()  # the model so far is usable

    resumed = train(config, settings, max_minutes=None, notice=notices.append)
    assert made == ["0", "1", "2", "3"]  # nothing collected again
    assert "resuming fine-tuning from checkpoint-1" in notices
    assert resumed.trained.manifest.complete and resumed.trained.manifest.steps == manifest.total_steps
    assert not paths.checkpoints.exists() and resumed.trained.manifest.trained_at >= manifest.trained_at
    assert train(config, settings).already


def test_a_question_the_pipeline_cannot_answer_is_recorded_and_skipped(
    loaded: dict[str, str], config: Any, tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgqa.errors import StoreTimeoutError

    real, asked = Kgqa.ask, []

    def slow_first(self: Kgqa, question: str, skb: str, **kwargs: Any) -> Any:
        asked.append(question)
        if len(asked) == 1:
            raise StoreTimeoutError("the query ran past 1 s")
        return real(self, question, skb, **kwargs)

    monkeypatch.setattr(Kgqa, "ask", slow_first)
    notices: list[str] = []
    settings = TrainSettings("prime", questions=3, negatives=2, seed=3, base_model=str(tiny_model))
    outcome = train(config, replace(settings, embedder=config.embedder), notice=notices.append)
    assert outcome.trained.manifest.skipped == 1 and outcome.trained.manifest.questions == 2
    assert any("skipped: StoreTimeoutError: the query ran past 1 s" in n for n in notices)
    skipped = [e for e in read_examples(Paths(config.home, "prime")).values() if e.skipped]
    assert len(skipped) == 1 and not skipped[0].docs


def test_eval_ablation_gains_the_cross_encoder_row(loaded: dict[str, str], tmp_path: Path) -> None:
    csv = tmp_path / "qa.csv"
    csv.write_text('id,query,answer_ids\nq1,"Which drugs are indicated for migraine?","[3]"\n')
    args = ["eval", "--skb", "prime", "--qa", str(csv), "--ablation", "--llm", "none"]
    before = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "before.json")], env=loaded)
    assert before.exit_code == 0, before.output
    assert "hybrid + cross-encoder" not in json.loads((tmp_path / "before.json").read_text())["ablation"]
    assert _train(loaded).exit_code == 0
    after = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "after.json")], env=loaded)
    assert after.exit_code == 0, after.output
    doc = json.loads((tmp_path / "after.json").read_text())
    assert list(doc["ablation"])[-1] == "hybrid + cross-encoder" and "hybrid + cross-encoder" in after.stdout
    assert doc["settings"]["rerankers"] == [None, None, None, None, "cross-encoder"]
    assert doc["settings"]["cross_encoder_model"].startswith(str(Paths(Path(loaded["KGQA_HOME"]), "prime").model))
    steps = {r["row"]: r["steps"] for r in map(json.loads, (tmp_path / "after.json.jsonl").read_text().splitlines())}
    rerank = {row: next(s for s in rows if s["step"] == 8) for row, rows in steps.items()}
    assert rerank["hybrid + cross-encoder"]["status"] == "ran" and rerank["hybrid + rerank"]["status"] != "ran"
