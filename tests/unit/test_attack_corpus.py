"""The attack corpus against the parser, sanitizer and compiler: whatever survives is rebuilt from the schema, so
no payload reaches the store as text (that the store stays unchanged: tests/integration/test_explain.py)."""

from __future__ import annotations

import pytest

from cypher.compile import pattern_query
from cypher.errors import CypherSyntaxError
from cypher.parser import parse
from cypher.sanitize import GraphSchema, sanitize
from kgqa.store.base import NODE_KEYS
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
PAYLOADS = [
    "DETACH DELETE n",
    "CREATE (:evil)",
    "SET n.name = 'evil'",
    "CALL dbms.killQueries([])",
    "LOAD CSV FROM 'http://evil' AS l",
    "MERGE (:evil)",
    "REMOVE n:drug",
    "FOREACH (x IN [1] | CREATE (:evil))",
    "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})",
    "USE system",
]
ATTACKS += [f"MATCH (d:`drug {p}`)-[:indication]->(x:disease {{name: 'migraine'}}) RETURN d" for p in PAYLOADS]
ATTACKS += [f"MATCH (d:drug)-[:`indication {p}`]->(x:disease {{name: 'migraine {p}'}}) RETURN d" for p in PAYLOADS]
ATTACKS += [f"MATCH (d:drug)-[:indication]->(x:disease {{`{p}`: 'migraine'}}) RETURN d, {p}" for p in PAYLOADS]


FIXTURE_SCHEMA = GraphSchema(
    tuple(NODE_TYPES.values()),
    tuple(sorted({(NODE_TYPES[NODES[h][1]], EDGE_TYPES[e], NODE_TYPES[NODES[t][1]]) for h, t, e in EDGES})),
    NODE_KEYS,
)


def test_attack_corpus_size() -> None:
    assert len(ATTACKS) >= 60


@pytest.mark.parametrize("attack", ATTACKS, ids=range(len(ATTACKS)))
def test_attack_never_reaches_the_store_as_text(attack: str) -> None:
    """Whatever survives parsing is rebuilt from the schema: the compiled text holds no word of the payloads."""
    try:
        query = pattern_query(sanitize(parse(attack), FIXTURE_SCHEMA, mode="lenient").plan, NODE_KEYS)
    except CypherSyntaxError:
        return
    for word in ("DELETE", "CREATE", "MERGE", "SET ", "REMOVE", "CALL", "LOAD", "FOREACH", "USE ", "evil", "//"):
        assert word not in query.text
    assert set(query.text.split("`")[1::2]) <= set(FIXTURE_SCHEMA.labels) | set(FIXTURE_SCHEMA.types) | set(
        FIXTURE_SCHEMA.properties
    )
