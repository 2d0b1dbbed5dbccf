"""kgqa's modules import each other without a cycle (issue 32): a cycle makes the import order matter, hides which
module owns what, and is how a step ends up importing the pipeline that runs it.

The graph is read from the installed package's source (nothing is imported): every import statement, at module level
or inside a function (an import deferred into a function to dodge a cycle is still the cycle), except those only a
type checker runs (``if TYPE_CHECKING:``).
"""

from __future__ import annotations

import ast
import graphlib
import os
from pathlib import Path

import kgqa

PACKAGE = Path(kgqa.__file__).resolve().parent


def modules() -> dict[str, Path]:
    """Every module of the installed kgqa by dotted name; kgqa.cypher and kgqa.loaders are symlinked folders."""
    found: dict[str, Path] = {}
    for folder, _, files in os.walk(PACKAGE, followlinks=True):
        base = Path(folder).relative_to(PACKAGE).parts
        for file in files:
            if file.endswith(".py"):
                stem = file[:-3]
                found[".".join(("kgqa", *base, *(() if stem == "__init__" else (stem,))))] = Path(folder) / file
    return found


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The kgqa modules that module ``name`` imports at run time."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            if isinstance(child, ast.Import):
                targets.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets.update(
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in child.names
                )
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    resolved = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def test_the_graph_sees_the_package() -> None:
    graph = import_graph()
    assert {"kgqa.runtime.pipeline", "kgqa.cypher.parser", "kgqa.loaders.hpo", "kgqa.lab.evaluate"} <= set(graph)
    assert "kgqa.runtime.steps.s1_target_type" in graph["kgqa.runtime.pipeline"]
    assert "kgqa.cypher.lexer" in graph["kgqa.cypher.parser"]  # a relative import


def test_no_import_cycle() -> None:
    try:
        tuple(graphlib.TopologicalSorter(import_graph()).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError("import cycle: " + " -> ".join(exc.args[1])) from None


def test_a_cycle_is_found() -> None:
    """The check itself: a graph with a cycle fails it."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        assert set(exc.args[1]) == {"a", "b", "c"}
    else:
        raise AssertionError("no cycle found")


def test_the_front_end_imports_nothing_of_kgqa() -> None:
    """kgqa.cypher stands alone (it imports no database and no kgqa module)."""
    graph = import_graph()
    for name, targets in graph.items():
        if name.startswith("kgqa.cypher"):
            assert all(t.startswith("kgqa.cypher") for t in targets), (name, targets)


def test_no_generic_top_level_package_is_imported() -> None:
    """Nothing imports the repository's top-level cypher/ or loaders/ by those names: installed, they are
    kgqa.cypher and kgqa.loaders only."""
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                assert (node.module or "").split(".")[0] not in {"cypher", "loaders"}, (name, node.module)
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] not in {"cypher", "loaders"} for a in node.names), name
