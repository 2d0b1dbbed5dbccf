"""End-to-end tests against a real Neo4j: a testcontainers ``Neo4jContainer`` (pinned image, as docker/compose.yaml)
where Docker runs, or the server named by ``NEO4J_URI`` + ``NEO4J_AUTH`` (user/password). They load the PRIME-style
fixture, run the full pipeline with scripted LLM replies, and compare the answers with the embedded store's.
Run: ``python -m pytest tests/e2e -rs`` (or ``-m neo4j``; they skip, with the reason, where neither is available)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgqa.config import load_config
from kgqa.runtime.app import Kgqa
from tests.helpers.environment import QUIET
from tests.helpers.neo4j_server import IMAGE, docker_reason
from tests.helpers.scripted_llm import ScriptedEndpoint

pytestmark = pytest.mark.neo4j
CYPHER = "MATCH (y:drug)-[:indication]->(d:disease {name: 'migraine'}) RETURN y"


@pytest.fixture(scope="module")
def neo4j_server() -> Iterator[dict[str, str]]:
    if os.environ.get("NEO4J_URI"):
        user, _, password = os.environ.get("NEO4J_AUTH", "neo4j/neo4j").partition("/")
        yield {"neo4j_uri": os.environ["NEO4J_URI"], "neo4j_user": user, "neo4j_password": password}
        return
    if (reason := docker_reason()) is not None:
        pytest.skip(reason)
    from testcontainers.community.neo4j import Neo4jContainer

    with Neo4jContainer(IMAGE, password="kgqa-test-password") as container:
        yield {
            "neo4j_uri": container.get_connection_url(),
            "neo4j_user": "neo4j",
            "neo4j_password": "kgqa-test-password",
        }


def _ask(settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch, prime_dir: Path) -> list[tuple[str, str]]:
    endpoint = ScriptedEndpoint(["drug", CYPHER, "1, 2"])
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    config = load_config(
        {
            "llm": "openai:scripted",
            "openai_base_url": "http://scripted.invalid/v1",
            "llm_cache": False,
            "top_k": 4,
            **settings,
        },
        env=QUIET,
        cwd=prime_dir,
    )
    with Kgqa(config) as kg:
        kg.load("prime", prime_dir, force=True)
        answer = kg.ask("Which drugs are indicated for migraine?", "prime")
    return [(c.id, "+".join(c.strands)) for c in answer.answers]


def test_full_pipeline_on_neo4j_matches_the_embedded_store(
    neo4j_server: dict[str, str], tiny_embedder: str, prime_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    common = {"embedder": tiny_embedder, "home": tmp_path / "home"}
    on_neo4j = _ask({**common, "store": "neo4j", **neo4j_server}, monkeypatch, prime_dir)
    embedded = _ask({**common, "store": "falkordb"}, monkeypatch, prime_dir)
    assert on_neo4j == embedded and on_neo4j[0][0] in ("2", "3")
