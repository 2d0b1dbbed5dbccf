"""A fake kgqa whose data carries a terminal escape sequence: the command line's printing tested without the pipeline
(``kgqa.cli.session.start`` patched to :class:`FakeKg`)."""

from __future__ import annotations

from typing import Any

from kgqa.runtime.store.base import IndexInfo, LabelInfo, RelationCount, RelationshipInfo, Schema, SkbMeta
from kgqa.runtime.trace import Trace
from kgqa.types import Answer, Candidate, Match, NodeView

OSC = "\x1b]0;pwned\x07"
"""Sets the terminal's title: the sequence the issue reports."""
EVIL = f"migraine {OSC} relief"


class FakeKg:
    """What ask, eval, node and schema call of a kgqa, with a node named ``EVIL`` (id 7) as every answer."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def __enter__(self) -> FakeKg:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def embedder_name(self) -> str:
        return "tiny"

    def ask(self, question: str, skb: str, types: Any = None, **kwargs: Any) -> Answer:
        trace = Trace(skb, "hybrid", "none", "none", 20, 0.5, 100, "tiny", ())
        match = Match("c0", question, "7", EVIL)
        answer = Candidate("7", f"disease{OSC}", EVIL, 0.5, ("graph",), round_l=1, matches=(match,))
        return Answer(question, [answer], trace)

    def node(self, skb: str, node_id: str) -> NodeView:
        relation = RelationCount(f"indication{OSC}", "drug", 1, 1, 1, (EVIL,))
        return NodeView(skb, node_id, "disease", EVIL, f"- name: {EVIL}\n", f"- name: {EVIL}\n", (relation,), (EVIL,))

    def meta(self, skb: str) -> SkbMeta:
        return SkbMeta(skb, f"source {OSC}", "v1", "tiny", 8, ("disease",), 1, 1, "f", "now")

    def schema(self, skb: str) -> Schema:
        return Schema(
            (LabelInfo(f"disease{OSC}", 1),),
            (RelationshipInfo("drug", f"indication{OSC}", "disease", 1),),
            (IndexInfo("disease", f"name{OSC}", "vector", "ONLINE"),),
        )
