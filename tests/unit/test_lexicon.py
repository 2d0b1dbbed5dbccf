"""The reader's lexicon (kgqa/runtime/lexicon.toml): every English word the question reader without an LLM looks for,
in one data file that the modules read through kgqa.runtime.lexicon."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kgqa.runtime import lexicon
from kgqa.runtime.lexicon import LexiconError
from tests.helpers.import_graph import PACKAGE, import_graph

FILE = PACKAGE / "runtime" / lexicon.FILE


def _lists() -> dict[str, list[str]]:
    """Every section that is a list of words, by name, and each key of a table as ``section.key``."""
    out: dict[str, list[str]] = {}
    for name, value in lexicon.sections().items():
        if isinstance(value, dict):
            out.update({f"{name}.{key}": words for key, words in value.items()})
        else:
            out[name] = value
    return out


def test_a_missing_section_is_an_error_that_names_it() -> None:
    for read in (lexicon.words, lexicon.phrases, lexicon.table):
        with pytest.raises(LexiconError, match="no section 'no_such_words'"):
            read("no_such_words")


def test_a_section_read_in_another_shape_is_an_error_that_names_it() -> None:
    with pytest.raises(LexiconError, match=r"'stop_words' .* not a table"):
        lexicon.table("stop_words")
    with pytest.raises(LexiconError, match=r"'lay_words' .* not a list"):
        lexicon.words("lay_words")


def test_the_accessors_keep_the_file_s_order() -> None:
    """A phrase list is searched in order, and a table's keys and words keep theirs."""
    assert lexicon.phrases("naming_phrases")[:2] == ("also called", "also known as")
    assert lexicon.words("conjunctions") == frozenset({"and", "or", "but", "nor"})
    lay = lexicon.table("lay_words")
    assert next(iter(lay)) == "effect/phenotype" and lay["gene/protein"] == ("locus", "loci")


def test_every_section_is_non_empty_and_lower_case() -> None:
    """The reader compares them with lower-cased question words: a capital or a stray space never matches."""
    lists = _lists()
    assert len(lists) > 30
    for name, words in lists.items():
        assert words, name
        for word in words:
            assert word == word.lower() and word == " ".join(word.split()) and word, (name, word)


def _defined(text: str) -> list[str]:
    """Each section the file's lines define, in order, a table's keys as ``section.key``."""
    names, table = [], ""
    for line in text.splitlines():
        header = re.fullmatch(r"\[(\w+)\]\s*", line)
        key = re.match(r"(\"?)([\w/]+)\1\s*=", line)
        if header is not None:
            table = header[1]
            names.append(table)
        elif key is not None:
            names.append(f"{table}.{key[2]}" if table else key[2])
    return names


def test_no_section_and_no_word_of_a_section_is_defined_twice() -> None:
    """TOML refuses a key defined twice; this says which, and catches a word listed twice in one section."""
    names = _defined(FILE.read_text(encoding="utf-8"))
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert set(_lists()) | set(lexicon.sections()) == set(names)
    for name, words in _lists().items():
        assert len(words) == len(set(words)), (name, sorted(w for w in words if words.count(w) > 1))


def test_every_section_is_read_by_the_reader() -> None:
    """A section no module reads would be dead data (a missing one is an error at import)."""
    code = "\n".join(p.read_text(encoding="utf-8") for p in (PACKAGE / "runtime").rglob("*.py"))
    read = set(re.findall(r"lexicon\.(?:words|phrases|table)\(\"(\w+)\"\)", code))
    assert read == set(lexicon.sections())


GENERATOR = (
    "kgqa.runtime.reader.questions",
    "kgqa.runtime.reader.phrasing",
    "kgqa.runtime.reader.families",
    "kgqa.runtime.reader.family_words",
    "kgqa.runtime.reader.registers_read",
    "kgqa.runtime.reader.registers_blind",
    "kgqa.runtime.reader.examples",
)
"""The question generator's modules (beside the reader, which a load trains on what they make)."""


def test_the_lexicon_is_the_reader_s_alone() -> None:
    """The question generator keeps its own words: none of its modules imports the reader's lexicon, or the text
    helpers that read it, and the lexicon imports nothing of kgqa."""
    graph = import_graph()
    assert graph["kgqa.runtime.lexicon"] == set()
    assert set(GENERATOR) <= set(graph)
    assert not [
        name
        for name in GENERATOR
        if graph[name] & {"kgqa.runtime.lexicon", "kgqa.runtime.text", "kgqa.runtime.reading"}
    ]


def test_the_lexicon_ships_with_the_package() -> None:
    """Installed, the file must be there: pyproject.toml names it as package data."""
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert lexicon.FILE in pyproject["tool"]["setuptools"]["package-data"][lexicon.PACKAGE]
