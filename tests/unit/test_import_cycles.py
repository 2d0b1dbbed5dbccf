"""kgqa's modules import each other without a cycle (issue 32): a cycle makes the import order matter, hides which
module owns what, and is how a step ends up importing the pipeline that runs it.

The graph (tests/helpers/import_graph.py) is read from the installed package's source (nothing is imported): every
import statement, at module level, inside a function (an import deferred into a function to dodge a cycle is still
the cycle) or only for a type checker (``if TYPE_CHECKING:``: a type-level cycle ties the modules as much, issue 72).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

from tests.helpers.import_graph import import_graph, modules


def test_the_graph_sees_the_package() -> None:
    graph = import_graph()
    assert {"kgqa.runtime.pipeline", "kgqa.cypher.parser", "kgqa.loaders.hpo", "kgqa.lab.evaluate"} <= set(graph)
    assert "kgqa.runtime.steps.s1_target_type" in graph["kgqa.runtime.pipeline"]
    assert "kgqa.cypher.lexer" in graph["kgqa.cypher.parser"]  # a relative import


def first_cycle(graph: dict[str, set[str]]) -> tuple[str, ...] | None:
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        return tuple(exc.args[1])
    return None


def test_no_import_cycle() -> None:
    cycle = first_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_a_cycle_is_found_through_a_function_level_or_a_type_checking_import(tmp_path: Path) -> None:
    """The check itself, on a package made here: a cycle closed by an import inside a function is one, and so is one
    closed only under ``if TYPE_CHECKING:``."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("from . import c\n")
    (package / "sub" / "c.py").write_text("import os\n")
    assert first_cycle(import_graph(package)) is None
    (package / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    assert set(first_cycle(import_graph(package)) or ()) == {"pkg.a", "pkg.sub.b", "pkg.sub.c"}
    assert first_cycle(import_graph(package, type_checking=False)) is None
    (package / "sub" / "c.py").write_text("def later():\n    from pkg.a import thing\n")
    assert set(first_cycle(import_graph(package)) or ()) == {"pkg.a", "pkg.sub.b", "pkg.sub.c"}


def test_the_runtime_imports_nothing_of_the_lab() -> None:
    """The lab (evaluation, reranker training) depends on the runtime, never the other way (issue 72): what a load
    needs to train the reader lives with the reader (kgqa.runtime.reader), type-only imports included."""
    graph = import_graph()
    taken = {(name, t) for name, targets in graph.items() if name.startswith("kgqa.runtime") for t in targets}
    assert not [pair for pair in taken if pair[1].startswith("kgqa.lab")]
    assert any(t.startswith("kgqa.runtime") for name, ts in graph.items() if name.startswith("kgqa.lab") for t in ts)


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


def test_a_step_takes_from_another_step_only_its_outcome_types() -> None:
    """A step module (kgqa/runtime/steps/s<N>_*) imports from another step's module only the dataclasses that step
    returns (its outcome), never a helper: shared helpers live in kgqa.runtime.text and kgqa.runtime.scoring."""
    import dataclasses
    import importlib

    steps = {name: path for name, path in modules().items() if name.startswith("kgqa.runtime.steps.s")}
    taken = []
    for name, path in steps.items():
        step = name.rsplit(".", 1)[1].split("_")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in steps:
                if node.module.rsplit(".", 1)[1].split("_")[0] == step:
                    continue  # the modules of one step (s2_linking, s2_fallback, ...)
                source = importlib.import_module(node.module)
                for alias in node.names:
                    taken.append((name, node.module, alias.name))
                    assert dataclasses.is_dataclass(getattr(source, alias.name)), (name, node.module, alias.name)
    assert ("kgqa.runtime.steps.s7_hybrid", "kgqa.runtime.steps.s6_graph_ranking", "GraphRanking") in taken
