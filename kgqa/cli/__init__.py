"""The ``kgqa`` command line. Every user-facing failure is one line on stderr and a non-zero exit, never a traceback
(``--debug`` shows one for bugs). Everything it prints for people goes through :func:`kgqa.runtime.terminal.shown`
(its consoles, :class:`kgqa.cli.output.SafeConsole`, and :func:`kgqa.cli.output.say`), so no control character of a
question, of the data or of a file reaches the terminal; JSON escapes them as JSON does.

One module per command group (:mod:`.ask`, :mod:`.load`, :mod:`.evaluate`, :mod:`.server`, :mod:`.browse`) adds its
commands to the group in :mod:`.root`; the options they share are in :mod:`.options`, how they open kgqa in
:mod:`.session`, what they print with in :mod:`.output`."""

from __future__ import annotations

from kgqa.cli import ask, browse, evaluate, load, server
from kgqa.cli.root import main

__all__ = ["main"]

COMMAND_MODULES = (ask, browse, evaluate, load, server)
"""Imported for the commands they add to :func:`main`."""
