"""The CLI's signal handler: SIGINT/SIGTERM become exceptions, except inside a finalizer, where Python would drop the
exception (the command would go on as if never signalled); there the signal is sent again."""

from __future__ import annotations

import contextlib
import signal
import sys
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
