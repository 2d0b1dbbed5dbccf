"""Method step 2: an LLM writes Cypher for the question, given the schema.

The prompt shows the labels with a few example names each (so the model sees how entities are spelled), every
relationship type with its endpoints, and one worked example; it asks for MATCH/WHERE/RETURN only and an answer
variable ``y``. The reply is not trusted: step 3 (kgqa.cypher.parser + kgqa.cypher.sanitize) keeps only what the schema
allows. Prompt version 1 (without example names) produced the parser's real-reply corpus in tests/fixtures/llm_cypher.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from kgqa.cypher.parser import parse
from kgqa.cypher.plan import QueryPlan
from kgqa.cypher.sanitize import MAX_TRIPLETS, GraphSchema, Mode, Repair, SanitizedPlan, complete_labels, sanitize
from kgqa.errors import InputError
from kgqa.runtime.llm import ChatModel, Completion, Message
from kgqa.runtime.store.base import Schema
from kgqa.runtime.store.protocols import Catalogue

PROMPT_VERSION = "2"
ANSWER_VARIABLE = "y"
"""The prompt asks the model to call the answer node ``y`` (as in the method's reference prompts)."""
ANSWER_LABEL = "answer label"
"""The repair that gives an answer the LLM left without a schema label the type it was asked for: the plan's answer
type is then the prompt's, not the LLM's (kgqa.runtime.steps.s1_type_evidence)."""
MAX_TOKENS = 300
"""Enough for a query with a handful of triplets; a longer reply is cut and the parser salvages the patterns."""

EXAMPLE = """Question: Which drugs target CYP3A4 and are indicated for strongyloidiasis?
```cypher
MATCH (y:drug)-[:target]->(g:`gene/protein` {name: "CYP3A4"}),
      (y)-[:indication]->(d:disease {name: "strongyloidiasis"})
RETURN y
```"""


@dataclass(frozen=True)
class SchemaView:
    """What the prompt shows of an SKB: labels with example names, and (source, type, target) triples."""

    labels: tuple[str, ...]
    relationships: tuple[tuple[str, str, str], ...]
    examples: Mapping[str, Sequence[str]]


def schema_view(
    store: Catalogue, skb: str, schema: Schema, *, per_label: int = 3, hidden: frozenset[str] = frozenset()
) -> SchemaView:
    """The live schema of ``skb`` with ``per_label`` example names per label, read from the store; ``hidden``
    labels (and their relationships) are left out (method step 2: hiding MAG's field_of_study helped)."""
    labels = tuple(label.name for label in schema.labels if label.name not in hidden)
    examples = {label: tuple(store.example_names(skb, label, per_label)) for label in labels}
    relationships = tuple(
        (r.source, r.type, r.target) for r in schema.relationships if r.source not in hidden and r.target not in hidden
    )
    return SchemaView(labels, relationships, examples)


def cypher_messages(question: str, schema: SchemaView, target_type: str | None = None) -> list[Message]:
    """The step-2 prompt (one user message: small local models follow a single message best); with the target type
    of step 1 when there is one."""
    label_lines = "\n".join(
        f"- {label}" + (f" (e.g. {', '.join(schema.examples[label])})" if schema.examples.get(label) else "")
        for label in schema.labels
    )
    rel_lines = "\n".join(f"(:{s})-[:{r}]->(:{t})" for s, r, t in schema.relationships)
    prompt = (
        "You write one Cypher query that finds the answer to a question in a knowledge graph.\n"
        f"Node labels (every node has a `name` property):\n{label_lines}\n"
        f"Relationships:\n{rel_lines}\n"
        "Rules: use only MATCH, WHERE and RETURN; no OR, no negation, no quantifiers; write dates as YYYY-MM-DD; "
        "leave out what the schema cannot express; "
        + (f"the answer is a node of type {target_type}; " if target_type else "")
        + f"call the answer node {ANSWER_VARIABLE} and RETURN {ANSWER_VARIABLE}.\n\n"
        f"Example:\n{EXAMPLE}\n\nQuestion: {question}\n"
    )
    return [Message("user", prompt)]


@dataclass(frozen=True)
class CypherReply:
    """Step 2's exchange: the prompt the LLM was given and its completion."""

    prompt: str
    completion: Completion


def generate_cypher(
    llm: ChatModel, question: str, schema: SchemaView, *, target_type: str | None = None, temperature: float = 0.0
) -> CypherReply:
    """Ask ``llm`` for Cypher answering ``question``; the raw reply (fences, prose and all) goes to the parser."""
    if not question.strip():
        raise InputError("the question is empty")
    messages = cypher_messages(question, schema, target_type)
    completion = llm.complete(messages, max_tokens=MAX_TOKENS, temperature=temperature)
    return CypherReply("\n\n".join(m.content for m in messages), completion)


def write_cypher(
    llm: ChatModel,
    store: Catalogue,
    skb: str,
    schema: Schema,
    question: str,
    target_type: str,
    *,
    hidden: frozenset[str],
    temperature: float,
) -> CypherReply:
    """Method step 2, as ``kgqa ask`` and ``kgqa explain`` both run it: the live schema without the SKB's hidden
    labels, the target type of step 1, then the LLM. Raises LlmError when the LLM fails."""
    view = schema_view(store, skb, schema, hidden=hidden)
    return generate_cypher(llm, question, view, target_type=target_type, temperature=temperature)


def plan_from_reply(
    reply: str, schema: GraphSchema, target_type: str | None, mode: Mode, *, max_triplets: int = MAX_TRIPLETS
) -> SanitizedPlan:
    """Method step 3 for any Cypher text (an LLM's reply in ``kgqa ask``, a user's draft in ``kgqa explain
    --cypher``): parse it, take ``y`` as the answer if the RETURN was lost, sanitize against the live schema, and
    give an answer left without a label (none written, or only labels the schema does not have) the target type of
    step 1 when there is one: an unlabelled answer would range over every node. Raises CypherSyntaxError if nothing
    usable."""
    parsed = parse(reply)
    plan, repairs = with_answer_variable(parsed)
    sanitized = sanitize(plan, schema, mode, max_triplets=max_triplets)
    plan, target = sanitized.plan, sanitized.plan.target
    written = {s.name: s.labels for s in parsed.symbols}
    if target_type is not None and target is not None and any(s.name == target and not s.labels for s in plan.symbols):
        symbols = tuple(replace(s, labels=(target_type,)) if s.name == target else s for s in plan.symbols)
        was = written.get(target, ())
        original = f"({target}:{':'.join(was)})" if was else f"({target}) without a label"
        repairs += (Repair(ANSWER_LABEL, original, target_type, 1.0),)
        plan = replace(plan, symbols=symbols)
    plan, labelled = complete_labels(plan, schema, written)  # the answer's label tells its neighbours' labels
    return SanitizedPlan(plan, repairs + sanitized.repairs + labelled, sanitized.mode)


def unusable(plan: QueryPlan) -> str | None:
    """Why step 3's plan cannot be grounded (the pipeline then falls back), or None when it can."""
    if not plan.triplets and not plan.constants:
        return "the plan has no triplet and no constant: nothing to ground"
    if plan.target is None:
        return "the query returns no node variable to answer with"
    return None


def with_answer_variable(plan: QueryPlan) -> tuple[QueryPlan, tuple[Repair, ...]]:
    """A reply cut before its RETURN still names the answer ``y`` as the prompt asked: take it as the target."""
    if plan.target is None and any(symbol.name == ANSWER_VARIABLE for symbol in plan.symbols):
        repair = Repair("target", "(no RETURN of a node)", ANSWER_VARIABLE, 1.0)
        return replace(plan, target=ANSWER_VARIABLE), (repair,)
    return plan, ()
