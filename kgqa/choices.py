"""The enumerated settings, each defined once: the ``Literal`` types the code is checked against, and the tuples
that feed both ``click.Choice`` and configuration validation."""

from __future__ import annotations

from typing import Literal, get_args

from kgqa.cypher.sanitize import Mode

Steps = Literal["vss", "graph", "hybrid", "full"]
"""``vss``: the vector strand alone; ``graph``: steps 1-6; ``hybrid``: 1-7; ``full``: 1-8."""
STEPS: tuple[Steps, ...] = get_args(Steps)

Baseline = Literal["text2cypher", "text2cypher-unvalidated"]
"""An eval baseline: ``text2cypher`` is langchain-neo4j's GraphCypherQAChain with kgqa's LLM and
``validate_cypher=True`` (CypherQueryCorrector); ``text2cypher-unvalidated`` the same chain at its default,
without the corrector."""
BASELINES: tuple[Baseline, ...] = get_args(Baseline)

Reranker = Literal["listwise", "pairwise", "pointwise", "cross-encoder", "none"]
"""Step 8 as it runs (``none``: the merged order stands)."""
RERANKERS: tuple[Reranker, ...] = get_args(Reranker)

RerankerSetting = Literal["auto", Reranker]
"""The ``reranker`` setting: a reranker, or ``auto`` (listwise with an LLM, the cross-encoder if one is set, else
none)."""
RERANKER_SETTINGS: tuple[str, ...] = ("auto", *RERANKERS)

LLM_RERANKERS: tuple[Reranker, ...] = ("listwise", "pairwise", "pointwise")
"""The rerankers that need an LLM."""

StoreKind = Literal["falkordb", "neo4j"]
"""A graph store, and the Cypher dialect it speaks."""
STORES: tuple[StoreKind, ...] = get_args(StoreKind)

CypherMode = Mode
"""How the LLM's labels and types are mapped to the schema (kgqa.cypher.sanitize)."""
CYPHER_MODES: tuple[str, ...] = get_args(Mode)

Fusion = Literal["rrf", "weighted", "none"]
"""Step 7: how the vector strand's and the full-text index's top answers fill the slots the graph strand leaves:
``rrf`` (reciprocal-rank fusion), ``weighted`` (dense similarity plus the weighted full-text score, as step 6
ranks), ``none`` (the vector strand alone)."""
FUSIONS: tuple[Fusion, ...] = get_args(Fusion)

CHOICES: dict[str, tuple[str, ...]] = {
    "steps": STEPS,
    "reranker": RERANKER_SETTINGS,
    "store": STORES,
    "cypher_mode": CYPHER_MODES,
    "fusion": FUSIONS,
}
"""Configuration key -> its allowed values (config validation)."""

Phrasing = Literal["template", "natural"]
"""How ``kgqa questions`` words the questions it generates: by template, or as people type (its phrasing families)."""
PHRASINGS: tuple[Phrasing, ...] = ("template", "natural")
Split = Literal["all", "train", "test"]
"""Whose gold answers a generated question may have (kgqa.runtime.reader.questions.split_of)."""
SPLITS: tuple[Split, ...] = ("all", "train", "test")
