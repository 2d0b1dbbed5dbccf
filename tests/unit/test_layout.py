"""Rooms a newcomer can hold (issue 72): no module of kgqa/ past 800 lines, and the command line as a package with a
module per command group."""

from __future__ import annotations

from tests.helpers.import_graph import modules

MAX_LINES = 800


def test_no_module_of_kgqa_is_longer_than_800_lines() -> None:
    found = modules()
    assert len(found) > 100  # the walk sees the package, kgqa.cypher's symlinked folder included
    long = {
        name: n for name, path in found.items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_command_line_is_a_package_of_command_groups() -> None:
    from kgqa.cli import main

    groups = {
        "kgqa.cli.ask": {"ask", "explain", "shell"},
        "kgqa.cli.load": {"load", "train-reader", "train-reranker", "export"},
        "kgqa.cli.evaluate": {"questions", "eval"},
        "kgqa.cli.server": {"server", "mcp"},
        "kgqa.cli.browse": {"node", "schema"},
    }
    commands = main.commands  # type: ignore[attr-defined]
    assert set(commands) == set().union(*groups.values())
    for module, names in groups.items():
        for name in names:
            assert commands[name].callback.__module__ == module, name


def test_the_words_of_a_question_are_cut_in_one_place() -> None:
    """kgqa/runtime/text.py holds the word patterns (WORD, LOWER_WORD, PART, LETTERS); no other module writes its own
    copy of one, so every step counts the same words."""
    import ast

    from kgqa.runtime import text

    patterns = {text.WORD.pattern, text.LOWER_WORD.pattern, text.PART.pattern, text.LETTERS.pattern}
    copies = []
    for name, path in modules().items():
        if name == "kgqa.runtime.text":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in patterns:
                copies.append(f"{name}:{node.lineno}: {node.value}")
    assert copies == []
