"""STaRK's precomputed embeddings end to end on the embedded store: ``kgqa load stark --embeddings`` stores them as
the document vectors (an index of their own dimension, 16, beside the 32-d names of the tiny model), and
``kgqa eval --query-embeddings`` searches them with STaRK's question vectors: the vector strand is exactly the
brute-force cosine top k over those vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.stark_embeddings_fixture import DIM, MODEL, QUESTION_IDS, cosine_top_k, write_emb_root

K = 5


@pytest.fixture
def imported(cli_env: dict[str, str], prime_dir: Path, tmp_path: Path) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    docs, queries = write_emb_root(tmp_path / "emb")
    result = run(
        cli_env, "load", "stark", "--name", "prime", "--dir", str(prime_dir), "--embeddings", str(tmp_path / "emb")
    )
    assert result.exit_code == 0, result.stderr
    assert f"8 document vectors of {MODEL} imported" in " ".join(result.stderr.split())  # the console wraps
    return docs, queries


def _questions(path: Path, ids: tuple[int, ...] = QUESTION_IDS) -> Path:
    rows = "".join(f'{q},"Which drug treats disease number {q}?","[2]"\n' for q in ids)
    path.write_text("id,query,answer_ids\n" + rows, encoding="utf-8")
    return path


def test_vector_strand_is_brute_force_cosine_over_the_imported_vectors(
    cli_env: dict[str, str], imported: tuple[np.ndarray, dict[int, np.ndarray]], tmp_path: Path
) -> None:
    docs, queries = imported
    schema = json.loads(run(cli_env, "schema", "--skb", "prime", "--json").stdout)["meta"]
    assert (schema["doc_embedder"], schema["doc_dimension"], schema["dimension"]) == (MODEL, DIM, 32)
    query_file = tmp_path / "emb" / "prime" / MODEL / "query" / "query_emb_dict.pt"
    for steps in ("vss", "hybrid"):
        out = tmp_path / f"{steps}.json"
        args = ["eval", "--skb", "prime", "--qa", str(_questions(tmp_path / "q.csv")), "--steps", steps]
        result = run(cli_env, *args, "--k", str(K), "--query-embeddings", str(query_file), "--out", str(out))
        assert result.exit_code == 0, result.stderr
        ranked = {q["id"]: q["ranked"] for q in json.loads(out.read_text())["questions"]}
        assert set(ranked) == {str(q) for q in QUESTION_IDS}
        if steps == "vss":  # every type is a PRIME candidate type: the strand ranks all 8 nodes
            assert ranked == {str(q): cosine_top_k(docs, vector, K) for q, vector in queries.items()}
        else:  # steps 1-7 ran with both vectors (names 32-d, documents 16-d) over the named type, drug
            assert all(ids and set(ids) <= {"2", "3"} for ids in ranked.values())
    records = [json.loads(line) for line in (tmp_path / "vss.json.jsonl").read_text().splitlines()]
    assert all(r["steps"][6]["status"] == "ran" for r in records)


def test_missing_question_vector_and_ask_without_one(
    cli_env: dict[str, str], imported: tuple[np.ndarray, dict[int, np.ndarray]], tmp_path: Path
) -> None:
    query_file = tmp_path / "emb" / "prime" / MODEL / "query" / "query_emb_dict.pt"
    questions = _questions(tmp_path / "q.csv", (*QUESTION_IDS, 99))
    result = run(cli_env, "eval", "--skb", "prime", "--qa", str(questions), "--query-embeddings", str(query_file))
    assert_one_line_error(result, "question 99 has no vector in")
    asked = run(cli_env, "ask", "Which drug treats strongyloidiasis?", "--skb", "prime", "--steps", "vss")
    assert_one_line_error(asked, f"SKB 'prime' holds document vectors of '{MODEL}' ({DIM}-d)")
