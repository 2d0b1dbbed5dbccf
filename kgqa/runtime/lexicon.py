"""The English words the question reader without an LLM looks for, read once from ``lexicon.toml`` beside this module.

The reader's rules (kgqa.runtime.text, the s2 steps, kgqa.runtime.steps.s6_lexical) are code; the words they look for
are data, in one file, so that what the reader knows of English is seen whole and is not scattered through the rules.
Each module keeps its constants' names and takes their words from here. The question generator
(kgqa.runtime.reader.questions and the phrasing families beside it) keeps its own words and does not read this file:
questions phrased with the reader's own words would test the reader on itself.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

FILE = "lexicon.toml"
PACKAGE = "kgqa.runtime"


class LexiconError(LookupError):
    """The lexicon lacks a section the code reads, or holds it in another shape: a fault of the package (its data
    file), not of a question or a setting."""


@cache
def sections() -> dict[str, object]:
    """Every section of the lexicon by name, as TOML reads it; read once."""
    text = resources.files(PACKAGE).joinpath(FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def _section(name: str) -> object:
    found = sections()
    if name not in found:
        raise LexiconError(f"the reader's lexicon ({PACKAGE}/{FILE}) has no section '{name}'")
    return found[name]


def _strings(name: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LexiconError(f"section '{name}' of the reader's lexicon ({PACKAGE}/{FILE}) is not a list of words")
    return tuple(value)


def phrases(name: str) -> tuple[str, ...]:
    """The words or phrases of section ``name`` in the file's order (a phrase list is searched in that order)."""
    return _strings(name, _section(name))


def words(name: str) -> frozenset[str]:
    """The words (or phrases) of section ``name``, as a set to test words against."""
    return frozenset(phrases(name))


def table(name: str) -> dict[str, tuple[str, ...]]:
    """Section ``name`` as a table: each key's words or phrases, keys and words in the file's order."""
    value = _section(name)
    if not isinstance(value, dict):
        raise LexiconError(f"section '{name}' of the reader's lexicon ({PACKAGE}/{FILE}) is not a table")
    return {key: _strings(f"{name}.{key}", item) for key, item in value.items()}


@cache
def every_word() -> frozenset[str]:
    """Every lower-case word of every section, phrases split: the words a misspelling in a question may stand for
    (kgqa.runtime.reader.spelling.Spelling.cue_of)."""
    out: set[str] = set()
    for name, value in sections().items():
        lists = table(name).values() if isinstance(value, dict) else [phrases(name)]
        out.update(w for items in lists for item in items for w in item.lower().split())
    return frozenset(out)
