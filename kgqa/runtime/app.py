"""The Python API, shaped like sqlite3/duckdb: ``with kgqa.connect() as kg: kg.ask("...", skb="hpo")``."""

from __future__ import annotations

import copy
import gc
import os
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kgqa.api import CALLS, Api, check_question, checked
from kgqa.choices import Steps
from kgqa.config import Config, load_config, open_home, validate
from kgqa.cypher.errors import CypherError
from kgqa.cypher.errors import CypherSyntaxError as ParseError
from kgqa.errors import ConfigError, CypherSyntaxError, InputError, KgqaError, SkbNotLoadedError, StoreLockedError
from kgqa.loaders.model import SkbData
from kgqa.runtime.background import Background
from kgqa.runtime.context import Context, CrossEncoderModel, Options
from kgqa.runtime.documents import TASK as DOCUMENTS_TASK
from kgqa.runtime.documents import embed_documents
from kgqa.runtime.embed import Embedder, EmbeddingCache, make_encoder
from kgqa.runtime.llm import CachedChat, ChatModel, LlamaCppChat, LlmCache, OpenAIChat, parse_llm_spec
from kgqa.runtime.load import load_skb
from kgqa.runtime.node_view import describe_node
from kgqa.runtime.pipeline import run
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.reader import MANIFEST, Reader, find_reader, reader_folder
from kgqa.runtime.skbs import check_name, read_source
from kgqa.runtime.steps.s2_linking import id_prefixes
from kgqa.runtime.store.base import NodeText, Schema, SkbMeta, same_model
from kgqa.runtime.store.protocols import GraphStore
from kgqa.runtime.trained import Trained, find_trained
from kgqa.types import Answer, LoadReport, NodeView, Readiness

if TYPE_CHECKING:
    from kgqa.choices import Phrasing, Split
    from kgqa.loaders.stark_embeddings import DocVectors
    from kgqa.runtime.reader.questions import GeneratedQuestion
    from kgqa.types import Dialect, Explanation, Export


def open_store(config: Config) -> GraphStore:
    """The configured store: the embedded FalkorDB in the data directory, or a Neo4j server."""
    if config.store == "neo4j":
        from kgqa.runtime.store.neo4j import Neo4jStore

        user, password = config.neo4j_user, config.neo4j_password
        if password is None and "/" in os.environ.get("NEO4J_AUTH", ""):
            user, password = os.environ["NEO4J_AUTH"].split("/", 1)
        if password is None:
            raise ConfigError("store 'neo4j' needs neo4j_password (or NEO4J_AUTH=user/password)")
        return Neo4jStore(
            config.neo4j_uri,
            (user, password),
            database=config.neo4j_database,
            query_timeout=config.query_timeout,
            row_cap=config.neo4j_row_cap,
            batch_size=config.load_batch_size,
        )
    from kgqa.runtime.store.falkordb import FalkorStore  # the store client loads only where a store is opened

    return FalkorStore(
        config.store_dir,
        ef_runtime=config.ef_runtime,
        start_timeout=config.server_start_timeout,
        query_timeout=config.query_timeout,
        hang_timeout=config.server_hang_timeout,
    )


def read_load_input(skb: str, directory: Path | None, embeddings: Path | None) -> tuple[SkbData, DocVectors | None]:
    """An SKB's source and, from ``embeddings``, STaRK's precomputed document vectors for it."""
    data = read_source(skb, directory)
    if embeddings is None:
        return data, None
    from kgqa.loaders.stark_embeddings import find_doc_embeddings, read_doc_vectors

    path, model = find_doc_embeddings(skb, embeddings)
    return data, read_doc_vectors(path, model, len(data.nodes))


@dataclass
class _Models:
    """The models a :class:`Kgqa` loads on first use, one holder shared with its :meth:`Kgqa.with_config` views
    (a view that loads the embedder loads it for all)."""

    embedder: Embedder | None
    opened_with: Config
    """The settings the embedder is made with, whichever view loads it first: its opener's (a worker's own
    ``embed_batch_size`` and ``embed_cache_mb``, as its status says)."""
    llms: dict[tuple[Any, ...], CachedChat] = field(default_factory=dict)
    cross_encoders: dict[str, CrossEncoderModel] = field(default_factory=dict)
    readers: dict[str, tuple[float, Reader | None]] = field(default_factory=dict)
    """skb -> (the reader manifest's modification time, the reader read then): read again once retrained."""
    id_prefixes: dict[tuple[str, str], dict[str, int | None]] = field(default_factory=dict)
    """(skb, its fingerprint) -> the prefixes of its ids (kgqa.runtime.steps.s2_linking.id_prefixes): read once per
    load."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    documents: threading.Lock = field(default_factory=threading.Lock)
    """Held while documents are embedded: one run at a time (a load that waits, in a worker whose follow-up of the
    same SKB runs, waits for it and then finds them in; two SKBs' runs would share two cores anyway)."""


def settle(*, full: bool = True) -> None:
    """Take what is loaded now (models, their libraries, a reader's word index: some 250,000 objects on HPO) out of
    the garbage collector's full passes: each one over them cost ~0.2 s, in the middle of whichever ask set it off
    (docs/benchmarks.md, "Step 5's bounds"). Called once a model is loaded; frozen objects are still freed by
    reference counting. What an earlier call froze is thawed first, so that cycles freed since (a reader replaced by
    its retraining) are collected, not kept for good.

    Not ``full`` (a process that settled once already loads another embedder: a Python caller opening kgqa again, a
    test): only the young generations are collected before the freeze, for the full pass costs as much as the heap
    is big (0.3 s an opening in a test process) and what it would free is a model load's few cycles."""
    if full:
        gc.unfreeze()
        gc.collect()
    else:
        gc.collect(1)
    gc.freeze()


class Kgqa(Api):
    """An open kgqa data directory: the store (started on open) and an embedder (loaded on first use).

    Safe to share between threads (the worker serves commands in threads): models load once under a lock, and
    :meth:`with_config` gives a view with another call's settings over the same store, models and caches."""

    def __init__(
        self,
        config: Config,
        *,
        embedder: Embedder | None = None,
        store: GraphStore | None = None,
        llm: ChatModel | None = None,
    ) -> None:
        """``embedder`` replaces the configured one (a caller's own encoder and cache); it is closed with kgqa.
        ``store``: an open store instead of the configured one (a Neo4j driver someone else holds), closed with
        kgqa. ``llm``: a chat model instead of the ``llm`` setting, behind the same response cache."""
        open_home(config.home)  # a home kgqa cannot write is a one-line ConfigError, before anything is written
        self.config = config
        self.store: GraphStore = store if store is not None else open_store(config)
        self._models = _Models(embedder, config)
        self._given_llm = None if llm is None else self._cached(llm)
        self._owns_given_llm = llm is not None
        self._owner = True
        self.background: Background | None = None
        """Where a load that need not wait hands its documents' vectors and reader (the worker's; None: a load
        waits for them)."""

    def __enter__(self) -> Kgqa:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def with_config(self, config: Config) -> Kgqa:
        """This kgqa with another call's settings (k, steps, LLM, reranker, ...), sharing the store, the models and
        the caches; closing the view closes nothing. The settings that open the store and the embedder must be
        those this kgqa was opened with (the worker checks them before it calls this)."""
        view = copy.copy(self)
        view.config = config
        view._owner = False
        view._owns_given_llm = False  # the LLM cache stays with whoever opened it
        return view

    def close(self) -> None:
        """Close the store, the caches and the models' clients; a view closes only the LLM cache it opened itself
        (:meth:`with_llm`)."""
        if self._owns_given_llm and self._given_llm is not None:
            self._given_llm.cache.close()
        if not self._owner:
            return
        try:
            self.store.close()
        finally:
            if self._models.embedder is not None:
                self._models.embedder.cache.close()
            for chat in self._models.llms.values():
                chat.cache.close()

    def with_llm(self, llm: ChatModel) -> Kgqa:
        """This kgqa answering with ``llm`` (instead of the ``llm`` setting), sharing the store and the models."""
        view = self.with_config(self.config)
        view._given_llm, view._owns_given_llm = self._cached(llm), True
        return view

    def _cached(self, chat: ChatModel, *, salt: str = "") -> CachedChat:
        """``chat`` behind the response cache of this kgqa's settings (on disk unless ``llm_cache`` is off)."""
        c = self.config
        return CachedChat(chat, LlmCache(c.cache_dir / "llm.sqlite" if c.llm_cache else None), salt=salt)

    @property
    def has_llm(self) -> bool:
        """Whether questions get an LLM (a given chat model, or the ``llm`` setting), without loading one."""
        return self._given_llm is not None or parse_llm_spec(self.config.llm)[0] != "none"

    @property
    def embedder(self) -> Embedder:
        with self._models.lock:
            if self._models.embedder is None:
                c = self._models.opened_with
                encoder = make_encoder(
                    c.embedder,
                    device=c.device,
                    batch_size=c.embed_batch_size,
                    base_url=c.openai_base_url,
                    api_key=c.openai_api_key,
                    models_dir=c.home / "models",
                )
                cache = EmbeddingCache(c.cache_dir / "embeddings.sqlite", max_mb=c.embed_cache_mb)
                self._models.embedder = Embedder(encoder, cache)
                settle(full=gc.get_freeze_count() == 0)  # nothing frozen yet: this process's first settle
            return self._models.embedder

    def embedder_name(self) -> str:
        return self.embedder.name

    @property
    def llm(self) -> CachedChat | None:
        """The configured chat model behind the on-disk response cache; None when ``llm`` is ``none``. One client
        per model and client settings, kept for later calls."""
        if self._given_llm is not None:
            return self._given_llm
        c = self.config
        kind, model = parse_llm_spec(c.llm)
        if kind == "none":
            return None
        key = (
            c.llm,
            c.openai_base_url,
            c.openai_api_key,
            c.llm_timeout,
            c.llm_max_retries,
            c.llm_reasoning_effort,
            c.llm_context,
            c.llm_cache,
            c.cache_dir,
        )
        with self._models.lock:
            if key not in self._models.llms:
                chat: ChatModel
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
                self._models.llms[key] = self._cached(chat, salt=c.llm_reasoning_effort or "")
            return self._models.llms[key]

    def load(
        self,
        skb: str | SkbData,
        directory: Path | None = None,
        *,
        force: bool = False,
        progress: ProgressSink | None = None,
        doc_vectors: DocVectors | None = None,
        wait: bool = True,
    ) -> LoadReport:
        """Load an SKB by name (reading its source) or from already-read :class:`SkbData`; ``doc_vectors``:
        precomputed document vectors (:func:`kgqa.loaders.stark_embeddings.read_doc_vectors`) to store instead of
        embedding those documents. ``wait`` False: return once the graph answers, its documents' vectors and reader
        following in the background (only in the worker, :attr:`background`; elsewhere the load waits)."""
        data = read_source(skb, directory) if isinstance(skb, str) else skb
        with self.embedder.cache.loading():  # a load's vectors are not evicted while it runs (its re-run finds them)
            report = load_skb(
                self.store, self.embedder, data, self.config, force=force, progress=progress, doc_vectors=doc_vectors
            )
        if not wait and self.background is not None:
            self.background.start(report.skb, lambda sink: self.follow_up(report.skb, sink))
            later = "in the background (kgqa server status shows how far)"
            return replace(report, documents=later, reader=later if self.config.reader_on_load else "")
        documents = self._embed_documents(report.skb, progress)
        if not self.config.reader_on_load:
            return replace(report, documents=documents)
        return replace(report, documents=documents, reader=self._train_reader(report.skb, progress))

    def follow_up(self, skb: str, progress: ProgressSink | None = None) -> str:
        """What a load leaves to the background: the reader first (seconds, and it reads every question), then the
        documents' vectors (minutes); what became of them."""
        reader = f"question reader {self._train_reader(skb, progress)}; " if self.config.reader_on_load else ""
        return f"{reader}document vectors {self._embed_documents(skb, progress)}"

    def _embed_documents(self, skb: str, progress: ProgressSink | None) -> str:
        with self._models.documents, self.embedder.cache.loading():
            done = embed_documents(self.store, self.embedder, skb, self.config, progress)
        if done.already:
            return "up to date"
        return f"{done.computed} embedded, {done.cached} from cache in {done.seconds:.0f} s"

    def readiness(self, skb: str) -> Readiness:
        return self._readiness(skb, self.meta(skb), self.store.schema(skb))

    def _readiness(self, skb: str, meta: SkbMeta, schema: Schema) -> Readiness:
        """:meth:`readiness` from the metadata and schema the caller read (an ask reads them anyway)."""
        total = schema.node_count * (2 if meta.stark_documents else 1)
        if schema.has_documents:
            return Readiness(skb, True, total, total, False, None)
        states = {} if self.background is None else self.background.states()
        running, error, tasks = states.get(skb, (False, None, ()))
        done = next((task.completed for task in tasks if task.description == DOCUMENTS_TASK), 0.0)
        stage = tasks[-1].description if running and tasks else None
        return Readiness(skb, False, int(done), total, running, error, stage)

    def _train_reader(self, skb: str, progress: ProgressSink | None) -> str:
        """The reader of a loaded SKB trained (or kept, when up to date) as ``kgqa train-reader`` trains it; what
        happened, for the load's report. A reader that cannot be trained leaves the SKB loaded and says why."""
        from kgqa.runtime.reader.training import ReaderSettings, train

        nodes, bound = self.meta(skb).node_count, self.config.reader_max_nodes
        if nodes > bound:
            return (
                f"not trained on load at this size ({nodes:,} nodes, reader_max_nodes {bound:,}): kgqa train-reader "
                f"--skb {skb} trains it (STaRK MAG: about 25 minutes); kgqa ask reads questions without it meanwhile"
            )
        try:
            outcome = train(self, ReaderSettings(skb, self.config.reader_questions), progress=progress)
        except KgqaError as exc:
            return f"not trained ({exc}); kgqa ask reads questions without it"
        if outcome.already:
            return "up to date"
        return f"trained in {outcome.reader.info['seconds']:.0f} s"

    def load_source(
        self,
        skb: str,
        directory: Path | None = None,
        *,
        force: bool = False,
        progress: ProgressSink | None = None,
        embeddings: Path | None = None,
        wait: bool = True,
    ) -> LoadReport:
        data, doc_vectors = read_load_input(skb, directory, embeddings)
        return self.load(data, force=force, progress=progress, doc_vectors=doc_vectors, wait=wait)

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
        self.meta(skb)
        return describe_node(self.store, skb, node_id)

    def documents(self, skb: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        self.meta(skb)
        return self.store.documents(skb, label, ids)

    def validate_ask(
        self,
        skb: str,
        *,
        types: Sequence[str] | None = None,
        top_k: int | None = None,
        steps: Steps | None = None,
    ) -> None:
        self.prepare(skb, types=types, top_k=top_k, steps=steps)

    def explain(
        self,
        skb: str,
        *,
        cypher: str | None = None,
        question: str | None = None,
        scope: int = 1,
        types: Sequence[str] | None = None,
        dialect: Dialect = "falkordb",
    ) -> Explanation:
        from kgqa.runtime.explain import explain, explain_question

        if (question is None) == (cypher is None):
            raise InputError("explain needs either a question or a Cypher text, not both")
        if question is not None:
            check_question(question, self.config.max_question_chars)
        if scope < 1:
            raise InputError(f"the scope must be >= 1, got {scope}")
        try:
            if cypher is not None:
                return explain(self, skb, cypher, scope=scope, mode=self.config.cypher_mode, dialect=dialect)
            assert question is not None
            return explain_question(self, skb, question, scope=scope, types=types, dialect=dialect)
        except ParseError as exc:  # the Cypher front end's own errors, as kgqa's
            raise CypherSyntaxError(str(exc), exc.position) from exc
        except CypherError as exc:
            raise InputError(str(exc)) from exc

    def generate_questions(
        self,
        skb: str,
        types: Sequence[str],
        count: int,
        seed: int,
        max_word_share: float,
        phrasing: Phrasing = "template",
        split: Split = "all",
        families: Sequence[str] | None = None,
    ) -> tuple[list[GeneratedQuestion], Counter[tuple[str, str]]]:
        from kgqa.runtime.reader.questions import generate

        schema = self.schema(skb)
        unknown = [t for t in types if t not in {label.name for label in schema.labels}]
        if unknown:
            raise InputError(f"unknown type '{unknown[0]}' for SKB '{skb}'")
        rejected: Counter[tuple[str, str]] = Counter()
        made = generate(
            self.store,
            skb,
            schema,
            types,
            count,
            seed,
            self.llm,
            max_word_share=max_word_share,
            rejected=rejected,
            phrasing=phrasing,
            split=split,
            families=families,
        )
        return made, rejected

    def export_neo4j_admin(self, skb: str, out: Path) -> Export:
        from kgqa.runtime.export import export_neo4j_admin

        return export_neo4j_admin(self.store, skb, self.meta(skb), out)

    def cross_encoder(
        self, path: str | None = None, key: str | None = None, *, evidence: bool = False
    ) -> CrossEncoderModel | None:
        """The sentence-transformers CrossEncoder at ``path`` (default: the configured one), loaded once per ``key``
        (default: the path; a retrained model at the same path has another key), offline. ``evidence``: it was
        trained on documents that lead with the pipeline's evidence (kgqa.runtime.context.CrossEncoderModel)."""
        path = path or self.config.cross_encoder
        if path is None:
            return None
        key = key or path
        with self._models.lock:
            if key not in self._models.cross_encoders:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    from sentence_transformers import CrossEncoder
                except ImportError as exc:
                    raise ConfigError(
                        "the cross-encoder reranker runs on sentence-transformers: pip install torch==2.13.0 && "
                        "pip install 'kgqa[torch]'"
                    ) from exc

                try:
                    model = CrossEncoder(str(Path(path).expanduser()), device=self.config.device, local_files_only=True)
                except (OSError, ValueError) as exc:
                    raise ConfigError(f"cross_encoder '{path}' could not be loaded: {exc}") from exc
                self._models.cross_encoders[key] = CrossEncoderModel(
                    lambda pairs: [float(s) for s in model.predict(pairs, show_progress_bar=False)], evidence
                )
            return self._models.cross_encoders[key]

    def reader(self, skb: str) -> Reader | None:
        """The question reader ``kgqa train-reader`` trained for ``skb`` in this data directory, if any (config
        ``reader = false`` asks without it); read once per training."""
        if not self.config.reader:
            return None
        manifest = reader_folder(self.config.home, skb) / MANIFEST
        try:
            stamp = manifest.stat().st_mtime
        except FileNotFoundError:
            return None
        with self._models.lock:
            held = self._models.readers.get(skb)
            if held is None or held[0] != stamp:
                held = (stamp, find_reader(self.config.home, skb))
                self._models.readers[skb] = held
                settle()
            return held[1]

    def trained_reranker(self, skb: str) -> Trained | None:
        """The reranker ``kgqa train-reranker`` trained for ``skb`` in this data directory, if any."""
        return find_trained(self.config.home, skb)

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
                f"'{self.embedder.name}'; reload it (kgqa load {skb} --force) or set 'embedder' to the one it was "
                "loaded with (an export format kgqa no longer makes needs the reload)"
            )
        has_llm = self.has_llm
        wants_trained = config.steps == "full" and config.reranker == "cross-encoder" and not config.cross_encoder
        trained = self.trained_reranker(skb) if wants_trained else None
        options = Options.from_config(
            config, chosen, has_llm=has_llm, skb=skb, trained=None if trained is None else str(trained.path)
        )
        llm = self.llm if has_llm and config.steps != "vss" else None  # vss never loads the model
        scores = None
        if config.steps == "full" and options.reranker == "cross-encoder":
            if trained is not None and options.cross_encoder == str(trained.path):
                scores = self.cross_encoder(options.cross_encoder, trained.key, evidence=trained.manifest.evidence)
            else:
                scores = self.cross_encoder(options.cross_encoder)
        reader = self.reader(skb)
        schema = self.store.schema(skb)
        pending = None if schema.has_documents else self._readiness(skb, meta, schema).line()
        documents = schema.has_documents and same_model(self.embedder.name, meta.doc_model)
        with self._models.lock:
            prefixes = self._models.id_prefixes.get((skb, meta.fingerprint))
        if prefixes is None:
            prefixes = id_prefixes(self.store, skb, schema.labels)
            with self._models.lock:
                self._models.id_prefixes[(skb, meta.fingerprint)] = prefixes
        ctx = Context(self.store, skb, schema, self.embedder, llm, config, scores, documents, reader, pending, prefixes)
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
        check_question(question, self.config.max_question_chars)
        ctx, options = self.prepare(skb, types=types, top_k=top_k, steps=steps)
        doc_vector = self._doc_vector(skb, query_vector)
        answers, trace = run(ctx, question, options, doc_vector)
        return Answer(question, answers, trace)

    def text2cypher(self, question: str, skb: str, *, top_k: int | None = None, validate: bool = True) -> Answer:
        check_question(question, self.config.max_question_chars)
        try:
            from kgqa.langchain.baseline import text2cypher_answer
        except ImportError as exc:
            raise ConfigError(
                f"the text2cypher baseline needs the extra: pip install 'kgqa[langchain]' ({exc})"
            ) from exc
        return text2cypher_answer(self, question, skb, top_k=top_k, validate=validate)

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


for _name in CALLS:  # every public call refuses arguments of the wrong type, as the worker's client does
    setattr(Kgqa, _name, checked(getattr(Kgqa, _name)))


def connect(config: Config | None = None, **overrides: Any) -> Api:
    """Open the data directory of ``config`` (default: file + environment) in this process, starting the embedded
    store; or, when the data directory's worker holds it (a ``kgqa`` command ran), that worker's client, which
    answers the same calls: a notebook and the command line share one data directory without stopping each other.
    What only an in-process kgqa has (its store, a LangChain chat model of this process) needs :class:`Kgqa`."""
    config = config or load_config(overrides)
    try:
        return Kgqa(config)
    except StoreLockedError:
        from kgqa.runtime.worker.client import served_by_worker

        remote = served_by_worker(config)
        if remote is None:
            raise
        return remote
