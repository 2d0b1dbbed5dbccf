"""``kgqa explain`` and the attack corpus: LLM text never reaches the store, which stays unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cypher.compile import pattern_query
from cypher.errors import CypherSyntaxError
from cypher.parser import parse
from cypher.sanitize import GraphSchema, sanitize
from kgqa.app import Kgqa
from kgqa.cli import main
from kgqa.config import Config
from kgqa.grounding import constant_vectors, graph_schema, ground
from tests import neo4j_lint
from tests.stark_fixture import EDGE_TYPES, EDGES, NODE_TYPES, NODES


def _fullwidth(text: str) -> str:
    """Full-width look-alikes of ASCII (U+FF01..U+FF5E), e.g. of the keyword MATCH."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


ATTACKS = [
    "MATCH (n) DETACH DELETE n",
    "CREATE (:drug {name: 'evil'})",
    "MERGE (d:drug {name: 'x'}) RETURN d",
    "MATCH (d:drug) SET d.name = 'pwned' RETURN d",
    "MATCH (d:drug) REMOVE d.name RETURN d",
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) DELETE d",
    "CALL db.labels()",
    "CALL dbms.security.createUser('a', 'b', false)",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "MATCH (d:drug) CALL apoc.load.json('http://evil') YIELD value RETURN d",
    "MATCH (d:drug) CALL { MATCH (n) DETACH DELETE n } RETURN d",
    "MATCH (d:drug) FOREACH (x IN [1] | CREATE (:evil)) RETURN d",
    "USE system SHOW USERS",
    "SHOW DATABASES",
    "DROP DATABASE neo4j",
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d // ; MATCH (n) DETACH DELETE n",
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d /* */ ; CREATE (:evil)",
    'MATCH (d:drug)-[:indication]->(x:disease {name: "m\' }) DETACH DELETE d //"}) RETURN d',
    "MATCH (d:`drug`) DETACH DELETE d //`)-[:indication]->(x:disease {name: 'migraine'}) RETURN d",
    "MATCH (d:drug)-[:`indication]->() DETACH DELETE d //`]->(x:disease {name: 'migraine'}) RETURN d",
    _fullwidth("MATCH (n) DETACH DELETE n"),
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d " + _fullwidth("DELETE d"),
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'm\u0456graine'}) RETURN d",  # Cyrillic i look-alike
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'})) RETURN d",
    "MATCH ((((d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d",
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) RETURN d" + " " * 100_000 + "DETACH DELETE d",
    "MATCH (d:drug {name: '" + "x" * 100_000 + "'})-[:indication]->(x:disease) RETURN d",
    "MATCH (d:drug)-[:indication]->(x:disease {name: $evil}) RETURN d",
    "MATCH (d:drug)-[:indication]->(x:disease) WHERE x.name = 'migraine' WITH d MATCH (n) DETACH DELETE n",
    "MATCH (d:drug)-[:indication]->(x:disease {name: 'migraine'}) UNION MATCH (n) DETACH DELETE n RETURN n",
]
# The same payloads in the places an LLM reply can carry them: labels, types, property keys, values, RETURN.
PAYLOADS = ["DETACH DELETE n", "CREATE (:evil)", "SET n.name = 'evil'", "CALL dbms.killQueries([])",
            "LOAD CSV FROM 'http://evil' AS l", "MERGE (:evil)", "REMOVE n:drug", "FOREACH (x IN [1] | CREATE (:evil))",
            "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})", "USE system"]  # fmt: skip
ATTACKS += [f"MATCH (d:`drug {p}`)-[:indication]->(x:disease {{name: 'migraine'}}) RETURN d" for p in PAYLOADS]
ATTACKS += [f"MATCH (d:drug)-[:`indication {p}`]->(x:disease {{name: 'migraine {p}'}}) RETURN d" for p in PAYLOADS]
ATTACKS += [f"MATCH (d:drug)-[:indication]->(x:disease {{`{p}`: 'migraine'}}) RETURN d, {p}" for p in PAYLOADS]


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env


def _snapshot(env: dict[str, str]) -> str:
    result = CliRunner().invoke(main, ["schema", "--skb", "prime", "--json"], env=env)
    return json.dumps(json.loads(result.stdout)["schema"], sort_keys=True)


def test_explain_json(loaded: dict[str, str]) -> None:
    cypher = "MATCH (y:Drug)-[:indicated_for]->(d:disease {name: 'Migraine'}) RETURN y"
    result = CliRunner().invoke(main, ["explain", "--skb", "prime", "--cypher", cypher, "--l", "2", "--json"],
                                env=loaded)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"plan", "dropped", "repairs", "dialect", "query", "params"}
    assert out["plan"]["target"] == "y"
    assert {(r["kind"], r["original"]) for r in out["repairs"]} >= {("label", "Drug"), ("type", "indicated_for")}
    assert out["params"]["c0"][0] == "1"  # migraine's id, exact (case-insensitive) name match first
    assert "$c0" in out["query"] and "Migraine" not in out["query"]


def test_explain_neo4j_prints_a_browser_block_neo4j_accepts(loaded: dict[str, str]) -> None:
    cypher = "MATCH (y:drug)-[:indication]->(d:disease {name: 'migraine'}) WHERE y.name <> \"it's\" RETURN y"
    outputs = {}
    for version in ("2025.05", "2026.01"):
        result = CliRunner().invoke(main, ["explain", "--skb", "prime", "--cypher", cypher, "--dialect", "neo4j",
                                           "--neo4j-version", version, "--json"], env=loaded)  # fmt: skip
        assert result.exit_code == 0, result.output
        outputs[version] = out = json.loads(result.stdout)
        assert out["dialect"] == "neo4j"
        params_line, query_line = out["browser"].split("\n")
        assert query_line == out["query"] + ";"
        assert params_line == ":params {p0: 'it\\'s', c0: ['1']};"
    assert outputs["2026.01"]["query"] == "CYPHER 25 " + outputs["2025.05"]["query"]
    if (reason := neo4j_lint.missing()) is not None:
        pytest.skip(reason)
    statements = [{"name": v, "query": out["browser"], "parameters": out["params"], "console": True}
                  for v, out in outputs.items()]  # fmt: skip
    schema = {"labels": list(FIXTURE_SCHEMA.labels), "relationshipTypes": list(FIXTURE_SCHEMA.types),
              "propertyKeys": ["id", "name"]}  # fmt: skip
    assert neo4j_lint.lint(statements, schema) == {"2025.05": [], "2026.01": []}


def test_explain_refuses_a_bad_neo4j_version(loaded: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["explain", "--skb", "prime", "--cypher", "MATCH (n) RETURN n", "--dialect",
                                       "neo4j", "--neo4j-version", "latest", "--json"], env=loaded)  # fmt: skip
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"] == {
        "type": "ConfigError", "message": "'neo4j_version': not a Neo4j version: 'latest' (expected e.g. 5.26, "
        "2025.05 or 2026.01.0)"}  # fmt: skip


def test_explain_rejects_with_a_json_error(loaded: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["explain", "--skb", "prime", "--cypher", "DROP DATABASE x", "--json"],
                                env=loaded)  # fmt: skip
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"error": {"type": "CypherSyntaxError", "message": "no MATCH clause found"}}


FIXTURE_SCHEMA = GraphSchema(
    tuple(NODE_TYPES.values()),
    tuple(sorted({(NODE_TYPES[NODES[h][1]], EDGE_TYPES[e], NODE_TYPES[NODES[t][1]]) for h, t, e in EDGES})),
)


def test_attack_corpus_size() -> None:
    assert len(ATTACKS) >= 60


@pytest.mark.parametrize("attack", ATTACKS, ids=range(len(ATTACKS)))
def test_attack_never_reaches_the_store_as_text(attack: str) -> None:
    """Whatever survives parsing is rebuilt from the schema: the compiled text holds no word of the payloads."""
    try:
        query = pattern_query(sanitize(parse(attack), FIXTURE_SCHEMA, mode="lenient").plan)
    except CypherSyntaxError:
        return
    for word in ("DELETE", "CREATE", "MERGE", "SET ", "REMOVE", "CALL", "LOAD", "FOREACH", "USE ", "evil", "//"):
        assert word not in query.text
    assert set(query.text.split("`")[1::2]) <= set(FIXTURE_SCHEMA.labels) | set(FIXTURE_SCHEMA.types) | {"name"}


CONTENTS = (
    "MATCH (n) RETURN labels(n)[0], n.id, n.name, n.doc, size(keys(n)) ORDER BY n.id",
    "MATCH (a)-[r]->(b) RETURN a.id, type(r), b.id, size(keys(r)) ORDER BY a.id, type(r), b.id",
)


def _contents(config: Config) -> list[list[list[object]]]:
    """Every node and edge with every property kgqa wrote, and the graph list: any write would show here."""
    with Kgqa(config) as kg:
        return [kg.store.graphs(), *(kg.store.read("prime", text) for text in CONTENTS)]


def test_store_unchanged_after_all_attacks_through_explain_and_the_executor(
    loaded: dict[str, str], config: Config
) -> None:
    before, schema_before = _contents(config), _snapshot(loaded)
    runner = CliRunner()
    for attack in ATTACKS:
        for dialect in ("falkordb", "neo4j"):
            result = runner.invoke(main, ["explain", "--skb", "prime", "--cypher", attack, "--dialect", dialect,
                                          "--json"], env=loaded)  # fmt: skip
            assert result.exit_code in (0, 2), (attack, result.output)
            assert "Traceback" not in result.output
    executed = 0
    with Kgqa(config) as kg:
        schema = graph_schema(kg.schema("prime"))
        kg.store.await_indexes("prime")
        for attack in ATTACKS:
            try:
                plan = sanitize(parse(attack), schema, mode="lenient").plan
                result = ground(kg.store, "prime", plan, constant_vectors(kg.embedder, plan), schema.labels,
                                k=20, l_max=100)  # fmt: skip
            except CypherSyntaxError:
                continue
            executed += 1
            assert result.rounds, attack  # it really ran, at least one round trip
    assert executed >= 30  # 37 of the 60 keep a usable pattern once their payload is stripped
    assert _contents(config) == before
    assert _snapshot(loaded) == schema_before
