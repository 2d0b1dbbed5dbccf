"""The ``kgqa`` group: the global options, and the error and signal handling every command runs under (one line on
stderr and an exit code, never a traceback)."""

from __future__ import annotations

import os
import signal
import sys
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
RESEND_EVERY = 1.0
"""Seconds between the signal watch's checks that a signal's exception is still ending the command (:class:`_Watch`)."""
RECEIVED: list[int] = []
"""The signals this command was sent (:func:`_on_signal`): a library may swallow the exception one raises (numpy's
import, interrupted, fails as "import numpy failed"), and the error that follows is then the signal's doing."""


class _Watch:
    """Raises a signal's exception again where a library swallowed it and the command went on: a loop in another
    thread sends the signal again every ``RESEND_EVERY`` seconds until the command has ended, and the handler then
    raises again unless the exception it raised is being handled (a ``finally``, an ``__exit__`` or an ``except``
    that cleans up on its way out: that cleanup is left to finish)."""

    def __init__(self) -> None:
        self.raised: list[BaseException] = []
        self.resent = threading.Event()
        self.ended = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, signum: int) -> None:
        if self.thread is None and not self.ended.is_set():
            self.thread = threading.Thread(target=self._resend, args=(signum,), name="kgqa-signal-watch", daemon=True)
            self.thread.start()

    def _resend(self, signum: int) -> None:
        while not self.ended.wait(RESEND_EVERY):
            self.resent.set()
            os.kill(os.getpid(), signum)

    def unwinding(self) -> bool:
        """Whether the main thread is handling an exception this command's signals raised, or one raised while
        handling it (``raise EmbeddingError(...) from exc``)."""
        seen: list[BaseException] = []
        pending = [sys.exc_info()[1]]
        while pending:
            exc = pending.pop()
            if exc is None or any(exc is other for other in seen):
                continue
            if any(exc is ours for ours in self.raised):
                return True
            seen.append(exc)
            pending += [exc.__context__, exc.__cause__]
        return False

    def end(self) -> None:
        """The command has ended: no more re-sends, and one already under way is ignored (:func:`_on_signal`)."""
        self.ended.set()
        if self.thread is not None:
            self.thread.join()


WATCH = _Watch()
WATCH.end()  # no command runs: each gets a watch of its own (KgqaGroup.invoke)


def _in_finalizer(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM as exceptions (KeyboardInterrupt, SystemExit 128+n), so context managers stop the embedded
    server cleanly. Python drops an exception raised inside ``__del__`` (redis's hiredis parser has one), and the
    command would go on as if never signalled: a signal landing there is sent again a moment later instead. Any other
    place that swallows it is caught by :class:`_Watch`'s re-sends."""
    if _in_finalizer(frame):
        threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum)).start()
        return
    if WATCH.resent.is_set():  # the watch's re-send
        WATCH.resent.clear()
        if WATCH.ended.is_set() or WATCH.unwinding():
            return
    else:
        RECEIVED.append(signum)
    WATCH.start(signum)
    exc: BaseException = KeyboardInterrupt() if signum == signal.SIGINT else SystemExit(128 + signum)
    WATCH.raised.append(exc)
    raise exc


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
        global WATCH
        RECEIVED.clear()  # one command's signals (the tests run many commands in one process)
        WATCH = _Watch()
        signal.signal(signal.SIGTERM, _on_signal)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # an ignored SIGINT (nohup, &) stays so
            signal.signal(signal.SIGINT, _on_signal)
        try:
            return self._invoke(ctx)
        finally:
            WATCH.end()

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            done = super().invoke(ctx)
            if RECEIVED:  # a library swallowed the signal and the command went on to its end: still signalled
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
