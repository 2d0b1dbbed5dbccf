"""What every step of one question shares: the per-question options and the open resources (store, embedder, LLM)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial

from kgqa.choices import LLM_RERANKERS, Reranker, Steps
from kgqa.config import Config
from kgqa.cypher.sanitize import GraphSchema
from kgqa.errors import ConfigError
from kgqa.runtime import lexicon
from kgqa.runtime.embed import Embedder
from kgqa.runtime.llm import ChatModel
from kgqa.runtime.reader import Reader
from kgqa.runtime.reading import Respell
from kgqa.runtime.store.base import Schema, graph_schema
from kgqa.runtime.store.protocols import GraphStore
from kgqa.runtime.text import type_words

CrossEncoderScores = Callable[[list[tuple[str, str]]], Sequence[float]]
"""A cross-encoder's scoring function: (question, document) pairs in, one relevance score each out."""


@dataclass(frozen=True)
class CrossEncoderModel:
    """A cross-encoder as step 8 uses it: its scoring function, and whether its documents lead with the pipeline's
    evidence (:func:`kgqa.runtime.steps.s8_rerank.evidence_text`): a model ``kgqa train-reranker`` trained that way
    reads them so; any other CrossEncoder gets the documents alone."""

    scores: CrossEncoderScores
    evidence: bool = False


@dataclass(frozen=True)
class Options:
    """Per-question settings; defaults come from the configuration (file, environment, flags)."""

    steps: Steps
    reranker: Reranker
    k: int
    alpha: float
    l_max: int
    types: tuple[str, ...]

    cross_encoder: str | None = None
    """The CrossEncoder of ``reranker = cross-encoder``: config ``cross_encoder``, else the reranker trained for the
    SKB (``kgqa train-reranker``)."""

    @classmethod
    def from_config(
        cls, config: Config, types: Sequence[str], has_llm: bool, *, skb: str = "NAME", trained: str | None = None
    ) -> Options:
        """``trained``: the folder of the reranker trained for ``skb``, if there is one; the cross-encoder uses it
        when ``cross_encoder`` is unset. ``auto`` without an LLM reranks only with a configured ``cross_encoder``
        (docs/reranker.md says why)."""
        setting = config.reranker if config.steps == "full" else "none"  # only step 8 reranks
        reranker: Reranker
        if setting == "auto":
            reranker = "listwise" if has_llm else ("cross-encoder" if config.cross_encoder else "none")
        else:
            reranker = setting
        if reranker in LLM_RERANKERS and not has_llm:
            raise ConfigError(f"reranker '{reranker}' needs an LLM: set 'llm', or use cross-encoder or none")
        model = (config.cross_encoder or trained) if reranker == "cross-encoder" else None
        if reranker == "cross-encoder" and not model:
            raise ConfigError(
                f"reranker 'cross-encoder' needs 'cross_encoder' (a local CrossEncoder path) or a reranker trained "
                f"for SKB '{skb}': run kgqa train-reranker --skb {skb}"
            )
        return cls(config.steps, reranker, config.top_k, config.alpha, config.l_max, tuple(types), model)


@dataclass(frozen=True)
class Context:
    """What the steps share: the store, the embedder, the optional LLM and cross-encoder, the configuration."""

    store: GraphStore
    skb: str
    schema: Schema
    embedder: Embedder
    llm: ChatModel | None
    config: Config
    cross_encoder: CrossEncoderModel | None = None
    embedder_documents: bool = False
    """Whether the SKB's document vectors are the embedder's (not imported from another model, as STaRK's ada-002
    ones may be): only then can the embedder's vector of a text the question quotes be searched in the document
    index (kgqa.runtime.steps.s2_linking.described_anchors)."""
    reader: Reader | None = None
    """The question reader trained for the SKB (``kgqa train-reader``), if any: its spelling links misspelt names,
    its type head votes in step 1."""
    pending: str | None = None
    """While the SKB's document vectors are being embedded (kgqa.runtime.documents), how far along
    (:meth:`kgqa.types.Readiness.line`); None once they are in."""
    id_prefixes: Mapping[str, int | None] = field(default_factory=dict)
    """The prefixes of the SKB's ids and their numbers' digits (kgqa.runtime.steps.s2_linking.id_prefixes): an id
    typed another way ("MIM #154700") is looked up as the SKB writes it."""

    @property
    def documents(self) -> bool:
        """Whether the SKB's document vectors are in: steps 6-7 search and compare them only then."""
        return self.pending is None

    @property
    def aliases(self) -> bool:
        """Whether linking and step 4 search the alias index: the graph has one and ``link_aliases`` is on."""
        return self.schema.has_aliases and self.config.link_aliases

    @cached_property
    def graph(self) -> GraphSchema:
        """The schema as the Cypher front end sees it (labels, relationship triples, node keys), once per context."""
        return graph_schema(self.schema)

    @cached_property
    def respell(self) -> Respell | None:
        """How a question's misspelt cue words are read (kgqa.runtime.reading.read_question): as the lexicon's words
        and the type words of the SKB's labels they are one typo from, by the reader's spelling; None without a
        reader."""
        if self.reader is None:
            return None
        cues = lexicon.every_word() | {w for label in self.graph.labels for t in type_words(label) for w in t.split()}
        spelling = self.reader.spelling
        return lru_cache(maxsize=4096)(partial(spelling.cue_of, cues=frozenset(cues)))
