"""Clients of different settings on one data directory (issue 53, part 5): none breaks another's calls. A batch
whose questions wait on its LLM, and a command from another terminal: with settings that travel with each call both
are served side by side by one worker; with store settings of its own the command restarts the worker only once the
batch's call in flight has ended, and every call of both is answered."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.held_llm import HeldEndpoint
from tests.helpers.worker import KGQA, kgqa, state

pytestmark = pytest.mark.slow
QUESTION = "Which drugs treat strongyloidiasis?"
BATCH = [QUESTION, "Which drugs target CYP3A4?", QUESTION]


@pytest.fixture
def held() -> Iterator[HeldEndpoint]:
    endpoint = HeldEndpoint("MATCH (d:drug)-[:indication]->(x:disease {name: 'strongyloidiasis'}) RETURN d")
    yield endpoint
    endpoint.close()


def _batch(env: dict[str, str], held: HeldEndpoint, folder: Path) -> subprocess.Popen[str]:
    """``kgqa ask -`` over :data:`BATCH` with an LLM behind ``held``, started; its first question waits there."""
    llm = {
        "KGQA_LLM": "openai:held",
        "KGQA_OPENAI_BASE_URL": held.base_url,
        "KGQA_OPENAI_API_KEY": "k",
        "KGQA_LLM_CACHE": "false",
        "KGQA_LLM_MAX_RETRIES": "0",
        "KGQA_RERANKER": "none",
    }
    questions = folder / "questions.txt"
    questions.write_text("\n".join(BATCH) + "\n", encoding="utf-8")
    with questions.open(encoding="utf-8") as stdin:
        batch = subprocess.Popen(
            [*KGQA, "ask", "-", "--skb", "prime", "--json"],
            env={**env, **llm},
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert held.arrived.wait(120), "the batch's first question never asked its LLM"
    return batch


def _answered(batch: subprocess.Popen[str]) -> str:
    out, err = batch.communicate(timeout=300)
    assert batch.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["question"] for line in lines] == BATCH and all(line["answers"] for line in lines), out
    return err


def _first_line(process: subprocess.Popen[str]) -> str:
    """The first line ``process`` writes to stderr, read in a thread so that a command that never writes one fails
    the test instead of hanging it."""
    assert process.stderr is not None
    stderr, lines = process.stderr, list[str]()
    reader = threading.Thread(target=lambda: lines.append(stderr.readline()), daemon=True)
    reader.start()
    reader.join(120)
    assert lines, "the command wrote nothing to stderr within 120 s"
    return lines[0]


def test_a_batch_waiting_on_its_llm_and_commands_without_one_share_the_worker(
    loaded: dict[str, str], home: Path, held: HeldEndpoint, tmp_path: Path
) -> None:
    before = state(home)
    batch = _batch(loaded, held, tmp_path)
    # another terminal: no LLM, no endpoint, another capacity setting (the worker's own: it keeps its value)
    other = {**loaded, "KGQA_WORKER_MAX_CALLS": "3"}
    asked = kgqa(other, "ask", QUESTION, "--skb", "prime", "--json")
    assert json.loads(asked.stdout)["answers"]
    assert "keeps its own worker_max_calls 2 (this command: 3)" in asked.stderr
    assert "restarting" not in asked.stderr
    assert "prime" in kgqa(other, "schema", "--skb", "prime").stdout
    assert batch.poll() is None  # still waiting on its LLM: the commands were served beside it
    held.release.set()
    assert "restarting" not in _answered(batch)
    assert state(home) == before  # one worker served every call


def test_a_restart_for_other_store_settings_waits_for_the_call_in_flight(
    loaded: dict[str, str], home: Path, held: HeldEndpoint, tmp_path: Path
) -> None:
    before = state(home)
    assert before is not None
    batch = _batch(loaded, held, tmp_path)
    other = subprocess.Popen(
        [*KGQA, "ask", QUESTION, "--skb", "prime", "--json"],
        env={**loaded, "KGQA_EF_RUNTIME": "50"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    notice = _first_line(other)  # said before it waits
    assert notice.strip() == (
        f"kgqa: restarting the kgqa worker (pid {before.pid}): it was started with other settings (ef_runtime); it "
        "ends the 1 call in flight first"
    )
    assert other.poll() is None and batch.poll() is None  # it waits for the batch's call, which waits on its LLM
    held.release.set()
    out, err = other.communicate(timeout=300)
    assert other.returncode == 0, err
    assert json.loads(out)["answers"]
    _answered(batch)  # every question of the batch answered: the one in flight and those that came meanwhile
    after = state(home)
    assert after is not None and after.pid != before.pid
