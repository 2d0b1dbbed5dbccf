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
"""Seconds after a signal at which its exception is raised again if it was lost (:func:`_on_alarm`), and after which
a signal that landed in an object finalizer outside any command is sent again."""
RESEND_EVERY = 1.0
"""Seconds between the later checks that a signal's exception is still ending the command (:func:`_on_alarm`)."""
RECEIVED: list[int] = []
"""The signals this command was sent (:func:`_on_signal`): a library may swallow the exception one raises (numpy's
import, interrupted, fails as "import numpy failed"), and the error that follows is then the signal's doing."""
_COMMAND: list[Any] = []
"""While a command runs (:meth:`KgqaGroup.invoke`): the SIGALRM handler it found, given back when it ends."""


def _in_finalizer(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _exception(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else SystemExit(128 + signum)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM as exceptions (KeyboardInterrupt, SystemExit 128+n), so context managers stop the embedded
    server cleanly. In a command, the first one also starts :func:`_on_alarm`'s checks: Python drops an exception
    raised inside ``__del__`` (redis's hiredis parser has one; the signal is then only recorded), and a library may
    swallow it, and either way the command would go on as if never signalled."""
    RECEIVED.append(signum)
    if _COMMAND and signal.getsignal(signal.SIGALRM) is not _on_alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, REDELIVER_AFTER, RESEND_EVERY)
    if _in_finalizer(frame):
        if not _COMMAND:
            threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum)).start()
        return
    raise _exception(signum)


def _on_alarm(_signum: int, frame: FrameType | None) -> None:
    """A signal's exception raised again where the command goes on as if it had not been sent: nothing is being
    handled (an ``except``, a ``finally`` or an ``__exit__`` that cleans up on its way out is left to finish, whatever
    it handles: a library may have turned the signal into an error of its own) and no finalizer runs."""
    if RECEIVED and sys.exc_info()[1] is None and not _in_finalizer(frame):
        raise _exception(RECEIVED[0])


def _command_ended() -> None:
    """No more checks (:func:`_on_alarm`): the timer stops before the handler it found is given back, so no alarm
    meets a default disposition, which would end the process."""
    if signal.getsignal(signal.SIGALRM) is _on_alarm:
        signal.setitimer(signal.ITIMER_REAL, 0)
    previous = _COMMAND.pop()
    if previous is not None:  # None: a handler not set from Python, left as it is
        signal.signal(signal.SIGALRM, previous)


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
        _COMMAND.append(signal.getsignal(signal.SIGALRM))
        signal.signal(signal.SIGTERM, _on_signal)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # an ignored SIGINT (nohup, &) stays so
            signal.signal(signal.SIGINT, _on_signal)
        try:
            return self._invoke(ctx)
        finally:
            _command_ended()

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
