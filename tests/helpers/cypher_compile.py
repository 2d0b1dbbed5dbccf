"""A small schema and question for the pattern compiler, compiled: shared by its golden tests and its run on the
embedded FalkorDB."""

from __future__ import annotations

from kgqa.cypher.compile import pattern_query
from kgqa.cypher.parser import parse
from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import GraphSchema, sanitize

SCHEMA = GraphSchema(
    ("drug", "gene/protein", "disease"),
    (("drug", "target", "gene/protein"), ("drug", "indication", "disease")),
    NodeKeys("id", "name"),
)
QUESTION = (
    "MATCH (y:drug)-[:target]->(g:`gene/protein` {name: 'CYP3A4'}), (y)-[:indication]->(d:disease {name: 'worms'}) "
    "WHERE y.name CONTAINS 'mec' RETURN y"
)


def compiled(query: str = QUESTION):
    return pattern_query(sanitize(parse(query), SCHEMA).plan, SCHEMA.keys)
