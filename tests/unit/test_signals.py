"""The CLI's signal handler: SIGINT/SIGTERM become exceptions, except inside a finalizer, where Python would drop the
exception (the command would go on as if never signalled). In a command, a check a moment later (and every
``RESEND_EVERY`` seconds) raises it where it was dropped or a library swallowed it, but never into cleanup that is
handling an exception; outside one, a signal that landed in a finalizer is sent again."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from kgqa.cli import root as cli


def test_sigint_and_sigterm_become_exceptions() -> None:
    frame = sys._getframe()
    with pytest.raises(KeyboardInterrupt):
        cli._on_signal(signal.SIGINT, frame)
    with pytest.raises(SystemExit) as exited:
        cli._on_signal(signal.SIGTERM, frame)
    assert exited.value.code == 128 + signal.SIGTERM


class _Finalized:
    def __init__(self, seen: list[FrameType]) -> None:
        self.seen = seen

    def __del__(self) -> None:
        self.seen.append(sys._getframe())


def _finalizer_frame() -> FrameType:
    frames: list[FrameType] = []
    _Finalized(frames)  # collected at once: its __del__ records the frame a signal would land in
    return frames[0]


def test_a_signal_inside_a_finalizer_outside_a_command_is_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    timers: list[tuple[float, Any, tuple[Any, ...]]] = []

    class _Timer:
        def __init__(self, delay: float, function: Any, args: tuple[Any, ...]) -> None:
            timers.append((delay, function, args))

        def start(self) -> None:
            pass

    monkeypatch.setattr(cli.threading, "Timer", _Timer)
    cli._on_signal(signal.SIGINT, _finalizer_frame())  # no exception: it would be dropped
    assert timers == [(cli.REDELIVER_AFTER, cli.os.kill, (cli.os.getpid(), signal.SIGINT))]


def _group() -> Any:
    import click

    @click.group(cls=cli.KgqaGroup)
    def group() -> None:
        """A group as kgqa's."""

    @group.command()
    def quick() -> None:
        time.sleep(0.3)  # a check would have come by now, were one left from the command before

    return group


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_error_after_a_swallowed_signal_ends_the_command_as_signalled(signum: int, code: int) -> None:
    """A library that swallows the signal's exception (numpy's import, interrupted, fails as "import numpy failed",
    which onnxruntime's import then reports) leaves an error behind: the command still ends as signalled, not with
    that error (the embedder's "needs onnxruntime: reinstall kgqa" after a Ctrl-C)."""
    from click.testing import CliRunner

    from kgqa.errors import EmbeddingError

    group = _group()

    @group.command()
    def load() -> None:
        with contextlib.suppress(BaseException):  # what the library did with it
            cli._on_signal(signum, None)
        raise EmbeddingError("embedder 'onnx:x' needs onnxruntime, a dependency of kgqa: reinstall kgqa")

    @group.command()
    def plain() -> None:
        raise EmbeddingError("a real error")

    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == code and "reinstall" not in result.output
    if signum == signal.SIGINT:
        assert result.output.strip() == "interrupted"
    again = CliRunner().invoke(group, ["plain"])  # the next command in this process was sent no signal
    assert again.exit_code == 1 and "a real error" in again.output


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_swallowed_signal_ends_a_command_that_went_on_as_signalled(signum: int, code: int) -> None:
    """A signal swallowed where no error follows (an optional import's ``except ImportError`` around a C module
    whose interrupted init turned the exception into an ImportError): the command finishes its work, then ends as
    signalled, not with exit 0 (``kgqa load`` sent SIGTERM once went on to load and exit 0)."""
    from click.testing import CliRunner

    group = _group()

    @group.command()
    def load() -> None:
        with contextlib.suppress(BaseException):  # what the library did with it
            cli._on_signal(signum, None)

    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == code


@pytest.fixture
def signals() -> Iterator[None]:
    """SIGINT as Python sets it (a pytest started with ``&`` has it ignored, and the group leaves an ignored SIGINT
    so), and the handlers the test found given back after it; no command's state or timer is left behind."""
    found = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
        assert cli._COMMANDS == [] and cli.RECEIVED == []
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        for sig, handler in found.items():
            signal.signal(sig, handler)


def _load_ends(group: Any) -> int:
    """The exit code of ``load``, which must end well before the 5 s its command would take without the checks."""
    from click.testing import CliRunner

    started = time.monotonic()
    code = CliRunner().invoke(group, ["load"]).exit_code
    assert time.monotonic() - started < 4
    return code


@pytest.mark.usefixtures("signals")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_swallowed_signal_is_raised_again_before_the_work_is_done(
    monkeypatch: pytest.MonkeyPatch, signum: int, code: int
) -> None:
    """The signal is really sent (the handler the group installs takes it); a library swallows its exception and the
    command goes on with 5 s of work: the check raises it again long before, as signalled. The next command in the
    process runs undisturbed."""
    from click.testing import CliRunner

    monkeypatch.setattr(cli, "RESEND_EVERY", 0.05)
    group, steps = _group(), []

    @group.command()
    def load() -> None:
        with contextlib.suppress(BaseException):  # what the library did with it
            os.kill(os.getpid(), signum)
            time.sleep(5)  # not reached: the handler raises as the kill returns
        steps.append("swallowed")
        for _ in range(100):
            time.sleep(0.05)
        steps.append("finished")

    assert _load_ends(group) == code and steps == ["swallowed"]  # the 5 s sleep cut, and the 5 s of work after it
    assert signal.getsignal(signal.SIGALRM) is not cli._on_alarm  # the checks ended with the command
    assert CliRunner().invoke(group, ["quick"]).exit_code == 0


@pytest.mark.usefixtures("signals")
def test_a_signal_that_landed_in_a_finalizer_during_a_command_ends_it() -> None:

    group, steps = _group(), []

    @group.command()
    def load() -> None:
        cli._on_signal(signal.SIGTERM, _finalizer_frame())  # recorded, not raised: Python would drop it there
        time.sleep(5)
        steps.append("finished")

    assert _load_ends(group) == 143 and steps == []


@pytest.mark.usefixtures("signals")
@pytest.mark.parametrize("error", ["none", "chained", "unchained"])
def test_the_checks_leave_the_cleanup_of_the_signal_to_finish(monkeypatch: pytest.MonkeyPatch, error: str) -> None:
    """A ``finally`` that takes many check periods runs to its end, whether the signal's exception unwinds through it
    as it is, as an error raised from it, or as an error a library raised after swallowing it (an interrupted C
    import that reports an ImportError of its own); the checks did come meanwhile."""
    from click.testing import CliRunner

    from kgqa.errors import EmbeddingError

    monkeypatch.setattr(cli, "RESEND_EVERY", 0.02)
    checks: list[int] = []
    check = cli._on_alarm

    def counted(signum: int, frame: FrameType | None) -> None:
        checks.append(signum)
        check(signum, frame)

    monkeypatch.setattr(cli, "_on_alarm", counted)
    group, steps = _group(), []

    @group.command()
    def load() -> None:
        try:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            except BaseException as exc:
                if error == "chained":
                    raise EmbeddingError("embedder 'onnx:x' needs onnxruntime") from exc
                if error == "none":
                    raise
            raise EmbeddingError("embedder 'onnx:x' needs onnxruntime")  # nothing links it to the signal
        finally:
            for _ in range(20):  # 0.4 s: twenty check periods
                time.sleep(0.02)
            steps.append("cleaned up")

    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == 143 and steps == ["cleaned up"]
    assert len(checks) >= 5


@pytest.mark.usefixtures("signals")
def test_a_second_signal_during_the_cleanup_cuts_it_short() -> None:
    """The checks leave cleanup alone; the person who sends the signal again does not wait for it (a handler that
    let cleanup swallow every signal would fail this)."""

    group, steps = _group(), []

    @group.command()
    def load() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        finally:
            with contextlib.suppress(SystemExit):  # only to see that the second signal came as one
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
                steps.append("cleaned up")
            steps.append("cut short")

    assert _load_ends(group) == 143 and steps == ["cut short"]


@pytest.mark.usefixtures("signals")
def test_work_after_a_context_managers_yield_is_cut_short_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A load's own work runs in a context manager's exit on the normal path (its writer publishes after the
    ``yield``): a signal swallowed there does not let it run to its end."""

    monkeypatch.setattr(cli, "RESEND_EVERY", 0.05)
    group, steps = _group(), []

    @contextlib.contextmanager
    def writer() -> Iterator[None]:
        yield
        with contextlib.suppress(BaseException):  # what a library did with it
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        for _ in range(100):  # 5 s of publishing
            time.sleep(0.05)
        steps.append("published")

    @group.command()
    def load() -> None:
        with writer():
            steps.append("written")

    assert _load_ends(group) == 143 and steps == ["written"]


@pytest.mark.usefixtures("signals")
def test_a_signal_python_drops_is_raised_again_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal that lands where Python cannot raise (a weakref callback here; in ``kgqa load``, logging's fork hook
    around the store server's ``Popen``) is printed by Python as "Exception ignored" with a traceback, and the
    command would go on: it ends as signalled, its work cut short, and no traceback is shown."""
    import weakref

    from click.testing import CliRunner

    group, steps, shown = _group(), [], []
    monkeypatch.setattr(sys, "unraisablehook", shown.append)  # where Python would print it (pytest's own hook here)

    class _Object:
        pass

    def callback(_: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)  # not reached: the handler raises as the kill returns, and Python drops it here

    @group.command()
    def load() -> None:
        thing = _Object()
        ref = weakref.ref(thing, callback)
        del thing  # the callback runs now
        steps.append("went on")
        time.sleep(5)
        steps.append("finished")
        assert ref() is None

    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == 143 and "finished" not in steps
    assert shown == []  # nothing printed as "Exception ignored"
    assert sys.unraisablehook == shown.append  # given back
