"""What the commands need from kgqa, whether it runs in the command's own process (:class:`kgqa.app.Kgqa`) or in the
data directory's background worker (:class:`kgqa.worker.client.RemoteKgqa`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgqa.config import Config

if TYPE_CHECKING:
    import numpy as np

    from kgqa.app import Answer
    from kgqa.choices import Steps
    from kgqa.explain import Dialect, Explanation
    from kgqa.export import Export
    from kgqa.load import LoadReport
    from kgqa.node_view import NodeView
    from kgqa.progress import ProgressSink
    from kgqa.questions import Generated, Phrasing, Split
    from kgqa.store.base import Schema, SkbMeta


class Session(Protocol):
    config: Config

    def __enter__(self) -> Session: ...

    def __exit__(self, *exc: object) -> None: ...

    def close(self) -> None: ...

    def meta(self, skb: str) -> SkbMeta: ...

    def schema(self, skb: str) -> Schema: ...

    def node(self, skb: str, node_id: str) -> NodeView: ...

    def embedder_name(self) -> str: ...

    def ask(
        self,
        question: str,
        skb: str,
        *,
        types: Sequence[str] | None = None,
        top_k: int | None = None,
        steps: Steps | None = None,
        query_vector: np.ndarray | None = None,
    ) -> Answer: ...

    def text2cypher(self, question: str, skb: str, *, top_k: int | None = None, validate: bool = True) -> Answer: ...

    def explain(
        self,
        skb: str,
        *,
        cypher: str | None = None,
        question: str | None = None,
        scope: int = 1,
        types: Sequence[str] | None = None,
        dialect: Dialect = "falkordb",
    ) -> Explanation: ...

    def generate_questions(
        self,
        skb: str,
        types: Sequence[str],
        count: int,
        seed: int,
        max_word_share: float,
        phrasing: Phrasing = "template",
        split: Split = "all",
    ) -> tuple[list[Generated], Counter[tuple[str, str]]]: ...

    def export_neo4j_admin(self, skb: str, out: Path) -> Export: ...

    def load_source(
        self,
        skb: str,
        directory: Path | None = None,
        *,
        force: bool = False,
        progress: ProgressSink | None = None,
        embeddings: Path | None = None,
    ) -> LoadReport: ...
