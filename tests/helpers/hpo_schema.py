"""HPO's schema as the Cypher front end sees it, and links at their real word positions: the unit tests of the
no-LLM plan (kgqa.runtime.steps.s2_schema_plan) share them."""

from __future__ import annotations

from kgqa.cypher.sanitize import GraphSchema
from kgqa.runtime.steps.s2_linking import Link
from kgqa.runtime.store.base import NODE_KEYS
from kgqa.runtime.text import words_of

PHENOTYPE = "effect/phenotype"
HPO = GraphSchema(
    ("disease", "gene/protein", PHENOTYPE),
    (
        ("disease", "phenotype present", PHENOTYPE),
        ("disease", "phenotype absent", PHENOTYPE),
        ("gene/protein", "associated with", "disease"),
        ("gene/protein", "associated with", PHENOTYPE),
        (PHENOTYPE, "parent-child", PHENOTYPE),
    ),
    NODE_KEYS,
)


def link(question: str, span: str, label: str) -> Link:
    """A link of ``span`` at its real word positions in ``question`` (as the linker would make it)."""
    words, size = words_of(question), len(span.split())
    start = next(i for i in range(len(words)) if " ".join(words[i : i + size]) == span)
    return Link(span, start, start + size, label, span.lower(), span, 1.0)
