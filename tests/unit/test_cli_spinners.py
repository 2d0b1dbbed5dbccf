"""The CLI's spinner and progress bar: drawn in a terminal only, and their refresh threads have ended when they have
(rich's own is a daemon it never waits for, and one still running at interpreter exit can crash Python before 3.14:
a command that a signal ends exits with its spinner on screen)."""

from __future__ import annotations

import io
import threading

from kgqa.cli.output import SafeConsole, _Refresher, progress_bar, spinning
from tests.helpers.processes import wait_for
from tests.helpers.terminal import EVIL, OSC


def _refreshers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "kgqa-refresh"]


def _threads() -> set[threading.Thread]:
    """The threads alive now (one ended meanwhile by an earlier test's doing is no concern: only new ones count)."""
    return set(threading.enumerate())


def test_a_spinner_in_a_terminal_is_escaped_and_its_thread_ends_with_it() -> None:
    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=True, width=200)
    before = _threads()
    with spinning(console, f"starting {EVIL}"):
        assert len(_refreshers()) == 1
    assert not _threads() - before
    assert "starting migraine \\033]0;pwned" in out.getvalue() and OSC not in out.getvalue()


def test_no_spinner_and_no_thread_where_output_is_no_terminal() -> None:
    out = io.StringIO()
    before = _threads()
    with spinning(SafeConsole(file=out), "starting"):
        assert not _threads() - before
    assert out.getvalue() == ""


def test_a_progress_bar_in_a_terminal_refreshes_in_a_thread_that_ends_with_it() -> None:
    out = io.StringIO()
    before = _threads()
    with progress_bar(SafeConsole(file=out, force_terminal=True, width=200)) as progress:
        task = progress.add_task("embedding names", total=10)
        assert len(_refreshers()) == 1
        progress.advance(task, 10)
    assert not _threads() - before
    assert "embedding names" in out.getvalue() and "10/10" in out.getvalue()


def test_the_refresher_refreshes_until_stopped_and_then_has_ended() -> None:
    calls: list[int] = []
    refresher = _Refresher(lambda: calls.append(1), 100)
    wait_for(lambda: len(calls) >= 3, 30, "three refreshes")
    refresher.stop()
    assert _refreshers() == []
