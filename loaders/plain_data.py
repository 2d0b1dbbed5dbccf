"""A check that unpickled data is plain enough for the renderers to walk it: bounded depth and size, no structure
that contains itself, text keys, 64-bit integers.

The restricted unpickler (:mod:`kgqa.loaders.stark_files`) already admits only plain containers and scalars, but a
pickle can still build a dict that contains itself (``str()`` and the renderers recurse until RecursionError), nest a
list deeper than Python's recursion limit, share one list a thousand times at each of ten levels (a few hundred bytes on
disk that ``str()`` would expand to 10^30 values), key a dict by bytes or ints (PRIME's template calls
``key.startswith``), or hold an integer whose ``str()`` exceeds Python's 4,300-digit limit. STaRK's own files do
none of this: their keys are pandas column names or mygene JSON keys, their values sit a few levels down, their
integers come from int64, and every value costs at least a byte of the file.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

MAX_DEPTH = 32
"""Levels of containers below a node's dict, far more than STaRK's files use (PRIME's generif pubmed lists)."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_SCALARS = (str, float, bool, bytes, complex, type(None))
_MAPPINGS = (dict, OrderedDict)
_SEQUENCES = (list, tuple, set, frozenset)


class PlainDataError(ValueError):
    """What is wrong and where: ``path`` lists the keys and indexes from the checked value down to the problem."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[object] = []

    def where(self) -> str:
        """The path as subscripts, ``['details']['generif'][0]`` (empty at the top)."""
        return "".join(f"[{_short(key)}]" for key in self.path)


class PlainCheck:
    """Checks values one after another against one budget of visited values.

    ``budget``: how many values (containers, keys' values, items) all checks together may visit; a file of N bytes
    holds at most about N values unless it shares containers, so a budget of a few times its size stops a
    shared-reference bomb in linear time. ``outer``: containers the checked values sit in (node_info itself), so a
    value that refers back to them is caught too."""

    def __init__(self, budget: int, outer: tuple[object, ...] = (), max_depth: int = MAX_DEPTH) -> None:
        self.remaining = budget
        self.max_depth = max_depth
        self._open = {id(o) for o in outer}

    def check(self, value: Any) -> None:
        """Raise :class:`PlainDataError` at the first part of ``value`` a renderer could not walk safely."""
        self._walk(value, 0)

    def _walk(self, value: Any, depth: int) -> None:
        """Depth-first, recursing at most ``max_depth`` levels: Python's recursion limit is never reached here."""
        kind = type(value)
        if kind in _SCALARS:
            return
        if kind is int:
            if not INT64_MIN <= value <= INT64_MAX:
                raise PlainDataError(f"is an integer beyond 64 bits ({value.bit_length()} bits)")
            return
        if kind not in _MAPPINGS and kind not in _SEQUENCES:
            raise PlainDataError(f"is a value of type {kind.__name__}")  # the unpickler admits none; say so if it did
        if id(value) in self._open:
            raise PlainDataError("refers back to a container it is inside of (self-referencing data)")
        if depth >= self.max_depth:
            raise PlainDataError(f"nests containers deeper than {self.max_depth} levels")
        self.remaining -= len(value) + 1
        if self.remaining < 0:
            raise PlainDataError("expands to more values than the file's size allows (containers shared many times)")
        self._open.add(id(value))
        try:
            self._items(value, kind, depth)
        finally:
            self._open.discard(id(value))

    def _items(self, value: Any, kind: type, depth: int) -> None:
        mapping = kind in _MAPPINGS
        for key, item in value.items() if mapping else enumerate(value):
            if mapping and type(key) is not str:
                raise PlainDataError(f"has a dict key that is not text ({type(key).__name__} {_short(key)})")
            try:
                self._walk(item, depth + 1)
            except PlainDataError as exc:
                exc.path.insert(0, key)
                raise


def _short(value: object, limit: int = 40) -> str:
    """``repr`` cut to ``limit`` characters (a key can be a megabyte of bytes)."""
    if type(value) is int and value.bit_length() > 64:
        return f"(an integer of {value.bit_length()} bits)"  # repr fails past 4,300 digits
    if isinstance(value, str | bytes) and len(value) > limit:
        value = value[:limit]  # a key can be a megabyte of bytes: cut before repr
    if not isinstance(value, str | bytes | int | float | bool | type(None)):
        return f"(a {type(value).__name__})"  # a container's repr can recurse without end or hold a huge integer
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
