"""``kgqa explain`` on the loaded fixture, and the attack corpus (tests/unit/test_attack_corpus.py) through explain and
the executor: LLM text never reaches the store, which stays unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import Config
from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.parser import parse
from kgqa.cypher.sanitize import sanitize
from kgqa.runtime.app import Kgqa
from kgqa.runtime.steps.s4_grounding import constant_vectors, ground
from kgqa.runtime.store.base import graph_schema
from tests.helpers import neo4j_lint
from tests.helpers.attacks import ATTACKS, FIXTURE_SCHEMA
from tests.helpers.explain import contents, load_prime, served, snapshot


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    return load_prime(cli_env, prime_dir)


def test_explain_json(loaded: dict[str, str]) -> None:
    cypher = "MATCH (y:Drug)-[:indicated_for]->(d:disease {name: 'Migraine'}) RETURN y"
    result = CliRunner().invoke(
        main, ["explain", "--skb", "prime", "--cypher", cypher, "--l", "2", "--json"], env=loaded
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"plan", "dropped", "repairs", "dialect", "query", "params", "weak", "unnamed"}
    assert out["plan"]["target"] == "y"
    assert {(r["kind"], r["original"]) for r in out["repairs"]} >= {("label", "Drug"), ("type", "indicated_for")}
    assert out["params"]["c0"][0] == "1"  # migraine's id, exact (case-insensitive) name match first
    assert "$c0" in out["query"] and "Migraine" not in out["query"]


def test_explain_neo4j_prints_a_browser_block_neo4j_accepts(loaded: dict[str, str]) -> None:
    cypher = "MATCH (y:drug)-[:indication]->(d:disease {name: 'migraine'}) WHERE y.name <> \"it's\" RETURN y"
    outputs = {}
    for version in ("2025.05", "2026.01"):
        result = CliRunner().invoke(
            main,
            [
                "explain",
                "--skb",
                "prime",
                "--cypher",
                cypher,
                "--dialect",
                "neo4j",
                "--neo4j-version",
                version,
                "--json",
            ],
            env=loaded,
        )
        assert result.exit_code == 0, result.output
        outputs[version] = out = json.loads(result.stdout)
        assert out["dialect"] == "neo4j"
        params_line, query_line = out["browser"].split("\n")
        assert query_line == out["query"] + ";"
        assert params_line == ":params {p0: 'it\\'s', limit: 10000, c0: ['1']};"
    assert outputs["2026.01"]["query"] == "CYPHER 25 " + outputs["2025.05"]["query"]
    if (reason := neo4j_lint.missing()) is not None:
        pytest.skip(reason)
    statements = [
        {"name": v, "query": out["browser"], "parameters": out["params"], "console": True} for v, out in outputs.items()
    ]
    schema = {
        "labels": list(FIXTURE_SCHEMA.labels),
        "relationshipTypes": list(FIXTURE_SCHEMA.types),
        "propertyKeys": ["id", "name"],
    }
    assert neo4j_lint.lint(statements, schema) == {"2025.05": [], "2026.01": []}


def test_explain_refuses_a_bad_neo4j_version(loaded: dict[str, str]) -> None:
    result = CliRunner().invoke(
        main,
        [
            "explain",
            "--skb",
            "prime",
            "--cypher",
            "MATCH (n) RETURN n",
            "--dialect",
            "neo4j",
            "--neo4j-version",
            "latest",
            "--json",
        ],
        env=loaded,
    )
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"] == {
        "type": "ConfigError",
        "message": "'neo4j_version': not a Neo4j version: 'latest' (expected e.g. 5.26, 2025.05 or 2026.01.0)",
    }


def test_explain_rejects_with_a_json_error(loaded: dict[str, str]) -> None:
    result = CliRunner().invoke(
        main, ["explain", "--skb", "prime", "--cypher", "DROP DATABASE x", "--json"], env=loaded
    )
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"error": {"type": "CypherSyntaxError", "message": "no MATCH clause found"}}


def test_the_api_raises_a_rejected_cypher_text_under_the_one_error_root(loaded: dict[str, str], config: Config) -> None:
    """The Cypher front end raises its own error (it imports nothing of kgqa); kgqa's API raises kgqa's, under the
    same name, so that ``except kgqa.KgqaError`` catches it."""
    import kgqa

    with Kgqa(config) as kg, pytest.raises(kgqa.KgqaError) as caught:
        kg.explain("prime", cypher="DROP DATABASE x")
    error = caught.value
    assert isinstance(error, kgqa.CypherSyntaxError) and isinstance(error, kgqa.QuestionError)
    assert not isinstance(error, CypherSyntaxError) and isinstance(error.__cause__, CypherSyntaxError)
    assert (str(error), error.exit_code) == ("no MATCH clause found", 2)


def test_store_unchanged_after_all_attacks_through_explain_and_the_executor(
    loaded: dict[str, str], config: Config
) -> None:
    before, schema_before = contents(config), snapshot(loaded)
    runner = CliRunner()
    with served(loaded) as env:  # as a user's commands run: the store opens once, in the worker
        for attack in ATTACKS:
            for dialect in ("falkordb", "neo4j"):
                result = runner.invoke(
                    main, ["explain", "--skb", "prime", "--cypher", attack, "--dialect", dialect, "--json"], env=env
                )
                assert result.exit_code in (0, 2), (attack, result.output)
                assert "Traceback" not in result.output
    executed = 0
    with Kgqa(config) as kg:
        schema = graph_schema(kg.schema("prime"))
        kg.store.await_indexes("prime")
        for attack in ATTACKS:
            try:
                plan = sanitize(parse(attack), schema, mode="lenient").plan
                result = ground(kg.store, "prime", plan, constant_vectors(kg.embedder, plan), schema, k=20, l_max=100)
            except CypherSyntaxError:
                continue
            executed += 1
            assert result.rounds, attack  # it really ran, at least one round trip
    assert executed >= 30  # 37 of the 60 keep a usable pattern once their payload is stripped
    assert contents(config) == before
    assert snapshot(loaded) == schema_before


@pytest.mark.parametrize("dialect", ["falkordb", "neo4j"])
def test_explain_drops_numbers_beyond_cypher_and_prints_strict_json(loaded: dict[str, str], dialect: str) -> None:
    cypher = "MATCH (y:drug)-[:indication]->(d:disease) WHERE d.id = 1e999 RETURN y LIMIT " + "9" * 5000
    args = ["explain", "--skb", "prime", "--cypher", cypher, "--dialect", dialect, "--json"]
    result = CliRunner().invoke(main, args, env=loaded)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))
    assert "Infinity" not in result.stdout and "inf" not in out["query"]
    assert {d["reason"] for d in out["dropped"]} >= {"number 1e999 is not finite"}
