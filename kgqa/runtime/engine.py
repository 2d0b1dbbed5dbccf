"""What the parts beside the pipeline (``kgqa explain``, the reader's training, the text2cypher baseline) read from an
open kgqa: the settings, the store, the models and the prepared question context. :class:`kgqa.runtime.app.Kgqa` is
one; typing them by this protocol keeps them from importing the app that imports them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from kgqa.choices import Steps
from kgqa.config import Config
from kgqa.runtime.context import Context, Options
from kgqa.runtime.embed import Embedder
from kgqa.runtime.llm import CachedChat
from kgqa.runtime.store.base import Schema, SkbMeta
from kgqa.runtime.store.protocols import GraphStore


class Engine(Protocol):
    config: Config
    store: GraphStore

    @property
    def embedder(self) -> Embedder: ...

    @property
    def llm(self) -> CachedChat | None: ...

    def embedder_name(self) -> str: ...

    def meta(self, skb: str) -> SkbMeta:
        """The SKB's metadata; SkbNotLoadedError when it is not loaded."""
        ...

    def schema(self, skb: str) -> Schema: ...

    def prepare(
        self,
        skb: str,
        *,
        types: Sequence[str] | None = None,
        top_k: int | None = None,
        steps: Steps | None = None,
    ) -> tuple[Context, Options]:
        """The context and options a question over ``skb`` runs with."""
        ...
