"""How a command opens kgqa: its settings from the command line, then the data directory's worker, or kgqa in this
process (tests patch :func:`start`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from kgqa.api import check_question
from kgqa.config import Config, load_config

if TYPE_CHECKING:
    from kgqa.api import Api
from kgqa.cli.output import spinning, stderr


def settings(ctx: click.Context, **flags: Any) -> Config:
    return load_config({**ctx.obj["flags"], **flags})


def connect(ctx: click.Context, question: str | None = None, **flags: Any) -> Api:
    """kgqa for this command; ``question`` is checked first (a 1 MB one is refused before the store starts)."""
    config = settings(ctx, **flags)
    if question is not None:
        check_question(question, config.max_question_chars)
    return start(config)


def start(config: Config) -> Api:
    """The data directory's worker (started if needed), or with ``worker_idle_timeout = 0`` kgqa in this process.
    Either way with a spinner: opening the store rebuilds its vector indexes (30 s for HPO on 2 cores)."""
    console = stderr()
    if config.worker_idle_timeout > 0:
        from kgqa.runtime.worker.client import connect_worker

        def notice(text: str) -> None:
            console.print(f"kgqa: {text}", markup=False, highlight=False, soft_wrap=True)

        with spinning(console, "connecting to the kgqa worker (starting one opens the store and loads the models)"):
            return connect_worker(config, notice)
    from kgqa.runtime.app import Kgqa

    with spinning(console, "starting the embedded FalkorDB (it rebuilds its vector indexes on start)"):
        return Kgqa(config)
