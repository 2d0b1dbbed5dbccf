"""What the command line prints: consoles that show no control character (:func:`kgqa.runtime.terminal.shown`), one-
line messages, JSON and progress."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console, ConsoleOptions, RenderableType
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.segment import Segment
from rich.spinner import Spinner
from rich.text import Span, Text

from kgqa.runtime.progress import LineProgress
from kgqa.runtime.terminal import UNSAFE, UNSAFE_IN_JSON, shown


def shown_click(exc: click.ClickException) -> None:
    """Escape the message click prints for a usage error: it quotes what the user typed (an unknown option, a file
    name). click types ``message`` Final, but rebinding it is the one way into click's own printing."""
    setattr(exc, "message", shown(exc.message))  # noqa: B010


def say(text: str, *, err: bool = False) -> None:
    """One line for people, through click (no rich layout), escaped (:func:`kgqa.runtime.terminal.shown`)."""
    click.echo(shown(text), err=err)


class SafeConsole(Console):
    """A rich console that escapes (:func:`kgqa.runtime.terminal.shown`) every text it renders: the strings given to
    ``print``, ``rule`` and ``status`` (before their markup is read: escaping writes no bracket, so the CLI's own
    markup and rich's ``escape`` of user text still work) and every :class:`Text` (a table's cells and title too).
    So a question, a node's name or a file's row shows its control characters as ``\\033``, ``\\n`` ..., and a
    newline cannot forge a line of output; a multi-line text of data goes through :func:`print_block`."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(shown(text), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        if isinstance(renderable, Text):
            renderable = _shown_text(renderable)
        return super().render(renderable, options)


def _shown_text(text: Text) -> Text:
    """``text`` escaped, its styled spans moved to where their characters went."""
    raw = text.plain
    if not UNSAFE.search(raw):
        return text
    ends = [0]
    for char in raw:
        ends.append(ends[-1] + len(shown(char)))
    out = text.copy()
    out.plain = shown(raw)
    out.spans = [Span(ends[min(s.start, len(raw))], ends[min(s.end, len(raw))], s.style) for s in text.spans]
    return out


def plain(text: str) -> Text:
    """User or data text as a table cell or title: never markup, escaped before rich drops a BEL or CR unseen."""
    return Text(shown(text))


def print_block(console: Console, text: str, **kwargs: Any) -> None:
    """A multi-line text of data (a document, a query, an LLM's reply) line by line: its line breaks are its layout;
    every other control character is escaped by the console."""
    for line in text.split("\n"):
        console.print(line, markup=False, highlight=False, **kwargs)


def json_text(value: Any, **kwargs: Any) -> str:
    """What kgqa prints as JSON: strict JSON, so a non-finite float (a score of a degenerate vector, a parameter
    the user wrote as 1e999) prints as null, which every JSON parser reads, never as NaN or Infinity, which none
    must accept. Every control character is escaped (``\\u001b``, ``\\u009b``): json.dumps escapes C0 itself,
    and with ``ensure_ascii=False`` would write DEL, C1 controls, bidirectional overrides and lone surrogates raw."""
    text = json.dumps(_finite(value), allow_nan=False, **kwargs)
    return UNSAFE_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (at any depth of dicts, lists and tuples) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


class _Refresher:
    """Calls ``refresh`` ``per_second`` times a second in a thread of its own, until :meth:`stop` ends the thread
    and waits for it. rich's own refresh thread (``auto_refresh``) is a daemon that it never waits for, so a command
    that ends with a spinner on screen (a signal ends it at once) exits with that thread still running, and Python
    before 3.14 ends such a thread with ``pthread_exit`` when it next runs, a known way for an exiting process to
    crash."""

    def __init__(self, refresh: Callable[[], None], per_second: float) -> None:
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(refresh, 1 / per_second), name="kgqa-refresh", daemon=True
        )
        self._thread.start()

    def _run(self, refresh: Callable[[], None], interval: float) -> None:
        while not self._done.wait(interval):
            refresh()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


@contextmanager
def spinning(console: Console, text: str) -> Iterator[None]:
    """A spinner with ``text`` (rich markup) while the block runs, in a terminal; elsewhere nothing, as rich's
    transient spinner shows nothing there either. Its refresh thread has ended when the block has
    (:class:`_Refresher`)."""
    if not console.is_terminal:
        yield
        return
    spinner = Spinner("dots", console.render_str(text, highlight=False), style="status.spinner")
    with Live(spinner, console=console, transient=True, auto_refresh=False) as live:
        refresher = _Refresher(live.refresh, 12.5)
        try:
            yield
        finally:
            refresher.stop()


class _Progress(Progress):
    """rich's bar, refreshed ten times a second by a :class:`_Refresher`, which has ended when the bar has."""

    def __init__(self, *columns: ProgressColumn | str, console: Console) -> None:
        super().__init__(*columns, console=console, auto_refresh=False)
        self._refresher: _Refresher | None = None

    def start(self) -> None:
        super().start()
        self._refresher = _Refresher(self.refresh, 10)

    def stop(self) -> None:
        if self._refresher is not None:
            self._refresher.stop()
            self._refresher = None
        super().stop()


def progress_bar(console: Console, *columns: ProgressColumn) -> Progress | LineProgress:
    """rich's live bar in a terminal; elsewhere (nohup, CI, a pipe), where that bar shows nothing until the end, a
    line per running task every 30 s with its counts, rate and ETA."""
    if not console.is_terminal:
        return LineProgress(lambda text: console.print(f"kgqa: {text}", markup=False, highlight=False, soft_wrap=True))
    columns = columns or (
        TextColumn("{task.description:<20}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    return _Progress(*columns, console=console)


def stderr() -> Console:
    return SafeConsole(stderr=True)


def stdout() -> Console:
    return SafeConsole()
