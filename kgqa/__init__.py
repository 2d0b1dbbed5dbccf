"""kgqa: question answering over semi-structured knowledge bases (AF-Retriever).

The embedded default feels like sqlite3: ``kgqa.connect()`` opens (and owns) a FalkorDB server on a unix socket
inside the data directory and closes it when you are done::

    with kgqa.connect() as kg:
        answer = kg.ask("Which genes are associated with seizures?", skb="hpo")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgqa.config import Config, load_config
from kgqa.errors import KgqaError

if TYPE_CHECKING:
    from kgqa.app import Kgqa

__all__ = ["Config", "KgqaError", "connect", "load_config"]
__version__ = "0.1.0"


def connect(config: Config | None = None, **overrides: Any) -> Kgqa:
    """Open the data directory of ``config`` (default: file + environment, then ``overrides`` as setting=value),
    starting the embedded store; see :class:`kgqa.app.Kgqa`. The store and models load only when called."""
    from kgqa.app import connect as open_kgqa

    return open_kgqa(config, **overrides)
