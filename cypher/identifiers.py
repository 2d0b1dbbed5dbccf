"""Identifier quoting shared by both dialects (Neo4j and FalkorDB quote identifiers the same way)."""

from .errors import CypherValueError


def quote(identifier: str) -> str:
    """Backtick-quote a label, relationship type or property key, doubling embedded backticks.

    Labels such as ``gene/protein`` and types such as ``phenotype present`` need quoting; quoting always is simpler
    than deciding when. NUL and empty identifiers are rejected because neither database accepts them.
    """
    if not identifier or "\x00" in identifier:
        raise CypherValueError(f"invalid Cypher identifier {identifier!r}")
    return "`" + identifier.replace("`", "``") + "`"
