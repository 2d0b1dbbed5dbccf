"""docs/langchain.md's examples run as written against the embedded HPO graph (loaded here with the tiny test
embedder, so the ranked answers differ from the real model's; the exact-name query's do not)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.shared import copy_home

DOC = Path(__file__).resolve().parents[2] / "docs" / "langchain.md"
NEEDS_SERVER = "# needs:"


def examples() -> list[str]:
    """The doc's python blocks that need no server."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [block for block in blocks if not block.startswith(NEEDS_SERVER)]


@pytest.fixture(scope="module")
def hpo_home(tmp_path_factory: pytest.TempPathFactory, hpo_template: Path) -> Path:
    return copy_home(hpo_template, tmp_path_factory.mktemp("hpo") / "home")


def test_the_doc_has_runnable_examples_of_the_retriever_and_the_graph() -> None:
    runnable = examples()
    assert len(runnable) == 3
    assert sum("KgqaRetriever(kg=kg" in block for block in runnable) == 2 and "KgqaGraph(" in runnable[2]


@pytest.mark.slow
@pytest.mark.parametrize("number", range(3))
def test_the_examples_run_as_written(hpo_home: Path, tiny_embedder: str, tmp_path: Path, number: int) -> None:
    env = {**os.environ, "KGQA_HOME": str(hpo_home), "KGQA_EMBEDDER": tiny_embedder}
    env.pop("KGQA_LLM", None)
    done = subprocess.run(
        [sys.executable, "-c", examples()[number]], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    if number == 0:  # five ranked genes, then the compiled query and its parameters
        assert [line.split()[0] for line in lines[:5]] == ["1", "2", "3", "4", "5"]
        assert all(line.split()[1].startswith("NCBIGene:") for line in lines[:5])
        assert lines[5].startswith("MATCH ") and lines[6].startswith("{")
    elif number == 1:  # three names for each of the two questions
        assert len(ast.literal_eval(lines[0])) == 2
    else:
        assert "(:gene/protein)-[:associated with]->(:disease)" in done.stdout
        assert lines[-1] == "[{'gene': 'FBN1'}]"
