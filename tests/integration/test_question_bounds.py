"""Question-side bounds through the API and the CLI over the embedded store (issue 18, item 2): a question longer
than ``max_question_chars`` is refused before anything is embedded or asked; one at the limit is answered, its
entity linking cut at ``max_link_ngrams`` spans with the cut in the trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import load_config
from kgqa.errors import QuestionError
from kgqa.runtime.app import Kgqa
from tests.helpers.environment import QUIET
from tests.helpers.scripted_llm import ScriptedEndpoint

FILLER = " ".join(f"w{i}" for i in range(700))
LONG = f"Which drugs are indicated for migraine? {FILLER} ivermectin"
"""~3,900 characters, ~4,200 spans: linking reads the spans of the first words (migraine), not ivermectin's"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str, prime_dir: Path) -> Path:
    home = tmp_path_factory.mktemp("bounds") / "home"
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        kg.load("prime", prime_dir)
    return home


def _kgqa(home: Path, tiny_embedder: str, **settings: Any) -> Kgqa:
    overrides = {"home": home, "embedder": tiny_embedder, "llm_cache": False, **settings}
    return Kgqa(load_config(overrides, env=QUIET, cwd=home.parent))


def test_a_question_past_the_limit_is_refused_before_it_is_embedded_or_asked(
    home: Path, tiny_embedder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = ScriptedEndpoint([])
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    settings = {"llm": "openai:scripted", "openai_base_url": "http://scripted.invalid/v1", "max_question_chars": 100}
    with _kgqa(home, tiny_embedder, **settings) as kg:
        with pytest.raises(QuestionError, match=r"the question has 101 characters; the limit is 100 \(max_quest"):
            kg.ask("q" * 101, "prime")
        assert (kg.embedder.stats.computed, kg.embedder.stats.cached) == (0, 0)
    assert endpoint.requests == []


def test_a_question_at_the_limit_is_answered_with_linking_cut_and_said(home: Path, tiny_embedder: str) -> None:
    assert len(LONG) <= 4000
    with _kgqa(home, tiny_embedder, llm="none", link_threshold=0.9999) as kg:
        answer = kg.ask(LONG, "prime", types=["drug"])
    step2 = answer.trace.record(2)
    assert step2.status == "degraded" and "'migraine' -> disease 'migraine'" in step2.detail
    assert "ivermectin" not in step2.detail  # past the cut: not linked (it is a drug's exact name)
    assert len(answer.trace.bounds) == 1 and answer.trace.bounds[0] in step2.detail
    assert "words only (1,000 of" in answer.trace.bounds[0] and "max_link_ngrams = 1,000" in answer.trace.bounds[0]
    assert answer.answers[0].id == "3" and answer.answers[0].strands[0] == "graph"  # sumatriptan, for migraine


def test_cli_refuses_a_long_question_with_exit_2_and_asks_the_other_lines(home: Path, tiny_embedder: str) -> None:
    env = {"KGQA_HOME": str(home), "KGQA_EMBEDDER": tiny_embedder, "KGQA_LLM": "none"}
    result = CliRunner().invoke(main, ["ask", "q" * 4001, "--skb", "prime"], env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        "error: the question has 4,001 characters; the limit is 4,000 (max_question_chars)"
    ]
    lines = f"Which drugs are indicated for migraine?\n{'q' * 4001}\nWhich drugs treat strongyloidiasis?\n"
    result = CliRunner().invoke(main, ["ask", "-", "--skb", "prime", "--json"], env=env, input=lines)
    assert result.exit_code == 0, result.output  # a refused line is skipped unless --strict
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3] and "error" not in out[0] and "error" not in out[2]
    assert out[1]["error"] == {
        "type": "QuestionError",
        "message": "the question has 4,001 characters; the limit is 4,000 (max_question_chars)",
    }
    assert out[0]["trace"]["bounds"] == []
    strict = CliRunner().invoke(main, ["ask", "-", "--skb", "prime", "--json", "--strict"], env=env, input=lines)
    answered = [(o["line"], o.get("answers"), o.get("error")) for o in map(json.loads, strict.stdout.splitlines())]
    assert strict.exit_code == 1 and answered == [(o["line"], o.get("answers"), o.get("error")) for o in out]
    assert strict.stderr.strip().splitlines()[-1] == "error: <stdin>: 1 row refused (line 2) and --strict is set"


def test_a_question_that_repeats_itself_joins_each_entity_once(home: Path, tiny_embedder: str) -> None:
    question = ("Which drugs are indicated for migraine? " * 100)[:3999]
    with _kgqa(home, tiny_embedder, llm="none", link_threshold=0.9999) as kg:
        answer = kg.ask(question, "prime", types=["drug"])
    assert answer.trace.record(2).detail.count("-> disease 'migraine'") == 100  # every mention links
    assert answer.trace.plan is not None and len(answer.trace.plan["triplets"]) == 1  # one triplet joins them
    assert answer.trace.bounds == [] and answer.trace.record(5).status == "ran"
    assert answer.answers[0].id == "3"
