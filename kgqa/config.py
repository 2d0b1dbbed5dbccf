"""Configuration in one place: defaults < TOML file < ``KGQA_*`` environment < CLI flags.

The file is ``./kgqa.toml`` if present, else ``$KGQA_HOME/config.toml``. Every key is a field of :class:`Config`;
an unknown key or a value of the wrong type is a :class:`ConfigError` naming it, never silently ignored.
"""

from __future__ import annotations

import dataclasses
import errno
import math
import os
import shutil
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kgqa.choices import CHOICES, CypherMode, Fusion, RerankerSetting, Steps, StoreKind
from kgqa.errors import ConfigError
from kgqa.runtime.llm import parse_llm_spec

ENV_PREFIX = "KGQA_"


def _default_home(env: Mapping[str, str] = os.environ) -> Path:
    return _expand(env.get("KGQA_HOME", "~/.kgqa"), "KGQA_HOME")


def _expand(raw: str, source: str) -> Path:
    """``raw`` as a path with ``~`` expanded; ``~nosuchuser`` is a setting's fault, named here."""
    try:
        return Path(raw).expanduser()
    except RuntimeError as exc:  # pathlib's "Could not determine home directory"
        raise ConfigError(f"{source}: {raw!r}: {exc}") from None


@dataclass(frozen=True)
class Config:
    """All settings of kgqa. Field docs double as the reference of the config file."""

    home: Path = field(default_factory=_default_home)
    """Data directory: store files, embedding cache, logs."""
    store: StoreKind = "falkordb"
    """Graph store backend: ``falkordb`` (embedded, default) or ``neo4j`` (a server, see docs/neo4j.md)."""
    embedder: str = "onnx-int8:minilm"
    """The bundled all-MiniLM-L6-v2 run by ONNX Runtime with int8 weights (``onnx-int8:minilm``, exported into
    ``home/models`` at first use, offline: the default, as fast as answers allow, docs/benchmarks.md), the same in
    fp32 (``onnx:minilm``) or by sentence-transformers on torch (``minilm``), any local sentence-transformers
    path/name, or ``openai:MODEL``."""
    embed_batch_size: int = 64
    doc_max_tokens: int = 128
    """Token budget for the document index's text where it is STaRK's document with relations (elsewhere the index
    holds the plain document at the model's own length, kgqa/runtime/load.py says why). MiniLM reads at most 256."""
    device: str = "cpu"
    top_k: int = 20
    """k, the number of answers."""
    steps: Steps = "full"
    """``vss`` (vector strand only), ``graph`` (steps 1-6), ``hybrid`` (1-7) or ``full`` (1-8, with rerank)."""
    reranker: RerankerSetting = "auto"
    """``auto`` (listwise with an LLM, else none), ``listwise``, ``pairwise``, ``pointwise``, ``cross-encoder``,
    ``none``."""
    cross_encoder: str | None = None
    """Local path (or cached name) of a sentence-transformers CrossEncoder for ``reranker = cross-encoder``."""
    alpha: float = 2 / 3
    """Share of the k slots for the graph strand (method step 6): round(alpha * k)."""
    l_max: int = 100
    """Most candidates per constant (method step 5)."""
    cypher_mode: CypherMode = "strict"
    """How the LLM's labels and types are mapped to the schema: ``strict`` (close matches) or ``lenient`` (all)."""
    hidden_labels: str = ""
    """Labels left out of the step-2 prompt, as ``skb:label`` items separated by commas (``mag:field_of_study``)."""
    link_threshold: float = 0.85
    """Without an LLM: how similar a question span must be to a node name to link it (name embeddings)."""
    relation_meaning: bool = True
    """Without an LLM: a hop's relationship types are those the question means by its wording ("lacks": 'phenotype
    absent'; no negation word: not the negated types) or by embedding; off: only types it names verbatim."""
    relation_threshold: float = 0.6
    """How similar a question word must be to a relationship type's name to choose that type by meaning."""
    lexical_weight: float = 1.0
    """Step 6: weight of the full-text score of the question's residual words (scaled to [0, 1], and as much again
    for a quoted phrase of its condition) beside the dense similarity; 0: dense only (measured in docs/results.md)."""
    fusion: Fusion = "rrf"
    """Step 7: how the vector strand and the full-text index's top answers for the residual words fill the slots the
    graph strand leaves: ``rrf`` (reciprocal-rank fusion), ``weighted`` (as step 6 scores, by ``lexical_weight``) or
    ``none`` (the vector strand alone); measured in docs/results.md. Off with ``lexical_weight = 0`` too."""
    reader_on_load: bool = True
    """``kgqa load`` trains the SKB's question reader after the graph (``kgqa train-reader``'s defaults, timed in
    docs/reader.md), or keeps it when it is up to date: the reader measured better than the rules on the natural test
    half and on families it never saw (docs/results.md), so a load makes it; off: ``kgqa train-reader`` alone."""
    reader_max_nodes: int = 500_000
    """The largest SKB (nodes) whose reader a load trains (``reader_on_load``): above it the load says so and leaves
    it to ``kgqa train-reader`` (STaRK MAG, 1.9M nodes, trains in about 25 minutes with gigabytes of memory:
    docs/benchmarks.md; HPO's 36,853 nodes in 17 s, PRIME's 129,375 within this bound)."""
    reader_questions: int = 120
    """Questions generated per phrasing family to train the question reader (``kgqa load``, ``kgqa train-reader``);
    the reader measured in docs/results.md was trained on 120."""
    reader: bool = True
    """Use the question reader ``kgqa train-reader`` trained for the SKB, where there is one (misspelt names linked,
    a learned answer type in step 1); off: the hand-written reading alone."""
    link_aliases: bool = True
    """Entity linking and step 4 search the nodes' aliases too (HPO synonyms, gene names), where the load stored
    them; off: names only."""
    plan_fallback: bool = True
    """With an LLM: the schema-guided plan of the linked entities (what runs without an LLM) is grounded beside the
    LLM's, and step 6 ranks both plans' targets by their votes (the plan alone where the LLM's is unusable). Off: the
    LLM's plan alone, the method as published."""
    llm_plan_weight: float = 1.0
    """Weight of the LLM plan's vote beside the linked entities' plan (weight 1) in step 6 (measured in
    docs/results.md)."""
    joint_l_max: int = 3
    """Without an LLM, or beside its plan: most candidates per constant the linked entities' plan of two or more
    constants grounds through; where it grounds fewer than k targets by then, each constant is dropped in turn and
    the relaxed plans are grounded beside it (their targets rank below what the whole plan grounds), a relaxed plan
    of two or more constants through as many, one of a single constant through ``l_max``."""
    round_cost_cap: int = 200_000
    """Step 5: most rows a round of a plan of two or more constants is estimated to walk (its cheapest constant's
    edges times the other constants' candidates, from one degree count per candidate) for the round to run; the
    expansion stops before one that would walk more (the trace says so). l = 1 always runs."""
    expansion_stall: bool = True
    """Step 5: stop the expansion of a plan of two or more constants after a round that added no target to those
    found before (the candidates further down join nothing new), whatever wrote the plan."""
    relaxed_weight: float = 0.5
    """Weight of a relaxed plan's vote in step 6 (the whole linked plan weighs 1)."""
    max_question_chars: int = 4000
    """Longest question accepted (characters); a longer one is refused before any work."""
    max_link_ngrams: int = 1000
    """Without an LLM: most question spans entity linking embeds and searches; the rest are not linked (the trace
    says so)."""
    max_triplets: int = 8
    """Most triplets (hops) a plan keeps: those nearest the answer; the rest are dropped with the reason."""
    pattern_limit: int = 10_000
    """LIMIT of every compiled pattern query (step 5): targets beyond it are not read (the trace says so)."""
    ask_budget: float = 2.0
    """Seconds steps 4-7 of one ask may take together. Step 5 grounds within what is left of it after a share kept
    for steps 6-7 (``ASK_BUDGET_RESERVE``): each of its reads gets what is left as its time limit where that is
    sooner than ``query_timeout``, and no round, relaxation or exclusion starts once nothing is left; the answers are
    then those found so far, step 5 degraded and the trace naming the bound."""
    query_timeout: float = 60.0
    """Seconds any read may run, in either store. The database's own timeout stops it; where FalkorDB does not stop,
    kgqa's watchdog does, a few seconds later (Neo4j ends a transaction past its timeout itself)."""
    embed_cache_mb: int = 2048
    """Size bound of the embedding cache (``cache/embeddings.sqlite``); the least recently used vectors go first."""
    graph_rank_cap: int = 200
    """Step 6 scores at most this many grounded targets per question (by their stored document vectors)."""
    rerank_budget_tokens: int = 3000
    """Prompt budget of the LLM rerankers; longer candidate lists fall back to shorter documents."""
    rerank_concurrency: int = 4
    ef_runtime: int = 200
    """HNSW search breadth of the vector indexes (recall vs latency)."""
    load_batch_size: int = 2000
    relation_names_per_type: int = 8
    """How many neighbour names per relation type the embedded document lists (method step 7)."""
    openai_base_url: str | None = None
    """Base URL of an OpenAI-compatible endpoint (vLLM, Ollama, llama_cpp.server), for the LLM and embedder."""
    openai_api_key: str | None = None
    llm: str = "none"
    """``none``, ``openai:MODEL`` (any OpenAI-compatible endpoint; extra ``kgqa[openai]``) or ``llama:PATH.gguf``
    (in-process llama.cpp; extra ``kgqa[llama]``)."""
    llm_temperature: float = 0.0
    llm_reasoning_effort: str | None = None
    """Passed to reasoning models of the OpenAI API (``low``, ``medium``, ``high``); unset for others."""
    llm_timeout: float = 120.0
    """Seconds per LLM request before the client gives up (after its own retries)."""
    llm_max_retries: int = 2
    llm_cache: bool = True
    """Keep LLM replies in ``cache/llm.sqlite`` and reuse them for the same model, prompt and parameters."""
    llm_context: int = 4096
    """Context window of an in-process llama.cpp model (tokens)."""
    server_start_timeout: float = 120.0
    server_hang_timeout: float = 120.0
    """Seconds the embedded server may use neither CPU nor the disk while a load's write waits on it; then it counts
    as hung (a deadlock, a stopped process) and is killed and restarted from its saved graphs, and the load fails."""
    worker_idle_timeout: float = 600.0
    """Seconds the background worker (open store, loaded models) waits for the next command before it exits;
    ``0``: no worker, every command opens the store and models itself and closes them when it ends."""
    worker_max_calls: int = 2
    """Calls (asks, explains, schema and node views) the worker answers at once; more wait their turn. Answers are
    CPU-bound and share one interpreter: on 2 cores, 4 at once answered 0.95 questions/s and 2 at once 1.75
    (docs/benchmarks.md, Soak)."""
    worker_max_waiting: int = 64
    """Calls that may wait for a turn; one more is refused at once as busy (exit 75), never queued without end."""
    worker_queue_timeout: float = 120.0
    """Seconds a call waits for its turn before it is refused as busy."""
    mcp_host: str = "127.0.0.1"
    """Address ``kgqa mcp --http`` listens on; one that is not loopback needs ``mcp_token``."""
    mcp_port: int = 8765
    mcp_token: str | None = None
    """Bearer token every HTTP client of ``kgqa mcp --http`` must send (``Authorization: Bearer ...``); also read
    from ``KGQA_MCP_TOKEN``. Unset: no token (loopback only)."""
    mcp_call_timeout: float = 150.0
    """Seconds an MCP tool call may take before the agent gets an error (the call ends in kgqa within its own
    bounds, ``query_timeout`` and ``llm_timeout``); longer than ``worker_queue_timeout``, so that a call the worker
    refuses as busy reaches the agent as such."""
    neo4j_uri: str = "bolt://localhost:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    """Also read from ``NEO4J_AUTH`` (``user/password``, as the Neo4j image takes it)."""
    neo4j_database: str = "neo4j"
    """The database holding the SKB (one SKB per database)."""
    neo4j_row_cap: int = 100_000
    neo4j_version: str = "2025.05"
    """Neo4j release the Neo4j dialect writes for (``kgqa explain --dialect neo4j``): 2026.01 and later get the
    Cypher 25 ``SEARCH`` clause, older ones ``db.index.vector.queryNodes``. Default: the image in docker/."""

    @property
    def store_dir(self) -> Path:
        return self.home / self.store

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"


_FIELDS = {f.name: f for f in fields(Config)}
RENAMED = {"neo4j_query_timeout": "query_timeout"}
"""Old setting names still read, as their new name."""


def _coerce(name: str, raw: Any, source: str) -> Any:
    """Convert a raw value (TOML value or env string) to the field's type, or raise naming the key (an enumerated
    setting is read as a string here and checked against its choices by :func:`validate`)."""
    kind = "str" if name in CHOICES else str(_FIELDS[name].type)
    try:
        if kind == "Path":
            return _expand(str(raw), f"{source}: '{name}'")
        if kind == "int":
            if isinstance(raw, bool):
                raise ValueError(raw)
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            if isinstance(raw, bool):
                return raw
            if str(raw).strip().lower() in ("1", "true", "yes", "on"):
                return True
            if str(raw).strip().lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind in ("str", "str | None"):
            if not isinstance(raw, str):
                raise ValueError(raw)
            return raw
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{source}: '{name}' must be {kind}, got {raw!r}") from exc
    raise ConfigError(f"{source}: '{name}' has unsupported type {kind}")  # pragma: no cover - guards new fields


def _from_mapping(values: Mapping[str, Any], source: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, raw in values.items():
        name = key.replace("-", "_")
        name = RENAMED.get(name, name)
        if name not in _FIELDS:
            known = ", ".join(sorted(_FIELDS))
            raise ConfigError(f"{source}: unknown setting '{key}' (known: {known})")
        out[name] = _coerce(name, raw, source)
    return out


def config_file(env: Mapping[str, str], cwd: Path) -> Path | None:
    """The TOML file that applies: ``./kgqa.toml`` first, then ``$KGQA_HOME/config.toml``."""
    local = cwd / "kgqa.toml"
    try:
        if local.is_file():
            return local
    except OSError as exc:  # a working directory this user may not search
        raise ConfigError(f"{local}: cannot be read ({exc.strerror or exc})") from None
    home = _default_home(env) / "config.toml"
    try:
        return home if home.is_file() else None
    except (OSError, ValueError):  # a home no system call takes: check_home names what is wrong with it
        return None


def load_config(
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Config:
    """Build the effective configuration. ``overrides`` are CLI flags (``None`` values mean "not given")."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    merged: dict[str, Any] = {}
    path = config_file(env, cwd)
    if path is not None:
        merged.update(_from_mapping(read_settings(path), str(path)))
    env_values = {k[len(ENV_PREFIX) :].lower(): v for k, v in env.items() if k.startswith(ENV_PREFIX)}
    merged.update(_from_mapping(env_values, "environment"))
    if overrides:
        merged.update(_from_mapping({k: v for k, v in overrides.items() if v is not None}, "command line"))
    config = dataclasses.replace(Config(), **merged)
    validate(config)
    return config


MAX_TOP_K = 1000
"""The most answers one call returns, at every door: the API, the command line (``--k``) and the ``top_k`` setting
(MCP asks for 100 at most: a tool result an LLM reads)."""


def validate(config: Config) -> None:
    """Raise a ConfigError naming the first invalid setting (also used after per-call overrides)."""
    check_home(config.home)
    for name in (
        "embed_batch_size",
        "doc_max_tokens",
        "top_k",
        "ef_runtime",
        "load_batch_size",
        "l_max",
        "joint_l_max",
        "round_cost_cap",
        "graph_rank_cap",
        "rerank_budget_tokens",
        "rerank_concurrency",
        "max_question_chars",
        "max_link_ngrams",
        "max_triplets",
        "pattern_limit",
        "embed_cache_mb",
        "worker_max_calls",
        "reader_questions",
        "reader_max_nodes",
    ):
        if getattr(config, name) < 1:
            raise ConfigError(f"'{name}' must be >= 1, got {getattr(config, name)}")
    if config.top_k > MAX_TOP_K:
        raise ConfigError(f"'top_k' must be at most {MAX_TOP_K}, got {config.top_k}")
    parse_llm_spec(config.llm)
    for name, allowed in CHOICES.items():
        if getattr(config, name) not in allowed:
            raise ConfigError(f"'{name}' must be one of {', '.join(allowed)}, got {getattr(config, name)!r}")
    for name in ("alpha", "relation_threshold"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ConfigError(f"'{name}' must be between 0 and 1, got {getattr(config, name)}")
    if config.llm_plan_weight < 0:
        raise ConfigError(
            f"'llm_plan_weight' must be >= 0 (0: the LLM's plan breaks ties only), got {config.llm_plan_weight}"
        )
    if config.relaxed_weight < 0:
        raise ConfigError(f"'relaxed_weight' must be >= 0, got {config.relaxed_weight}")
    if not math.isfinite(config.lexical_weight) or config.lexical_weight < 0:
        raise ConfigError(f"'lexical_weight' must be >= 0 (0: dense similarity only), got {config.lexical_weight}")
    for item in filter(None, (part.strip() for part in config.hidden_labels.split(","))):
        if ":" not in item:
            raise ConfigError(f"'hidden_labels' items are skb:label, got {item!r}")
    if config.worker_idle_timeout < 0:
        raise ConfigError(f"'worker_idle_timeout' must be >= 0 (0: no worker), got {config.worker_idle_timeout}")
    for setting in _FIELDS:
        value = getattr(config, setting)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"'{setting}' must be a finite number, got {value}")
    if not 0 < config.mcp_port < 65536 or not config.mcp_call_timeout > 0:
        raise ConfigError(
            f"'mcp_port' must be a port number (1-65535) and 'mcp_call_timeout' > 0, got {config.mcp_port} and "
            f"{config.mcp_call_timeout}"
        )
    if config.worker_max_waiting < 0 or not config.worker_queue_timeout > 0:
        raise ConfigError(
            f"'worker_max_waiting' must be >= 0 and 'worker_queue_timeout' > 0, got {config.worker_max_waiting} and "
            f"{config.worker_queue_timeout}"
        )
    if not config.server_hang_timeout > 0:
        raise ConfigError(f"'server_hang_timeout' must be a number of seconds > 0, got {config.server_hang_timeout}")
    for name in ("query_timeout", "ask_budget"):
        if not getattr(config, name) > 0:
            raise ConfigError(f"'{name}' must be a number of seconds > 0, got {getattr(config, name)}")
    if config.llm_timeout <= 0 or config.llm_max_retries < 0 or config.llm_context < 256:
        raise ConfigError("'llm_timeout' must be > 0, 'llm_max_retries' >= 0 and 'llm_context' >= 256")
    from kgqa.runtime.store.neo4j_version import syntax_for  # numpy and the store modules stay out of light commands

    try:
        syntax_for(config.neo4j_version)
    except ValueError as exc:
        raise ConfigError(f"'neo4j_version': {exc}") from exc


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file's TOML, or a ConfigError naming the file and where it went wrong: one that cannot be read,
    is not UTF-8 text, is not TOML, or nests deeper than the parser can follow."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.start + 1}, line {line}); a settings file is TOML, written as text"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply to read; no kgqa setting nests") from None


def check_home(home: Path) -> None:
    """The data directory is a folder, or can be made one, as far as can be told without writing: a ``home`` that
    names a file (or lies under one), a symlink loop or a path no system call takes is a setting's fault, named here,
    not an OSError when the first command writes into it. :func:`open_home` then makes it and proves it writable."""
    if "\x00" in str(home):
        raise ConfigError(f"'home' ({HOME_SOURCES}) holds a NUL character: {str(home)!r}")
    for path in (home, *home.parents):
        try:
            os.stat(path)
        except (FileNotFoundError, NotADirectoryError):  # not there, or under a file: the parents say which
            continue
        except OSError as exc:  # a symlink loop, a name too long, a folder on the way this user may not search
            raise ConfigError(_home_problem(home, exc)) from None
        if path.is_dir():
            return
        where = "is a file" if path == home else f"lies under {path}, which is a file"
        raise ConfigError(f"'home' ({HOME_SOURCES}) must be a directory, but {home} {where}")


PROBE = ".kgqa-write-check"
"""The name prefix of the one-byte file :func:`open_home` writes and removes to prove the data directory writable."""


def open_home(home: Path) -> None:
    """The data directory made, and proven writable, before kgqa writes anything in it; else a ConfigError in one
    line saying what is wrong and what to do (read-only or immutable, a symlink loop, a place where no folder can be
    made such as /proc, no space). Every door that opens a home calls it: kgqa in process (and so the worker and
    MCP without one), and the worker's client."""
    make_home(home)
    try:
        with tempfile.NamedTemporaryFile(dir=home, prefix=PROBE) as probe:
            probe.write(b"k")  # a byte, so that a full disk fails here (an empty file needs no block)
            probe.flush()
        if shutil.disk_usage(home).free < MIN_FREE:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except OSError as exc:
        raise ConfigError(_home_problem(home, exc)) from None


MIN_FREE = 1024 * 1024
"""Free bytes under which a data directory counts as full: nothing kgqa writes there is smaller."""


def make_home(home: Path) -> None:
    """The data directory made if need be, without a probe (:func:`open_home` proves it writable once per command;
    the worker's client calls this on every connection): a failure is the same one line."""
    check_home(home)
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(_home_problem(home, exc)) from None


_HOME_ERRORS = {
    errno.EACCES: "cannot be written (permission denied): choose another or make it writable",
    errno.EPERM: "cannot be written (not permitted: immutable or append-only?): choose another or make it writable",
    errno.EROFS: "is on a read-only file system: choose a writable one",
    errno.ELOOP: "is a symlink loop: point it at a real directory",
    errno.ENOSPC: "has no space left: free some, or choose another",
    errno.EDQUOT: "is over its disk quota: free some, or choose another",
    errno.ENAMETOOLONG: "is a path too long for the file system",
    errno.ENOTDIR: "lies under a file, not a directory",
}


def _home_problem(home: Path, exc: OSError) -> str:
    why = _HOME_ERRORS.get(exc.errno or 0) or f"cannot be made a directory here ({exc.strerror or exc})"
    return f"'home' ({HOME_SOURCES}) {home} {why}"


HOME_SOURCES = "--home, KGQA_HOME or home in the config file"
"""Where ``home`` is set, as errors name it."""


def hidden_labels(config: Config, skb: str) -> frozenset[str]:
    """The labels ``hidden_labels`` hides from the step-2 prompt of ``skb``."""
    items = (part.strip().split(":", 1) for part in config.hidden_labels.split(",") if part.strip())
    return frozenset(label for name, label in items if name == skb)
