"""The CLI's signal handler: SIGINT/SIGTERM become exceptions, except inside a finalizer, where Python would drop the
exception (the command would go on as if never signalled); there the signal is sent again."""

from __future__ import annotations

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
