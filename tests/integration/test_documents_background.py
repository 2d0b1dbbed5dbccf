"""A load answers before its documents' vectors are in (issue 71): the worker embeds them in the background, an ask
meanwhile says so, and a worker killed mid-way is replaced by one that resumes from the embedding cache, embedding
nothing twice. The SKB is PRIME's format with 6,000 generated diseases (12,000 texts): embedded one per call they last
seconds, long enough to kill the worker midway, and the graph loads in two (the real HPO graph takes ten)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kgqa.config import load_config
from kgqa.runtime.documents import TASK
from kgqa.runtime.worker.client import worker_status
from kgqa.runtime.worker.common import WorkerPaths
from tests.helpers.environment import QUIET
from tests.helpers.processes import wait_for
from tests.helpers.stark_fixture import write_prime_sized
from tests.helpers.worker import gone, kgqa, state

pytestmark = pytest.mark.slow

QUESTION = "Which drugs treat strongyloidiasis?"
NAMED, ANSWER = "strongyloidiasis", "ivermectin"
"""The disease the question names, linked among 6,000 generated names, and the fixture's one drug for it
(tests/helpers/stark_fixture.py), which the graph reaches through it (the tiny model's vectors mean nothing: other
plans may rank the other drug first)."""
DOCUMENTS = 6_000
DONE = re.compile(r"follow-up of prime done: document vectors (\d+) embedded, (\d+) from cache")


def _through_named(answer: dict[str, Any]) -> list[str]:
    """The answers a plan grounded through the node the question names."""
    return [str(a["name"]) for a in answer["answers"] if any(m["name"] == NAMED for m in a["matches"])]


def _cached(home: Path) -> int:
    with sqlite3.connect(home / "cache" / "embeddings.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM embedding").fetchone()[0])


def _embedded(home: Path, tiny: str) -> float:
    """The share of the documents the running worker has resolved (0 before it started on them)."""
    status = worker_status(load_config({"home": home, "embedder": tiny}, env=QUIET, cwd=home.parent))
    if status is None or "prime" not in status.background:
        return 0.0
    _, _, tasks = status.background["prime"]
    return next((task.completed / (task.total or 1) for task in tasks if task.description == TASK), 0.0)


def test_the_graph_answers_before_its_documents_and_a_killed_worker_resumes_them(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    skb = write_prime_sized(tmp_path / "processed", DOCUMENTS)
    # one text per model call for the first worker: its background lasts seconds, long enough to be killed midway
    slow = {**env, "KGQA_EMBED_BATCH_SIZE": "1"}
    tiny = env["KGQA_EMBEDDER"]
    load = kgqa(slow, "load", "stark", "--name", "prime", "--dir", str(skb))
    assert "prime: document vectors in the background" in load.stderr
    early = kgqa(slow, "ask", QUESTION, "--skb", "prime", "--json")
    answer = json.loads(early.stdout)
    assert ANSWER in _through_named(answer)
    assert "document vectors" in answer["trace"]["documents"]
    assert "note: 'prime': document vectors" in early.stderr  # one line for the person who asked
    running = state(home)
    assert running is not None
    wait_for(lambda: _embedded(home, tiny) > 0.1, 120, "the worker to embed documents")
    os.kill(running.pid, signal.SIGKILL)
    wait_for(lambda: gone(running.pid) and gone(running.store_pid), 30, "the killed worker")
    stored = _cached(home)  # what the killed worker's embedding left, committed batch by batch

    # starts a worker (its batches of the default size: a worker's batch size is its own), which resumes the documents
    again = kgqa(env, "ask", QUESTION, "--skb", "prime", "--json")
    assert ANSWER in _through_named(json.loads(again.stdout))
    assert "had died; starting a new one" in again.stderr
    resumed = state(home)
    assert resumed is not None and resumed.pid != running.pid
    log = WorkerPaths(home / "worker").log
    wait_for(lambda: DONE.search(log.read_text(errors="replace")), 300, "the resumed documents to be embedded")
    match = DONE.search(log.read_text(errors="replace"))
    assert match is not None
    computed = int(match.group(1))
    reused = int(match.group(2))
    # the resumed run embedded exactly what the killed one had not stored: every text it computed is a new row; and
    # it read back what the killed one had (over 10% of the documents resolved)
    assert 0 < computed == _cached(home) - stored
    assert reused > 0.05 * (computed + reused)
    done = json.loads(kgqa(env, "ask", QUESTION, "--skb", "prime", "--json").stdout)
    assert ANSWER in _through_named(done) and done["trace"]["documents"] is None
    status = kgqa(env, "server", "status").stdout
    assert "after the load of 'prime' (done)" in status
