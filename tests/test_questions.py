"""``kgqa questions``: STaRK-style questions whose answers are checked against an independent oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgqa.app import Kgqa
from kgqa.cli import main
from kgqa.config import load_config
from kgqa.qa import read_csv
from tests.stark_fixture import EDGE_TYPES, EDGES, NODE_TYPES, NODES


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
    result = CliRunner().invoke(main, ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--out", str(out)],
                                env=loaded)  # fmt: skip
    assert result.exit_code == 0, result.output
    questions = read_csv(out)
    meta = json.loads(out.with_name("gen.meta.json").read_text())
    assert len(questions) == 6 and meta["n"] == 6 and meta["skb"] == "prime"
    config = load_config({"home": loaded["KGQA_HOME"], "embedder": str(tiny_model)}, env={}, cwd=tmp_path)
    with Kgqa(config) as kg:
        docs = {str(r[0]): r[2] for label in set(NODE_TYPES.values())
                for r in kg.store.read("prime", f"MATCH (n:`{label}`) RETURN n.id, n.name, n.doc")}  # fmt: skip
    for question, info in zip(questions, meta["questions"], strict=True):
        assert list(question.answers) == info["answer_ids"] == oracle(info["template"], info["anchor_id"],
                                                                      info["word"], docs)  # fmt: skip
        assert 1 <= len(question.answers) <= 20 and info["gold_id"] in question.answers
        assert info["anchor_name"] in question.text and info["word"] in question.text
    again = tmp_path / "again.csv"
    CliRunner().invoke(main, ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--out", str(again)],
                       env=loaded)  # fmt: skip
    assert again.read_text() == out.read_text()  # the same seed gives the same questions
    scored = CliRunner().invoke(main, ["eval", "--skb", "prime", "--qa", str(out), "--out", str(tmp_path / "r.json")],
                                env=loaded)  # fmt: skip
    assert scored.exit_code == 0, scored.output
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["n"] == len(questions)
