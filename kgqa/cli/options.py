"""The options several commands share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from kgqa.choices import RERANKER_SETTINGS, STEPS
from kgqa.config import MAX_TOP_K
from kgqa.runtime.skbs import KNOWN

BATCH_HELP = (
    "Rows per Neo4j write batch (edges reach the store in chunks of 50x); FalkorDB bulk calls are sized in bytes."
)


skb_option: Callable[..., Any] = click.option("--skb", required=True, help=f"SKB name ({', '.join(KNOWN)}).")


wait_option: Callable[..., Any] = click.option(
    "--wait",
    is_flag=True,
    help="Return once the documents' vectors and the question reader are in too (by default the worker adds them "
    "in the background while the graph answers; kgqa server status shows how far).",
)


ASK_OPTIONS: list[Callable[..., Any]] = [
    click.option("--type", "types", multiple=True, help="Answer type(s); default: the SKB's candidate types."),
    click.option(
        "--k", "--top-k", "top_k", type=click.IntRange(1, MAX_TOP_K), help="Number of answers (config top_k, 20)."
    ),
    click.option("--llm", default=None, help="none | openai:MODEL | llama:PATH.gguf (config 'llm')."),
    click.option(
        "--steps",
        type=click.Choice(STEPS),
        default=None,
        help="vss: vector strand only; graph: steps 1-6; hybrid: 1-7; full: 1-8 (default).",
    ),
    click.option(
        "--reranker",
        type=click.Choice(RERANKER_SETTINGS),
        default=None,
        help="Step 8 (auto: listwise with an LLM, else none).",
    ),
    click.option("--cross-encoder", "cross_encoder", default=None, help="Local CrossEncoder path for --reranker."),
    click.option("--alpha", type=click.FloatRange(0, 1), default=None, help="Graph strand share of k (2/3)."),
    click.option("--l-max", "l_max", type=click.IntRange(1, 1000), default=None, help="Most candidates per constant."),
]


ANSWER_SETTINGS = ("top_k", "llm", "steps", "reranker", "cross_encoder", "alpha", "l_max")
"""The settings among :data:`ASK_OPTIONS` (the rest, ``--type``, travel with each question)."""


def answer_flags(ctx: click.Context) -> dict[str, Any]:
    """The answer settings given on the command line of ``kgqa ask`` or ``kgqa shell`` (None: from the config)."""
    return {name: ctx.params[name] for name in ANSWER_SETTINGS}


def ask_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The answer settings ``kgqa ask`` and ``kgqa shell`` share."""
    for option in reversed(ASK_OPTIONS):
        command = option(command)
    return command
