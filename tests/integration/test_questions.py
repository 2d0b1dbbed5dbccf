"""``kgqa questions``: STaRK-style questions whose answers are checked against an independent oracle (the choice of
words: tests/unit/test_question_words.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgqa.app import Kgqa
from kgqa.cli import main
from kgqa.config import load_config
from kgqa.qa import read_csv
from loaders.stark import read_stark
from tests.stark_fixture import EDGE_TYPES, EDGES, NODE_TYPES, NODES, write_prime_fixture


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env


def oracle(template: str, anchor: str, word: str, docs: dict[str, str]) -> list[str]:
    """The answers recomputed in Python from the fixture's own node and edge lists (undirected hops)."""
    target, *hops = template.split(" / ")
    label = {str(i): NODE_TYPES[t] for i, (_, t, _, _) in enumerate(NODES)}
    adjacent: dict[str, set[tuple[str, str]]] = {str(i): set() for i in range(len(NODES))}
    for head, tail, edge_type in EDGES:
        adjacent[str(head)].add((EDGE_TYPES[edge_type], str(tail)))
        adjacent[str(tail)].add((EDGE_TYPES[edge_type], str(head)))
    answers = []
    for node in (n for n in label if label[n] == target):
        frontier = {node}
        for hop in hops:
            rel_type, hop_label = _split(hop)
            frontier = {b for a in frontier for t, b in adjacent[a] if t == rel_type and label[b] == hop_label}
        if anchor in frontier - {node} and word.lower() in docs[node].lower():
            answers.append(node)
    return sorted(answers)


def _split(hop: str) -> tuple[str, str]:
    """'phenotype present effect/phenotype' -> ('phenotype present', 'effect/phenotype'): the label is a suffix."""
    for name in sorted(set(NODE_TYPES.values()), key=len, reverse=True):
        if hop.endswith(" " + name):
            return hop[: -len(name) - 1], name
    raise AssertionError(hop)


def test_generated_questions_have_exact_answers(loaded: dict[str, str], tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "gen.csv"
    result = CliRunner().invoke(
        main, ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--out", str(out)], env=loaded
    )
    assert result.exit_code == 0, result.output
    questions = read_csv(out)
    meta = json.loads(out.with_name("gen.meta.json").read_text())
    assert len(questions) == 6 and meta["n"] == 6 and meta["skb"] == "prime"
    config = load_config({"home": loaded["KGQA_HOME"], "embedder": str(tiny_model)}, env={}, cwd=tmp_path)
    with Kgqa(config) as kg:
        docs = {
            str(r[0]): r[2]
            for label in set(NODE_TYPES.values())
            for r in kg.store.read("prime", f"MATCH (n:`{label}`) RETURN n.id, n.name, n.doc")
        }
    for question, info in zip(questions, meta["questions"], strict=True):
        assert (
            list(question.answers)
            == info["answer_ids"]
            == oracle(info["template"], info["anchor_id"], info["word"], docs)
        )
        assert 1 <= len(question.answers) <= 20 and info["gold_id"] in question.answers
        assert info["anchor_name"] in question.text and info["word"] in question.text
    again = tmp_path / "again.csv"
    CliRunner().invoke(
        main, ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--out", str(again)], env=loaded
    )
    assert again.read_text() == out.read_text()  # the same seed gives the same questions
    scored = CliRunner().invoke(
        main, ["eval", "--skb", "prime", "--qa", str(out), "--out", str(tmp_path / "r.json")], env=loaded
    )
    assert scored.exit_code == 0, scored.output
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["n"] == len(questions)


def test_questions_use_only_words_specific_to_the_answer_type(loaded: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "gen.csv"
    result = CliRunner().invoke(
        main,
        ["questions", "--skb", "prime", "--n", "4", "--seed", "1", "--out", str(out), "--max-word-share", "0.5"],
        env=loaded,
    )
    assert result.exit_code == 0, result.output
    meta = json.loads(out.with_name("gen.meta.json").read_text())
    assert meta["max_word_share"] == 0.5 and meta["questions"]
    docs_by_type: dict[str, list[str]] = {}  # the fixture's documents as the loader writes them
    for node in read_stark("prime", write_prime_fixture(tmp_path / "prime")).nodes:
        docs_by_type.setdefault(node.type, []).append(node.doc.lower())
    # with --max-word-share 1 field names such as 'description' (in every document of their type) are chosen here
    for info in meta["questions"]:
        target = info["template"].split(" / ")[0]
        share = sum(info["word"].lower() in doc for doc in docs_by_type[target]) / len(docs_by_type[target])
        assert share <= 0.5, (info["word"], target)
    bad = CliRunner().invoke(
        main, ["questions", "--skb", "prime", "--n", "1", "--out", str(out), "--max-word-share", "0"], env=loaded
    )
    assert bad.exit_code == 2 and "--max-word-share" in bad.output


def test_a_type_without_questions_is_explained(
    loaded: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As with HPO's gene documents (name and ids only): no word specific enough, so no question of that type."""
    monkeypatch.setattr("kgqa.questions.specific_words", lambda *args: [])
    out = tmp_path / "gen.csv"
    result = CliRunner().invoke(
        main,
        ["questions", "--skb", "prime", "--n", "2", "--seed", "1", "--out", str(out), "--type", "drug"],
        env=loaded,
    )
    said = " ".join(result.output.split())  # rich wraps lines at the terminal width
    assert result.exit_code == 1 and "Traceback" not in said and not out.exists()
    assert "no question could be generated: 'drug'; most attempts failed with: no document word in at most 0.05" in said
