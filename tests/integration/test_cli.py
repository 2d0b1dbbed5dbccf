"""The command line, in-process with click's CliRunner, on the embedded store: outputs, JSON shape, one-line errors
(those found before the store starts: tests/unit/test_cli_errors.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kgqa.runtime.embed import SentenceTransformerEncoder
from kgqa.runtime.store.falkordb import FalkorStore
from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.stark_fixture import EDGES, NODES


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = run(cli_env, "load", "stark", "--name", "prime", "--dir", str(prime_dir))
    assert result.exit_code == 0, result.stderr
    assert f"loaded {len(NODES)} nodes, {len(EDGES)} edges" in result.stderr
    return cli_env


@pytest.fixture
def counted(loaded: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """After the first load: how many graphs the store writes and how many texts the encoder embeds (the CLI runs
    in-process)."""
    counts = {"graphs written": 0, "texts embedded": 0}
    real_writer, real_encode = FalkorStore.writer, SentenceTransformerEncoder.encode

    def writer(self: FalkorStore, *args: Any, **kwargs: Any) -> Any:
        counts["graphs written"] += 1
        return real_writer(self, *args, **kwargs)

    def encode(self: SentenceTransformerEncoder, texts: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        counts["texts embedded"] += len(texts)
        return real_encode(self, texts, *args, **kwargs)

    monkeypatch.setattr(FalkorStore, "writer", writer)
    monkeypatch.setattr(SentenceTransformerEncoder, "encode", encode)
    return counts


def test_load_twice_is_up_to_date_and_force_reuses_the_cache(
    loaded: dict[str, str], counted: dict[str, int], prime_dir: Path
) -> None:
    again = run(loaded, "load", "stark", "--name", "prime", "--dir", str(prime_dir))
    assert again.exit_code == 0 and counted == {"graphs written": 0, "texts embedded": 0}
    assert "already loaded and up to date (8 nodes, 8 edges)" in again.stderr  # what the user is told
    forced = run(loaded, "load", "stark", "--name", "prime", "--dir", str(prime_dir), "--force")
    assert forced.exit_code == 0 and counted == {"graphs written": 1, "texts embedded": 0}  # every vector cached
    # 8 names and the 2 gene aliases of the fixture, then 8 documents with relations and 8 plain documents
    assert re.search(
        r"\(0 texts embedded, 10 from cache, nodes [\d.]+ s, edges [\d.]+ s, publish [\d.]+ s\)", forced.stderr
    )
    assert "prime: document vectors 0 embedded, 16 from cache in 0 s" in forced.stderr


def test_ask_json_shape(loaded: dict[str, str]) -> None:
    """``--steps vss`` is the foundation's vector strand: top k over all candidate types, steps 1-6 and 8 skipped."""
    result = run(
        loaded,
        "ask",
        "Which drug treats strongyloidiasis?",
        "--skb",
        "prime",
        "--top-k",
        "3",
        "--json",
        "--steps",
        "vss",
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["question"] == "Which drug treats strongyloidiasis?"
    assert len(out["answers"]) == 3
    keys = {"rank", "id", "type", "name", "score", "relevance", "why", "strands", "round_l", "plan", "plans", "matches"}
    assert set(out["answers"][0]) == keys
    assert all(a["strands"] == ["vector"] and a["plan"] is None for a in out["answers"])
    scores = [a["score"] for a in out["answers"]]
    assert scores == sorted(scores, reverse=True)
    trace = out["trace"]
    assert trace["steps_mode"] == "vss" and trace["k"] == 3 and trace["llm"] == "none"
    assert [(s["step"], s["status"]) for s in trace["steps"]] == [(n, "skipped") for n in range(1, 7)] + [
        (7, "ran"),
        (8, "skipped"),
    ]
    assert set(trace["seconds"]) == {"await_indexes", "embed_question"}
    assert trace["usage"]["calls"] == 0


def test_ask_type_filter_and_table(loaded: dict[str, str]) -> None:
    result = run(loaded, "ask", "headache", "--skb", "prime", "--type", "drug")
    assert result.exit_code == 0, result.stderr
    assert "ivermectin" in result.stdout and "sumatriptan" in result.stdout
    assert "migraine" not in result.stdout  # a disease, filtered out by --type
    # a pipe (as here) gets two plain lines per answer, not a table wrapped at 80 columns
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  1. "))
    assert "(drug " in lines[first] and lines[first + 1].startswith("     ") and "│" not in result.stdout


def test_schema(loaded: dict[str, str]) -> None:
    result = run(loaded, "schema", "--skb", "prime", "--json")
    schema = json.loads(result.stdout)["schema"]
    assert {(r["source"], r["type"], r["target"]) for r in schema["relationships"]} >= {
        ("drug", "indication", "disease"),
        ("drug", "target", "gene/protein"),
    }
    table = run(loaded, "schema", "--skb", "prime")
    assert "gene/protein" in table.stdout and "OPERATIONAL" in table.stdout


def test_unknown_skb(cli_env: dict[str, str]) -> None:
    assert_one_line_error(run(cli_env, "ask", "q", "--skb", "wikidata"), "unknown SKB 'wikidata'")


def test_ask_before_load(cli_env: dict[str, str]) -> None:
    assert_one_line_error(run(cli_env, "ask", "q", "--skb", "hpo"), "SKB 'hpo' is not loaded; run: kgqa load hpo")


def test_unknown_type(loaded: dict[str, str]) -> None:
    assert_one_line_error(run(loaded, "ask", "q", "--skb", "prime", "--type", "planet"), "unknown type 'planet'")


def test_empty_question(loaded: dict[str, str]) -> None:
    assert_one_line_error(run(loaded, "ask", "  ", "--skb", "prime"), "the question is empty")


def test_embedder_mismatch(loaded: dict[str, str]) -> None:
    env = {**loaded, "KGQA_EMBEDDER": "minilm"}
    assert_one_line_error(run(env, "ask", "q", "--skb", "prime"), "was embedded with")


def test_data_dir_held_by_another_process(cli_env: dict[str, str], home: Path) -> None:
    with FalkorStore(home / "falkordb"):
        assert_one_line_error(run(cli_env, "ask", "q", "--skb", "hpo"), "is in use by another kgqa process")


def test_real_model_ranks_the_right_drug_first(home: Path, prime_dir: Path) -> None:
    env = {"KGQA_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    assert run(env, "load", "stark", "--name", "prime", "--dir", str(prime_dir)).exit_code == 0
    result = run(
        env, "ask", "Which drug is indicated for strongyloidiasis?", "--skb", "prime", "--type", "drug", "--json"
    )
    assert json.loads(result.stdout)["answers"][0]["name"] == "ivermectin"


@pytest.mark.parametrize(
    "args",
    [
        ("ask", "[/x] which drug treats [bold]strongyloidiasis[/bold]?", "--skb", "prime", "--top-k", "2", "--explain"),
        ("explain", "--skb", "prime", "--cypher", "MATCH (y:drug)-[:indication]->(d:disease {name: '[/x]'}) RETURN y"),
        ("explain", "--skb", "prime", "--cypher", "MATCH (y:`[/x]`)-[:indication]->(d:disease) RETURN y", "--lenient"),
    ],
)
def test_text_output_never_reads_user_text_as_markup(loaded: dict[str, str], args: tuple[str, ...]) -> None:
    result = run(loaded, *args)
    assert result.exit_code == 0, result.stderr
    assert "[/x]" in result.stdout or "[/x]" in result.stderr  # printed as written, not parsed as a closing tag


def test_text_output_never_writes_a_control_sequence_of_the_question(loaded: dict[str, str]) -> None:
    """Issue 34: an OSC sequence (it retitles a terminal) in a question, in argv or in ``ask -`` input, is shown
    escaped in the answer header (tests/unit/test_terminal_output.py: data, errors, every other output)."""
    question = "which drug treats \x1b]0;pwned\x07strongyloidiasis?"
    for result in (
        run(loaded, "ask", question, "--skb", "prime", "--top-k", "2"),
        run(loaded, "ask", "-", "--skb", "prime", "--top-k", "2", input=f"{question}\n"),
    ):
        assert result.exit_code == 0, result.stderr
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "which drug treats \\033]0;pwned\\astrongyloidiasis?  [prime;" in result.stdout
