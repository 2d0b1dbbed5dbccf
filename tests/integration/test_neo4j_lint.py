"""Every Cypher text kgqa sends to Neo4j, in both syntaxes, and the pattern queries compiled from the 100 real LLM
replies, linted by Neo4j's own parser and semantic analysis (the golden texts: tests/unit/test_neo4j_queries.py and
tests/unit/test_store_neo4j.py).

No Neo4j server runs here; the lint uses @neo4j-cypher/language-support from Node.js (tools/neo4j-lint, installed by
`npm ci --prefix tools/neo4j-lint`, which .ci/run does; the tests skip without it). Executing these texts against
Neo4j is tests/e2e/test_neo4j.py.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kgqa.cypher.compile import pattern_query
from kgqa.cypher.errors import CypherSyntaxError
from kgqa.cypher.parser import parse
from kgqa.cypher.sanitize import GraphSchema, sanitize
from kgqa.runtime.store import neo4j_queries as q
from kgqa.runtime.store.base import ALIAS_LABEL, NODE_KEYS, AliasRow, NodeRow
from tests.helpers import neo4j_lint
from tests.helpers.attacks import CASES, compile_case
from tests.helpers.neo4j_fakes import META, FakeDriver, store_with

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm_cypher"


# --- the texts kgqa sends ---------------------------------------------------------------------------------


def _corpus_schemas() -> dict[str, tuple[list[str], list[tuple[str, str, str]]]]:
    spec = importlib.util.spec_from_file_location("llm_cypher_generate", FIXTURES / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: (labels, rels) for name, (_, labels, rels) in module.SCHEMAS.items()}


SCHEMAS = _corpus_schemas()
ALIAS_KEYS = [q.ALIAS_OF, q.ALIAS_OF_LABEL, q.ALIAS_OF_NAME, q.ALIAS_KEY]
_VECTOR = [0.1] * 384


def every_statement(syntax: q.Syntax) -> list[dict[str, Any]]:
    """Each text kgqa would send to Neo4j for the three STaRK schemas, with the parameters it is sent with."""
    out: list[dict[str, Any]] = []

    def add(name: str, text: str, params: dict[str, Any]) -> None:
        out.append({"name": f"{syntax}:{name}", "query": q.statement(text, syntax), "parameters": params})

    raw = {"id": "1", "name": "n", "name_key": "n", "doc": "d", "rel_doc": "", "name_emb": _VECTOR, "doc_emb": _VECTOR}
    row = {**raw, "plain_emb": _VECTOR}
    add("LIST_INDEXES", q.LIST_INDEXES, {})
    add("NODE_COUNTS", q.NODE_COUNTS, {})
    add("LABELS", q.LABELS, {})
    add("EDGE_COUNTS", q.EDGE_COUNTS, {})
    add("NODE_COUNTS_NEO4J", q.NODE_COUNTS_NEO4J, {})
    add("LIST_TEXT_INDEXES", q.LIST_TEXT_INDEXES, {})
    alias = {"of": "1", "of_label": "disease", "of_name": "n", "name": "a", "key": "a", "name_emb": _VECTOR}
    add("create_aliases", q.create_aliases(), {"rows": [alias]})
    add("EXACT_ALIAS", q.EXACT_ALIAS, {"key": "a", "labels": ["disease"]})
    add("ALIASES", q.ALIASES, {"label": "disease", "ids": ["1"]})
    for prop in (q.ALIAS_OF, q.ALIAS_KEY):
        add(f"create_property_index {prop}", q.create_property_index(ALIAS_LABEL, prop), {})
    add("create_vector_index aliases", q.create_vector_index(ALIAS_LABEL, q.NAME_EMB, 384), {})
    by_alias = q.alias_top_k(syntax)
    out.append(
        {
            "name": f"{syntax}:alias_top_k",
            "query": by_alias.text,
            "parameters": {**by_alias.params, "k": 10, "vectors": [_VECTOR, _VECTOR]},
        }
    )
    for labels, rels in SCHEMAS.values():
        for label in labels:
            add(f"create_nodes {label}", q.create_nodes(label), {"rows": [row]})
            add(f"create_nodes {label} without plain_emb", q.create_nodes(label, plain=False), {"rows": [raw]})
            bare = {k: v for k, v in raw.items() if k != q.DOC_EMB}
            query = q.create_nodes(label, plain=False, doc=False)
            add(f"create_nodes {label} without document vectors", query, {"rows": [bare]})
            later = {"id": "1", q.DOC_EMB: _VECTOR, q.PLAIN_EMB: _VECTOR}
            add(f"set_documents {label}", q.set_documents(label, plain=True), {"rows": [later]})
            add(f"set_documents {label} without plain_emb", q.set_documents(label, plain=False), {"rows": [later]})
            add(f"create_id_constraint {label}", q.create_id_constraint(label), {})
            add(f"create_property_index name_key {label}", q.create_property_index(label, q.NAME_KEY), {})
            add(f"exact_name {label}", q.exact_name(label), {"key": "x"})
            add(f"example_names {label}", q.example_names(label), {"n": 3})
            add(f"documents {label}", q.documents(label), {"ids": ["1"]})
            add(f"plain_vectors {label}", q.plain_vectors(label), {"ids": ["1"]})
            add(f"relations {label}", q.relations(label), {"ids": ["1"]})
            add(f"relation_summary {label}", q.relation_summary(label), {"id": "1", "k": 5})
            add(f"label_ids {label}", q.label_ids(label), {})
            add(f"node_rows {label}", q.node_rows(label), {"ids": ["1"]})
            add(f"create_text_index {label}", q.create_text_index(label), {})
            scores = q.text_scores(label, syntax)
            out.append(
                {
                    "name": f"{syntax}:text_scores {label}",
                    "query": scores.text,
                    "parameters": {**scores.params, "query": "seizure OR liver", "ids": ["1"]},
                }
            )
            out.append(
                {
                    "name": f"{syntax}:plain_similarities {label}",
                    "query": q.plain_similarities(label, syntax),
                    "parameters": {"ids": ["1"], "vector": [0.5] * 4},
                }
            )
            top = q.text_top_k(label, syntax)
            out.append(
                {
                    "name": f"{syntax}:text_top_k {label}",
                    "query": top.text,
                    "parameters": {**top.params, "query": "seizure OR liver", "k": 10},
                }
            )
            for prop in (q.NAME_EMB, q.DOC_EMB):
                add(f"create_vector_index {label} {prop}", q.create_vector_index(label, prop, 384), {})
                add(f"drop_vector_index {label} {prop}", q.drop_vector_index(q.index_name(label, prop)), {})
                vector = q.vector_top_k(label, prop, syntax)
                out.append(
                    {
                        "name": f"{syntax}:vector_top_k {label} {prop}",
                        "query": vector.text,
                        "parameters": {**vector.params, "k": 10, "vectors": [_VECTOR]},
                    }
                )
        for source, rel_type, target in rels[:4]:  # question-generator paths, 1 and 2 hops
            hops = [(rel_type, target), (rel_type, source)]
            for path in (hops[:1], hops):
                add(f"anchors {source} {path}", q.anchors(source, path), {"id": "1"})
                add(f"path_answers {source} {path}", q.path_answers(source, path), {"anchor": "1", "keyword": "x"})
            add(f"reaches {target} {rel_type}", q.reaches(target, [((rel_type,), source)]), {"id": "1"})
            for direction in ("out", "in", "any"):
                add(
                    f"degrees {source} {rel_type} {direction}",
                    q.degrees(source, (rel_type,), direction, target),
                    {"ids": ["1"]},
                )
            add(f"degrees {target} {rel_type} any label", q.degrees(target, (rel_type,), "any", ""), {"ids": ["1"]})
            for direction in ("out", "in", "any"):
                add(
                    f"walk_degrees {source} {rel_type} {direction}",
                    q.walk_degrees(source, (rel_type,), "out", target, (rel_type, rel_type), direction),
                    {"ids": ["1"]},
                )
        for source, rel_type, target in rels:
            add(f"edge_rows {source} {rel_type} {target}", q.edge_rows(source, rel_type, target), {})
            add(
                f"create_edges {source} {rel_type} {target}",
                q.create_edges(source, rel_type, target),
                {"rows": [["1", "2"]]},
            )
    return out


def compiled_corpus(syntax: q.Syntax) -> list[dict[str, Any]]:
    """The pattern query of every real LLM reply that compiles, with its parameters (candidate ids filled in)."""
    out = []
    for number, line in enumerate((FIXTURES / "replies.jsonl").read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        labels, rels = SCHEMAS[record["skb"]]
        with contextlib.suppress(CypherSyntaxError):
            plan = sanitize(parse(record["reply"]), GraphSchema(tuple(labels), tuple(rels), NODE_KEYS)).plan
            constants = tuple(c.name for c in plan.constants)
            # the orders step 5 may bind in: as written and the cheapest constant first (here: the last); on every
            # tenth reply (they change only the RETURN or the first MATCH), the answers among given ids first (a
            # relaxed hub) and the ids alone (an exclusion)
            variants: dict[str, dict[str, Any]] = {"": {}}
            if len(constants) > 1:
                variants["reversed"] = {"first": constants[::-1]}
            if number % 10 == 0:
                variants["ids only"] = {"ids_only": True}
                if plan.target not in constants:
                    variants["targets"] = {"first": (plan.target, *constants)}
            for variant, options in variants.items():
                query = pattern_query(plan, NODE_KEYS, limit=1000, **options)
                params = {**query.params, **{p: ["1", "2"] for p in query.constant_params.values()}}
                if variant == "targets":
                    params["targets"] = ["3"]
                name = f"{syntax}:reply {number} {variant}".rstrip()
                out.append({"name": name, "query": q.statement(query.text, syntax), "parameters": params})
    return out


def compiled_attacks(syntax: q.Syntax) -> list[dict[str, Any]]:
    """The pattern query of every case of the attack corpus (tests/fixtures/attacks.csv) that compiles."""
    out = []
    for case in CASES:
        with contextlib.suppress(CypherSyntaxError):
            _, query = compile_case(case.cypher, case.mode)
            params = {**query.params, **{p: ["1", "2"] for p in query.constant_params.values()}}
            out.append(
                {"name": f"{syntax}:attack {case.case}", "query": q.statement(query.text, syntax), "parameters": params}
            )
    return out


@pytest.fixture(scope="module")
def lint() -> neo4j_lint.Linter:
    if (reason := neo4j_lint.missing()) is not None:
        pytest.skip(reason)
    labels = [*sorted({label for ls, _ in SCHEMAS.values() for label in ls}), q.META_LABEL, ALIAS_LABEL]
    types = sorted({t for _, rels in SCHEMAS.values() for _, t, _ in rels})
    keys = [q.ID, q.NAME, q.NAME_KEY, q.DOC, q.REL_DOC, q.NAME_EMB, q.DOC_EMB, q.PLAIN_EMB, *ALIAS_KEYS]
    schema = {"labels": labels, "relationshipTypes": types, "propertyKeys": keys}
    return lambda statements: neo4j_lint.lint(statements, schema)


def test_the_linter_catches_what_neo4j_would_refuse(lint: neo4j_lint.Linter) -> None:
    """The lint is only worth something if it fails: wrong keyword, arity, missing parameter, bad SEARCH."""
    bad = {
        "keyword": ("MATCH (n) RETRN n", {}),
        "arity": ("CALL db.index.vector.queryNodes($index, $k) YIELD node, score RETURN node", {"index": "i", "k": 1}),
        "parameter": ("MATCH (n) WHERE n.id IN $ids RETURN n", {}),
        "search": ("CYPHER 25 MATCH (n:`disease`) SEARCH n IN (VECTOR INDEX i FOR $v LIMITS 3) RETURN n", {"v": [1]}),
    }
    result = lint([{"name": name, "query": text, "parameters": params} for name, (text, params) in bad.items()])
    for name in bad:
        assert any(d["severity"] == 1 for d in result[name]), (name, result[name])


@pytest.mark.parametrize("syntax", ["5", "25"])
def test_every_neo4j_text_passes_neo4js_own_lint(lint: neo4j_lint.Linter, syntax: q.Syntax) -> None:
    corpus = compiled_corpus(syntax)
    assert len(corpus) >= 90  # 96 of the 100 replies compile against their STaRK schema
    attacks = compiled_attacks(syntax)
    assert len(attacks) >= 70
    statements = every_statement(syntax) + corpus + attacks
    problems = {name: diags for name, diags in lint(statements).items() if diags}
    assert problems == {}


NASTY = [
    "it's",
    'say "hi"',
    "back\\slash",
    "line\nbreak\ttab",
    "nul\x00byte",
    "emoji 😀",
    "bell\x07",
    "\u2028sep",
    "full-width \uff2d\uff21\uff34\uff23\uff28",
    "'}) DETACH DELETE n //",
    "ünïcödé",
]


def test_browser_literals_parse_in_neo4j(lint: neo4j_lint.Linter) -> None:
    statements = [
        {"name": str(i), "query": f"RETURN {q.cypher_literal(text)} AS x", "parameters": {}}
        for i, text in enumerate(NASTY)
    ]
    assert {name: diags for name, diags in lint(statements).items() if diags} == {}


def test_everything_the_store_sent_passes_neo4js_lint() -> None:
    if (reason := neo4j_lint.missing()) is not None:
        pytest.skip(reason)
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]]), ("SHOW VECTOR INDEXES", []), ("count(n)", [[0]])])
    store = store_with(driver)
    v = np.ones(4, dtype=np.float32)
    with store.writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow("2", "ivermectin", "d", v, v, "", v)])
        writer.add_nodes("drug", [NodeRow("3", "sumatriptan", "d", v, v)])
        writer.add_edges("drug", "synergistic interaction", "drug", [("2", "2")])
        writer.add_aliases([AliasRow("2", "drug", "ivermectin", "Stromectol", v)])
        writer.create_vector_indexes(["drug"], 4)
    store.schema("prime")
    store.vector_top_k("prime", "drug", "doc", v, 3)
    store.alias_top_k("prime", v, 3)
    store.text_scores("prime", "drug", ["worms", "parasitic"], ["2"])
    store.text_top_k("prime", "drug", ["worms", "parasitic"], 5)
    store.exact_alias("prime", ["drug"], "stromectol")
    store.aliases("prime", "drug", ["2"])
    store.plain_vectors("prime", "drug", ["2"])
    store.plain_similarities("prime", "drug", ["2"], v)
    store.read("prime", q.relations("drug"), {"ids": ["2"]})
    store.degrees("prime", "drug", ["2", "3"], ["synergistic interaction"], "out", "drug")
    store.walk_degrees(
        "prime", "drug", ["2"], ["synergistic interaction"], "out", "drug", ["synergistic interaction"], "in"
    )
    statements = [
        {"name": str(i), "query": text, "parameters": params} for i, (_, text, params) in enumerate(driver.sent)
    ]
    schema = {
        "labels": ["drug", q.META_LABEL, ALIAS_LABEL],
        "relationshipTypes": ["synergistic interaction"],
        "propertyKeys": [
            "id",
            "name",
            "name_key",
            "doc",
            "rel_doc",
            "name_emb",
            "doc_emb",
            "plain_emb",
            "json",
            *ALIAS_KEYS,
        ],
    }
    problems = {
        s["query"]: d for s, d in zip(statements, neo4j_lint.lint(statements, schema).values(), strict=True) if d
    }
    assert problems == {}
