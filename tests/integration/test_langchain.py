"""kgqa in LangChain on the embedded store (the PRIME-style fixture): the retriever with and without a LangChain
chat model, the text2cypher baseline with scripted replies (a good query, a reversed one the corrector fixes, one
against the schema, a write, a syntax error) and as an eval row, and the store's read_records."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgqa.config import load_config
from kgqa.errors import ConfigError, InputError, LlmError, SkbNotLoadedError
from kgqa.lab.evaluate import BASELINE_ROWS, eval_settings, load_records, run_eval
from kgqa.lab.qa import Question
from kgqa.langchain import KgqaRetriever
from kgqa.runtime.app import Kgqa
from kgqa.runtime.llm import Completion, Message
from tests.helpers.cli import run
from tests.helpers.environment import QUIET

QUESTION = "Which drugs are indicated for migraine?"
# Fixture ids: 0 strongyloidiasis, 1 migraine (diseases); 2 ivermectin, 3 sumatriptan (drugs); 4 CYP3A4, 5 HTR1B;
# 6 Headache, 7 Diarrhea. Edges point drug -[indication]-> disease: sumatriptan is indicated for migraine.


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str, prime_dir: Path) -> Path:
    home = tmp_path_factory.mktemp("langchain") / "home"
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        kg.load("prime", prime_dir)
    return home


class Scripted:
    name = "scripted"

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        self.prompts.append(messages[-1].content)
        return Completion(self.replies.pop(0), 100, 20, 0.1, "stop")


@pytest.fixture
def open_kg(home: Path, tiny_embedder: str) -> Iterator[Kgqa]:
    config = load_config({"home": home, "embedder": tiny_embedder, "top_k": 3, "llm_cache": False}, env=QUIET)
    with Kgqa(config) as kg:
        yield kg


def test_the_retriever_returns_documents_with_kgqa_evidence(open_kg: Kgqa) -> None:
    docs = KgqaRetriever(kg=open_kg, skb="prime", k=3, types=["drug"]).invoke(QUESTION)
    assert [d.metadata["id"] for d in docs][:1] == ["3"] and len(docs) == 2  # the fixture has two drugs
    first = docs[0]
    assert first.id == "3" and first.page_content.startswith("- name: sumatriptan")
    assert "indication" not in first.page_content  # without relations by default
    meta = first.metadata
    assert (meta["type"], meta["name"], meta["rank"], meta["round_l"], meta["plan"]) == (
        "drug",
        "sumatriptan",
        1,
        1,
        "linked",
    )
    assert "graph" in meta["strands"] and meta["score"] > docs[1].metadata["score"]
    evidence = meta["evidence"][0]  # the tiny test embedder links what it links; the evidence says what
    assert set(evidence) == {"symbol", "search", "id", "name", "alias"} and evidence["symbol"] == "e0"
    # the compiled query with every parameter it needs (the last round's candidates of each constant): what a
    # developer pastes into Neo4j Browser gives the answer with its evidence
    assert "$c0" in meta["query"] and evidence["id"] in meta["params"]["c0"]
    rows = open_kg.store.read("prime", meta["query"], meta["params"])
    assert ["3", "sumatriptan", "drug"] in [r[:3] for r in rows]
    full = KgqaRetriever(kg=open_kg, skb="prime", k=3, types=["drug"], relations=True).invoke(QUESTION)
    assert "indication" in full[0].page_content and full[0].page_content.startswith(first.page_content)


def test_the_retriever_takes_k_at_call_time(open_kg: Kgqa) -> None:
    """``invoke(query, k=1)``, as LangChain's retrievers take it (langchain-tests' standard retriever suite)."""
    retriever = KgqaRetriever(kg=open_kg, skb="prime", k=3, types=["drug"])
    assert [d.metadata["id"] for d in retriever.invoke(QUESTION, k=1)] == ["3"]
    assert len(retriever.invoke(QUESTION)) == 2  # the retriever's own k again


def test_the_retriever_writes_cypher_with_a_langchain_chat_model(open_kg: Kgqa) -> None:
    cypher = '```cypher\nMATCH (y:drug)-[:indication]->(d:disease {name: "migraine"})\nRETURN y\n```'
    model = FakeListChatModel(responses=["drug", cypher, "1, 2"])
    retriever = KgqaRetriever(kg=open_kg, skb="prime", k=3, llm=model, reranker="none")
    docs = retriever.invoke(QUESTION)
    assert docs[0].metadata["id"] == "3" and docs[0].metadata["plan"] == "llm"
    assert model.i == 2  # step 1 and step 2 asked it; no reranker
    assert retriever.kg.config.reranker == "none"
    assert open_kg.config.reranker == "auto" and not open_kg.has_llm  # the caller's kgqa is as it was
    # every graph answer's own query and parameters (the LLM's plan's or the linked plan's) give it back
    for doc in docs:
        meta = doc.metadata
        if "graph" not in meta["strands"]:
            assert meta["query"] is None and meta["params"] is None
            continue
        assert doc.id in [row[0] for row in open_kg.store.read("prime", meta["query"], meta["params"])], meta["plan"]
    retriever.close()  # closes the model's reply cache it opened, not the caller's kgqa
    with pytest.raises(sqlite3.ProgrammingError):
        retriever.kg.llm.cache.get(b"x")  # type: ignore[union-attr]
    assert open_kg.store.read("prime", "MATCH (n:drug) RETURN count(n)") == [[2]]
    KgqaRetriever(kg=open_kg, skb="prime").close()  # closes nothing of the caller's
    assert open_kg.store.read("prime", "MATCH (n:drug) RETURN count(n)") == [[2]]


def test_the_retriever_refuses_bad_settings(open_kg: Kgqa) -> None:
    with pytest.raises(ValueError, match="steps"):
        KgqaRetriever(kg=open_kg, skb="prime", steps="everything")
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        KgqaRetriever(kg=open_kg, skb="prime", k=0)
    with pytest.raises(ConfigError, match="needs an LLM"):
        KgqaRetriever(kg=open_kg, skb="prime", reranker="listwise")  # no LLM to rerank with
    with pytest.raises(InputError, match="unknown type 'protein'"):
        KgqaRetriever(kg=open_kg, skb="prime", types=["protein"])
    with pytest.raises(SkbNotLoadedError):
        KgqaRetriever(kg=open_kg, skb="mag")


REVERSED = "MATCH (d:disease {name: 'migraine'})-[:indication]->(y:drug) RETURN y.name"


@pytest.mark.parametrize(
    ("reply", "ids", "status"),
    [
        ('```cypher\nMATCH (y:drug)-[:indication]->(d:disease {name: "migraine"}) RETURN y\n```', ["3"], "ran"),
        # the corrector's patterns do not take an anonymous node with a label: langchain-neo4j runs nothing
        ("MATCH (y:drug)-[:indication]->(:disease {name: 'migraine'}) RETURN y", [], "degraded"),
        (REVERSED, ["3"], "ran"),  # CypherQueryCorrector turns the arrow round; the name is resolved to its node
        ("MATCH (y:drug)-[:treats]->(d:disease) RETURN y", [], "degraded"),  # no such relationship: nothing runs
        ("CREATE (y:drug {id: 'x', name: 'x'}) RETURN y", [], "degraded"),  # refused: the store reads only
        ("MATCH (y:drug RETURN y", [], "degraded"),  # a syntax error
        ("MATCH (y:drug)-[:indication]->(d:disease {name: 'gout'}) RETURN y", [], "ran"),  # nothing found
    ],
)
def test_the_baseline_answers_with_the_llms_own_query(
    home: Path, tiny_embedder: str, reply: str, ids: list[str], status: str
) -> None:
    scripted = Scripted([reply])
    config = load_config({"home": home, "embedder": tiny_embedder, "top_k": 3, "llm_cache": False}, env=QUIET)
    with Kgqa(config, llm=scripted) as kg:
        count = "MATCH (n) RETURN count(n)"
        before = kg.store.read("prime", count)
        answer = kg.text2cypher(QUESTION, "prime")
        assert [c.id for c in answer.answers] == ids
        generated, ran = answer.trace.steps
        assert (generated.name, ran.name, ran.status) == ("cypher", "execute", status)
        assert generated.usage.calls == 1 and answer.trace.usage.prompt_tokens == 100
        assert generated.detail.startswith(f"reply: {reply!r}; corrected query: ")
        assert answer.trace.steps_mode == "text2cypher" and answer.trace.llm == "scripted"
        # langchain-neo4j's own prompt, with the schema as Neo4jGraph formats it
        assert scripted.prompts[0].startswith("Task:Generate Cypher statement to query a graph database.")
        assert "(:drug)-[:indication]->(:disease)" in scripted.prompts[0] and QUESTION in scripted.prompts[0]
        assert kg.store.read("prime", count) == before  # nothing was written


@pytest.mark.parametrize(
    ("reply", "ids"),
    [
        (REVERSED, []),  # no corrector: the arrow stays the wrong way round, the query runs and finds nothing
        ("MATCH (y:drug)-[:indication]->(:disease {name: 'migraine'}) RETURN y", ["3"]),  # runs as written
        ("MATCH (y:drug)-[:treats]->(d:disease) RETURN y", []),
    ],
)
def test_the_unvalidated_baseline_runs_the_llms_query_as_written(
    home: Path, tiny_embedder: str, reply: str, ids: list[str]
) -> None:
    config = load_config({"home": home, "embedder": tiny_embedder, "top_k": 3, "llm_cache": False}, env=QUIET)
    with Kgqa(config, llm=Scripted([reply])) as kg:
        answer = kg.text2cypher(QUESTION, "prime", validate=False)
    assert [c.id for c in answer.answers] == ids
    assert answer.trace.steps_mode == "text2cypher-unvalidated" and answer.trace.steps[1].status == "ran"
    assert answer.trace.query == f"{reply}\nLIMIT 3"


def test_an_llm_failure_answers_nothing_and_says_so(home: Path, tiny_embedder: str) -> None:
    class Down:
        name = "down"

        def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
            raise LlmError("LLM down at http://localhost:8000 timed out")

    config = load_config({"home": home, "embedder": tiny_embedder, "llm_cache": False}, env=QUIET)
    with Kgqa(config, llm=Down()) as kg:
        answer = kg.text2cypher(QUESTION, "prime")
    generated, ran = answer.trace.steps
    assert answer.answers == [] and answer.trace.query is None
    assert generated.status == "degraded"
    assert generated.detail == "the LLM failed: LLM down at http://localhost:8000 timed out"
    assert (ran.status, ran.detail) == ("skipped", "no query")


def test_the_baseline_needs_an_llm(open_kg: Kgqa) -> None:
    with pytest.raises(ConfigError, match="needs an LLM"):
        open_kg.text2cypher(QUESTION, "prime")


def test_the_baseline_is_an_eval_row_beside_kgqas(home: Path, tiny_embedder: str, tmp_path: Path) -> None:
    reply = "MATCH (y:drug)-[:indication]->(d:disease {name: 'migraine'}) RETURN y"
    overrides = {"home": home, "embedder": tiny_embedder, "top_k": 3, "reranker": "none", "llm_cache": False}
    config = load_config(overrides, env=QUIET)
    rows = [("hybrid", "hybrid"), BASELINE_ROWS["text2cypher"], BASELINE_ROWS["text2cypher-unvalidated"]]
    questions = [Question("q1", QUESTION, ("3",))]
    out = tmp_path / "results.json"
    with Kgqa(config, llm=Scripted(["drug", "no cypher here", reply, reply])) as kg:
        settings = eval_settings(kg, "prime", "inline", "test", rows)
        records = run_eval(kg, "prime", questions, rows, out, settings=settings)
    assert [(r.row, r.ranked[:1], r.metrics["hit@1"]) for r in records] == [
        ("hybrid", ["3"], 1.0),
        ("text2cypher (langchain-neo4j)", ["3"], 1.0),
        ("text2cypher, no corrector (the chain's default)", ["3"], 1.0),
    ]
    assert [s["name"] for s in load_records(out)[1].steps] == ["cypher", "execute"]
    settings = json.loads((tmp_path / "results.json.settings.json").read_text())
    assert settings["steps"] == ["hybrid", "text2cypher", "text2cypher-unvalidated"]


def test_read_records_gives_rows_by_column_without_vectors(open_kg: Kgqa) -> None:
    rows = open_kg.store.read_records(
        "prime",
        "MATCH p = (y:drug {id: $id})-[r:indication]->(d:disease) RETURN y, type(r) AS t, r, p, [y.name, 1] AS l",
        {"id": "3"},
    )
    assert len(rows) == 1 and list(rows[0]) == ["y", "t", "r", "p", "l"]
    y = rows[0]["y"]
    assert y["id"] == "3" and y["name"] == "sumatriptan" and not {"name_emb", "doc_emb", "plain_emb"} & set(y)
    assert rows[0]["t"] == rows[0]["r"] == "indication"
    assert [part if isinstance(part, str) else part["id"] for part in rows[0]["p"]] == ["3", "indication", "1"]
    assert rows[0]["l"] == ["sumatriptan", 1]


def test_kgqa_eval_baseline_without_an_llm_is_refused_before_any_question(
    cli_env: dict[str, str], prime_dir: Path, tmp_path: Path
) -> None:
    assert run(cli_env, "load", "stark", "--name", "prime", "--dir", str(prime_dir)).exit_code == 0
    qa = tmp_path / "qa.csv"
    qa.write_text('id,query,answer_ids\n1,Which drugs are indicated for migraine?,"[3]"\n', encoding="utf-8")
    args = ("eval", "--skb", "prime", "--qa", str(qa), "--baseline", "text2cypher", "--out", str(tmp_path / "r.json"))
    refused = run(cli_env, *args)
    assert refused.exit_code == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.splitlines()[-1].startswith("error: --baseline text2cypher needs an LLM: set llm, or --llm")
    assert not (tmp_path / "r.json.jsonl").exists()  # refused before any question was answered
    unknown = run(cli_env, *args[:-2], "--baseline", "cypher-only")
    assert unknown.exit_code == 2 and "Invalid value for '--baseline': 'cypher-only'" in unknown.stderr
