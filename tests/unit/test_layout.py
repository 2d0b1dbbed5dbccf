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
