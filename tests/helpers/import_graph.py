"""kgqa's import graph, read from the installed package's source (nothing is imported): every import statement, at
module level, inside a function or only for a type checker (``if TYPE_CHECKING:``; leave those out with
``type_checking=False``)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import kgqa

PACKAGE = Path(kgqa.__file__).resolve().parent


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package at ``package`` by dotted name; kgqa.cypher and kgqa.loaders are symlinked
    folders."""
    found: dict[str, Path] = {}
    for folder, _, files in os.walk(package, followlinks=True):
        base = Path(folder).relative_to(package).parts
        for file in files:
            if file.endswith(".py"):
                stem = file[:-3]
                found[".".join((package.name, *base, *(() if stem == "__init__" else (stem,))))] = Path(folder) / file
    return found


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported(name: str, path: Path, known: dict[str, Path], *, type_checking: bool = True) -> set[str]:
    """The kgqa modules that module ``name`` imports (at run time only, without ``type_checking``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if not type_checking and _type_checking(child):
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


def import_graph(package: Path = PACKAGE, *, type_checking: bool = True) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imported(name, path, known, type_checking=type_checking) for name, path in known.items()}
