"""Method step 2: an LLM writes Cypher for the question, given the schema.

The prompt shows the labels with a few example names each (so the model sees how entities are spelled), every
relationship type with its endpoints, and one worked example; it asks for MATCH/WHERE/RETURN only and an answer
variable ``y``. The reply is not trusted: step 3 (cypher.parser + cypher.sanitize) keeps only what the schema allows.
Prompt version 1 (without example names) produced the parser's real-reply corpus in tests/fixtures/llm_cypher.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from cypher.dialects import falkordb as q
from cypher.plan import QueryPlan
from cypher.sanitize import Repair
from kgqa.errors import InputError
from kgqa.llm import ChatModel, Completion, Message
from kgqa.store.base import GraphStore, Schema

PROMPT_VERSION = "2"
ANSWER_VARIABLE = "y"
"""The prompt asks the model to call the answer node ``y`` (as in the method's reference prompts)."""
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


def schema_view(store: GraphStore, skb: str, schema: Schema, *, per_label: int = 3) -> SchemaView:
    """The live schema of ``skb`` with ``per_label`` example names per label, read from the store."""
    examples = {
        label.name: tuple(str(row[0]) for row in store.read(skb, q.example_names(label.name), {"n": per_label}))
        for label in schema.labels
    }
    return SchemaView(
        tuple(label.name for label in schema.labels),
        tuple((r.source, r.type, r.target) for r in schema.relationships),
        examples,
    )


def cypher_messages(question: str, schema: SchemaView) -> list[Message]:
    """The step-2 prompt (one user message: small local models follow a single message best)."""
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
        f"call the answer node {ANSWER_VARIABLE} and RETURN {ANSWER_VARIABLE}.\n\n"
        f"Example:\n{EXAMPLE}\n\nQuestion: {question}\n"
    )
    return [Message("user", prompt)]


def generate_cypher(llm: ChatModel, question: str, schema: SchemaView, *, temperature: float = 0.0) -> Completion:
    """Ask ``llm`` for Cypher answering ``question``; the raw reply (fences, prose and all) goes to the parser."""
    if not question.strip():
        raise InputError("the question is empty")
    return llm.complete(cypher_messages(question, schema), max_tokens=MAX_TOKENS, temperature=temperature)


def with_answer_variable(plan: QueryPlan) -> tuple[QueryPlan, tuple[Repair, ...]]:
    """A reply cut before its RETURN still names the answer ``y`` as the prompt asked: take it as the target."""
    if plan.target is None and any(symbol.name == ANSWER_VARIABLE for symbol in plan.symbols):
        repair = Repair("target", "(no RETURN of a node)", ANSWER_VARIABLE, 1.0)
        return replace(plan, target=ANSWER_VARIABLE), (repair,)
    return plan, ()
