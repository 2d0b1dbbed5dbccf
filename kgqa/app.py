"""The Python API, shaped like sqlite3/duckdb: ``with kgqa.connect() as kg: kg.ask("...", skb="hpo")``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress

from kgqa.answers import Candidate
from kgqa.choices import Steps
from kgqa.config import Config, load_config, validate
from kgqa.context import Context, Options
from kgqa.embed import Embedder, EmbeddingCache, make_encoder
from kgqa.errors import ConfigError, InputError, SkbNotLoadedError
from kgqa.llm import CachedChat, ChatModel, LlamaCppChat, LlmCache, OpenAIChat, parse_llm_spec
from kgqa.load import LoadReport, load_skb
from kgqa.node_view import NodeView, describe_node
from kgqa.pipeline import run
from kgqa.rerank import CrossEncoderScores
from kgqa.skbs import check_name, read_source
from kgqa.store.base import GraphStore, Schema, SkbMeta, same_model
from kgqa.store.falkordb import FalkorStore
from kgqa.trace import Trace
from loaders.model import SkbData
from loaders.stark_embeddings import DocVectors


def _answer_json(rank: int, c: Candidate) -> dict[str, Any]:
    return {
        "rank": rank,
        "id": c.id,
        "type": c.type,
        "name": c.name,
        "score": round(c.score, 6),
        "strands": list(c.strands),
        "round_l": c.round_l,
        "plan": c.plan,
        "matches": [asdict(m) for m in c.matches],
    }


@dataclass(frozen=True)
class Answer:
    question: str
    answers: list[Candidate]
    trace: Trace

    def to_json(self) -> dict[str, Any]:
        trace = asdict(self.trace)
        trace["usage"] = asdict(self.trace.usage)
        return {
            "question": self.question,
            "answers": [_answer_json(rank, c) for rank, c in enumerate(self.answers, 1)],
            "trace": trace,
        }


def open_store(config: Config) -> GraphStore:
    """The configured store: the embedded FalkorDB in the data directory, or a Neo4j server."""
    if config.store == "neo4j":
        from kgqa.store.neo4j import Neo4jStore

        user, password = config.neo4j_user, config.neo4j_password
        if password is None and "/" in os.environ.get("NEO4J_AUTH", ""):
            user, password = os.environ["NEO4J_AUTH"].split("/", 1)
        if password is None:
            raise ConfigError("store 'neo4j' needs neo4j_password (or NEO4J_AUTH=user/password)")
        return Neo4jStore(
            config.neo4j_uri,
            (user, password),
            database=config.neo4j_database,
            query_timeout=config.neo4j_query_timeout,
            row_cap=config.neo4j_row_cap,
            batch_size=config.load_batch_size,
        )
    return FalkorStore(
        config.store_dir,
        ef_runtime=config.ef_runtime,
        start_timeout=config.server_start_timeout,
    )


class Kgqa:
    """An open kgqa data directory: the store (started on open) and an embedder (loaded on first use)."""

    def __init__(self, config: Config, *, embedder: Embedder | None = None) -> None:
        """``embedder`` replaces the configured one (a caller's own encoder and cache); it is closed with kgqa."""
        self.config = config
        self.store: GraphStore = open_store(config)
        self._embedder: Embedder | None = embedder
        self._llm: CachedChat | None = None
        self._cross_encoder: CrossEncoderScores | None = None

    def __enter__(self) -> Kgqa:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.store.close()
        finally:
            if self._embedder is not None:
                self._embedder.cache.close()
            if self._llm is not None:
                self._llm.cache.close()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            c = self.config
            encoder = make_encoder(
                c.embedder,
                device=c.device,
                batch_size=c.embed_batch_size,
                base_url=c.openai_base_url,
                api_key=c.openai_api_key,
            )
            self._embedder = Embedder(encoder, EmbeddingCache(c.cache_dir / "embeddings.sqlite"))
        return self._embedder

    @property
    def llm(self) -> CachedChat | None:
        """The configured chat model behind the on-disk response cache; None when ``llm`` is ``none``."""
        if self._llm is None:
            c = self.config
            kind, model = parse_llm_spec(c.llm)
            chat: ChatModel
            if kind == "none":
                return None
            if kind == "openai":
                chat = OpenAIChat(
                    model,
                    base_url=c.openai_base_url,
                    api_key=c.openai_api_key,
                    timeout=c.llm_timeout,
                    max_retries=c.llm_max_retries,
                    reasoning_effort=c.llm_reasoning_effort,
                )
            else:
                chat = LlamaCppChat(Path(model).expanduser(), context=c.llm_context)
            cache = LlmCache(c.cache_dir / "llm.sqlite" if c.llm_cache else None)
            self._llm = CachedChat(chat, cache, salt=c.llm_reasoning_effort or "")
        return self._llm

    def load(
        self,
        skb: str | SkbData,
        directory: Path | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
        doc_vectors: DocVectors | None = None,
    ) -> LoadReport:
        """Load an SKB by name (reading its source) or from already-read :class:`SkbData`; ``doc_vectors``:
        precomputed document vectors (:func:`loaders.stark_embeddings.read_doc_vectors`) to store instead of
        embedding those documents."""
        data = read_source(skb, directory) if isinstance(skb, str) else skb
        return load_skb(
            self.store, self.embedder, data, self.config, force=force, progress=progress, doc_vectors=doc_vectors
        )

    def meta(self, skb: str) -> SkbMeta:
        check_name(skb)
        meta = self.store.meta(skb)
        if meta is None:
            hint = "kgqa load hpo" if skb == "hpo" else f"kgqa load stark --name {skb} --dir PROCESSED_DIR"
            raise SkbNotLoadedError(f"SKB '{skb}' is not loaded; run: {hint}")
        return meta

    def schema(self, skb: str) -> Schema:
        self.meta(skb)
        return self.store.schema(skb)

    def node(self, skb: str, node_id: str) -> NodeView:
        """A node's type, name, documents and relations, found by id."""
        self.meta(skb)
        return describe_node(self.store, skb, node_id)

    def cross_encoder(self) -> CrossEncoderScores | None:
        """The configured sentence-transformers CrossEncoder's scoring function (loaded once, offline)."""
        if self.config.cross_encoder is None:
            return None
        if self._cross_encoder is None:
            from sentence_transformers import CrossEncoder

            try:
                model = CrossEncoder(
                    str(Path(self.config.cross_encoder).expanduser()), device=self.config.device, local_files_only=True
                )
            except (OSError, ValueError) as exc:
                raise ConfigError(f"cross_encoder '{self.config.cross_encoder}' could not be loaded: {exc}") from exc
            self._cross_encoder = lambda pairs: [float(s) for s in model.predict(pairs, show_progress_bar=False)]
        return self._cross_encoder

    def prepare(
        self,
        skb: str,
        *,
        types: Sequence[str] | None = None,
        top_k: int | None = None,
        steps: Steps | None = None,
    ) -> tuple[Context, Options]:
        """The context and options of a question over ``skb`` (config ``steps``; ``vss`` is the vector strand
        alone), over its candidate types or ``types``: what :meth:`ask` runs with, and ``kgqa explain`` too."""
        meta = self.meta(skb)
        config = replace(self.config, top_k=top_k or self.config.top_k, steps=steps or self.config.steps)
        validate(config)
        chosen = tuple(types) if types else meta.candidate_types
        unknown = [t for t in chosen if t not in meta.candidate_types]
        if unknown:
            raise InputError(f"unknown type '{unknown[0]}' for SKB '{skb}' (types: {', '.join(meta.candidate_types)})")
        if self.embedder.name != meta.embedder:
            raise ConfigError(
                f"SKB '{skb}' was embedded with '{meta.embedder}' but the configured embedder is "
                f"'{self.embedder.name}'; reload it (kgqa load {skb} --force) or change 'embedder'"
            )
        has_llm = parse_llm_spec(config.llm)[0] != "none"
        options = Options.from_config(config, chosen, has_llm=has_llm)
        llm = self.llm if has_llm and config.steps != "vss" else None  # vss never loads the model
        needs_ce = config.steps == "full" and options.reranker == "cross-encoder"
        ctx = Context(
            self.store,
            skb,
            self.store.schema(skb),
            self.embedder,
            llm,
            config,
            self.cross_encoder() if needs_ce else None,
        )
        return ctx, options

    def ask(
        self,
        question: str,
        skb: str,
        *,
        types: Sequence[str] | None = None,
        top_k: int | None = None,
        steps: Steps | None = None,
        query_vector: np.ndarray | None = None,
    ) -> Answer:
        """Answer ``question`` with the method's steps over ``skb`` (see :meth:`prepare`). ``query_vector``: the
        question's vector by the model of the SKB's document vectors (STaRK's query_emb_dict.pt), searched against
        the document index instead of the embedder's; needed when that model is not the configured embedder."""
        if not question.strip():
            raise InputError("the question is empty")
        ctx, options = self.prepare(skb, types=types, top_k=top_k, steps=steps)
        doc_vector = self._doc_vector(skb, query_vector)
        answers, trace = run(ctx, question, options, doc_vector)
        return Answer(question, answers, trace)

    def _doc_vector(self, skb: str, query_vector: np.ndarray | None) -> np.ndarray | None:
        """The supplied query vector, checked against the SKB's document vectors; None when the embedder's is
        to be used, which must then be the model of those vectors."""
        meta = self.meta(skb)
        if query_vector is None:
            if not same_model(self.embedder.name, meta.doc_model):
                raise ConfigError(
                    f"SKB '{skb}' holds document vectors of '{meta.doc_model}' ({meta.doc_dim}-d), so the "
                    f"question needs a vector by that model, not by '{self.embedder.name}': evaluate with "
                    f"precomputed query vectors (kgqa eval --query-embeddings), or reload the SKB with "
                    f"--embedder openai:{meta.doc_model}"
                )
            return None
        vector = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if len(vector) != meta.doc_dim:
            raise InputError(
                f"the query vector has {len(vector)} dimensions; SKB '{skb}' holds {meta.doc_dim}-d document vectors "
                f"of '{meta.doc_model}'"
            )
        return vector


def connect(config: Config | None = None, **overrides: Any) -> Kgqa:
    """Open the data directory of ``config`` (default: file + environment), starting the embedded store."""
    return Kgqa(config or load_config(overrides))
