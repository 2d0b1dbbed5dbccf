"""The CLI's signal handler: SIGINT/SIGTERM become exceptions, except inside a finalizer, where Python would drop the
exception (the command would go on as if never signalled); there the signal is sent again. Where a library swallows
the exception, the watch raises it again, but never into the cleanup the exception is running."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
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


def test_a_signal_inside_a_finalizer_is_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    frames: list[FrameType] = []
    _Finalized(frames)  # collected at once: its __del__ records the frame a signal would land in
    timers: list[tuple[float, Any, tuple[Any, ...]]] = []

    class _Timer:
        def __init__(self, delay: float, function: Any, args: tuple[Any, ...]) -> None:
            timers.append((delay, function, args))

        def start(self) -> None:
            pass

    monkeypatch.setattr(cli.threading, "Timer", _Timer)
    cli._on_signal(signal.SIGINT, frames[0])  # no exception: it would be dropped
    assert timers == [(cli.REDELIVER_AFTER, cli.os.kill, (cli.os.getpid(), signal.SIGINT))]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_error_after_a_swallowed_signal_ends_the_command_as_signalled(signum: int, code: int) -> None:
    """A library that swallows the signal's exception (numpy's import, interrupted, fails as "import numpy failed",
    which onnxruntime's import then reports) leaves an error behind: the command still ends as signalled, not with
    that error (the embedder's "needs onnxruntime: reinstall kgqa" after a Ctrl-C)."""
    import click
    from click.testing import CliRunner

    from kgqa.errors import EmbeddingError

    @click.group(cls=cli.KgqaGroup)
    def group() -> None:
        """A group as kgqa's."""

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
    import click
    from click.testing import CliRunner

    @click.group(cls=cli.KgqaGroup)
    def group() -> None:
        """A group as kgqa's."""

    @group.command()
    def load() -> None:
        with contextlib.suppress(BaseException):  # what the library did with it
            cli._on_signal(signum, None)

    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == code


def _group() -> Any:
    import click

    @click.group(cls=cli.KgqaGroup)
    def group() -> None:
        """A group as kgqa's."""

    return group


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_swallowed_signal_is_raised_again_before_the_work_is_done(
    monkeypatch: pytest.MonkeyPatch, signum: int, code: int
) -> None:
    """The signal is really sent (the handler the group installs takes it); a library swallows its exception and the
    command goes on with 5 s of work: the watch's re-send ends it long before, as signalled."""
    from click.testing import CliRunner

    monkeypatch.setattr(cli, "RESEND_EVERY", 0.05)
    group, steps = _group(), []

    @group.command()
    def load() -> None:
        with contextlib.suppress(BaseException):  # what the library did with it
            os.kill(os.getpid(), signum)
            time.sleep(5)  # the handler raises in here
        steps.append("swallowed")
        for _ in range(100):
            time.sleep(0.05)
        steps.append("finished")

    started = time.monotonic()
    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == code and steps == ["swallowed"]
    assert time.monotonic() - started < 4  # the 5 s sleep was cut, and so was the 5 s of work after it
    assert not cli.WATCH.thread or not cli.WATCH.thread.is_alive()  # the watch ended with the command


@pytest.mark.parametrize("wrapped", [False, True])
def test_the_watch_leaves_the_cleanup_of_the_signal_to_finish(monkeypatch: pytest.MonkeyPatch, wrapped: bool) -> None:
    """A ``finally`` that takes many re-send periods runs to its end, whether the signal's exception is unwinding
    through it as it is or as another error raised from it (an interrupted import reported as the embedder's)."""
    from click.testing import CliRunner

    from kgqa.errors import EmbeddingError

    monkeypatch.setattr(cli, "RESEND_EVERY", 0.02)
    group, steps = _group(), []

    @group.command()
    def load() -> None:
        try:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            except BaseException as exc:
                if wrapped:
                    raise EmbeddingError("embedder 'onnx:x' needs onnxruntime") from exc
                raise
        finally:
            for _ in range(20):  # 0.4 s: twenty re-send periods
                time.sleep(0.02)
            steps.append("cleaned up")

    result = CliRunner().invoke(group, ["load"])
    assert result.exit_code == 143 and steps == ["cleaned up"]
