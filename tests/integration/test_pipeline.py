"""The 8-step pipeline on the PRIME-style fixture, every LLM step driven by scripted replies through the real openai
client (junk, empty, truncated, wrong-type and timed-out replies included): each gives an answer list with a trace
that says what degraded, never a traceback. Also: no LLM at all, the cross-encoder, and llama.cpp when installed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import numpy as np
import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import load_config
from kgqa.errors import ConfigError
from kgqa.runtime.app import Kgqa
from kgqa.runtime.embed import Embedder
from kgqa.runtime.steps.s1_target_type import type_by_embedding
from kgqa.runtime.steps.s8_rerank import render, rerank_documents
from kgqa.types import Answer
from tests.helpers.environment import QUIET
from tests.helpers.local_llm import MISSING, SMOLLM2
from tests.helpers.scripted_llm import SCRIPTED_SETTINGS, ScriptedEndpoint
from tests.helpers.tiny_model import build_tiny_cross_encoder

QUESTION = "Which drugs are indicated for migraine?"
CYPHER = '```cypher\nMATCH (y:drug)-[:indication]->(d:disease {name: "migraine"})\nRETURN y\n```'
# Fixture ids: 0 strongyloidiasis, 1 migraine (diseases); 2 ivermectin, 3 sumatriptan (drugs); 4 CYP3A4, 5 HTR1B;
# 6 Headache, 7 Diarrhea. sumatriptan is indicated for migraine.


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str, prime_dir: Path) -> Path:
    home = tmp_path_factory.mktemp("pipeline") / "home"
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        kg.load("prime", prime_dir)
    return home


@pytest.fixture
def ask(home: Path, tiny_embedder: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """ask(replies, **settings) -> (Answer, endpoint): one question through a fresh Kgqa with a scripted LLM."""

    def run(
        replies: list[Any], question: str = QUESTION, types: list[str] | None = None, **settings: Any
    ) -> tuple[Answer, ScriptedEndpoint]:
        endpoint = ScriptedEndpoint(list(replies))
        monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
        overrides = {
            "home": home,
            "embedder": tiny_embedder,
            **SCRIPTED_SETTINGS,
            "top_k": 4,
            **settings,
        }
        with Kgqa(load_config(overrides, env=QUIET, cwd=home.parent)) as kg:
            return kg.ask(question, "prime", types=types), endpoint

    yield run


def status(answer: Answer) -> dict[int, str]:
    return {s.step: s.status for s in answer.trace.steps}


def ids(answer: Answer) -> list[str]:
    return [c.id for c in answer.answers]


Hop = tuple[str, tuple[str, ...], str, str, str | None]


def hops(plan: dict[str, Any]) -> list[Hop]:
    """A plan of the trace as (head label, relation types, direction, tail label, the tail's name constant) per
    triplet: enough to tell the LLM's plan from the schema-guided plan of the linked entities."""
    symbols = {s["name"]: s for s in plan["symbols"]}

    def label(name: str) -> str:
        return symbols[name]["labels"][0]

    def constant(name: str) -> str | None:
        conditions = symbols[name]["conditions"]
        return next((c["value"] for c in conditions if c["property"] == "name" and c["op"] == "="), None)

    return [
        (label(t["head"]), tuple(t["types"]), t["direction"], label(t["tail"]), constant(t["tail"]))
        for t in plan["triplets"]
    ]


LINKED = [("drug", ("indication",), "both", "disease", "migraine")]
"""The schema-guided plan of the entity linked in QUESTION ('migraine' -> disease 1): drugs indicated for it."""


def test_step_6_embeds_no_document_and_scores_as_embedding_them_would(
    home: Path, tiny_embedder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question embeds itself, its n-grams and type names, never a node's document: step 6 reads the
    ``plain_emb`` the load stored, which is exactly what embedding ``doc or name`` at the default length gives,
    so each graph answer's score is the similarity step 6 computed when it embedded the documents itself (the dense
    part: without the lexical one, which a test below covers)."""
    embedded: list[str] = []
    original = Embedder.embed

    def recording(self: Embedder, texts: Any, max_tokens: int | None = None, progress: Any = None) -> Any:
        embedded.extend(texts)
        return original(self, texts, max_tokens, progress)

    overrides = {"home": home, "embedder": tiny_embedder, "top_k": 4, "lexical_weight": 0.0}
    with Kgqa(load_config(overrides, env=QUIET, cwd=home.parent)) as kg:
        store, embedder = kg.store, kg.embedder
        labels = store.labels("prime")
        nodes = {(lab, t.id): t for lab in labels for t in store.documents("prime", lab, store.label_ids("prime", lab))}
        texts = {key: t.doc or t.name for key, t in nodes.items()}
        for (label, node_id), text in texts.items():  # the load stored what embedding the text gives, bit for bit
            stored = store.plain_vectors("prime", label, [node_id])[node_id]
            assert np.array_equal(stored, embedder.embed([text])[0]), (label, node_id)
        monkeypatch.setattr(Embedder, "embed", recording)
        answer = kg.ask(QUESTION, "prime", steps="graph")
        monkeypatch.undo()
        question = embedder.embed_one(QUESTION)
        graph = [c for c in answer.answers if "graph" in c.strands]
        assert graph and answer.trace.record(6).status == "ran"
        documents = {text for key, text in texts.items() if text != nodes[key].name}
        assert {texts[c.type, c.id] for c in graph} <= documents  # what step 6 would have embedded ...
        assert QUESTION in embedded and not documents & set(embedded)  # ... and did not
        for c in graph:
            expected = float(embedder.embed([texts[c.type, c.id]])[0] @ question)
            assert c.score == pytest.approx(expected, abs=1e-6)


def test_full_pipeline_with_listwise_rerank(ask: Any) -> None:
    answer, endpoint = ask(["drug", CYPHER, "2, 1"])
    assert status(answer) == {n: "ran" for n in range(1, 9)}
    assert answer.trace.target_type == "drug"
    assert ids(answer) == ["2", "3"]  # the listwise reply put the vector answer (ivermectin) first
    sumatriptan = answer.answers[1]
    assert sumatriptan.strands[0] == "graph" and sumatriptan.round_l == 1
    # the LLM's evidence first; the linked entities' plan (grounded beside it) grounded it too
    assert next((m.symbol, m.search, m.id, m.name) for m in sumatriptan.matches) == ("d", "migraine", "1", "migraine")
    # the tiny model links 'indicated' to 'Headache' too: the linked plan's relaxations are grounded beside it
    sources = [p["source"] for p in answer.trace.plans]
    assert sumatriptan.plans[0] == "llm" and sources == ["llm", "linked", "relaxed-1", "relaxed-2"]
    ivermectin = answer.answers[0]  # grounded at l=2, through the second candidate for 'migraine'
    assert ivermectin.round_l == 2 and next(m.name for m in ivermectin.matches) == "strongyloidiasis"
    assert ivermectin.strands == ("graph", "vector")
    # the lexical terms are the question's words the linked entities do not cover, not the LLM's: here the tiny
    # model's links ('indicated' -> Headache, 'migraine') cover every word, so no full-text strand finds it
    assert sumatriptan.strands == ("graph", "vector")
    assert answer.trace.usage.calls == 3 and len(endpoint.requests) == 3
    rerank_prompt = endpoint.requests[2]["messages"][0]["content"]
    assert "[1] sumatriptan (drug)" in rerank_prompt and "indication: migraine" in rerank_prompt
    step2_prompt = endpoint.requests[1]["messages"][0]["content"]
    assert "the answer is a node of type drug" in step2_prompt


def test_step1_bad_replies_fall_back_to_the_type_the_question_names(ask: Any) -> None:
    """A reply naming no single known type, or none at all: step 1 degrades to the type QUESTION names ("Which
    *drugs* ..."), and steps 2-8 run with it."""
    for reply in ("I think it is a kind of medicine", "protein", "", httpx2.ReadTimeout("slow")):
        answer, endpoint = ask([reply, CYPHER, "1, 2"])
        first = answer.trace.record(1)
        assert first.status == "degraded", reply
        assert first.usage.calls == (0 if isinstance(reply, Exception) else 1), reply  # a timeout yields no reply
        assert answer.trace.target_type == "drug", reply
        assert "the answer is a node of type drug" in endpoint.requests[1]["messages"][0]["content"]
        assert ids(answer) and {c.type for c in answer.answers} == {"drug"}, reply
        assert status(answer) == {1: "degraded", **{n: "ran" for n in range(2, 9)}}, reply


@pytest.mark.parametrize(
    ("question", "named"), [("Which diseases present headache?", "disease"), ("What treats migraine?", None)]
)
def test_step1_fallback_is_the_named_type_else_the_closest_type_name(
    ask: Any, home: Path, tiny_embedder: str, question: str, named: str | None
) -> None:
    """The type the question names near its start wins over the embeddings; without one, the type whose name is
    closest to the question by embedding (kgqa/runtime/steps/s1_target_type.py)."""
    answer, _ = ask(["protein", CYPHER], question=question, steps="graph")
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        closest, _ = type_by_embedding(kg.embedder.embed_one(question), answer.trace.types, kg.embedder)
    assert closest != named  # else this question could not tell the two fallbacks apart
    assert answer.trace.record(1).status == "degraded"
    read, _, grounded = answer.trace.record(1).detail.partition("; grounded: ")
    assert read.endswith(f": {named or closest}")  # step 1's own reading
    # a type in doubt may be settled by the grounded plans (issue 70): the trace says so
    settled = answer.trace.target_type
    assert settled == (named or closest) or grounded.startswith(f"changed to {settled}: ")


@pytest.mark.parametrize(
    ("reply", "failed"),
    [
        ("Sorry, I can't write Cypher.", 3),
        ("", 3),
        ("MATCH (y:drug) DETACH DELETE y", 3),
        (503, 2),
        (httpx2.ReadTimeout("slow"), 2),
    ],
    ids=["junk", "empty", "write", "http-503", "timeout"],
)
def test_step2_and_3_failures_fall_back_to_the_linked_plan(ask: Any, reply: Any, failed: int) -> None:
    """No usable Cypher (step 2 got no reply, or step 3 could not use it): the schema-guided plan of the linked
    entities runs instead (what runs without an LLM); with plan_fallback off, the vector strand alone answers (the
    method as published; its full-text side fused in, step 7)."""
    answer, endpoint = ask(["drug", reply, "1, 2"], link_threshold=0.9999)
    assert len(endpoint.requests) == 3  # steps 1, 2 and 8 asked
    cypher_step = answer.trace.record(2)
    assert (cypher_step.status, cypher_step.usage.calls) == (("degraded", 0) if failed == 2 else ("ran", 1))
    assert status(answer) == {1: "ran", 2: cypher_step.status, 3: "degraded", **{n: "ran" for n in range(4, 9)}}
    assert answer.trace.plan is not None and hops(answer.trace.plan) == LINKED  # the linked plan stood in
    assert [p["source"] for p in answer.trace.plans] == ["linked"]  # ... alone
    sumatriptan = answer.answers[0]  # the linked plan grounds the drug indicated for migraine at l=1
    assert (sumatriptan.id, sumatriptan.round_l, sumatriptan.plan) == ("3", 1, "linked")
    assert [(m.search, m.id, m.name) for m in sumatriptan.matches] == [("migraine", "1", "migraine")]
    assert all(c.plan == "linked" for c in answer.answers if "graph" in c.strands)

    answer, _ = ask(["drug", reply, "1, 2"], link_threshold=0.9999, plan_fallback=False)
    assert status(answer)[failed] == "degraded" and answer.trace.plans == []
    assert answer.trace.plan is None or hops(answer.trace.plan) != LINKED  # nothing stood in for the LLM's plan
    assert {s.step for s in answer.trace.steps if s.status == "skipped"} >= {4, 5, 6}
    assert sorted(ids(answer)) == ["2", "3"] and all(set(c.strands) <= {"vector", "text"} for c in answer.answers)
    assert all(c.plan is None for c in answer.answers)


# Grounds only sumatriptan, and only at l=2: the LLM wrote a gene-disease constraint the question never asked for.
NARROW = (
    'MATCH (y:drug)-[:indication]->(d:disease {name: "strongyloidiasis"}), '
    "(y)-[:target]->(g:`gene/protein`)-[:`associated with`]->(d) RETURN y"
)
# Grounds ivermectin at l=1 and sumatriptan at l=2: the wrong disease.
WRONG_DISEASE = 'MATCH (y:drug)-[:indication]->(d:disease {name: "strongyloidiasis"}) RETURN y'


def test_the_linked_plan_is_grounded_beside_the_llm_plan_and_agreement_rises(ask: Any) -> None:
    answer, _ = ask(["drug", NARROW], steps="graph", link_threshold=0.9999)
    assert ids(answer) == ["3", "2"]
    by_id = {c.id: c for c in answer.answers}
    # sumatriptan: the linked plan grounded it at l=1, the LLM's at l=2: it ranks at l=1, the linked plan's round,
    # whose grounding leads
    assert (by_id["3"].plan, by_id["3"].plans, by_id["3"].round_l) == ("linked", ("llm", "linked"), 1)
    assert [(m.symbol, m.search, m.name) for m in by_id["3"].matches] == [
        ("d", "strongyloidiasis", "migraine"),
        ("linked.e0", "migraine", "migraine"),
    ]
    assert (by_id["2"].plan, by_id["2"].plans, by_id["2"].round_l) == ("linked", ("linked",), 2)
    assert "weight 1 at l=1 (llm l=2 + linked l=1)" in by_id["3"].why
    # the LLM's plan stays the trace's plan; every plan grounded is in the trace with its own query
    assert answer.trace.plan is not None and hops(answer.trace.plan)[0][-1] == "strongyloidiasis"
    plans = answer.trace.plans
    assert [p["source"] for p in plans] == ["llm", "linked"] and hops(plans[1]["plan"]) == LINKED
    assert answer.trace.query == plans[0]["query"] != plans[1]["query"]
    assert answer.trace.record(5).status == answer.trace.record(6).status == "ran"

    # without plan_fallback: the LLM's plan alone, which grounds nothing at l=1 (sumatriptan only at l=2)
    off, _ = ask(["drug", NARROW], steps="graph", link_threshold=0.9999, plan_fallback=False)
    assert ids(off) == ["3"] and off.answers[0].round_l == 2 and [p["source"] for p in off.trace.plans] == ["llm"]
    assert off.trace.record(6).status == "ran" and [c.plan for c in off.answers] == ["llm"]
    assert off.trace.plan == answer.trace.plan


def test_plans_that_disagree_tie_and_relevance_decides(ask: Any) -> None:
    """The wrong disease's plan grounds ivermectin at l=1 and sumatriptan at l=2; the linked plan the reverse: each
    target ranks at l=1 by one plan's weight, the plans take turns, and relevance decides."""
    answer, _ = ask(["drug", WRONG_DISEASE], steps="graph", link_threshold=0.9999)
    assert sorted(ids(answer)) == ["2", "3"]
    assert all(c.plans == ("llm", "linked") and "weight 1 at l=1" in c.why for c in answer.answers)
    first, second = answer.answers
    assert first.score >= second.score and int(first.fused or 0) == int(second.fused or 0) == 1


def test_a_plan_like_the_linked_one_changes_nothing(ask: Any) -> None:
    """The LLM's plan is the linked entities' plan: every target gets both votes, in the rounds of either."""
    answer, _ = ask(["drug", CYPHER], steps="graph", link_threshold=0.9999)
    assert [p["source"] for p in answer.trace.plans] == ["llm", "linked"]
    assert hops(answer.trace.plans[1]["plan"]) == LINKED
    assert [(c.id, c.plans, c.round_l) for c in answer.answers] == [
        ("3", ("llm", "linked"), 1),
        ("2", ("llm", "linked"), 2),
    ]
    assert answer.trace.record(5).status == "ran" and answer.trace.record(6).status == "ran"


@pytest.mark.parametrize(
    ("reply", "order", "repaired"),
    [
        ("2, 1", ["2", "3"], False),
        ("1, 2", ["3", "2"], False),
        ("[2] is best", ["2", "3"], True),
        ("7, 7, 1", ["3", "2"], True),
        ("no idea", ["3", "2"], True),
    ],
)
def test_listwise_replies_are_repaired_into_a_permutation(
    ask: Any, reply: str, order: list[str], repaired: bool
) -> None:
    answer, endpoint = ask(["drug", CYPHER, reply])
    assert ids(answer) == order  # the merged order is ["3", "2"]: "1, 2" keeps it, "2, 1" swaps
    assert (status(answer)[8] == "degraded") == repaired
    assert answer.trace.record(8).usage.calls == 1 and len(endpoint.requests) == 3  # one listwise request


def test_pairwise_and_pointwise(ask: Any) -> None:
    answer, endpoint = ask(["drug", CYPHER, "A"], reranker="pairwise")
    assert ids(answer) == ["2", "3"] and len(endpoint.requests) == 3  # one comparison for two candidates
    assert "Candidate A: ivermectin" in endpoint.requests[2]["messages"][0]["content"]  # A: the one being inserted
    answer, _ = ask(["drug", CYPHER, "maybe"], reranker="pairwise")
    assert ids(answer) == ["3", "2"] and status(answer)[8] == "degraded"  # undecided: prior order kept
    answer, endpoint = ask(["drug", CYPHER, "0.2", "0.9"], reranker="pointwise", rerank_concurrency=1)
    assert ids(answer) == ["2", "3"] and answer.trace.steps[7].usage.calls == 2
    assert status(answer)[8] == "ran"  # every reply scored: nothing repaired
    # An unusable score falls back to the prior rank's (1.0 for the first of two), so sumatriptan stays first.
    answer, _ = ask(["drug", CYPHER, "great", "0.9"], reranker="pointwise", rerank_concurrency=1)
    assert ids(answer) == ["3", "2"] and status(answer)[8] == "degraded"  # one reply without a score
    assert answer.trace.record(8).usage.calls == 2


def test_rerank_timeout_keeps_the_merged_order(ask: Any) -> None:
    answer, endpoint = ask(["drug", CYPHER, httpx2.ReadTimeout("slow")])
    assert ids(answer) == ["3", "2"] and status(answer)[8] == "degraded"  # the order of step 7 (graph_and_hybrid)
    assert len(endpoint.requests) == 3 and answer.trace.record(8).usage.calls == 0  # asked, no reply


def test_graph_and_hybrid_modes(ask: Any) -> None:
    graph, _ = ask(["drug", CYPHER], steps="graph")
    assert ids(graph) == ["3", "2"] and status(graph)[7] == "skipped" and status(graph)[8] == "skipped"
    assert [c.strands for c in graph.answers] == [("graph",), ("graph",)]
    hybrid, endpoint = ask(["drug", CYPHER], steps="hybrid")
    assert ids(hybrid) == ["3", "2"] and len(endpoint.requests) == 2 and status(hybrid)[8] == "skipped"


def test_no_llm_links_entities_and_says_it_ran_degraded(ask: Any) -> None:
    """The tiny test model's vectors carry no meaning, so only an exact name links (similarity 1.0)."""
    answer, endpoint = ask([], types=["drug"], llm="none", link_threshold=0.9999)
    assert endpoint.requests == []
    assert answer.trace.llm == "none" and answer.trace.reranker == "none"
    assert status(answer)[2] == status(answer)[3] == "degraded" and answer.trace.usage.calls == 0
    assert answer.trace.plan is not None and hops(answer.trace.plan) == LINKED  # 'migraine' -> disease 'migraine'
    assert [p["source"] for p in answer.trace.plans] == ["linked"]
    assert answer.answers[0].id == "3" and answer.answers[0].strands[0] == "graph"
    assert answer.answers[0].plan == "linked"
    assert [m.name for m in answer.answers[0].matches] == ["migraine"]


def test_a_round_that_reaches_pattern_limit_degrades_step_5_and_is_a_bound_of_the_trace(ask: Any) -> None:
    answer, _ = ask([], types=["drug"], llm="none", link_threshold=0.9999, pattern_limit=1)
    step5 = answer.trace.record(5)
    cut = "l=1 reached the LIMIT of 1 rows (pattern_limit): further targets not read"
    assert step5.status == "degraded" and cut in step5.detail and answer.trace.bounds == [cut]
    assert "LIMIT" in (answer.trace.query or "") and answer.trace.params is not None
    assert answer.trace.params["limit"] == 1
    assert answer.answers[0].id == "3"  # the one drug for migraine, read before the cut
    unbounded, _ = ask([], types=["drug"], llm="none", link_threshold=0.9999)
    assert unbounded.trace.record(5).status == "ran" and unbounded.trace.bounds == []


@pytest.mark.parametrize(
    ("question", "relaxed_l_max"),
    [
        ("Which drugs are indicated for strongyloidiasis and target HTR1B and CYP3A4?", 3),  # joins of two left
        ("Which drugs are indicated for strongyloidiasis and target HTR1B?", 100),  # one constant left each
    ],
)
def test_a_relaxed_plan_that_still_joins_linked_entities_is_bounded_as_the_whole_plan(
    ask: Any, monkeypatch: pytest.MonkeyPatch, question: str, relaxed_l_max: int
) -> None:
    """Step 5's worst cases were relaxations of a many-constant plan that grounded nothing, each walking to l_max
    (issue 30): a relaxed plan of two or more constants stops at ``joint_l_max`` as the whole plan does; one of a
    single constant expands to ``l_max`` as any one-constant plan does."""
    import kgqa.runtime.pipeline.grounding

    bounds: dict[str, tuple[int, int]] = {}
    real = kgqa.runtime.pipeline.grounding.ground

    def recording(*args: Any, **kwargs: Any) -> Any:
        plan = args[2]
        bounds[kwargs["source"]] = (len(plan.constants), kwargs["l_max"])
        return real(*args, **kwargs)

    monkeypatch.setattr(kgqa.runtime.pipeline.grounding, "ground", recording)
    answer, _ = ask([], question=question, types=["drug"], llm="none", link_threshold=0.9999, l_max=100)
    constants = 3 if relaxed_l_max == 3 else 2
    assert bounds["linked"] == (constants, 3)
    relaxed = {source: bound for source, bound in bounds.items() if source.startswith("relaxed-")}
    assert len(relaxed) == constants and set(relaxed.values()) == {(constants - 1, relaxed_l_max)}
    rounds = [r["scope"] for p in answer.trace.plans if p["source"].startswith("relaxed-") for r in p["rounds"]]
    assert rounds and max(rounds) <= relaxed_l_max


def test_no_llm_links_an_entity_by_its_alias_and_the_evidence_says_which(ask: Any) -> None:
    """HTR1B's mygene name is one of its aliases: the question names the gene only by it."""
    question = "Which drugs act on 5-hydroxytryptamine receptor 1B?"
    answer, _ = ask([], question=question, types=["drug"], llm="none", link_threshold=0.9999)
    step2 = next(s for s in answer.trace.steps if s.step == 2)
    assert "-> gene/protein 'HTR1B' via alias '5-hydroxytryptamine receptor 1B' (1.00)" in step2.detail
    top = answer.answers[0]
    assert top.id == "3" and top.strands[0] == "graph" and top.round_l == 1  # sumatriptan targets HTR1B
    assert [(m.search, m.name, m.alias) for m in top.matches] == [
        ("5-hydroxytryptamine receptor 1B", "HTR1B", "5-hydroxytryptamine receptor 1B")
    ]


def test_step_6_weighs_the_questions_residual_words_in_the_full_text_index(ask: Any) -> None:
    """Both drugs target CYP3A4; only ivermectin's document says "parasitic worms"."""
    question = "Which drugs target CYP3A4 and mention parasitic worms?"
    runs = {
        weight: ask(
            [],
            question=question,
            types=["drug"],
            llm="none",
            link_threshold=0.9999,
            steps="graph",
            lexical_weight=weight,
        )[0]
        for weight in (0.0, 10.0)
    }
    step6 = {weight: next(s for s in answer.trace.steps if s.step == 6).detail for weight, answer in runs.items()}
    assert "lexical" not in step6[0.0]
    # the condition's words, and as a phrase
    assert """lexical ['"parasitic worms"', 'parasitic', 'worms']: 1 of 2 match""" in step6[10.0]
    assert [a.id for a in runs[10.0].answers] == ["2", "3"]  # ivermectin first
    assert runs[10.0].answers[0].score > 10.0 > runs[10.0].answers[1].score


def test_step_7_fuses_the_vector_strand_with_the_full_text_index(ask: Any) -> None:
    """Nothing links, so the fill takes every slot; only ivermectin's document says "parasitic worms", and the tiny
    model's vectors mean nothing: fused, it comes first, found by both strands."""
    question = "Which drugs mention parasitic worms?"
    runs = {
        fusion: ask(
            [], question=question, types=["drug"], llm="none", link_threshold=0.9999, steps="hybrid", fusion=fusion
        )[0]
        for fusion in ("none", "rrf", "weighted")
    }
    step7 = {fusion: next(s for s in answer.trace.steps if s.step == 7).detail for fusion, answer in runs.items()}
    assert "fusion" not in step7["none"]
    assert all(c.strands == ("vector",) for c in runs["none"].answers)
    for fusion in ("rrf", "weighted"):
        terms = """['"parasitic worms"', 'parasitic', 'worms']"""
        assert f"{fusion} fusion with 1 full-text answers for {terms}" in step7[fusion]
        top = runs[fusion].answers[0]
        assert (top.id, top.strands) == ("2", ("vector", "text"))
    off = ask(
        [], question=question, types=["drug"], llm="none", link_threshold=0.9999, steps="hybrid", lexical_weight=0.0
    )
    assert "fusion" not in next(s for s in off[0].trace.steps if s.step == 7).detail


def test_cross_encoder_reranker(ask: Any, tmp_path: Path, home: Path, tiny_embedder: str) -> None:
    from sentence_transformers import CrossEncoder

    model = build_tiny_cross_encoder(tmp_path)
    answer, endpoint = ask(["drug", CYPHER], reranker="cross-encoder", cross_encoder=str(model))
    assert status(answer)[8] == "ran" and answer.trace.reranker == "cross-encoder"
    assert len(endpoint.requests) == 2 and answer.trace.record(8).usage.calls == 0  # the model, not the LLM
    # The same documents scored by the model directly give the same order.
    with Kgqa(load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)) as kg:
        texts, _ = render(rerank_documents(kg.store, "prime", answer.answers), 3000)
    scores = CrossEncoder(str(model), local_files_only=True).predict([(QUESTION, t) for t in texts])
    assert ids(answer) == [c.id for _, c in sorted(zip(-scores, answer.answers, strict=True), key=lambda p: p[0])]
    assert len(set(map(float, scores))) == len(scores)  # no ties: the order is the model's, not the prior one


def test_settings_that_cannot_work_are_config_errors(ask: Any) -> None:
    with pytest.raises(ConfigError, match="reranker 'listwise' needs an LLM"):
        ask([], llm="none", reranker="listwise")
    with pytest.raises(ConfigError, match="needs 'cross_encoder'"):
        ask([], reranker="cross-encoder")
    with pytest.raises(ConfigError, match="'alpha' must be between 0 and 1"):
        ask([], alpha=1.5)


def test_cli_ask_prints_evidence_and_degraded_steps(home: Path, tiny_embedder: str, monkeypatch: Any) -> None:
    endpoint = ScriptedEndpoint(["drug", CYPHER, "1, 2"])
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    env = {
        "KGQA_HOME": str(home),
        "KGQA_EMBEDDER": tiny_embedder,
        "KGQA_OPENAI_BASE_URL": "http://x.invalid/v1",
        "KGQA_LLM_MAX_RETRIES": "0",
        "KGQA_LLM_CACHE": "false",
        "COLUMNS": "250",
    }
    result = CliRunner().invoke(
        main, ["ask", QUESTION, "--skb", "prime", "--llm", "openai:m", "--k", "4", "--explain"], env=env
    )
    assert result.exit_code == 0, result.output
    # the tiny model links 'indicated' to 'Headache' beside 'migraine': the relaxed plans vote too
    assert "l=1 (llm + linked + relaxed-1 + relaxed-2 plans); 'migraine' -> migraine" in result.stdout
    assert "llm plan (vote weight 1; l=1: 1" in result.stdout and "linked plan (vote weight 1; l=1: 1" in result.stdout
    assert "MATCH (v1:`disease`) WHERE v1.`id` IN $c0" in result.stdout
    endpoint = ScriptedEndpoint(["drug", "no cypher here", "1, 2"])
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    result = CliRunner().invoke(main, ["ask", QUESTION, "--skb", "prime", "--llm", "openai:m", "--json"], env=env)
    assert result.exit_code == 0 and "step 3 (plan) degraded: unusable Cypher" in result.stderr
    out = json.loads(result.stdout)
    assert [s["status"] for s in out["trace"]["steps"]][2] == "degraded"
    assert out["trace"]["usage"]["calls"] == 3
    assert out["answers"][0]["plan"] == "linked" and out["trace"]["plan"] is not None
    endpoint = ScriptedEndpoint(["drug", NARROW])
    monkeypatch.setattr("kgqa.runtime.app.OpenAIChat", endpoint.factory())
    result = CliRunner().invoke(
        main,
        ["ask", QUESTION, "--skb", "prime", "--llm", "openai:m", "--k", "4", "--steps", "graph", "--explain"],
        env={**env, "KGQA_LINK_THRESHOLD": "0.9999"},
    )
    assert result.exit_code == 0, result.output
    assert "graph; l=1 (llm + linked plans); 'strongyloidiasis' -> migraine" in result.stdout
    assert "llm plan (vote weight 1; l=1: 0, l=2: 1" in result.stdout and "linked plan (vote weight 1" in result.stdout
    result = CliRunner().invoke(
        main,
        ["ask", QUESTION, "--skb", "prime", "--llm", "none", "--type", "drug"],
        env={**env, "KGQA_LINK_THRESHOLD": "0.9999"},
    )
    assert result.exit_code == 0, result.output  # without an LLM every graph answer is the linked plan's: unmarked
    assert "; l=1; 'migraine' -> migraine" in result.stdout and "linked plan" not in result.stdout


def test_llama_cpp_pipeline_end_to_end(home: Path, tiny_embedder: str) -> None:
    """All LLM steps through in-process llama.cpp with the tiny SmolLM2: its replies are junk, so this checks the
    code path and that junk degrades instead of failing."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is an optional extra (kgqa[llama])")
    if not SMOLLM2.is_file():
        pytest.skip(MISSING)
    settings = {
        "home": home,
        "embedder": tiny_embedder,
        "llm": f"llama:{SMOLLM2}",
        "llm_context": 2048,
        "top_k": 4,
        "llm_cache": False,
    }
    with Kgqa(load_config(settings, env=QUIET, cwd=home.parent)) as kg:
        answer = kg.ask(QUESTION, "prime")
    assert answer.trace.llm == "llama:" + SMOLLM2.name and answer.trace.reranker == "listwise"
    assert answer.trace.usage.calls >= 3 and answer.trace.usage.completion_tokens > 0  # steps 1, 2 and 8 asked
    assert {s.step: s.status for s in answer.trace.steps}[7] == "ran" and 1 <= len(answer.answers) <= 4
