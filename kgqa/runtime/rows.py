"""What kgqa does with a file of questions some rows of which it cannot use (``kgqa eval --qa``, ``kgqa ask -`` and
``--questions``): one policy, so that both commands treat a bad row alike.

A row refused on reading (a question too long or empty, a missing field, a line that is not CSV or not UTF-8, a
repeated id) is skipped and reported with its line and reason; the good rows are answered, and the command exits 0:
one stray row of a thousand does not cost the other 999. ``--strict`` makes a refused row fail the command (exit 1)
once the good rows are answered. A file of which no row is usable is refused whole, before any work. A problem of the
whole file (a question CSV that is not UTF-8, holds a NUL byte or lacks its header) is still refused whole: no row
of it can be trusted. (``kgqa ask -`` reads each line on its own, so there a line that is not UTF-8 is one bad row.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from kgqa.errors import InputError

T = TypeVar("T")


@dataclass(frozen=True)
class RefusedRow:
    """A row skipped on reading."""

    line: int
    """The file line the row starts on."""
    error: InputError
    """Why, without the place (``empty query``); its type is what a JSON report names."""
    key: str | None = None
    """The row's id (a question CSV's) or text (a line of questions) where it could be read: a split that lists the id
    skips it instead of failing, a JSON report quotes the text."""

    def located(self, source: str) -> str:
        """``qa.csv:3: empty query``."""
        return f"{source}:{self.line}: {self.error}"

    def reported(self, source: str) -> str:
        """The line a command prints for it (on stderr, escaped as all it prints)."""
        return f"skipped {self.located(source)}"


@dataclass(frozen=True)
class Rows(Generic[T]):
    """The usable rows of a file, by line, and those refused."""

    source: str
    good: list[tuple[int, T]] = field(default_factory=list)
    refused: list[RefusedRow] = field(default_factory=list)

    def add(self, line: int, row: T | RefusedRow) -> None:
        """Keep a row as read."""
        if isinstance(row, RefusedRow):
            self.refused.append(row)
        else:
            self.good.append((line, row))

    def report(self) -> list[str]:
        """One line per refused row (:meth:`RefusedRow.reported`)."""
        return [row.reported(self.source) for row in self.refused]

    def strict_error(self) -> InputError | None:
        """The error ``--strict`` ends the command with, None when no row was refused."""
        if not self.refused:
            return None
        lines = ", ".join(str(row.line) for row in self.refused[:10]) + (", ..." if len(self.refused) > 10 else "")
        return InputError(f"{self.source}: {_count(len(self.refused))} refused (line {lines}) and --strict is set")


def usable_rows(
    source: str, rows: Iterable[tuple[int, T | RefusedRow]], what: str = "question"
) -> Iterator[tuple[int, T | RefusedRow]]:
    """The policy (see the module) as the rows are read, for input answered while it comes (``kgqa ask -``):
    ``rows`` are (line, the row read or why it was refused), in file order. Refused rows before the first usable one
    are held back; from it on, every row is passed on as it is read. Raises an InputError naming the first refused
    row, at the end, when rows were refused and none was usable: such input is refused before anything is done."""
    held: list[RefusedRow] = []
    usable = False
    for line, row in rows:
        if not usable and isinstance(row, RefusedRow):
            held.append(row)
            continue
        if not usable:
            usable = True
            yield from ((refused.line, refused) for refused in held)
        yield line, row
    if held and not usable:
        more = f" ({_count(len(held))} refused in all)" if len(held) > 1 else ""
        raise InputError(f"no {what} of {source} can be used: {held[0].located(source)}{more}")


def take_rows(source: str, rows: Iterable[tuple[int, T | RefusedRow]], what: str = "question") -> Rows[T]:
    """The policy (:func:`usable_rows`) for a file read whole (``kgqa eval --qa``): its usable and refused rows."""
    taken: Rows[T] = Rows(source)
    for line, row in usable_rows(source, rows, what):
        taken.add(line, row)
    return taken


def _count(n: int) -> str:
    return f"{n} row{'s' if n != 1 else ''}"
