"""``kgqa questions``: STaRK-style questions whose answers are checked against an independent oracle (the choice of
words: tests/unit/test_question_words.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.config import load_config
from kgqa.lab.qa import read_csv
from kgqa.loaders.hpo import read_hpo
from kgqa.loaders.stark import read_stark
from kgqa.runtime.app import Kgqa
from kgqa.runtime.llm import Completion, Message
from kgqa.runtime.reader.families import FAMILIES
from kgqa.runtime.reader.questions import split_of
from tests.helpers.environment import QUIET
from tests.helpers.stark_fixture import EDGE_TYPES, EDGES, NODE_TYPES, NODES, write_prime_fixture


@pytest.fixture
def loaded(cli_env: dict[str, str], prime_dir: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert result.exit_code == 0, result.stderr
    return cli_env


def oracle(template: str, anchor: str, word: str, docs: dict[str, str]) -> list[str]:
    """The answers recomputed in Python from the fixture's own node and edge lists (undirected hops)."""
    target, *hops = template.split(" / ")
    label = {str(i): NODE_TYPES[t] for i, (_, t, _, _) in enumerate(NODES)}
    adjacent: dict[str, set[tuple[str, str]]] = {str(i): set() for i in range(len(NODES))}
    for head, tail, edge_type in EDGES:
        adjacent[str(head)].add((EDGE_TYPES[edge_type], str(tail)))
        adjacent[str(tail)].add((EDGE_TYPES[edge_type], str(head)))
    answers = []
    for node in (n for n in label if label[n] == target):
        frontier = {node}
        for hop in hops:
            rel_type, hop_label = _split(hop)
            frontier = {b for a in frontier for t, b in adjacent[a] if t == rel_type and label[b] == hop_label}
        if anchor in frontier - {node} and word.lower() in docs[node].lower():
            answers.append(node)
    return sorted(answers)


def _split(hop: str) -> tuple[str, str]:
    """'phenotype present effect/phenotype' -> ('phenotype present', 'effect/phenotype'): the label is a suffix."""
    for name in sorted(set(NODE_TYPES.values()), key=len, reverse=True):
        if hop.endswith(" " + name):
            return hop[: -len(name) - 1], name
    raise AssertionError(hop)


def test_generated_questions_have_exact_answers(loaded: dict[str, str], tiny_embedder: str, tmp_path: Path) -> None:
    out = tmp_path / "gen.csv"
    result = CliRunner().invoke(
        main, ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--out", str(out)], env=loaded
    )
    assert result.exit_code == 0, result.output
    questions = read_csv(out)
    meta = json.loads(out.with_name("gen.meta.json").read_text())
    assert len(questions) == 6 and meta["n"] == 6 and meta["skb"] == "prime"
    config = load_config({"home": loaded["KGQA_HOME"], "embedder": tiny_embedder}, env=QUIET, cwd=tmp_path)
    with Kgqa(config) as kg:
        docs = {
            str(r[0]): r[2]
            for label in set(NODE_TYPES.values())
            for r in kg.store.read("prime", f"MATCH (n:`{label}`) RETURN n.id, n.name, n.doc")
        }
    for question, info in zip(questions, meta["questions"], strict=True):
        assert (
            list(question.answers)
            == info["answer_ids"]
            == oracle(info["template"], info["anchor_id"], info["word"], docs)
        )
        assert 1 <= len(question.answers) <= 20 and info["gold_id"] in question.answers
        assert info["anchor_name"] in question.text and info["word"] in question.text
    again = tmp_path / "again.csv"
    CliRunner().invoke(
        main, ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--out", str(again)], env=loaded
    )
    assert again.read_text() == out.read_text()  # the same seed gives the same questions
    scored = CliRunner().invoke(
        main, ["eval", "--skb", "prime", "--qa", str(out), "--out", str(tmp_path / "r.json")], env=loaded
    )
    assert scored.exit_code == 0, scored.output
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["n"] == len(questions)


def test_questions_use_only_words_specific_to_the_answer_type(loaded: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "gen.csv"
    result = CliRunner().invoke(
        main,
        ["questions", "--skb", "prime", "--n", "4", "--seed", "1", "--out", str(out), "--max-word-share", "0.5"],
        env=loaded,
    )
    assert result.exit_code == 0, result.output
    meta = json.loads(out.with_name("gen.meta.json").read_text())
    assert meta["max_word_share"] == 0.5 and meta["questions"]
    docs_by_type: dict[str, list[str]] = {}  # the fixture's documents as the loader writes them
    for node in read_stark("prime", write_prime_fixture(tmp_path / "prime")).nodes:
        docs_by_type.setdefault(node.type, []).append(node.doc.lower())
    # with --max-word-share 1 field names such as 'description' (in every document of their type) are chosen here
    for info in meta["questions"]:
        target = info["template"].split(" / ")[0]
        share = sum(info["word"].lower() in doc for doc in docs_by_type[target]) / len(docs_by_type[target])
        assert share <= 0.5, (info["word"], target)
    bad = CliRunner().invoke(
        main, ["questions", "--skb", "prime", "--n", "1", "--out", str(out), "--max-word-share", "0"], env=loaded
    )
    assert bad.exit_code == 2 and "--max-word-share" in bad.output


def test_a_type_without_questions_is_explained(
    loaded: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As with HPO's gene documents (name and ids only): no word specific enough, so no question of that type."""
    monkeypatch.setattr("kgqa.runtime.reader.questions.specific_words", lambda *args: [])
    out = tmp_path / "gen.csv"
    result = CliRunner().invoke(
        main,
        ["questions", "--skb", "prime", "--n", "2", "--seed", "1", "--out", str(out), "--type", "drug"],
        env=loaded,
    )
    said = " ".join(result.output.split())  # rich wraps lines at the terminal width
    assert result.exit_code == 1 and "Traceback" not in said and not out.exists()
    assert "no question could be generated: 'drug'; most attempts failed with: no document word in at most 0.05" in said


# ---------------------------------------------------------------------------------------------------------------------
# --phrasing natural: the same sampled questions, worded as analysts type them, answers still exact
# ---------------------------------------------------------------------------------------------------------------------

TEMPLATE_PHRASES = ("nodes have a '", "' relation with")
CHILDREN = ("subtypes of", "children of", "directly under", "more specific than", "immediately below")
PARENTS = ("parents of", "broader terms of", "directly above", "broader than", "immediately above")


def expected_kind(template: str) -> str:
    """The kind from the template alone: a negated relation, else a hierarchy, else the number of hops."""
    hops = template.split(" / ")[1:]
    if any(h.startswith("phenotype absent ") for h in hops):
        return "negation"
    if any(h.startswith("parent-child ") for h in hops):
        return "hierarchy"
    return f"{len(hops)}-hop"


def test_natural_questions_have_exact_answers(loaded: dict[str, str], tmp_path: Path) -> None:
    """The tuned ``analyst`` family alone: the template set's questions, worded naturally."""
    natural_out, template_out = tmp_path / "natural.csv", tmp_path / "template.csv"
    args = ["questions", "--skb", "prime", "--n", "6", "--seed", "3"]
    natural_args = ["--phrasing", "natural", "--families", "analyst"]
    result = CliRunner().invoke(main, [*args, "--out", str(natural_out), *natural_args], env=loaded)
    assert result.exit_code == 0, result.output
    assert "natural phrasing" in " ".join(result.output.split())
    CliRunner().invoke(main, [*args, "--out", str(template_out)], env=loaded)
    questions = read_csv(natural_out)
    meta = json.loads(natural_out.with_name("natural.meta.json").read_text())
    template_meta = json.loads(template_out.with_name("template.meta.json").read_text())
    assert meta["phrasing"] == "natural" and template_meta["phrasing"] == "template"
    docs = _loaded_docs(loaded)
    for question, info, plain in zip(questions, meta["questions"], template_meta["questions"], strict=True):
        assert info["templated"] == plain["query"]  # the template set's question, worded naturally
        assert info["phrasing"] == "natural" and plain["phrasing"] == "template" and plain["mention"] == "name"
        assert info["kind"] == plain["kind"] == expected_kind(info["template"])
        assert info["direction"] is None  # the fixture has no relation between nodes of one label
        assert list(question.answers) == info["answer_ids"] == plain["answer_ids"]
        assert info["answer_ids"] == oracle(info["template"], info["anchor_id"], info["word"], docs)
        assert info["mention_text"] in question.text and info["word"].lower() in question.text.lower()
        assert info["mention"] in {"name", "lower", "alias", "description"}
        assert not any(p in question.text for p in TEMPLATE_PHRASES), question.text
    again = tmp_path / "again.csv"
    CliRunner().invoke(main, [*args, "--out", str(again), *natural_args], env=loaded)
    assert again.read_text() == natural_out.read_text()  # deterministic for a seed
    bad = CliRunner().invoke(main, [*args, "--out", str(again), "--phrasing", "fancy"], env=loaded)
    assert bad.exit_code == 2 and "--phrasing" in bad.output


def _loaded_docs(env: dict[str, str]) -> dict[str, str]:
    """Each fixture node's document as loaded (what the textual condition is matched against)."""
    config = load_config({"home": env["KGQA_HOME"], "embedder": env["KGQA_EMBEDDER"]}, env=QUIET, cwd=Path.cwd())
    with Kgqa(config) as kg:
        return {
            str(r[0]): r[1]
            for label in set(NODE_TYPES.values())
            for r in kg.store.read("prime", f"MATCH (n:`{label}`) RETURN n.id, n.doc")
        }


HP_OBO = """format-version: 1.2
data-version: hp/releases/test

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0012638
name: Abnormal nervous system physiology
def: "A functional anomaly of the nervous system, such as convulsions." []
is_a: HP:0000001 ! All

[Term]
id: HP:0001250
name: Seizure
def: "A seizure is an intermittent abnormality of nervous system physiology with convulsions." []
synonym: "Epileptic seizure" EXACT []
is_a: HP:0012638 ! Abnormal nervous system physiology

[Term]
id: HP:0007359
name: Focal-onset seizure
def: "A seizure that originates within networks of one hemisphere, with convulsions." []
is_a: HP:0001250 ! Seizure

[Term]
id: HP:0002069
name: Bilateral tonic-clonic seizure
def: "A seizure with tonic and clonic phases and convulsions." []
is_a: HP:0001250 ! Seizure

[Term]
id: HP:0001252
name: Hypotonia
def: "Abnormally low muscle tone, without convulsions." []
synonym: "Low muscle tone" EXACT layperson []
is_a: HP:0012638 ! Abnormal nervous system physiology
"""
HPOA_HEADER = (
    "database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\tmodifier\taspect\n"
)
HPOA_ROWS = [
    ("OMIM:607208", "Dravet syndrome", "", "HP:0001250"),
    ("OMIM:607208", "Dravet syndrome", "", "HP:0007359"),
    ("OMIM:607208", "Dravet syndrome", "NOT", "HP:0001252"),
    ("OMIM:308350", "Ohtahara syndrome", "", "HP:0002069"),
    ("OMIM:308350", "Ohtahara syndrome", "", "HP:0001252"),
]


def write_hpo_fixture(directory: Path) -> Path:
    """A handful of HPO terms (a directed is_a hierarchy) and annotations, in pyhpo's file formats."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hp.obo").write_text(HP_OBO)
    rows = "".join(f"{d}\t{n}\t{q}\t{h}\tPMID:1\tPCS\t\t\t\t\tP\n" for d, n, q, h in HPOA_ROWS)
    (directory / "phenotype.hpoa").write_text("#description: test\n" + HPOA_HEADER + rows)
    genes = "ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id\n"
    genes += "6323\tSCN1A\tHP:0001250\tSeizure\t-\tOMIM:607208\n"
    (directory / "genes_to_phenotype.txt").write_text(genes)
    return directory


def test_a_negated_finding_excludes_the_diseases_that_have_it(
    cli_env: dict[str, str], tiny_embedder: str, tmp_path: Path
) -> None:
    """ "Which diseases do not have Hypotonia?": Dravet syndrome is annotated NOT Hypotonia (the plan's
    'phenotype absent'); Ohtahara syndrome has Hypotonia, so it is excluded, from the fill too, and the trace says
    so. Without the exclusion the fill over diseases puts it second."""
    data = read_hpo(write_hpo_fixture(tmp_path / "hpo"))
    settings = {"home": cli_env["KGQA_HOME"], "embedder": tiny_embedder, "llm": "none", "link_threshold": 0.9999}
    with Kgqa(load_config(settings, env=QUIET, cwd=tmp_path)) as kg:
        kg.load(data)
        answer = kg.ask("Which diseases do not have Hypotonia?", skb="hpo", top_k=3)
        plain = kg.ask("Which diseases have Hypotonia?", skb="hpo", top_k=3)
    assert [c.name for c in answer.answers] == ["Dravet syndrome"]
    step5 = next(s for s in answer.trace.steps if s.step == 5)
    assert "excluded: 1 joined to 'Hypotonia' by phenotype present" in step5.detail
    assert [c.name for c in plain.answers][:1] == ["Ohtahara syndrome"]  # no negation: nothing excluded
    assert "excluded" not in next(s for s in plain.trace.steps if s.step == 5).detail


class Scripted:
    """Step 1's type, then step 2's Cypher: an LLM that writes the right plan of two findings."""

    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        return Completion(self.replies.pop(0), 100, 20, 0.1, "stop")


def test_a_join_stops_when_a_round_adds_nothing_and_its_last_query_replays(
    cli_env: dict[str, str], tiny_embedder: str, tmp_path: Path
) -> None:
    """An LLM's plan of two findings (Seizure present, Hypotonia absent) grounds Dravet syndrome at l = 1; l = 2 adds
    no disease, so the expansion stops there instead of walking on to l_max, and the trace says which bound ended
    it. The query and parameters the trace gives (in the order step 5 chose) give the same answer in the store."""
    data = read_hpo(write_hpo_fixture(tmp_path / "hpo"))
    cypher = (
        "```cypher\nMATCH (y:disease)-[:`phenotype present`]->(a:`effect/phenotype` {name: 'Seizure'}), "
        "(y)-[:`phenotype absent`]->(b:`effect/phenotype` {name: 'Hypotonia'}) RETURN y\n```"
    )
    settings = {"home": cli_env["KGQA_HOME"], "embedder": tiny_embedder, "llm_cache": False}
    llm = Scripted(["disease", cypher])
    with Kgqa(load_config(settings, env=QUIET, cwd=tmp_path), llm=llm) as kg:
        kg.load(data)
        answer = kg.ask("Diseases with seizures, explicitly without hypotonia?", skb="hpo", top_k=3, steps="hybrid")
        plan = next(p for p in answer.trace.plans if p["source"] == "llm")
        replayed = kg.store.read("hpo", plan["query"], plan["params"])
    assert [c.name for c in answer.answers][:1] == ["Dravet syndrome"]
    assert [r["scope"] for r in plan["rounds"]] == [1, 2]
    assert plan["stopped"] == "l=2 added no target: stopped (bound: expansion_stall)"
    assert plan["estimated_rows"] == {"1": 1, "2": 2}  # one edge from the cheaper side, times the other's candidates
    step5 = next(s for s in answer.trace.steps if s.step == 5)
    assert "l=2 added no target: stopped (bound: expansion_stall)" in step5.detail
    assert [row[1] for row in replayed] == ["Dravet syndrome"]


def test_natural_hierarchy_questions_name_a_direction_and_keep_only_its_answers(
    cli_env: dict[str, str], tiny_embedder: str, tmp_path: Path
) -> None:
    """HPO's is_a edges point child -> parent; "(phenotype)-[parent-child]-(Seizure)" reaches Seizure's parent and
    children, and the natural question names one side ("direct subtypes of Seizure") and keeps only its answers."""
    data = read_hpo(write_hpo_fixture(tmp_path / "hpo"))
    config = load_config({"home": cli_env["KGQA_HOME"], "embedder": tiny_embedder}, env=QUIET, cwd=tmp_path)
    with Kgqa(config) as kg:
        kg.load(data)
    docs = {node.id: node.doc for node in data.nodes}
    labels = {node.id: node.type for node in data.nodes}
    edges = {(e.source, e.type, e.target) for e in data.edges}
    made: list[dict[str, Any]] = []
    for seed in range(12):
        out = tmp_path / f"natural{seed}.csv"
        args = ["questions", "--skb", "hpo", "--n", "12", "--seed", str(seed), "--max-word-share", "1"]
        natural = ["--phrasing", "natural", "--families", "analyst"]
        result = CliRunner().invoke(main, [*args, "--out", str(out), *natural], env=cli_env)
        assert result.exit_code == 0, result.output
        meta = json.loads(out.with_name(f"natural{seed}.meta.json").read_text())
        assert [q.text for q in read_csv(out)] == [info["query"] for info in meta["questions"]]
        made += meta["questions"]
    for info in made:
        target, *hops = info["template"].split(" / ")
        path = [_hpo_hop(h) for h in hops]
        expected = hpo_oracle(target, path, info["anchor_id"], info["word"], docs, labels, edges)
        anchor = info["anchor_id"]
        if len(path) == 1 and path[0][0] == "parent-child":
            # HPO stores each is_a once, so the gold answer is on one side only and the question names it
            assert info["direction"] in {"to_anchor", "from_anchor"}, info
        if info["direction"] == "to_anchor":  # answer -[parent-child]-> anchor: the anchor's direct subtypes
            expected = [y for y in expected if (y, "parent-child", anchor) in edges]
            assert any(p in info["query"] for p in CHILDREN), info["query"]
        elif info["direction"] == "from_anchor":
            expected = [y for y in expected if (anchor, "parent-child", y) in edges]
            assert any(p in info["query"] for p in PARENTS), info["query"]
        assert info["answer_ids"] == expected and info["gold_id"] in expected, info
        assert info["kind"] == expected_kind(info["template"])
        assert info["mention_text"] in info["query"] and info["word"].lower() in info["query"].lower()
        assert not any(p in info["query"] for p in TEMPLATE_PHRASES), info["query"]
    kinds = {info["kind"] for info in made}
    assert {"hierarchy", "negation", "1-hop"} <= kinds, kinds
    assert {info["direction"] for info in made} >= {"to_anchor", "from_anchor"}
    assert "description" in {info["mention"] for info in made}


def _hpo_hop(hop: str) -> tuple[str, str]:
    for label in ("effect/phenotype", "gene/protein", "disease"):
        if hop.endswith(" " + label):
            return hop[: -len(label) - 1], label
    raise AssertionError(hop)


def hpo_oracle(
    target: str,
    path: list[tuple[str, str]],
    anchor: str,
    word: str,
    docs: dict[str, str],
    labels: dict[str, str],
    edges: set[tuple[str, str, str]],
) -> list[str]:
    """The undirected template answers recomputed from the fixture's edges (as the stores read templates)."""
    adjacent: dict[str, set[tuple[str, str]]] = {node: set() for node in labels}
    for source, rel_type, dest in edges:
        adjacent[source].add((rel_type, dest))
        adjacent[dest].add((rel_type, source))
    answers = []
    for node in sorted(n for n in labels if labels[n] == target):
        frontier = {node}
        for rel_type, label in path:
            frontier = {b for a in frontier for t, b in adjacent[a] if t == rel_type and labels[b] == label}
        if anchor in frontier - {node} and word.lower() in docs[node].lower():
            answers.append(node)
    return answers


def test_split_keeps_the_questions_of_one_part_of_the_gold_answers(loaded: dict[str, str], tmp_path: Path) -> None:
    """The fixture's nodes 0, 1, 3, 4, 7 are in the train part, 2, 5, 6 in the test part (tests/unit/
    test_train_reranker.py); ``all`` is the question set of the seed as it always was."""
    args = ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--max-word-share", "1"]
    made: dict[str, list[dict[str, Any]]] = {}
    for split in ("all", "train", "test"):
        out = tmp_path / f"{split}.csv"
        result = CliRunner().invoke(main, [*args, "--out", str(out), "--split", split], env=loaded)
        assert result.exit_code == 0, result.output
        meta = json.loads(out.with_name(f"{split}.meta.json").read_text())
        assert meta["split"] == split and [q.text for q in read_csv(out)] == [q["query"] for q in meta["questions"]]
        made[split] = meta["questions"]
    default = tmp_path / "default.csv"
    CliRunner().invoke(main, [*args, "--out", str(default)], env=loaded)
    assert default.read_text() == (tmp_path / "all.csv").read_text()
    assert made["train"] and all(split_of(q["gold_id"]) == "train" for q in made["train"])
    assert made["test"] and all(split_of(q["gold_id"]) == "test" for q in made["test"])
    assert {q["gold_id"] for q in made["all"]} & {"2", "5", "6"} and {q["gold_id"] for q in made["all"]} - {
        "2",
        "5",
        "6",
    }
    bad = CliRunner().invoke(main, [*args, "--out", str(default), "--split", "dev"], env=loaded)
    assert bad.exit_code == 2 and "--split" in bad.output


# ---------------------------------------------------------------------------------------------------------------------
# phrasing families and textual-condition kinds (kgqa.runtime.reader.families): answers exact on a loaded HPO fixture
# ---------------------------------------------------------------------------------------------------------------------

NEW_FAMILIES = ["clinical", "conversational", "terse"]


def test_families_take_turns_and_analyst_alone_is_the_tuned_generator(loaded: dict[str, str], tmp_path: Path) -> None:
    args = ["questions", "--skb", "prime", "--n", "6", "--seed", "3", "--max-word-share", "1", "--phrasing", "natural"]
    every = tmp_path / "every.csv"
    result = CliRunner().invoke(main, [*args, "--out", str(every)], env=loaded)
    assert result.exit_code == 0, result.output
    meta = json.loads(every.with_name("every.meta.json").read_text())
    assert meta["families"] == list(FAMILIES) and "lay" in FAMILIES
    assert [q["family"] for q in meta["questions"]] == (meta["families"] * 2)[:6]
    docs = _loaded_docs(loaded)
    for info in meta["questions"]:
        assert info["condition"] in {"doc-word", "name-word", "synonym", "definition", "symbol-prefix"}
        if info["condition"] == "doc-word":
            assert info["answer_ids"] == oracle(info["template"], info["anchor_id"], info["word"], docs)
        assert info["gold_id"] in info["answer_ids"] and info["mention_text"] in info["query"]
    made: dict[str, list[dict[str, Any]]] = {}
    for family in ("analyst", "template"):
        out = tmp_path / f"{family}.csv"
        result = CliRunner().invoke(main, [*args, "--out", str(out), "--families", family], env=loaded)
        assert result.exit_code == 0, result.output
        made[family] = json.loads(out.with_name(f"{family}.meta.json").read_text())["questions"]
    # the same samples: the template family says each analyst question's template sentence
    assert [q["templated"] for q in made["analyst"]] == [q["query"] for q in made["template"]]
    assert {q["family"] for q in made["analyst"]} == {"analyst"} and {q["condition"] for q in made["analyst"]} == {
        "doc-word"
    }
    bad = CliRunner().invoke(main, [*args, "--out", str(every), "--families", "analyst,fancy"], env=loaded)
    assert bad.exit_code == 2 and "--families" in bad.output
    template = ["questions", "--skb", "prime", "--n", "2", "--out", str(every), "--families", "clinical"]
    assert CliRunner().invoke(main, template, env=loaded).exit_code == 2  # families need --phrasing natural


CONDITIONS_OBO = """
[Term]
id: HP:0003674
name: Onset
def: "The age group in which disease manifestations appear." []
is_a: HP:0000001 ! All

[Term]
id: HP:0410280
name: Pediatric onset
def: "Onset of disease manifestations before adulthood." []
is_a: HP:0003674 ! Onset

[Term]
id: HP:0003593
name: Infantile onset
def: "Onset of signs or symptoms of disease between the second month and the end of the first year of life." []
is_a: HP:0410280 ! Pediatric onset

[Term]
id: HP:0011463
name: Childhood onset
def: "Onset of disease at the age of between 1 and 5 years." []
is_a: HP:0410280 ! Pediatric onset

[Term]
id: HP:0000005
name: Mode of inheritance
def: "The pattern in which a particular genetic trait or disorder is passed from one generation to the next." []
is_a: HP:0000001 ! All

[Term]
id: HP:0000006
name: Autosomal dominant inheritance
def: "A mode of inheritance that is observed for traits related to a gene encoded on one of the autosomes." []
is_a: HP:0000005 ! Mode of inheritance

[Term]
id: HP:0000007
name: Autosomal recessive inheritance
def: "A mode of inheritance observed for traits related to a gene encoded on one of the autosomes in homozygotes." []
is_a: HP:0000005 ! Mode of inheritance

[Term]
id: HP:0001417
name: X-linked inheritance
def: "A mode of inheritance observed for traits related to a gene encoded on the X chromosome." []
is_a: HP:0000005 ! Mode of inheritance

[Term]
id: HP:0001419
name: X-linked recessive inheritance
def: "A mode of inheritance observed for recessive traits related to a gene encoded on the X chromosome." []
is_a: HP:0001417 ! X-linked inheritance

[Term]
id: HP:0001270
name: Motor delay
def: "A type of developmental delay characterized by a delay in acquiring motor skills." []
synonym: "Delayed motor milestones" EXACT layperson []
is_a: HP:0012638 ! Abnormal nervous system physiology
"""
CONDITION_ROWS = [
    ("OMIM:607208", "Dravet syndrome", "", "HP:0003593"),
    ("OMIM:607208", "Dravet syndrome", "", "HP:0000006"),
    ("OMIM:607208", "Dravet syndrome", "", "HP:0001270"),
    ("OMIM:308350", "Ohtahara syndrome", "", "HP:0003593"),
    ("OMIM:308350", "Ohtahara syndrome", "", "HP:0000007"),
    ("OMIM:121200", "Benign familial neonatal seizures", "", "HP:0001250"),
    ("OMIM:121200", "Benign familial neonatal seizures", "", "HP:0011463"),
    ("OMIM:121200", "Benign familial neonatal seizures", "", "HP:0000006"),
    ("OMIM:121200", "Benign familial neonatal seizures", "NOT", "HP:0001270"),
    ("OMIM:300672", "Early infantile epileptic encephalopathy", "", "HP:0001250"),
    ("OMIM:300672", "Early infantile epileptic encephalopathy", "", "HP:0410280"),
    ("OMIM:300672", "Early infantile epileptic encephalopathy", "", "HP:0001419"),
    ("OMIM:300672", "Early infantile epileptic encephalopathy", "", "HP:0001270"),
]
CONDITION_GENES = [
    ("6326", "SCN2A", "HP:0001250", "OMIM:308350"),
    ("3785", "KCNQ2", "HP:0001250", "OMIM:121200"),
    ("3786", "KCNQ3", "HP:0001250", "OMIM:121200"),
    ("3786", "KCNQ3", "HP:0001270", "OMIM:121200"),
    ("6792", "CDKL5", "HP:0001250", "OMIM:300672"),
    ("6792", "CDKL5", "HP:0001270", "OMIM:300672"),
]


def write_conditions_fixture(directory: Path) -> Path:
    """:func:`write_hpo_fixture` with HPO's onset and inheritance branches, their annotations and more genes."""
    write_hpo_fixture(directory)
    (directory / "hp.obo").write_text(HP_OBO + CONDITIONS_OBO)
    rows = "".join(f"{d}\t{n}\t{q}\t{h}\tPMID:1\tPCS\t\t\t\t\tP\n" for d, n, q, h in HPOA_ROWS + CONDITION_ROWS)
    (directory / "phenotype.hpoa").write_text("#description: test\n" + HPOA_HEADER + rows)
    genes = (directory / "genes_to_phenotype.txt").read_text()
    genes += "".join(f"{g}\t{s}\t{h}\t-\t-\t{d}\n" for g, s, h, d in CONDITION_GENES)
    (directory / "genes_to_phenotype.txt").write_text(genes)
    return directory


def test_condition_kinds_have_exact_answers_on_a_loaded_hpo_graph(
    cli_env: dict[str, str], tiny_embedder: str, tmp_path: Path
) -> None:
    """Every condition kind over the store's own reads (path answers, aliases, relations, exact names), checked
    against answers recomputed here from the loader's nodes and edges."""
    from kgqa.runtime.reader.questions import generate

    data = read_hpo(write_conditions_fixture(tmp_path / "hpo"))
    nodes = {node.id: node for node in data.nodes}
    labels = {node.id: node.type for node in data.nodes}
    edges = {(e.source, e.type, e.target) for e in data.edges}
    definitions = {t: d for t, d in re.findall(r'id: (HP:\d+)\nname: .*\ndef: "([^"]*)"', HP_OBO + CONDITIONS_OBO)}
    config = load_config({"home": cli_env["KGQA_HOME"], "embedder": tiny_embedder}, env=QUIET, cwd=tmp_path)
    made = []
    with Kgqa(config) as kg:
        kg.load(data)
        schema = kg.schema("hpo")
        for seed in range(16):
            made += generate(
                kg.store,
                "hpo",
                schema,
                data.candidate_types,
                9,
                seed,
                max_word_share=1.0,
                phrasing="natural",
                families=NEW_FAMILIES,
            )

    def under(term: str) -> set[str]:
        out, stack = {term}, [term]
        while stack:
            node = stack.pop()
            for child in {s for s, t, d in edges if t == "parent-child" and d == node} - out:
                out.add(child)
                stack.append(child)
        return out

    def meets(q: Any, y: str) -> bool:
        node, text = nodes[y], q.word
        if q.condition == "doc-word":
            return text.lower() in node.doc.lower()
        if q.condition == "name-word":
            return re.search(rf"(?<![a-z]){re.escape(text.lower())}(?![a-z])", node.name.lower()) is not None
        if q.condition == "synonym":
            return text.lower() in {a.lower() for a in node.aliases}
        if q.condition == "definition":
            return text.lower() in definitions.get(y, "").lower()
        if q.condition == "symbol-prefix":
            return node.name.upper().startswith(text.upper())
        return any((y, "phenotype present", t) in edges for t in under(q.condition_id))

    for q in made:
        target, *hops = q.template.split(" / ")
        path = [_hpo_hop(h) for h in hops]
        expected = hpo_oracle(target, path, q.anchor_id, "", {n: "" for n in labels}, labels, edges)
        if q.direction == "to_anchor":
            expected = [y for y in expected if (y, "parent-child", q.anchor_id) in edges]
        elif q.direction == "from_anchor":
            expected = [y for y in expected if (q.anchor_id, "parent-child", y) in edges]
        expected = [y for y in expected if meets(q, y)]
        assert q.answer_ids == expected and q.gold_id in expected, q
        assert q.mention_text in q.query and q.family in NEW_FAMILIES, q
    conditions = {q.condition for q in made}
    assert {"doc-word", "name-word", "synonym", "definition", "symbol-prefix", "onset", "inheritance"} <= conditions
    assert any(q.condition == "onset" and q.condition_id == "HP:0410280" and len(q.answer_ids) > 1 for q in made)
