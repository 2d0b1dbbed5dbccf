"""``kgqa train-reader`` on the loaded PRIME fixture: the reader is saved beside the SKB with its vocabulary, a rerun
with the same settings keeps it, a killed run resumes from the questions it made, and ``kgqa ask`` then links a
misspelt name and reads the answer type with it (``reader = false`` asks without it)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.runtime.app import Kgqa
from kgqa.runtime.reader import find_reader
from kgqa.runtime.reader.families import FAMILIES
from kgqa.runtime.reader.training import ReaderSettings, train, work_folder

ARGS = ["--questions", "2", "--seed", "3"]


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env


def test_train_reader_saves_a_reader_that_ask_uses(loaded: dict[str, str], home: Path, config: Any) -> None:
    config = replace(config, link_threshold=0.99)  # the tiny model finds every short text alike: exact names only
    question = "Which drugs treat migriane?"
    with Kgqa(config) as kg:
        before = kg.ask(question, "prime", top_k=3)
    assert "'migriane' ->" not in before.trace.record(2).detail  # as typed, it names nothing

    result = CliRunner().invoke(main, ["train-reader", "--skb", "prime", *ARGS], env=loaded)
    assert result.exit_code == 0, result.output
    assert "trained the reader of 'prime'" in result.output
    reader = find_reader(home, "prime")
    assert reader is not None and reader.spelling.counts["migraine"] >= 1
    assert reader.info["questions"] > 0 and reader.info["examples"] >= reader.info["questions"]
    assert {p.name for p in work_folder(home, "prime").iterdir()} == {f"{f}.json" for f in FAMILIES}

    again = CliRunner().invoke(main, ["train-reader", "--skb", "prime", *ARGS], env=loaded)
    assert again.exit_code == 0 and "already trained" in again.output

    with Kgqa(config) as kg:
        answer = kg.ask(question, "prime", top_k=3)
        off = kg.with_config(replace(config, reader=False)).ask(question, "prime", top_k=3)
    # respelled, the span is the disease's exact name; the words as written stay the span
    assert "'migriane' -> disease 'migraine' (1.00)" in answer.trace.record(2).detail
    assert "'migriane' ->" not in off.trace.record(2).detail


def test_a_killed_run_resumes_from_the_questions_it_made(
    loaded: dict[str, str], config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgqa.runtime.reader.training as tr

    settings = ReaderSettings("prime", questions_per_family=2, seed=3)
    real = tr.fit_types
    calls: list[int] = []

    def killed(*args: Any) -> Any:
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(tr, "fit_types", killed)
    with Kgqa(config) as kg, pytest.raises(KeyboardInterrupt):
        train(kg, settings)
    assert (work_folder(config.home, "prime") / "lay.json").is_file()
    assert find_reader(config.home, "prime") is None

    generated: list[int] = []
    real_generate = tr.generate

    def counted(*args: Any, **kwargs: Any) -> Any:
        generated.append(1)
        return real_generate(*args, **kwargs)

    monkeypatch.setattr(tr, "fit_types", real)
    monkeypatch.setattr(tr, "generate", counted)
    with Kgqa(config) as kg:
        outcome = train(kg, settings)
    assert not generated and not outcome.already  # the questions were read back, not made again
    assert find_reader(config.home, "prime") is not None and calls == [1]
    # a family left out reads the others back; another count makes them again
    with Kgqa(config) as kg:
        train(kg, replace(settings, families=("lay", "esl")))
        assert not generated
        train(kg, replace(settings, questions_per_family=1))
    assert len(generated) == len(FAMILIES)


def test_a_load_with_reader_on_load_trains_the_reader_and_keeps_it_when_up_to_date(
    cli_env: dict[str, str], prime_dir: Path, home: Path
) -> None:
    env = {**cli_env, "KGQA_READER_ON_LOAD": "1", "KGQA_READER_QUESTIONS": "3"}  # a few: the load path, not the model
    first = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=env)
    assert first.exit_code == 0, first.output
    assert "prime: question reader trained in" in first.output
    reader = find_reader(home, "prime")
    assert reader is not None
    again = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=env)
    assert again.exit_code == 0 and "prime: question reader up to date" in again.output
    kept = find_reader(home, "prime")
    assert kept is not None and kept.key == reader.key
    small = {**env, "KGQA_READER_MAX_NODES": "7"}  # the fixture has 8: a load at MAG's size leaves the reader
    forced = CliRunner().invoke(
        main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir), "--force"], env=small
    )
    assert forced.exit_code == 0, forced.output
    assert "prime: question reader not trained on load at this size (8 nodes, reader_max_nodes 7)" in forced.output
    assert "kgqa train-reader --skb prime trains it" in forced.output
