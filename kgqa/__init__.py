"""kgqa: question answering over semi-structured knowledge bases (AF-Retriever).

The embedded default feels like sqlite3: ``kgqa.connect()`` opens (and owns) a FalkorDB server on a unix socket
inside the data directory and closes it when you are done::

    with kgqa.connect() as kg:
        answer = kg.ask("Which genes are associated with seizures?", skb="hpo")

Everything a library user meets is importable from here (``__all__``). The API class and its result types load on
first use, so that ``import kgqa`` stays light and imports none of the pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgqa._lazy import lazy_getattr
from kgqa._version import __version__ as __version__
from kgqa.config import Config, load_config
from kgqa.errors import (
    ArgumentError,
    Cancelled,
    ConfigError,
    CypherSyntaxError,
    EmbeddingError,
    InputError,
    KgqaError,
    LlmError,
    QuestionError,
    SkbNotLoadedError,
    StoreError,
    StoreLockedError,
    StoreTimeoutError,
    UnknownSkbError,
    WorkerBusyError,
    WorkerError,
)

if TYPE_CHECKING:
    from kgqa.api import Api
    from kgqa.runtime.app import Kgqa
    from kgqa.runtime.reader.questions import GeneratedQuestion
    from kgqa.runtime.store.base import NodeText
    from kgqa.types import (
        Answer,
        Candidate,
        Explanation,
        Export,
        GeneratedCypher,
        LoadReport,
        Match,
        NodeView,
        Readiness,
        Schema,
        SkbMeta,
        Trace,
    )

_TYPES = (
    "Answer",
    "Candidate",
    "Explanation",
    "Export",
    "GeneratedCypher",
    "LoadReport",
    "Match",
    "NodeView",
    "Readiness",
)
_LAZY = {
    "Api": "kgqa.api",
    "Kgqa": "kgqa.runtime.app",
    "GeneratedQuestion": "kgqa.runtime.reader.questions",
    **dict.fromkeys(_TYPES, "kgqa.types"),
    **dict.fromkeys(("NodeText", "Schema", "SkbMeta"), "kgqa.runtime.store.base"),
    "Trace": "kgqa.runtime.trace",
}
"""Public names defined in modules that import the pipeline: read on first use (PEP 562)."""

__all__ = [
    "Answer",
    "Api",
    "ArgumentError",
    "Cancelled",
    "Candidate",
    "Config",
    "ConfigError",
    "CypherSyntaxError",
    "EmbeddingError",
    "Explanation",
    "Export",
    "GeneratedCypher",
    "GeneratedQuestion",
    "InputError",
    "Kgqa",
    "KgqaError",
    "LlmError",
    "LoadReport",
    "Match",
    "NodeText",
    "NodeView",
    "QuestionError",
    "Readiness",
    "Schema",
    "SkbMeta",
    "SkbNotLoadedError",
    "StoreError",
    "StoreLockedError",
    "StoreTimeoutError",
    "Trace",
    "UnknownSkbError",
    "WorkerBusyError",
    "WorkerError",
    "connect",
    "load_config",
]


def connect(config: Config | None = None, **overrides: Any) -> Api:
    """Open the data directory of ``config`` (default: file + environment, then ``overrides`` as setting=value),
    starting the embedded store; see :class:`kgqa.runtime.app.Kgqa`. The store and models load only when called.
    When a ``kgqa`` command's worker holds the data directory, its client instead: the same calls, served there."""
    from kgqa.runtime.app import connect as open_kgqa

    return open_kgqa(config, **overrides)


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
