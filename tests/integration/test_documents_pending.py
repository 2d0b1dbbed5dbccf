"""A graph published without its documents' vectors (issue 71), in-process: asks answer and say so in one line and
in the trace, the shell's first line says how far, an export waits for them, and the next ``kgqa load`` adds them;
then the answers are a full load's, the same ids in the same order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgqa.config import load_config
from kgqa.runtime.app import Kgqa
from kgqa.runtime.load import load_skb
from kgqa.runtime.skbs import read_source
from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.environment import QUIET

QUESTIONS = (
    "Which drugs treat strongyloidiasis?",
    "What causes diarrhea?",
    "Which gene is CYP3A4?",
    "drugs that interact with sumatriptan",
)


@pytest.fixture
def pending(cli_env: dict[str, str], home: Path, tiny_embedder: str, prime_dir: Path) -> dict[str, str]:
    """PRIME published by a load that stopped before the documents: the state a killed worker leaves."""
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        load_skb(kg.store, kg.embedder, read_source("prime", prime_dir), kg.config)
    return cli_env


def _answers(env: dict[str, str], question: str) -> tuple[list[str], dict[str, object], str]:
    result = run(env, "ask", question, "--skb", "prime", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    return [a["id"] for a in doc["answers"]], doc["trace"], result.stderr


def test_a_graph_without_its_documents_answers_says_so_and_gets_them_at_the_next_load(
    pending: dict[str, str], cli_env: dict[str, str], prime_dir: Path, tmp_path: Path
) -> None:
    ids, trace, err = _answers(pending, QUESTIONS[0])
    assert ids  # names, the graph and full-text answer
    note = trace["documents"]
    assert isinstance(note, str)
    assert note.startswith("'prime': document vectors 0 of 16 texts (0%), not running")
    assert "the vector strand (step 7)" in note
    assert err.count("note: 'prime': document vectors 0 of 16 texts") == 1
    vss = run(pending, "ask", QUESTIONS[0], "--skb", "prime", "--json", "--steps", "vss")
    assert vss.exit_code == 0 and json.loads(vss.stdout)["answers"] == []  # the vector strand alone: nothing yet
    shell = run(pending, "shell", "--skb", "prime", input="")
    assert shell.exit_code == 0 and "'prime': document vectors 0 of 16 texts (0%)" in shell.stderr
    exported = run(pending, "export", "--skb", "prime", "--format", "neo4j-admin", "--out", str(tmp_path / "out"))
    assert_one_line_error(exported, "the document vectors of SKB 'prime' are still being embedded")
    assert not (tmp_path / "out").exists()

    again = run(pending, "load", "stark", "--name", "prime", "--dir", str(prime_dir))
    assert again.exit_code == 0, again.stderr
    assert "already loaded and up to date" in again.stderr
    assert "prime: document vectors 16 embedded, 0 from cache" in again.stderr  # 8 with relations, 8 plain
    full = tmp_path / "full"
    full_env = {**cli_env, "KGQA_HOME": str(full)}
    assert run(full_env, "load", "stark", "--name", "prime", "--dir", str(prime_dir)).exit_code == 0
    for question in QUESTIONS:
        after, trace, err = _answers(pending, question)
        assert trace["documents"] is None and "note:" not in err
        assert after == _answers(full_env, question)[0]
