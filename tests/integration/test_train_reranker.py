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

from kgqa.app import Kgqa
from kgqa.cli import main
from kgqa.config import load_config
from kgqa.errors import ConfigError
from kgqa.questions import split_of
from kgqa.train_reranker import Paths, find_trained, read_examples

ARGS = ["--questions", "4", "--negatives", "2", "--seed", "3"]


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env


def _train(env: dict[str, str], *extra: str) -> Any:
    args = ["train-reranker", "--skb", "prime", *ARGS, "--base-model", env["KGQA_EMBEDDER"], *extra]
    return CliRunner().invoke(main, args, env=env)


def test_train_reranker_saves_a_model_that_cross_encoder_uses_without_a_path(
    loaded: dict[str, str], home: Path, tiny_model: Path, tmp_path: Path
) -> None:
    config = load_config({"home": home, "embedder": str(tiny_model)}, env={}, cwd=tmp_path)
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

    # the trained model reranks without a path, as the same model loaded by path does
    trained = find_trained(home, "prime")
    assert trained is not None
    by_path = replace(by_name, cross_encoder=str(trained.path))
    with Kgqa(by_name) as kg:
        answer = kg.ask("Which drugs treat migraine?", "prime", top_k=4)
        same = kg.with_config(by_path).ask("Which drugs treat migraine?", "prime", top_k=4)
    assert answer.trace.reranker == "cross-encoder" and answer.trace.record(8).status == "ran"
    assert [c.id for c in answer.answers] == [c.id for c in same.answers]
