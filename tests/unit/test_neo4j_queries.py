"""Golden tests of every Cypher text kgqa sends to Neo4j, in both syntaxes. The lint of all of them by Neo4j's own
parser (Node.js) is tests/integration/test_neo4j_lint.py; executing them against Neo4j, tests/e2e/test_neo4j.py.
"""

from __future__ import annotations

import pytest

from kgqa.runtime.store import neo4j_queries as q


def test_version_switch() -> None:
    for version in ("5.26", "5.26.12", "2025.05", "2025.05.0", "2025.12.1"):
        assert q.syntax_for(version) == "5", version
    for version in ("2026.01", "2026.01.0", "2026.10.2", "2027.1"):
        assert q.syntax_for(version) == "25", version
    with pytest.raises(ValueError, match="not a Neo4j version: 'latest'"):
        q.syntax_for("latest")


def test_index_names_are_readable_stable_and_distinct() -> None:
    assert (
        q.index_name("gene/protein", "name_emb")
        == "kgqa_gene_protein_name_emb_" + q.index_name("gene/protein", "name_emb").rsplit("_", 1)[1]
    )
    assert q.index_name("gene/protein", "name_emb") != q.index_name("gene protein", "name_emb")
    assert q.index_name("x`) DROP", "id").startswith("kgqa_x_drop_id_")


def test_golden_load_and_schema_queries() -> None:
    gene = q.index_name("gene/protein", "name_emb")
    assert q.create_nodes("gene/protein") == (
        "UNWIND $rows AS r CREATE (n:`gene/protein` {id: r.id, name: r.name, name_key: r.name_key, doc: r.doc, "
        "rel_doc: r.rel_doc}) "
        "WITH n, r CALL db.create.setNodeVectorProperty(n, 'name_emb', r.name_emb) "
        "CALL db.create.setNodeVectorProperty(n, 'doc_emb', r.doc_emb) "
        "CALL db.create.setNodeVectorProperty(n, 'plain_emb', r.plain_emb)"
    )
    assert q.create_nodes("gene/protein", plain=False) == (
        "UNWIND $rows AS r CREATE (n:`gene/protein` {id: r.id, name: r.name, name_key: r.name_key, doc: r.doc, "
        "rel_doc: r.rel_doc}) "
        "WITH n, r CALL db.create.setNodeVectorProperty(n, 'name_emb', r.name_emb) "
        "CALL db.create.setNodeVectorProperty(n, 'doc_emb', r.doc_emb)"
    )
    assert q.create_vector_index("gene/protein", "name_emb", 384) == (
        f"CREATE VECTOR INDEX `{gene}` IF NOT EXISTS FOR (n:`gene/protein`) ON (n.`name_emb`) OPTIONS "
        "{indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}"
    )
    assert q.create_id_constraint("disease") == (
        f"CREATE CONSTRAINT `{q.index_name('disease', 'id')}` IF NOT EXISTS FOR (n:`disease`) REQUIRE n.id IS UNIQUE"
    )
    assert q.drop_vector_index(gene) == f"DROP INDEX `{gene}` IF EXISTS"
    for foreign in ("movies_embedding", "kgqa_x`_drop_0123abcd", f"{gene} "):
        with pytest.raises(ValueError, match="not a kgqa index name"):
            q.drop_vector_index(foreign)
    assert q.LIST_INDEXES == (
        "SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, state RETURN name, labelsOrTypes, properties, state"
    )


def test_golden_vector_queries_in_both_syntaxes() -> None:
    gene = q.index_name("gene/protein", "name_emb")
    five = q.vector_top_k("gene/protein", "name_emb", "5")
    each = "UNWIND range(0, size($vectors) - 1) AS i WITH i, $vectors[i] AS vector "  # every search in one query
    assert five.text == (
        f"{each}CALL db.index.vector.queryNodes($index, $k, vector) YIELD node, score "
        "RETURN i, node.id AS id, node.name AS name, 2 * score - 1 AS similarity ORDER BY i, similarity DESC"
    )
    assert five.params == {"index": gene}
    search = q.vector_top_k("gene/protein", "name_emb", "25")
    assert search.text == (
        f"CYPHER 25 {each}MATCH (node:`gene/protein`) SEARCH node IN (VECTOR INDEX `{gene}` FOR vector LIMIT $k) "
        "SCORE AS score RETURN i, node.id AS id, node.name AS name, 2 * score - 1 AS similarity "
        "ORDER BY i, similarity DESC"
    )
    assert search.params == {}


def test_injection_in_labels_stays_inside_identifiers() -> None:
    text = q.vector_top_k("x`) DETACH DELETE n //", "name_emb", "25").text
    assert "(node:`x``) DETACH DELETE n //`)" in text
    assert "DETACH" not in q.index_name("x`) DETACH DELETE n //", "name_emb")


def test_cypher_literals() -> None:
    assert q.cypher_literal({"c0": ["1", "2"], "p0": 3, "p1": 2.5, "p2": None, "p3": True, "odd key": [False]}) == (
        "{c0: ['1', '2'], p0: 3, p1: 2.5, p2: null, p3: true, `odd key`: [false]}"
    )
    assert q.cypher_literal("it's \\ \n 😀 \U000e0001") == "'it\\'s \\\\ \\u000a 😀 \\udb40\\udc01'"
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="has no Cypher literal"):
            q.cypher_literal(bad)
    with pytest.raises(TypeError, match="no Cypher literal for object"):
        q.cypher_literal(object())


def test_golden_alias_queries_in_both_syntaxes() -> None:
    index = q.index_name("_KgqaAlias", "name_emb")
    assert q.create_aliases() == (
        "UNWIND $rows AS r CREATE (n:`_KgqaAlias` {of: r.of, of_label: r.of_label, of_name: r.of_name, "
        "name: r.name, key: r.key}) WITH n, r CALL db.create.setNodeVectorProperty(n, 'name_emb', r.name_emb)"
    )
    assert q.create_property_index("_KgqaAlias", "key") == (
        f"CREATE INDEX `{q.index_name('_KgqaAlias', 'key')}` IF NOT EXISTS FOR (n:`_KgqaAlias`) ON (n.`key`)"
    )
    returned = (
        "RETURN i, node.of AS id, node.of_label AS label, node.of_name AS name, node.name AS alias, "
        "2 * score - 1 AS similarity ORDER BY i, similarity DESC"
    )
    each = "UNWIND range(0, size($vectors) - 1) AS i WITH i, $vectors[i] AS vector "
    five = q.alias_top_k("5")
    assert five.text == f"{each}CALL db.index.vector.queryNodes($index, $k, vector) YIELD node, score {returned}"
    assert five.params == {"index": index}
    search = q.alias_top_k("25")
    assert search.text == (
        f"CYPHER 25 {each}MATCH (node:`_KgqaAlias`) SEARCH node IN (VECTOR INDEX `{index}` FOR vector LIMIT $k) "
        f"SCORE AS score {returned}"
    )
    assert search.params == {}
    assert q.NODE_COUNTS_NEO4J == (
        "MATCH (n) WHERE NOT n:_KgqaMeta AND NOT n:_KgqaAlias RETURN labels(n)[0] AS label, count(n) AS count "
        "ORDER BY label"
    )


def test_golden_full_text_queries_in_both_syntaxes() -> None:
    index = q.index_name("gene/protein", "text")
    assert q.create_text_index("gene/protein") == (
        f"CREATE FULLTEXT INDEX `{index}` IF NOT EXISTS FOR (n:`gene/protein`) ON EACH [n.name, n.doc]"
    )
    scores = (
        "CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score WHERE node.id IN $ids "
        "RETURN node.id AS id, score"
    )
    assert q.text_scores("gene/protein", "5") == q.VectorQuery(scores, {"index": index})
    assert q.text_scores("gene/protein", "25") == q.VectorQuery(f"CYPHER 25 {scores}", {"index": index})
    top = (
        "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node, score "
        "RETURN node.id AS id, node.name AS name, score ORDER BY score DESC, id"
    )
    assert q.text_top_k("gene/protein", "5") == q.VectorQuery(top, {"index": index})
    assert q.text_top_k("gene/protein", "25") == q.VectorQuery(f"CYPHER 25 {top}", {"index": index})
    assert q.LIST_TEXT_INDEXES == (
        "SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties, state "
        "RETURN name, labelsOrTypes, properties, state"
    )
