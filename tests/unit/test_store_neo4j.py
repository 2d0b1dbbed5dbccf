"""The Neo4j store against a recording fake driver (no server): EXPLAIN preflight and read-only execution, the load
sequence, version switch, and that values only ever travel as parameters. The lint of every text it sent, with
the parameters it was sent with, by Neo4j's own parser: tests/integration/test_neo4j_lint.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import neo4j.exceptions
import numpy as np
import pytest

from kgqa.errors import StoreError, StoreTimeoutError
from kgqa.runtime.store import neo4j_queries as q
from kgqa.runtime.store.base import ALIAS_LABEL, AliasHit, AliasRow, NodeRow, TextHit
from kgqa.runtime.store.neo4j import Neo4jStore
from tests.helpers.neo4j_fakes import META, FakeDriver, Result, store_with


def test_version_switch_and_preflight_before_every_read() -> None:
    driver = FakeDriver(
        [
            ("_KgqaMeta", [["prime", "{}"]]),
            ("queryNodes", [[0, "3", "sumatriptan", 0.9], [1, "4", "zolmitriptan", 0.95]]),
            ("SEARCH", [[0, "3", "sumatriptan", 0.9]]),
        ]
    )
    old = store_with(driver)
    assert old.syntax == "5"
    two = np.ones((2, 4), dtype=np.float32)
    first, second = old.vector_top_k_many("prime", "drug", "name", two, 5)
    assert [(h.id, h.similarity) for h in first] == [("3", 0.9)] and [h.id for h in second] == ["4"]
    assert old.vector_top_k_many("prime", "drug", "name", two, 5, floor=0.92) == [[], second]  # under the floor
    reads = [(text, params) for mode, text, params in driver.sent if mode == "read"]
    for (plan, p1), (text, p2) in zip(reads[::2], reads[1::2], strict=True):
        assert plan == q.explain(text) and p1 == p2  # each query is planned with EXPLAIN first
    assert reads[-1][1] == {"index": q.index_name("drug", "name_emb"), "k": 5, "vectors": [[1.0] * 4] * 2}
    new = store_with(FakeDriver(driver.answers), version="2026.01.0")
    assert new.syntax == "25"
    assert [h.id for h in new.vector_top_k("prime", "drug", "name", np.ones(4, dtype=np.float32), 5)] == ["3"]
    sent = [text for _, text, _ in new.driver.sent]
    assert sent[-2].startswith(
        "CYPHER 25 EXPLAIN UNWIND range(0, size($vectors) - 1) AS i WITH i, $vectors[i] AS vector "
        "MATCH (node:`drug`) SEARCH node IN (VECTOR INDEX"
    )


@pytest.mark.parametrize("spans", [1, 12])
def test_linking_sends_one_query_per_index_whatever_the_number_of_spans(spans: int) -> None:
    """Entity linking searches every span of a question in one query per label and one of the aliases (UNWIND
    $vectors), not one per span: ~100 round trips a question before (issue 53)."""
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]]), ("queryNodes", []), ("alias_of", [])])
    store = store_with(driver)
    vectors = np.ones((spans, 4), dtype=np.float32)
    for label in ("drug", "disease"):
        assert store.vector_top_k_many("prime", label, "name", vectors, 1, floor=0.8) == [[]] * spans
    assert store.alias_top_k_many("prime", vectors, 10, floor=0.8) == [[]] * spans
    searches = [p for mode, text, p in driver.sent if mode == "read" and "vectors" in p and "EXPLAIN" not in text]
    assert len(searches) == 3 and all(len(p["vectors"]) == spans for p in searches)


def test_a_query_neo4j_plans_as_a_write_is_refused() -> None:
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]])])
    store = store_with(driver)
    driver.writes_in_reads = True
    with pytest.raises(StoreError, match="refused: Neo4j plans this query as type 'w', not read-only"):
        store.read("prime", "MATCH (n) RETURN n.id")
    assert "MATCH (n) RETURN n.id" not in [text for _, text, _ in driver.sent]  # never run, only EXPLAINed


def test_a_read_past_the_timeout_is_a_store_timeout_and_other_refusals_are_not() -> None:
    """Every read, the server version's included, runs with the configured time limit as its transaction timeout."""
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]])])
    store = store_with(driver, query_timeout=2.5)
    store.read("prime", "MATCH (n) RETURN n.id")  # knows the SKB now
    assert len(driver.timeouts) == 3 and set(driver.timeouts) == {2.5}
    # the driver's own constructor for errors the server sends (what a real timeout arrives as)
    driver.read_error = neo4j.exceptions.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration", message="The transaction timed out"
    )
    with pytest.raises(StoreTimeoutError, match=r"^query ran past 2\.5 s: The transaction timed out$"):
        store.read("prime", "MATCH (n) RETURN n.id")
    driver.read_error = neo4j.exceptions.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Statement.SyntaxError", message="Invalid input"
    )
    with pytest.raises(StoreError, match="query refused by Neo4j: Invalid input") as refused:
        store.read("prime", "MATCH (n) RETURN n.id")
    assert not isinstance(refused.value, StoreTimeoutError)


def test_row_cap() -> None:
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]]), ("RETURN n.id", [[str(i)] for i in range(11)])])
    with pytest.raises(StoreError, match="more than row_cap = 10 rows"):
        store_with(driver, row_cap=10).read("prime", "MATCH (n) RETURN n.id")


def test_values_travel_only_as_parameters() -> None:
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]])])
    store = store_with(driver)
    payload = "x' }) DETACH DELETE n //"
    store.read("prime", q.exact_name("drug"), {"text": payload})
    assert all(payload not in text for _, text, _ in driver.sent)
    assert driver.sent[-1][2] == {"text": payload}


def test_load_sequence() -> None:
    driver = FakeDriver([("SHOW VECTOR INDEXES", [["i", ["drug"], ["name_emb"], "ONLINE"]]), ("count(n)", [[0]])])
    store = store_with(driver)
    v = np.ones(4, dtype=np.float32)
    plain = np.full(4, 0.5, dtype=np.float32)
    with store.writer("prime", META) as writer:
        writer.add_nodes(
            "drug", [NodeRow("2", "ivermectin", "d", v, v, "", plain), NodeRow("3", "sumatriptan", "d", v, v, "", v)]
        )
        writer.add_edges("drug", "synergistic interaction", "drug", [("2", "3")])
        writer.create_vector_indexes(["drug"], 4)
    steps = [(mode, text) for mode, text, _ in driver.sent if "EXPLAIN" not in text]
    writes = [text for mode, text in steps if mode in ("write", "autocommit")]
    assert writes[:3] == [q.CLEAR_GRAPH, q.WRITE_META, q.create_id_constraint("drug")]  # marker, then data
    assert writes[3] == q.create_property_index("drug", "name_key")
    assert writes[4] == q.create_nodes("drug")
    assert writes[5] == q.create_edges("drug", "synergistic interaction", "drug")
    assert writes[6:8] == [q.create_vector_index("drug", p, 4) for p in ("name_emb", "doc_emb")]
    assert writes[-1] == q.WRITE_META  # the metadata node last: a killed load leaves no SKB behind
    rows = next(p for _, text, p in driver.sent if text == q.create_nodes("drug"))["rows"]
    assert rows[0] == {
        "id": "2",
        "name": "ivermectin",
        "name_key": "ivermectin",
        "doc": "d",
        "rel_doc": "",
        "name_emb": [1.0] * 4,
        "doc_emb": [1.0] * 4,
        "plain_emb": [0.5] * 4,
    }


def test_plain_vectors_are_written_for_whole_batches_only_and_read_back_as_float32() -> None:
    """Rows without ``plain_emb`` (raw rows, as the benchmarks write) go through the text without it; a batch
    mixing both is refused. The read returns float32 vectors by id and leaves out nodes without one."""
    driver = FakeDriver(
        [
            ("_KgqaMeta", [["prime", "{}"]]),
            ("SHOW VECTOR INDEXES", []),
            ("AS plain_emb", [["2", [0.25, 0.5]], ["3", None]]),
        ]
    )
    store = store_with(driver)
    v = np.ones(2, dtype=np.float32)
    with store.writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow("2", "ivermectin", "d", v, v)])
        with pytest.raises(StoreError, match="'drug': 1 of 2 rows lack a plain document vector"):
            writer.add_nodes("drug", [NodeRow("3", "a", "d", v, v, "", v), NodeRow("4", "b", "d", v, v)])
    writes = [text for mode, text, _ in driver.sent if mode == "write" and "CREATE (n:" in text]
    assert writes == [q.create_nodes("drug", plain=False)] and "plain_emb" not in writes[0]
    got = store.plain_vectors("prime", "drug", ["2", "3"])
    assert list(got) == ["2"] and got["2"].dtype == np.float32 and got["2"].tolist() == [0.25, 0.5]
    assert driver.sent[-1][1:] == (q.plain_vectors("drug"), {"ids": ["2", "3"]})


def test_plain_similarities_are_computed_by_the_server_as_cosine() -> None:
    """Neo4j's vector.similarity.cosine scales cosine to [0, 1]; the text undoes it, and a node without a vector
    (null) is left out, as plain_vectors leaves it out."""
    driver = FakeDriver(
        [("_KgqaMeta", [["prime", "{}"]]), ("SHOW VECTOR INDEXES", []), ("AS similarity", [["2", 0.5], ["3", None]])]
    )
    store = store_with(driver)
    got = store.plain_similarities("prime", "drug", ["2", "3"], np.array([0.6, 0.8], dtype=np.float32))
    assert got == {"2": 0.5}
    text, params = driver.sent[-1][1:]
    assert (
        text == q.plain_similarities("drug", store.syntax)
        and "2 * vector.similarity.cosine(coalesce(n.plain_emb, n.doc_emb), $vector) - 1" in text
    )
    assert params == {"ids": ["2", "3"], "vector": [pytest.approx(0.6), pytest.approx(0.8)]}


def test_aliases_are_written_indexed_and_read_as_the_nodes_they_alias() -> None:
    driver = FakeDriver(
        [
            ("_KgqaMeta", [["prime", "{}"]]),
            ("SHOW VECTOR INDEXES", []),
            ("node.of AS id", [[0, "2", "drug", "ivermectin", "Stromectol", 0.5]]),
        ]
    )
    store = store_with(driver)
    v = np.ones(2, dtype=np.float32)
    with store.writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow("2", "ivermectin", "d", v, v, "", v)])
        writer.add_aliases([AliasRow("2", "drug", "ivermectin", " Stromectol", v)])
        writer.create_vector_indexes(["drug"], 2)
    writes = [(text, params) for mode, text, params in driver.sent if mode == "write"]
    texts = [text for text, _ in writes]
    assert q.create_property_index(ALIAS_LABEL, "of") in texts and q.create_property_index(ALIAS_LABEL, "key") in texts
    assert texts[-2:] == [q.create_vector_index(ALIAS_LABEL, "name_emb", 2), q.WRITE_META]
    rows = next(params["rows"] for text, params in writes if text == q.create_aliases())
    assert rows == [
        {"of": "2", "of_label": "drug", "of_name": "ivermectin", "name": " Stromectol", "key": "stromectol"}
        | {"name_emb": [1.0, 1.0]}
    ]
    hits = store.alias_top_k("prime", v, 5)
    assert hits == [AliasHit("2", "drug", "ivermectin", "Stromectol", 0.5)]
    assert driver.sent[-1][2] == {"index": q.index_name(ALIAS_LABEL, "name_emb"), "k": 5, "vectors": [[1.0, 1.0]]}
    assert store.alias_top_k_many("prime", np.array([v, v]), 5, floor=0.5) == [hits, []]  # the rows name vector 0
    assert store.alias_top_k_many("prime", np.array([v]), 5, floor=0.6) == [[]]  # under the floor


def test_a_database_with_foreign_data_or_another_skb_is_never_cleared() -> None:
    foreign = FakeDriver([("count(n)", [[12]])])
    with pytest.raises(StoreError, match="holds data kgqa did not load"), store_with(foreign).writer("prime", META):
        pass
    other = FakeDriver([("_KgqaMeta", [["mag", "{}"]])])
    with pytest.raises(StoreError, match="holds SKB 'mag'"), store_with(other).writer("prime", META):
        pass
    for driver in (foreign, other):
        assert q.CLEAR_GRAPH not in [text for _, text, _ in driver.sent]


@dataclass
class PopulatingDriver(FakeDriver):
    """SHOW VECTOR INDEXES answers the next of ``states`` each time (the last one repeats), for kgqa's index."""

    states: list[str] = field(default_factory=list)

    def respond(self, mode: str, text: str, params: dict[str, Any]) -> Result:
        if "SHOW VECTOR INDEXES" in text and "EXPLAIN" not in text:
            self.sent.append((mode, text, dict(params)))
            state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
            return Result([[q.index_name("drug", "doc_emb"), ["drug"], ["doc_emb"], state]], "r")
        return super().respond(mode, text, params)


def _load(driver: FakeDriver) -> None:
    v = np.ones(4, dtype=np.float32)
    with store_with(driver).writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow("2", "ivermectin", "d", v, v)])
        writer.create_vector_indexes(["drug"], 4)


def test_the_load_waits_until_the_indexes_are_online(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kgqa.runtime.store.neo4j.time.sleep", lambda seconds: None)
    driver = PopulatingDriver([("count(n)", [[0]])], states=["POPULATING", "POPULATING", "ONLINE"])
    _load(driver)
    texts = [text for _, text, _ in driver.sent if "EXPLAIN" not in text]
    polls = [i for i, text in enumerate(texts) if "SHOW VECTOR INDEXES" in text]
    assert len(polls) == 3 and texts[-1] == q.WRITE_META and polls[-1] < len(texts) - 1  # meta after ONLINE only


def test_a_failed_index_stops_the_load_without_marking_the_skb_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kgqa.runtime.store.neo4j.time.sleep", lambda seconds: None)
    driver = PopulatingDriver([("count(n)", [[0]])], states=["POPULATING", "FAILED"])
    with pytest.raises(StoreError, match=r"population FAILED for drug\.doc_emb"):
        _load(driver)
    metas = [p for _, text, p in driver.sent if text == q.WRITE_META]
    assert metas == [{"name": "prime", "json": ""}]  # only the loading marker: no SKB metadata was written
    stuck = PopulatingDriver([("count(n)", [[0]])], states=["POPULATING"])
    store = store_with(stuck)
    with pytest.raises(StoreError, match=r"still populating after 0 s: drug\.doc_emb"):
        store.await_indexes("prime", timeout=0.0)


def test_a_reload_drops_only_kgqas_own_vector_indexes_first() -> None:
    """Else ``IF NOT EXISTS`` would keep an index of the earlier embedder's dimension (or a FAILED one)."""
    own = q.index_name("drug", "doc_emb")
    driver = FakeDriver(
        [
            ("_KgqaMeta", [["prime", "{}"]]),
            ("count(n)", [[5]]),
            (
                "SHOW VECTOR INDEXES",
                [[own, ["drug"], ["doc_emb"], "ONLINE"], ["movies_plot", ["Movie"], ["plot_emb"], "ONLINE"]],
            ),
        ]
    )
    _load(driver)
    writes = [text for mode, text, _ in driver.sent if mode in ("write", "autocommit")]
    assert writes[:2] == [q.drop_vector_index(own), q.CLEAR_GRAPH]
    assert not any("movies_plot" in text for text in writes)


def test_only_kgqas_own_indexes_count_and_full_text_terms_are_ored() -> None:
    """A database may hold the user's own indexes: they are neither this SKB's full-text index nor waited for."""
    text = q.index_name("drug", "text")
    driver = FakeDriver(
        [
            ("_KgqaMeta", [["prime", "{}"]]),
            ("SHOW FULLTEXT", [[text, ["drug"], ["name", "doc"], "ONLINE"], ["mine", ["Movie"], ["title"], "ONLINE"]]),
            ("SHOW VECTOR", [["movies", ["Movie"], ["plot_emb"], "POPULATING"]]),
            ("{limit: $k}", [["2", "ivermectin", 2.5]]),
            ("fulltext.queryNodes", [["2", 1.5]]),
        ]
    )
    store = store_with(driver)
    schema = store.schema("prime")
    assert [(i.label, i.property, i.kind) for i in schema.indexes] == [
        ("drug", "name", "FULLTEXT"),
        ("drug", "doc", "FULLTEXT"),
    ]
    assert schema.has_text_index and not schema.has_aliases
    store.await_indexes("prime", timeout=0.0)  # the user's POPULATING vector index is not waited for
    assert store.text_scores("prime", "drug", ["parasitic", "worms"], ["2", "3"]) == {"2": 1.5}
    assert driver.sent[-1][2] == {"index": text, "query": "parasitic OR worms", "ids": ["2", "3"]}
    store.text_scores("prime", "drug", ['"parasitic worms"', "worms"], ["2"])  # a phrase, in Lucene's quotes
    assert driver.sent[-1][2]["query"] == '"parasitic worms" OR worms'
    with pytest.raises(StoreError, match="plain lower-case words"):
        store.text_scores("prime", "drug", ["Worms"], ["2"])
    assert store.text_top_k("prime", "drug", ["parasitic", "worms"], 5) == [TextHit("2", "ivermectin", "drug", 2.5)]
    assert driver.sent[-1][2] == {"index": text, "query": "parasitic OR worms", "k": 5}
    assert store.text_top_k("prime", "drug", [], 5) == []


def test_read_records_gives_rows_by_column_with_plain_values() -> None:
    """Someone else's query (the text2cypher baseline's): preflight, read transaction, and driver values made
    plain: a node as its properties without vectors, a relationship as its type, a path as nodes and types."""
    from neo4j.graph import Graph, Node, Path

    graph = Graph()
    drug = Node(graph, "a", 1, ["drug"], {"id": "3", "name": "sumatriptan", "name_emb": [0.1], "plain_emb": [0.2]})
    disease = Node(graph, "b", 2, ["disease"], {"id": "1", "doc_emb": [0.3]})
    edge = graph.relationship_type("indication")(graph, "r", 3, {})
    edge._start_node, edge._end_node = drug, disease
    driver = FakeDriver(answers=[("MATCH p", [[drug, edge, Path(drug, edge), [disease, "x"], 7]])])
    store = store_with(driver)
    store._known.add("prime")
    rows = store.read_records("prime", "MATCH p = (y)-[r]->(d) RETURN y, r, p, [d, 'x'], 7 LIMIT 3", {"k": 1})
    assert rows == [
        {
            "c0": {"id": "3", "name": "sumatriptan"},
            "c1": "indication",
            "c2": [{"id": "3", "name": "sumatriptan"}, "indication", {"id": "1"}],
            "c3": [{"id": "1"}, "x"],
            "c4": 7,
        }
    ]
    assert [(mode, text[:15]) for mode, text, _ in driver.sent[-2:]] == [
        ("read", "EXPLAIN MATCH p"),
        ("read", "MATCH p = (y)-["),
    ]
    driver.writes_in_reads = True
    with pytest.raises(StoreError, match="not read-only"):
        store.read_records("prime", "CREATE (n) RETURN n")


def test_a_borrowed_driver_stays_open() -> None:
    closed: list[bool] = []
    driver = FakeDriver()
    driver.close = lambda: closed.append(True)  # type: ignore[method-assign]
    driver.answers.insert(0, ("dbms.components", [["2025.05.0"]]))
    Neo4jStore.borrow(driver, "neo4j").close()
    assert closed == []


def test_a_retriever_over_a_neo4jgraph_reuses_its_driver_read_only(tmp_path: Any) -> None:
    """KgqaRetriever.from_neo4j_graph takes the graph's driver and database; an SKB that is not there is an error
    when the retriever is built, and what it opened is closed again, the driver excepted."""
    from types import SimpleNamespace

    from kgqa.errors import ConfigError, SkbNotLoadedError
    from kgqa.langchain import KgqaRetriever

    closed: list[bool] = []
    driver = FakeDriver(answers=[("dbms.components", [["2025.05.0"]])])
    driver.close = lambda: closed.append(True)  # type: ignore[method-assign]
    graph = SimpleNamespace(_driver=driver, _database="skbs")
    with pytest.raises(SkbNotLoadedError, match="hpo"):
        KgqaRetriever.from_neo4j_graph(graph, "hpo", config={"home": tmp_path})  # type: ignore[arg-type]
    assert closed == [] and driver.sent and all(mode == "read" for mode, _, _ in driver.sent)
    with pytest.raises(ConfigError, match=r"needs a langchain_neo4j\.Neo4jGraph"):
        KgqaRetriever.from_neo4j_graph(object(), "hpo")  # type: ignore[arg-type]


def test_the_degree_probe_is_one_read_of_every_candidate_with_ids_as_a_parameter() -> None:
    """Step 5's cost probe (kgqa.runtime.steps.s4_grounding.Degrees) is the catalogue's text, the same as FalkorDB's:
    one query for a constant's candidates, whatever their number; a candidate the graph lacks counts nothing."""
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]]), ("count(r) AS degree", [["2", 40], ["3", 1]])])
    store = store_with(driver)
    found = store.degrees("prime", "drug", ["2", "3", "9"], ["target"], "out", "gene/protein")
    assert found == {"2": 40, "3": 1}
    reads = [text for mode, text, _ in driver.sent if "count(r) AS degree" in text and not text.startswith("EXPLAIN")]
    assert len(reads) == 1 and q.degrees("drug", ["target"], "out", "gene/protein") in reads[0]
    assert driver.sent[-1][2] == {"ids": ["2", "3", "9"]}


def test_the_second_hop_probe_reads_the_middle_nodes_degrees_in_one_read() -> None:
    driver = FakeDriver([("_KgqaMeta", [["prime", "{}"]]), ("sum(COUNT", [["2", 900]])])
    store = store_with(driver)
    found = store.walk_degrees("prime", "drug", ["2", "9"], ["target"], "out", "gene/protein", ["ppi"], "any")
    assert found == {"2": 900}
    reads = [text for mode, text, _ in driver.sent if "sum(COUNT" in text and not text.startswith("EXPLAIN")]
    assert len(reads) == 1 and reads[0].endswith(
        "MATCH (n)-[:`target`]->(m:`gene/protein`) RETURN n.id AS id, sum(COUNT { (m)-[:`ppi`]-() }) AS degree"
    )
    assert driver.sent[-1][2] == {"ids": ["2", "9"]}


def test_a_graph_published_without_document_vectors_gets_them_and_then_their_index() -> None:
    """A load writes the nodes without ``doc_emb`` and creates no document index (issue 71); the documents writer
    sets the vectors batch by batch and only then creates the index, so the schema lists it once all are in."""
    import json
    from dataclasses import asdict

    meta = json.dumps(asdict(META))
    driver = FakeDriver([("labels(n)[0]", [["drug", 3]]), ("_KgqaMeta", [["prime", meta]])])
    store = store_with(driver)
    store.batch_size = 2
    v = np.ones(4, dtype=np.float32)
    with store.writer("prime", META) as writer:
        writer.add_nodes("drug", [NodeRow(str(i), f"d{i}", "doc", v, None) for i in range(3)])
        writer.create_vector_indexes(["drug"], 4)
    writes = [text for mode, text, _ in driver.sent if mode == "write"]
    assert q.create_nodes("drug", plain=False, doc=False) in writes and "doc_emb" not in writes[4]
    assert q.create_vector_index("drug", "doc_emb", 4) not in writes
    driver.sent.clear()
    docs = np.arange(12, dtype=np.float32).reshape(3, 4)
    with store.documents_writer("prime") as documents:
        documents.add("drug", ["0", "1", "2"], docs)
        assert not [t for m, t, _ in driver.sent if m == "write" and "VECTOR INDEX" in t]  # not before all are in
    sets = [p["rows"] for m, t, p in driver.sent if m == "write" and t == q.set_documents("drug", plain=False)]
    assert sets == [
        [{"id": "0", "doc_emb": [0.0, 1.0, 2.0, 3.0]}, {"id": "1", "doc_emb": [4.0, 5.0, 6.0, 7.0]}],
        [{"id": "2", "doc_emb": [8.0, 9.0, 10.0, 11.0]}],
    ]
    writes = [t for m, t, _ in driver.sent if m == "write"]
    assert writes[-1] == q.create_vector_index("drug", "doc_emb", 4)
    with (
        pytest.raises(StoreError, match="no document vectors were given for label 'drug'"),
        store.documents_writer("prime"),
    ):
        pass
