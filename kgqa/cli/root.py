"""The ``kgqa`` group: the global options, and the error and signal handling every command runs under (one line on
stderr and an exit code, never a traceback)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import click

from kgqa.cli.output import say, shown_click
from kgqa.errors import KgqaError

EXIT_INTERRUPTED = 130


EXIT_BUG = 70


REDELIVER_AFTER = 0.05
"""Seconds after which a signal that landed in an object finalizer is sent again."""
RECEIVED: list[int] = []
"""The signals this command was sent (:func:`_on_signal`): a library may swallow the exception one raises (numpy's
import, interrupted, fails as "import numpy failed"), and the error that follows is then the signal's doing."""


def _in_finalizer(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM as exceptions (KeyboardInterrupt, SystemExit 128+n), so context managers stop the embedded
    server cleanly. Python drops an exception raised inside ``__del__`` (redis's hiredis parser has one), and the
    command would go on as if never signalled: a signal landing there is sent again a moment later instead."""
    if _in_finalizer(frame):
        threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum)).start()
        return
    RECEIVED.append(signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


class KgqaGroup(click.Group):
    """Maps errors to one-line messages and exit codes for every subcommand."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as exc:  # kgqa's own options; a subcommand's are parsed in invoke
            shown_click(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        RECEIVED.clear()  # one command's signals (the tests run many commands in one process)
        signal.signal(signal.SIGTERM, _on_signal)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # an ignored SIGINT (nohup, &) stays so
            signal.signal(signal.SIGINT, _on_signal)
        try:
            done = super().invoke(ctx)
            if RECEIVED:  # a library swallowed the signal and the command went on: it still ends as signalled
                _signalled(ctx, RECEIVED[0])
            return done
        except KgqaError as exc:
            if RECEIVED:  # an error a swallowed signal caused: the command ends as signalled
                _signalled(ctx, RECEIVED[0])
            say(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            _signalled(ctx, signal.SIGINT)
        except click.ClickException as exc:
            shown_click(exc)
            raise
        except (click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except Exception as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            if RECEIVED:
                _signalled(ctx, RECEIVED[0])
            say(f"error: internal error ({type(exc).__name__}: {exc}); rerun with --debug for details", err=True)
            ctx.exit(EXIT_BUG)


def _signalled(ctx: click.Context, signum: int) -> None:
    """End the command as the signal it was sent ends it (:func:`_on_signal`)."""
    if signum == signal.SIGINT:
        say("interrupted", err=True)
        ctx.exit(EXIT_INTERRUPTED)
    raise SystemExit(128 + signum)


@click.group(cls=KgqaGroup)
@click.option("--home", type=click.Path(path_type=Path), help="Data directory (default $KGQA_HOME or ~/.kgqa).")
@click.option(
    "--embedder",
    help="onnx-int8:minilm (default), onnx:minilm (fp32), minilm (torch), a local sentence-transformers model path, "
    "or openai:MODEL.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(package_name="kgqa")
@click.pass_context
def main(ctx: click.Context, home: Path | None, embedder: str | None, debug: bool) -> None:
    """Question answering over semi-structured knowledge bases (AF-Retriever)."""
    ctx.ensure_object(dict)
    ctx.obj["flags"] = {"home": home, "embedder": embedder}
    ctx.obj["debug"] = debug
