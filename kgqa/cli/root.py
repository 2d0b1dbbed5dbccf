"""The ``kgqa`` group: the global options, and the error and signal handling every command runs under (one line on
stderr and an exit code, never a traceback)."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class _Command:
    """A running command's signal state (:meth:`KgqaGroup.invoke`)."""

    previous: Any
    """The SIGALRM handler found, given back when the command ends."""
    unraisable: Callable[[Any], object]
    """The ``sys.unraisablehook`` found, given back when the command ends (:func:`_on_unraisable`)."""
    pid: int = field(default_factory=os.getpid)
    """The process running it: a forked child (between fork and exec) runs no command of its parent's."""
    armed: bool = False
    """Whether :func:`_on_alarm`'s checks run."""
    raised: deque[BaseException] = field(default_factory=lambda: deque(maxlen=8))
    """The last exceptions :func:`_on_signal` and :func:`_on_alarm` raised (one a second while a library swallows)."""


_COMMANDS: list[_Command] = []
"""The command running, if any (a list: tests run many commands, one after another, in one process)."""
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _command() -> _Command | None:
    return _COMMANDS[-1] if _COMMANDS and _COMMANDS[-1].pid == os.getpid() else None


def _in_finalizer(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _exception(signum: int) -> BaseException:
    exc = KeyboardInterrupt() if signum == signal.SIGINT else SystemExit(128 + signum)
    if (command := _command()) is not None:
        command.raised.append(exc)
    return exc


def _on_unraisable(unraisable: Any) -> None:
    """Python drops an exception raised where it cannot propagate (a weakref callback, a fork hook) and prints it as
    "Exception ignored in" with a traceback. One of this command's signals is raised again by the next check
    (:func:`_on_alarm`): no traceback."""
    command = _command()
    if command is not None and any(unraisable.exc_value is exc for exc in command.raised):
        return
    (command.unraisable if command is not None else sys.__unraisablehook__)(unraisable)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM as exceptions (KeyboardInterrupt, SystemExit 128+n), so context managers stop the embedded
    server cleanly. In a command, the first one also starts :func:`_on_alarm`'s checks: Python drops an exception
    raised inside ``__del__`` (redis's hiredis parser has one; the signal is then only recorded), and a library may
    swallow it, and either way the command would go on as if never signalled."""
    RECEIVED.append(signum)
    command = _command()
    if command is not None and not command.armed:
        command.armed = True
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, REDELIVER_AFTER, RESEND_EVERY)
    if _in_finalizer(frame):
        if command is None:
            threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum)).start()
        return
    raise _exception(signum)


def _on_alarm(_signum: int, frame: FrameType | None) -> None:
    """A signal's exception raised again where the command goes on as if it had not been sent: nothing is being
    handled (an ``except`` or a ``finally`` that cleans up on its way out is left to finish, whatever it handles: a
    library may have turned the signal into an error of its own) and no finalizer runs. A context manager's exit on
    the normal path is not spared: a load's own work runs in one (its writer's, after the ``yield``)."""
    if _command() is not None and RECEIVED and sys.exc_info()[1] is None and not _in_finalizer(frame):
        raise _exception(RECEIVED[0])


def _command_ended() -> None:
    """No more checks (:func:`_on_alarm`): the timer stops before the handler found is given back, so no alarm meets
    a default disposition, which would end the process; the stop signals wait meanwhile, so that all of it is done. A
    signal that comes now is the command's no more."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        command = _COMMANDS.pop()
        if command.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL if command.previous is None else command.previous)
        if sys.unraisablehook is _on_unraisable:  # not where the command set one of its own
            sys.unraisablehook = command.unraisable
        RECEIVED.clear()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _report_crashes() -> None:
    """A crash in native code (ONNX Runtime, tokenizers, hiredis, FalkorDB's client) dies with every thread's Python
    stack on stderr, so that a report says where (Python's ``-X faulthandler``). Not where stderr has no file
    descriptor to write to from a signal handler: click's test runner swaps in an in-memory one."""
    if faulthandler.is_enabled():
        return
    try:
        faulthandler.enable(all_threads=True)
    except (AttributeError, RuntimeError, ValueError, OSError):  # no sys.stderr, or one without a file descriptor
        return


class KgqaGroup(click.Group):
    """Maps errors to one-line messages and exit codes for every subcommand."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        _report_crashes()
        return super().main(*args, **kwargs)

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
        depth = len(_COMMANDS)
        try:
            found = sys.unraisablehook
            if found is _on_unraisable:  # one a command in progress set: the hook it found
                found = _COMMANDS[-1].unraisable if _COMMANDS else sys.__unraisablehook__
            _COMMANDS.append(_Command(signal.getsignal(signal.SIGALRM), found))
            sys.unraisablehook = _on_unraisable
            signal.signal(signal.SIGTERM, _on_signal)
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # an ignored SIGINT (nohup, &) stays so
                signal.signal(signal.SIGINT, _on_signal)
            return self._invoke(ctx)
        finally:
            if len(_COMMANDS) > depth:  # not where a signal came before the command was recorded
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
