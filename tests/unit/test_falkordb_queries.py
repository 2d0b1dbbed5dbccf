"""Golden tests of every Cypher text kgqa sends to FalkorDB, and of identifier quoting."""

import pytest

from kgqa.cypher import quote
from kgqa.runtime.store import falkordb_queries as q


def test_quote_backticks_everything_and_doubles_backticks() -> None:
    assert quote("gene/protein") == "`gene/protein`"
    assert quote("phenotype present") == "`phenotype present`"
    assert quote("a`b") == "`a``b`"
    for bad in ("", "a\x00b"):
        with pytest.raises(ValueError, match="invalid Cypher identifier"):
            quote(bad)


def test_golden_load_queries() -> None:
    assert q.to_vectors_query(["name_emb", "doc_emb"]) == (
        "MATCH (n) WHERE id(n) >= $first AND id(n) < $stop "
        "SET n.`name_emb` = vecf32(n.`name_emb`), n.`doc_emb` = vecf32(n.`doc_emb`)"
    )
    assert q.set_vectors_query("name_emb") == (
        "UNWIND $rows AS r WITH r[0] AS i, r[1] AS v MATCH (n) WHERE id(n) = i SET n.`name_emb` = vecf32(v)"
    )
    assert q.create_edges("disease", "phenotype present", "effect/phenotype") == (
        "UNWIND $rows AS r MATCH (a:`disease` {id: r[0]}) MATCH (b:`effect/phenotype` {id: r[1]}) "
        "CREATE (a)-[:`phenotype present`]->(b)"
    )
    assert q.create_id_index("disease") == "CREATE INDEX FOR (n:`disease`) ON (n.id)"
    assert q.create_property_index("disease", "name_key") == "CREATE INDEX FOR (n:`disease`) ON (n.`name_key`)"


def test_golden_read_queries_take_values_as_parameters() -> None:
    assert q.names("drug") == "MATCH (n:`drug`) WHERE n.id IN $ids RETURN n.id AS id, n.name AS name"


def test_golden_prompt_and_grounding_queries() -> None:
    assert q.exact_name("disease") == ("MATCH (n:`disease`) WHERE n.name_key = $key RETURN n.id AS id, n.name AS name")
    assert q.example_names("gene/protein") == (
        "MATCH (n:`gene/protein`) WHERE n.name IS NOT NULL AND n.name <> '' "
        "RETURN n.name AS name ORDER BY size(n.name), n.name LIMIT $n"
    )


def test_golden_evidence_queries() -> None:
    assert q.documents("drug") == (
        "MATCH (n:`drug`) WHERE n.id IN $ids RETURN n.id AS id, n.name AS name, n.doc AS doc, n.rel_doc AS rel_doc"
    )
    assert q.plain_vectors("drug") == (
        "MATCH (n:`drug`) WHERE n.id IN $ids RETURN n.id AS id, coalesce(n.plain_emb, n.doc_emb) AS plain_emb"
    )
    assert q.node_rows("drug") == (
        "MATCH (n:`drug`) WHERE n.id IN $ids RETURN n.id AS id, n.name AS name, n.doc AS doc, n.rel_doc AS rel_doc, "
        "n.name_emb AS name_emb, n.doc_emb AS doc_emb, n.plain_emb AS plain_emb"
    )
    assert q.relations("drug") == (
        "MATCH (a:`drug`)-[r]->(b) WHERE a.id IN $ids RETURN a.id AS id, type(r) AS type, true AS out, b.id AS nb, "
        "b.name AS nb_name UNION ALL MATCH (a:`drug`)<-[r]-(b) WHERE a.id IN $ids RETURN a.id AS id, type(r) AS type, "
        "false AS out, b.id AS nb, b.name AS nb_name"
    )


def test_golden_node_view_queries() -> None:
    assert q.LABELS == "CALL db.labels() YIELD label RETURN label ORDER BY label"
    assert q.relation_summary("gene/protein") == (
        "MATCH (a:`gene/protein` {id: $id})-[r]-(b) RETURN type(r) AS type, labels(b)[0] AS label, "
        "count(DISTINCT b) AS neighbours, count(r) AS edges, sum(CASE WHEN startNode(r) = a THEN 1 ELSE 0 END) AS out, "
        "collect(DISTINCT b.name)[0..$k] AS names ORDER BY type, label"
    )


def test_golden_question_generator_queries() -> None:
    hops = [("associated with", "disease"), ("phenotype present", "effect/phenotype")]
    assert q.anchors("gene/protein", hops[:1]) == (
        "MATCH (y:`gene/protein`)-[:`associated with`]-(a:`disease`) WHERE y.id = $id AND a <> y "
        "RETURN DISTINCT a.id AS id, a.name AS name ORDER BY id LIMIT 500"
    )
    assert q.path_answers("gene/protein", hops) == (
        "MATCH (a:`effect/phenotype`)-[:`phenotype present`]-(m0:`disease`)-[:`associated with`]-(y:`gene/protein`) "
        "WHERE a.id = $anchor AND a <> y AND toLower(y.doc) CONTAINS $keyword RETURN DISTINCT y.id AS id ORDER BY id"
    )
    assert q.reaches("effect/phenotype", [(("phenotype absent", "phenotype present"), "disease")]) == (
        "MATCH (a:`effect/phenotype`)-[:`phenotype absent`|`phenotype present`]-(y:`disease`) "
        "WHERE a.id = $id AND y <> a RETURN y.id AS id LIMIT 1"
    )
    assert q.label_ids("disease") == "MATCH (n:`disease`) RETURN n.id AS id ORDER BY id"


def test_golden_degree_probe() -> None:
    assert q.degrees("effect/phenotype", ("phenotype present", "phenotype absent"), "in", "disease") == (
        "MATCH (n:`effect/phenotype`) WHERE n.id IN $ids "
        "OPTIONAL MATCH (n)<-[r:`phenotype present`|`phenotype absent`]-(:`disease`) "
        "RETURN n.id AS id, count(r) AS degree"
    )
    assert "OPTIONAL MATCH (n)-[r:`target`]-() " in q.degrees("drug", ("target",), "any", "")


def test_golden_walk_probe() -> None:
    """The second hop's count reads each middle node's degree (types as a parameter), never walks it."""
    assert q.walk_degrees("paper", ("has_topic",), "out", "field", "in") == (
        "MATCH (n:`paper`) WHERE n.id IN $ids MATCH (n)-[:`has_topic`]->(m:`field`) "
        "RETURN n.id AS id, sum(indegree(m, $next_types)) AS degree"
    )
    assert "sum(outdegree(m, $next_types) + indegree(m, $next_types))" in q.walk_degrees("a", ("r",), "any", "b", "any")


def test_injection_in_identifiers_stays_inside_the_quotes() -> None:
    text = q.create_id_index("x`) DETACH DELETE n //")
    assert text == "CREATE INDEX FOR (n:`x``) DETACH DELETE n //`) ON (n.id)"


def test_golden_alias_queries() -> None:
    assert q.create_property_index("_KgqaAlias", "key") == "CREATE INDEX FOR (n:`_KgqaAlias`) ON (n.`key`)"
    assert q.ALIASES_BY_ROW == (
        "MATCH (a:`_KgqaAlias`) WHERE a.row IN $rows "
        "RETURN a.row AS row, a.of AS id, a.of_label AS label, a.of_name AS name, a.name AS alias"
    )
    assert q.ALIASES_WITH_ROWS == (
        "MATCH (a:`_KgqaAlias`) WHERE a.of IN $ids AND a.of_label = $label "
        "RETURN a.row AS row, a.of AS id, a.of_name AS name, a.name AS alias ORDER BY id, alias"
    )
    assert q.EXACT_ALIAS == (
        "MATCH (a:`_KgqaAlias`) WHERE a.key = $key AND a.of_label IN $labels "
        "RETURN a.of AS id, a.of_label AS label, a.of_name AS name, a.name AS alias ORDER BY label, id"
    )
    assert q.ALIASES == (
        "MATCH (a:`_KgqaAlias`) WHERE a.of IN $ids AND a.of_label = $label "
        "RETURN a.of AS id, a.name AS alias ORDER BY id, alias"
    )


def test_golden_full_text_queries() -> None:
    assert q.CREATE_TEXT_INDEX == "CALL db.idx.fulltext.createNodeIndex($label, 'name', 'doc')"
    assert q.TEXT_SCORES == (
        "CALL db.idx.fulltext.queryNodes($label, $query) YIELD node, score WHERE node.id IN $ids "
        "RETURN node.id AS id, score"
    )
    assert q.TEXT_TOP_K == (
        "CALL db.idx.fulltext.queryNodes($label, $query) YIELD node, score "
        "RETURN node.id AS id, node.name AS name, score ORDER BY score DESC, id LIMIT $k"
    )
