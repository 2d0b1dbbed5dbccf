"""The parts of ``kgqa train-reranker`` that need no store and no model: the split, the work folder, the examples,
the choice of the trained model, and the eval rows it adds (the whole run: tests/integration/test_train_reranker.py)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from kgqa.config import Config
from kgqa.errors import ConfigError, InputError
from kgqa.lab.evaluate import ABLATION, CROSS_ENCODER_ROW, ablation_rows, cross_encoder_model, row_parts
from kgqa.lab.train_reranker import (
    Example,
    LabeledDoc,
    Paths,
    TrainSettings,
    prepare_work,
    read_examples,
    training_pairs,
)
from kgqa.runtime.context import Options
from kgqa.runtime.reader.questions import TRAIN_SHARE, as_split, in_split, split_of
from kgqa.runtime.trained import MANIFEST, Manifest, find_trained


def test_the_split_is_a_stable_hash_of_the_gold_id() -> None:
    ids = [f"HP:{i:07d}" for i in range(5000)]
    train = [i for i in ids if split_of(i) == "train"]
    assert abs(len(train) / len(ids) - TRAIN_SHARE) < 0.03
    # SHA-256, not Python's salted hash: the same partition in every process, on every machine
    for node in ids[:50]:
        bucket = int(hashlib.sha256(node.encode()).hexdigest()[:16], 16) / 2**64
        assert split_of(node) == ("train" if bucket < TRAIN_SHARE else "test")
    assert [split_of(str(i)) for i in range(8)] == ["train", "train", "test", "train", "train", "test", "test", "train"]
    assert all(in_split(i, "all") for i in ids[:20])
    assert all(in_split(i, "train") != in_split(i, "test") for i in ids[:200])
    with pytest.raises(InputError, match="split must be one of all, train, test"):
        as_split("dev")


def _example(qid: str, labels: list[int]) -> Example:
    docs = tuple(LabeledDoc(f"{qid}-{i}", f"document {i}", label) for i, label in enumerate(labels))
    return Example(qid, f"question {qid}?", docs, gold_rank=1)


def test_examples_round_trip_and_a_torn_line_is_ignored(tmp_path: Path) -> None:
    paths = Paths(tmp_path, "hpo")
    paths.work.mkdir(parents=True)
    examples = [_example("0", [1, 0, 0]), Example("1", "q?", skipped="StoreTimeoutError: slow")]
    paths.examples.write_text("".join(e.to_json() + "\n" for e in examples) + '{"question_id": "2", "quest')
    assert list(read_examples(paths).values()) == examples


def test_training_pairs_are_question_document_label_columns() -> None:
    columns = training_pairs([_example("0", [1, 0]), _example("1", [0, 1, 1])])
    assert columns["question"] == ["question 0?"] * 2 + ["question 1?"] * 3
    assert columns["document"] == ["document 0", "document 1", "document 0", "document 1", "document 2"]
    assert columns["label"] == [1.0, 0.0, 0.0, 1.0, 1.0]


def test_a_work_folder_is_resumed_only_with_its_settings(tmp_path: Path) -> None:
    paths, settings = Paths(tmp_path, "hpo"), TrainSettings("hpo", questions=10)
    prepare_work(paths, settings, force=False)
    paths.examples.write_text(_example("0", [1]).to_json() + "\n")
    prepare_work(paths, settings, force=False)  # the same settings: the work stays
    assert read_examples(paths)
    with pytest.raises(InputError, match=r"other settings \(questions: 10 then, 20 now\).*--force"):
        prepare_work(paths, replace(settings, questions=20), force=False)
    prepare_work(paths, replace(settings, questions=20), force=True)  # starts over
    assert not read_examples(paths)
    assert json.loads(paths.settings.read_text())["questions"] == 20


def test_bad_settings_are_input_errors() -> None:
    with pytest.raises(InputError, match="--epochs"):
        TrainSettings("hpo", epochs=0).check()
    with pytest.raises(InputError, match="--questions"):
        TrainSettings("hpo", questions=0).check()
    with pytest.raises(Exception, match="unknown SKB 'nope'"):
        TrainSettings("nope").check()


def _manifest(tmp_path: Path, skb: str = "hpo", trained_at: str = "2026-01-01T00:00:00+00:00") -> Path:
    folder = Paths(tmp_path, skb).model
    folder.mkdir(parents=True)
    settings = asdict(TrainSettings(skb))
    manifest = Manifest(skb, settings, 3, 0, 30, 6, 24, 1.0, 2, 2, True, None, 1.0, 2.0, trained_at)
    (folder / MANIFEST).write_text(json.dumps(asdict(manifest)))
    return folder


def test_find_trained_needs_the_manifest(tmp_path: Path) -> None:
    assert find_trained(tmp_path, "hpo") is None
    Paths(tmp_path, "hpo").model.mkdir(parents=True)  # a folder without its manifest: not a model (yet)
    assert find_trained(tmp_path, "hpo") is None
    (Paths(tmp_path, "hpo").manifest).write_text("{not json")
    with pytest.raises(ConfigError, match="train-reranker --force"):
        find_trained(tmp_path, "hpo")


def test_find_trained_reads_the_manifest_and_keys_the_model_by_its_training(tmp_path: Path) -> None:
    folder = _manifest(tmp_path)
    trained = find_trained(tmp_path, "hpo")
    assert trained is not None and trained.path == folder and trained.manifest.pairs == 30
    assert trained.key == f"{folder}@2026-01-01T00:00:00+00:00"


def test_cross_encoder_uses_the_configured_path_else_the_trained_model_else_says_how_to_get_one() -> None:
    full = Config(reranker="cross-encoder", steps="full")
    with pytest.raises(ConfigError, match=r"needs 'cross_encoder'.*run kgqa train-reranker --skb hpo"):
        Options.from_config(full, ["disease"], has_llm=False, skb="hpo")
    assert Options.from_config(full, ["disease"], False, skb="hpo", trained="/t").cross_encoder == "/t"
    configured = replace(full, cross_encoder="/mine")
    assert Options.from_config(configured, ["disease"], False, skb="hpo", trained="/t").cross_encoder == "/mine"
    # auto without an LLM reranks only with a configured cross-encoder, never with a trained one by itself
    auto = replace(full, reranker="auto")
    assert Options.from_config(auto, ["disease"], False, skb="hpo", trained="/t").reranker == "none"
    assert Options.from_config(replace(auto, cross_encoder="/m"), ["d"], False).reranker == "cross-encoder"
    # steps before 8 load no model
    assert Options.from_config(replace(full, steps="hybrid"), ["d"], False).cross_encoder is None


def test_ablation_gains_the_cross_encoder_row_without_an_llm_when_there_is_a_model(tmp_path: Path) -> None:
    config = Config(home=tmp_path)
    assert ablation_rows(config, "hpo") == list(ABLATION)  # no model
    _manifest(tmp_path)
    assert ablation_rows(config, "hpo") == [*ABLATION, CROSS_ENCODER_ROW]
    assert ablation_rows(config, "prime") == list(ABLATION)  # trained for another SKB
    assert ablation_rows(replace(config, llm="openai:m"), "hpo") == list(ABLATION)  # the LLM reranks
    # "hybrid + rerank" already reranks with the cross-encoder: no second row of the same
    assert ablation_rows(replace(config, reranker="cross-encoder"), "hpo") == list(ABLATION)
    assert ablation_rows(replace(Config(home=tmp_path / "x"), cross_encoder="/m"), "hpo") == list(ABLATION)
    assert ablation_rows(replace(Config(home=tmp_path / "x"), cross_encoder="/m", reranker="none"), "hpo") == [
        *ABLATION,
        CROSS_ENCODER_ROW,
    ]
    assert row_parts(CROSS_ENCODER_ROW) == ("hybrid + cross-encoder", "full", "cross-encoder")
    assert row_parts(("hybrid", "hybrid")) == ("hybrid", "hybrid", None)


def test_eval_settings_name_the_trained_model_only_where_a_row_uses_it(tmp_path: Path) -> None:
    config = Config(home=tmp_path)
    folder = _manifest(tmp_path)
    key = f"{folder}@2026-01-01T00:00:00+00:00"
    assert cross_encoder_model(config, "hpo", list(ABLATION)) is None
    assert cross_encoder_model(config, "hpo", [*ABLATION, CROSS_ENCODER_ROW]) == key
    assert cross_encoder_model(replace(config, reranker="cross-encoder"), "hpo", [("full", "full")]) == key
    assert cross_encoder_model(replace(config, reranker="cross-encoder"), "hpo", [("h", "hybrid")]) is None
    configured = replace(config, reranker="cross-encoder", cross_encoder="/m")
    assert cross_encoder_model(configured, "hpo", [("full", "full")]) is None  # its path is in the settings
