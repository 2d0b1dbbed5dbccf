"""What an LLM adds, from a junk one to a perfect one: the rows of docs/results.md's ``llm_axis`` table.

No strong LLM runs on these machines, so the axis is simulated by scripted chat models that answer kgqa's own
prompts (step 1's type question, step 2's Cypher prompt, step 8's listwise rerank) from what the question generator
knows of each question (benchmarks/results/quality_hpo_questions.meta.json: its template, anchor, direction and
textual word):

- ``oracle``: step 1 the gold type; step 2 correct Cypher for the relational part (the template's hops, undirected
  unless the question names a direction, the anchor by its exact name), the textual condition left out, as a
  careful model would; step 8 keeps the order it is given.
- ``noisy-25``, ``noisy-50``, ``noisy-100``: the oracle, with one of the mistakes seen in Qwen 1.5B's replies on
  that share of the questions (a stable hash of the id picks which, and which mistake): the direction reversed, an
  invented relationship type, the textual condition turned into a node constant, the anchor's constraint dropped,
  a wrong answer type (step 1 and the Cypher).
- ``junk``: step 1 always ``disease``; step 2 a plausible pattern whose constant is three words of the question;
  step 8 a sentence that names no candidate.
- ``qwen-replay``: the replies Qwen2.5-Coder-1.5B (Q4_K_M, llama.cpp) gave to steps 1 and 2 at commit 553d5ce
  (benchmarks/results/baseline_hpo_llm.json.jsonl, the first 160 questions), replayed by question: the real weak
  point of the axis without 25 s of CPU per question. Step 2's prompt names step 1's type; where today's vote gives
  step 2 another type than Qwen saw, the replayed reply is the one Qwen gave for its own type. No step 8 (the
  records hold no rerank replies).
- ``qwen-openai`` and ``qwen-local``: Qwen2.5-Coder-1.5B for real, steps 1-7, the same GGUF, build, context and
  seed, measured back to back: ``qwen-openai`` served by llama-cpp-python's OpenAI-compatible server on loopback
  (``python -m llama_cpp.server``, started and stopped here) and reached through ``llm = "openai:qwen"`` with
  ``openai_base_url``, the path users of vLLM, Ollama or a hosted API take; ``qwen-local`` in-process
  (``llm = "llama:PATH"``). About 20 s a question on 2 cores: run them on the first questions (``--limit``). They
  need llama-cpp-python (``pip install 'llama-cpp-python[server]==0.3.36'``, built as docs/llm.md says) and the GGUF
  (``../shared/scripts/get-local-llm.sh qwen1.5b``; ``--gguf`` names another path), and are not in the default
  levels.
- ``type-only``: step 1 the gold type; step 2 the junk Cypher (issue 69's axis).
- ``edges-only``: step 1 the junk type; step 2 the oracle's Cypher (its answer of the gold type).
- ``mixed-70``: the oracle on 70% of the questions (a stable hash of the id picks them), junk on the rest.
- ``none``: no LLM, the reference every row is compared with.

``--sets`` (issue 69) runs the levels on other question sets too, row ``hybrid`` only (steps 1-7), each into
benchmarks/results/llm_axis_<level>_<set>.json: ``quality`` (the 200 above; the default, whose files keep their
names), ``families`` (families_hpo.py's first 180 questions: 20 of each family, interleaved), ``natural`` (the
hand-written natural set, the test half first, then the dev half; its gold from benchmarks/natural_gold.py's specs,
the oracle writing the spec's ``all`` constraints as benchmarks/step5_oracle.py's does) and ``dev2``
(../shared/data/dev-questions, the oracle writing each question's pattern with its constants' canonical names). The
oracle leaves textual conditions and a natural question's ``none`` constraints out. ``--tag _before69`` records a
run of the code before issue 69 (a checkout of 2ec8d56); the sets table puts it beside today's. ``qwen-local`` runs
on these sets too (``--limit``: the first questions of each), with the LLM cache on so that a run at other code
(``_before69``) and the run after it ask Qwen only the prompts that differ (same GGUF, seed and temperature 0: the
same replies).

Each level is one ``kgqa eval`` run (rows ``hybrid`` and ``full``) into benchmarks/results/llm_axis_<level>.json,
resumable from its records. The table gives hit@1, recall@20 and MRR per level and row on the 200 questions and on
baseline_hpo's first 160, and steps 4-7's median seconds.

    python benchmarks/llm_axis.py                         # every level
    python benchmarks/llm_axis.py --levels oracle,junk --limit 40
    python benchmarks/llm_axis.py --sets natural,dev2 --levels none,junk,type-only,edges-only,mixed-70,oracle
    python benchmarks/llm_axis.py --render

It needs HPO loaded in the configured home (``kgqa load hpo``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgqa.config import load_config
from kgqa.errors import LlmError
from kgqa.lab.evaluate import Record, eval_settings, load_records, records_path, results, run_eval, settings_path
from kgqa.lab.qa import Question, load_questions
from kgqa.provenance import CODE_PATHS, allow_dirty_flag, origin, replace_block, require_committed
from kgqa.runtime.app import Kgqa
from kgqa.runtime.llm import ChatModel, Completion, Message
from kgqa.runtime.store.base import Schema

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QUESTIONS = RESULTS / "quality_hpo_questions.csv"
META = QUESTIONS.with_name(QUESTIONS.stem + ".meta.json")
QWEN = RESULTS / "baseline_hpo_llm.json.jsonl"
QWEN_ROW = "kgqa hybrid, LLM writes the Cypher"
DOC = ROOT / "docs" / "results.md"
SKB = "hpo"
BASELINE_N = 160
"""baseline_hpo.py's questions: the first 160 of the 200."""
LEVELS = (
    "none",
    "junk",
    "type-only",
    "edges-only",
    "mixed-70",
    "qwen-replay",
    "qwen-openai",
    "qwen-local",
    "noisy-100",
    "noisy-50",
    "noisy-25",
    "oracle",
)
REAL_LLM = ("qwen-openai", "qwen-local")
AXIS = ("junk", "type-only", "edges-only", "mixed-70")
"""Issue 69's levels, measured on every set (``--sets``); the quality set's default levels are the others."""
SCRIPTED_LEVELS = tuple(level for level in LEVELS if level not in REAL_LLM and level not in AXIS)
SET_LEVELS = ("none", "junk", "type-only", "edges-only", "mixed-70", "oracle")
MIXED_SHARE = 0.7
SETS = ("quality", "families", "natural", "dev2")
FAMILIES = RESULTS / "families_hpo_questions.csv"
FAMILIES_N = 180
NATURAL = ROOT / "benchmarks" / "natural"
DEV2 = ROOT.parent / "shared" / "data" / "dev-questions" / "hpo_dev2.csv"
BEFORE = "_before69"
"""The default levels: those that need no LLM run."""
GGUF = Path.home() / ".cache" / "kgqa" / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
SERVED = "qwen"
"""The model name the server answers to (``--model_alias``), and the one ``llm = "openai:qwen"`` asks for."""
MISTAKES = ("reversed", "invented type", "text as constant", "dropped constraint", "wrong type")
JUNK_TYPE = "disease"
PATHS = (*CODE_PATHS, "benchmarks/llm_axis.py")
SETTINGS: dict[str, Any] = {"llm_cache": False}
"""Every level runs with kgqa's defaults (fusion, lexical, aliases, relation meaning, plan_fallback)."""


def out_path(level: str, tag: str = "", set_name: str = "quality") -> Path:
    return RESULTS / f"llm_axis_{level}{'' if set_name == 'quality' else '_' + set_name}{tag}.json"


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _question(prompt: str) -> str:
    """The question of a step-1 or step-2 prompt (it follows the last 'Question: ')."""
    return prompt.rsplit("Question: ", 1)[1].strip().splitlines()[0].strip()


@dataclass(frozen=True)
class Hop:
    type: str
    label: str


@dataclass(frozen=True)
class Known:
    """What the generator knows of one question."""

    id: str
    target: str
    hops: tuple[Hop, ...]
    anchor: str
    word: str
    direction: str | None

    @classmethod
    def of(cls, q: dict[str, Any]) -> Known:
        target, *hops = q["template"].split(" / ")
        parsed = tuple(Hop(*hop.rsplit(" ", 1)) for hop in hops)
        return cls(str(q["id"]), target, parsed, q["anchor_name"], q["word"], q.get("direction"))


class Schemaful:
    """The live schema's relationship directions, for writing (and reversing) directed hops."""

    def __init__(self, schema: Schema) -> None:
        self.edges = {(r.source, r.type, r.target) for r in schema.relationships}
        self.labels = sorted({label.name for label in schema.labels})

    def arrow(self, left: str, rel: str, right: str, *, reverse: bool = False) -> tuple[str, str]:
        """The arrow ends ('-', '->') or ('<-', '-') of ``(left)-[rel]-(right)`` as the schema stores it."""
        out = (left, rel, right) in self.edges
        into = (right, rel, left) in self.edges
        if out and into and left != right:
            return "-", "-"
        forward = out if not reverse else not out
        return ("-", "->") if forward else ("<-", "-")


def oracle_cypher(k: Known, schema: Schemaful, mistake: str | None = None) -> str:
    """Correct Cypher for the relational part of ``k`` (or with one ``mistake``)."""
    target = k.target
    if mistake == "wrong type":
        target = next(label for label in ("disease", "effect/phenotype") if label != k.target)
    names = ["y", *(f"m{i}" for i in range(1, len(k.hops))), "a"]
    labels = [target, *(h.label for h in k.hops)]
    parts = [f"(y:{_quote(target)})"]
    for i, hop in enumerate(k.hops):
        rel = "related_to" if mistake == "invented type" and i == 0 else hop.type
        if mistake == "reversed":
            left, right = schema.arrow(labels[i], hop.type, labels[i + 1], reverse=True)
            if (left, right) == ("-", "-"):
                left, right = "<-", "-"
        elif k.direction is not None and len(k.hops) == 1:
            left, right = ("-", "->") if k.direction == "to_anchor" else ("<-", "-")
        else:
            left, right = "-", "-"
        node = names[i + 1]
        constraint = ""
        if node == "a" and mistake != "dropped constraint":
            constraint = f" {{name: {_string(k.anchor)}}}"
        parts.append(f"{left}[:{_quote(rel)}]{right}({node}:{_quote(hop.label)}{constraint})")
    match = "MATCH " + "".join(parts)
    if mistake == "text as constant":
        label = k.hops[0].label
        match += f",\n      (y)-[:{_quote(k.hops[0].type)}]-(w:{_quote(label)} {{name: {_string(k.word)}}})"
    return f"```cypher\n{match}\nRETURN y\n```"


def junk_cypher(question: str, schema: Schemaful) -> str:
    """A plausible pattern from the junk type whose constant is three words of the question."""
    words = re.findall(r"[\w'-]+", question)
    constant = " ".join(words[2:5] or words[:3])
    source, rel, other = next((s, r, t) for s, r, t in sorted(schema.edges) if s == JUNK_TYPE and t != JUNK_TYPE)
    del source
    return (
        f"```cypher\nMATCH (y:{_quote(JUNK_TYPE)})-[:{_quote(rel)}]->(x:{_quote(other)} "
        f"{{name: {_string(constant)}}})\nRETURN y\n```"
    )


@dataclass(frozen=True)
class Gold:
    """What the oracle knows of one question: its id (the stable hashes), answer type and correct Cypher; ``known``:
    a quality question's generator record (the noisy levels' mistakes)."""

    id: str
    target: str
    cypher: str
    known: Known | None = None


def _text(question: str) -> str:
    return " ".join(question.split())


class Scripted:
    """A scripted chat model answering kgqa's step-1, step-2 and listwise-rerank prompts
    (kgqa.runtime.llm.ChatModel) from ``gold`` (question text -> :class:`Gold`)."""

    def __init__(self, level: str, gold: dict[str, Gold], schema: Schemaful) -> None:
        self.name = f"scripted-{level}"
        self.level = level
        self.gold = {_text(question): g for question, g in gold.items()}
        self.schema = schema

    def mistake(self, g: Gold) -> str | None:
        if not self.level.startswith("noisy-") or g.known is None:
            return None
        share = int(self.level.split("-")[1]) / 100
        if (_hash(f"noisy {g.id}") % 10_000) / 10_000 >= share:
            return None
        return MISTAKES[_hash(f"mistake {g.id}") % len(MISTAKES)]

    def junk(self, g: Gold) -> bool:
        """Whether this level answers ``g`` as the junk LLM does (``mixed-70``: on 30% of the questions)."""
        return self.level == "mixed-70" and (_hash(f"mixed {g.id}") % 10_000) / 10_000 >= MIXED_SHARE

    def reply(self, prompt: str) -> str:
        if "Candidate answers:" in prompt:  # step 8 (listwise)
            n = len(re.findall(r"^\[\d+\] ", prompt, flags=re.MULTILINE))
            if self.level == "junk":
                return "The best answer is the one that fits the question best."
            return ", ".join(str(i) for i in range(1, n + 1))  # keeps the order it was given
        question = _question(prompt)
        if self.level == "junk":  # it reads no question's metadata: any question will do
            return JUNK_TYPE if "Which type of node is the answer" in prompt else junk_cypher(question, self.schema)
        g = self.gold[_text(question)]
        junk = self.junk(g)
        mistake = self.mistake(g)
        if "Which type of node is the answer" in prompt:  # step 1
            if junk or self.level == "edges-only":
                return JUNK_TYPE
            if mistake == "wrong type":
                return next(label for label in ("disease", "effect/phenotype") if label != g.target)
            return g.target
        if junk or self.level == "type-only":  # step 2
            return junk_cypher(question, self.schema)
        if mistake is not None and g.known is not None:
            return oracle_cypher(g.known, self.schema, mistake)
        return g.cypher

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        prompt = "\n".join(m.content for m in messages)
        text = self.reply(prompt)
        return Completion(text, len(prompt.split()), len(text.split()), 0.0, "stop")


class Replay:
    """Qwen 1.5B's recorded step-1 and step-2 replies, by question (see the module's docstring)."""

    def __init__(self, by_question: dict[str, dict[int, dict[str, Any]]]) -> None:
        self.name = "qwen2.5-coder-1.5b-replay"
        self.by_question = by_question

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> Completion:
        prompt = "\n".join(m.content for m in messages)
        steps = self.by_question[_question(prompt)]
        step = steps[1] if "Which type of node is the answer" in prompt else steps[2]
        if step["usage"]["calls"] == 0:  # the LLM failed on this step then
            raise LlmError(f"replayed failure: {step['detail'][:200]}")
        text = step["detail"]
        if step["step"] == 1:
            said = re.search(r"LLM reply '((?:[^'\\]|\\.)*)' names no single known type", text)
            text = said[1] if said else text.split(" (", 1)[0]
        return Completion(text, step["usage"]["prompt_tokens"], step["usage"]["completion_tokens"], 0.0, "stop")


def qwen_replies(questions: dict[str, str]) -> dict[str, dict[int, dict[str, Any]]]:
    """question text -> step number -> the recorded step of Qwen's run."""
    records = [r for r in load_records(QWEN.with_name(QWEN.name.removesuffix(".jsonl"))) if r.row == QWEN_ROW]
    return {questions[r.id]: {s["step"]: s for s in r.steps} for r in records}


def chat_model(level: str, kg: Kgqa, questions: dict[str, str], set_name: str = "quality") -> ChatModel | None:
    if level == "none":
        return None
    if level == "qwen-replay":
        return Replay(qwen_replies(questions))
    schema = Schemaful(kg.schema(SKB))
    return Scripted(level, gold_of(set_name, schema), schema)


def gold_of(set_name: str, schema: Schemaful) -> dict[str, Gold]:
    """Question text -> what the oracle knows of it, for one of :data:`SETS`."""
    if set_name in ("quality", "families"):
        meta = json.loads((META if set_name == "quality" else _meta(FAMILIES)).read_text(encoding="utf-8"))
        known = {q["query"]: Known.of(q) for q in meta["questions"]}
        return {text: Gold(k.id, k.target, oracle_cypher(k, schema), k) for text, k in known.items()}
    if set_name == "natural":
        from step5_oracle import hpo, natural_questions
        from step5_oracle import oracle_cypher as spec_cypher

        data = hpo()[0]
        name = {str(n.id): n.name for n in data.nodes}
        type_of = {str(n.id): n.type for n in data.nodes}
        return {q.text: Gold(q.id, q.spec["target"], spec_cypher(q.spec, name, type_of)) for q in natural_questions()}
    lines = DEV2.with_name("hpo_dev2_meta.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    return {
        q["query"]: Gold(str(q["id"]), q["answer_type"], pattern_cypher(q["pattern"], q["constants"])) for q in rows
    }


def _meta(questions: Path) -> Path:
    return questions.with_name(questions.stem + ".meta.json")


PATTERN_PART = re.compile(r"\((\??)(\w+)(?::([^)]+))?\)|(<?-)\[([^\]]+)\](->?)")


def pattern_cypher(pattern: str, constants: Sequence[dict[str, Any]]) -> str:
    """Cypher for a dev2 question's relational ``pattern`` ("(A:disease) -[phenotype present]-> (?x:effect/phenotype)",
    clauses joined by AND), each constant (role A, B) by its canonical name; ``?x`` is the answer."""
    name = {c["role"]: c["name"] for c in constants}
    clauses = []
    for clause in pattern.split(" AND "):
        parts = []
        for m in PATTERN_PART.finditer(clause):
            if m[2] is not None:
                variable = "y" if m[1] and m[2] == "x" else m[2].lower()
                label = f":{_quote(m[3])}" if m[3] else ""
                named = f" {{name: {_string(name[m[2]])}}}" if not m[1] else ""
                parts.append(f"({variable}{label}{named})")
            else:
                parts.append(f"{m[4]}[:{_quote(m[5])}]{m[6]}")
        clauses.append("".join(parts))
    return "```cypher\nMATCH " + ",\n      ".join(clauses) + "\nRETURN y\n```"


def set_questions(set_name: str) -> tuple[list[Question], str]:
    """One of :data:`SETS`'s questions and the path its eval settings name."""
    if set_name == "quality":
        return load_questions(QUESTIONS), str(QUESTIONS.relative_to(ROOT))
    if set_name == "families":
        return load_questions(FAMILIES)[:FAMILIES_N], str(FAMILIES.relative_to(ROOT))
    if set_name == "natural":
        halves = [RESULTS / f"natural_hpo_{half}.csv" for half in ("test", "dev")]  # --limit: the test half first
        return [q for half in halves for q in load_questions(half)], "benchmarks/results/natural_hpo_{test,dev}.csv"
    return load_questions(DEV2), "../shared/data/dev-questions/hpo_dev2.csv"


def rows_of(level: str) -> list[tuple[str, str]]:
    return [("hybrid", "hybrid")] if level.startswith("qwen") else [("hybrid", "hybrid"), ("full", "full")]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def llama_server(gguf: Path, context: int, log: Path) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server for ``gguf`` on a free loopback port, as the in-process runs
    load it (``context``, 2 threads, seed 0); yields its base URL once it answers, and stops it on exit."""
    if not gguf.is_file():
        raise SystemExit(f"no GGUF at {gguf}: run ../shared/scripts/get-local-llm.sh qwen1.5b or pass --gguf")
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", SERVED]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(context), "--seed", "0"]
    command += ["--n_threads", str(os.cpu_count() or 1)]
    url = f"http://127.0.0.1:{port}/v1"
    with log.open("w", encoding="utf-8") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 300
            while True:
                if server.poll() is not None:
                    raise SystemExit(f"llama_cpp.server exited with {server.returncode}; see {log}")
                try:
                    with urllib.request.urlopen(f"{url}/models", timeout=5):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"llama_cpp.server did not answer at {url} within 300 s; see {log}") from None
                    time.sleep(1)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=60)


def measure(
    level: str, limit: int | None, overrides: dict[str, Any], tag: str, gguf: Path = GGUF, set_name: str = "quality"
) -> None:
    questions, source = set_questions(set_name)
    if level.startswith("qwen") and set_name == "quality":
        questions = questions[:BASELINE_N]
    questions = questions[:limit]
    rows = rows_of(level) if set_name == "quality" and level not in AXIS else [("hybrid", "hybrid")]
    out = out_path(level, tag, set_name)

    def show(record: Record, so_far: list[Record]) -> None:
        print(level + tag, set_name, record.row, len(so_far), record.id, f"{record.seconds:.2f} s", record.metrics)

    def evaluate(kg: Kgqa) -> None:
        settings = eval_settings(kg, SKB, source, "test", rows)
        settings["llm_level"] = level
        records = run_eval(kg, SKB, questions, rows, out, settings=settings, on_answer=show)
        text = json.dumps(results(records, rows, settings), indent=2, allow_nan=False) + "\n"
        out.write_text(text, encoding="utf-8")

    config = load_config({**SETTINGS, **overrides, "llm": "none"})
    if level == "qwen-openai":
        with llama_server(gguf, config.llm_context, out.with_suffix(".server.log")) as url:
            served = {**SETTINGS, **overrides, "llm": f"openai:{SERVED}", "openai_base_url": url}
            with Kgqa(load_config(served)) as kg:
                evaluate(kg)
        return
    if level == "qwen-local":  # the LLM cache on: a rerun at other code asks only the prompts that changed
        cached = {**SETTINGS, "llm_cache": set_name != "quality"}
        with Kgqa(load_config({**cached, **overrides, "llm": f"llama:{gguf}"})) as kg:
            evaluate(kg)
        return
    with Kgqa(config) as base:
        llm = chat_model(level, base, {q.id: q.text for q in load_questions(QUESTIONS)}, set_name)
        evaluate(base if llm is None else base.with_llm(llm))


def served_like_in_process(tag: str = "") -> str:
    """How the qwen-openai level's LLM calls compare with qwen-local's on the questions both answered: how many of
    steps 1 and 2's replies are the same text, and the calls and tokens per question of each."""
    paths = [out_path(level, tag) for level in REAL_LLM]
    if not all(path.exists() for path in paths):
        return ""
    served, local = ({r.id: {s["step"]: s for s in r.steps} for r in load_records(path)} for path in paths)
    both = sorted(served.keys() & local.keys(), key=int)
    same = "; ".join(
        f"step {step} {sum(served[i][step]['detail'] == local[i][step]['detail'] for i in both)}" for step in (1, 2)
    )

    def per_question(records: dict[str, dict[int, dict[str, Any]]], key: str) -> float:
        return sum(records[i][n]["usage"][key] for i in both for n in (1, 2)) / len(both)

    counts = "; ".join(
        f"{level}: {per_question(records, 'calls'):.2f} calls, {per_question(records, 'prompt_tokens'):.1f} prompt "
        f"and {per_question(records, 'completion_tokens'):.1f} completion tokens a question"
        for level, records in zip(REAL_LLM, (served, local), strict=True)
    )
    return f"qwen-openai against qwen-local on {len(both)} questions: the same reply text in {same}. {counts}."


def _metrics(records: Sequence[Record]) -> dict[str, float]:
    n = len(records)
    return {m: sum(r.metrics[m] for r in records) / n for m in ("hit@1", "recall@20", "mrr")} if n else {}


def steps_4_7(level: str, row: str, tag: str = "") -> float | None:
    """Median seconds of steps 4-7 over a row's records (no LLM time is spent there)."""
    records = [r for r in load_records(out_path(level, tag)) if r.row == row]
    totals = [sum(s["seconds"] for s in r.steps if 4 <= s["step"] <= 7) for r in records]
    return round(statistics.median(totals), 4) if totals else None


FUSION_RRF = RESULTS / "quality_hpo_fusion-rrf.json"
"""quality_hpo.py's record of kgqa's defaults without an LLM, before issue 29."""


def unchanged(tag: str = "") -> str:
    """How many of the ``none`` level's hybrid lists equal quality_hpo.py's fusion-rrf lists, id for id."""
    if not out_path("none", tag).exists() or not FUSION_RRF.exists():
        return ""
    before = {r.id: r.ranked for r in load_records(FUSION_RRF)}
    now = {r.id: r.ranked for r in load_records(out_path("none", tag)) if r.row == "hybrid"}
    same = sum(before.get(i) == ranked for i, ranked in now.items())
    return f"Without an LLM, {same} of the {len(now)} ranked lists equal quality_hpo.py's fusion-rrf records id for id."


def table(tag: str = "") -> str:
    done = {level: json.loads(out_path(level, tag).read_text()) for level in LEVELS if out_path(level, tag).exists()}
    if not done:
        return "No level measured yet: run `python benchmarks/llm_axis.py`."
    lines = [
        "Questions: quality_hpo.py's 200 natural-phrasing HPO questions (all 200, and baseline_hpo.py's first 160), "
        "k = 20, kgqa's defaults; the LLM levels are described in benchmarks/llm_axis.py. A row of fewer questions "
        "(n: the real LLM's, about 20 s a question) has its figures in the 160 columns, over its first n.",
        "",
        "| LLM | row | n | hit@1 (200) | recall@20 (200) | MRR (200) | hit@1 (160) | recall@20 (160) | MRR (160) | "
        "steps 4-7 median s | commit |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for level, doc in done.items():
        by_row: dict[str, list[Record]] = {}
        for record in load_records(out_path(level, tag)):
            by_row.setdefault(record.row, []).append(record)
        for row, records in by_row.items():
            every = _metrics(records) if len(records) >= 200 else {}
            first = _metrics([r for r in records if int(r.id) < BASELINE_N])

            def cells(m: dict[str, float]) -> str:
                return " | ".join(f"{m[key]:.3f}" for key in ("hit@1", "recall@20", "mrr")) if m else "- | - | -"

            lines.append(
                f"| {level} | {row} | {len(records)} | {cells(every)} | {cells(first)} | "
                f"{steps_4_7(level, row, tag)} | {origin(doc, out_path(level, tag), ROOT, PATHS).label()} |"
            )
    return "\n".join([*lines, "", unchanged(tag), "", served_like_in_process(tag)]).rstrip() + "\n"


def sets_table() -> str:
    """Issue 69's table: hybrid hit@1 per level and set, today's beside the code before issue 69 (``_before69``)."""
    cells: dict[tuple[str, str, str], tuple[float, int]] = {}
    labels: set[str] = set()
    for level in (*SET_LEVELS, "qwen-local"):
        for set_name in SETS:
            for tag in ("", BEFORE):
                path = out_path(level, tag, set_name)
                records = [r for r in load_records(path) if r.row == "hybrid"] if path.exists() else []
                if records:
                    cells[level, set_name, tag] = (_metrics(records)["hit@1"], len(records))
                    if not tag:
                        labels.add(origin(json.loads(path.read_text()), path, ROOT, PATHS).label())
    if not cells:
        return "No set measured yet: run `python benchmarks/llm_axis.py --sets natural,dev2`."
    sizes = {s: max((n for (_, name, _), (_, n) in cells.items() if name == s), default=0) for s in SETS}
    shown = [s for s in SETS if sizes[s]]
    lines = [
        "Row `hybrid` (steps 1-7), k = 20, kgqa's defaults; hit@1 today, and in brackets with the code "
        f"before issue 69 (2ec8d56). Today's runs: {', '.join(sorted(labels)) or '-'}.",
        "",
        "| LLM | " + " | ".join(f"{s} ({sizes[s]})" for s in shown) + " |",
        "|---|" + "---|" * len(shown),
    ]
    for level in (*SET_LEVELS, "qwen-local"):
        if not any(key[0] == level for key in cells):
            continue
        row = []
        for s in shown:
            now, before = cells.get((level, s, "")), cells.get((level, s, BEFORE))
            text = f"{now[0]:.3f}" if now else "-"
            text += f" (n {now[1]})" if now and now[1] < sizes[s] else ""
            row.append(f"{text} (was {before[0]:.3f})" if before and level != "none" else text)
        lines.append(f"| {level} | " + " | ".join(row) + " |")
    return "\n".join([*lines, "", *outvoted(shown)]) + "\n"


def outvoted(sets: Sequence[str]) -> list[str]:
    """Per set, the oracle's asks where step 1 outvoted its (correct) type, how many of them the grounded plan
    settled back (issue 69) and how many lost hit@1; before issue 69 beside it."""
    lines = []
    for set_name in sets:
        parts = []
        for tag, when in (("", "today"), (BEFORE, "before")):
            path = out_path("oracle", tag, set_name)
            if not path.exists():
                continue
            records = [r for r in load_records(path) if r.row == "hybrid"]
            first = [(r, next(s["detail"] for s in r.steps if s["step"] == 1)) for r in records]
            out = [(r, detail) for r, detail in first if "outvoting the LLM's" in detail]
            settled = sum("grounded: changed to" in detail for _, detail in out)
            lost = sum(r.metrics["hit@1"] == 0 for r, _ in out)
            parts.append(f"{when} {len(out)} outvoted, {settled} settled by the plan, {lost} lost at hit@1")
        if parts:
            lines.append(f"- {set_name}, oracle: " + "; ".join(parts) + ".")
    return lines


def write_doc() -> None:
    title = "## What an LLM adds, from junk to perfect (`benchmarks/llm_axis.py`)"
    text = replace_block(DOC.read_text(encoding="utf-8"), "llm_axis", table(), title)
    title = "### The LLM axis on every set (issue 69)"
    DOC.write_text(replace_block(text, "llm_axis_sets", sets_table(), title), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default=None, help=f"comma-separated, of {', '.join(LEVELS)}")
    parser.add_argument("--sets", default="quality", help=f"comma-separated, of {', '.join(SETS)}")
    parser.add_argument("--gguf", type=Path, default=GGUF, help="the GGUF of the qwen-openai and qwen-local levels")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (quick looks)")
    parser.add_argument("--redo", action="store_true", help="delete the levels' records and measure again")
    parser.add_argument("--set", action="append", default=[], help="a setting KEY=JSON for an ablation run")
    parser.add_argument("--tag", default="", help="suffix of the results files of an ablation run (not in docs)")
    parser.add_argument("--render", action="store_true", help="only rewrite the docs table from the results files")
    allow_dirty_flag(parser)
    args = parser.parse_args()
    require_committed(args.allow_dirty)
    if not args.render:
        sets = [v for v in args.sets.split(",") if v]
        if sorted(set(sets) - set(SETS)):
            parser.error(f"unknown set(s) {', '.join(sorted(set(sets) - set(SETS)))}; sets are {', '.join(SETS)}")
        default = SCRIPTED_LEVELS if sets == ["quality"] else SET_LEVELS
        levels = [v for v in (args.levels or ",".join(default)).split(",") if v]
        unknown = sorted(set(levels) - set(LEVELS))
        if unknown:
            parser.error(f"unknown level(s) {', '.join(unknown)}; levels are {', '.join(LEVELS)}")
        overrides = {key: json.loads(value) for key, value in (item.split("=", 1) for item in args.set)}
        if overrides and not args.tag:
            parser.error("an ablation (--set) writes files of its own: name them with --tag")
        for set_name, level in ((s, v) for s in sets for v in levels):
            out = out_path(level, args.tag, set_name)
            if args.redo:
                for path in (out, records_path(out)):
                    path.unlink(missing_ok=True)
                settings_path(out).unlink(missing_ok=True)
            measure(level, args.limit, overrides, args.tag, args.gguf, set_name)
    if not args.tag or args.tag == BEFORE:
        write_doc()
    print(table(args.tag))
    print(sets_table())


if __name__ == "__main__":
    main()
