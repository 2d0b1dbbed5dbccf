"""The tests' own layout (issue 54): what tests share lives in tests/helpers (or, for fixtures, a conftest.py), and no
test module or conftest.py imports a test module or a conftest.py. An import of a test module runs its module-level
code and registers its fixtures and tests a second time under another module; a conftest.py is pytest's to load.

Read from the source with ``ast`` (nothing is imported): every ``import`` and ``from ... import`` statement, at module
level or inside a function, relative ones resolved."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SHARED = ("helpers", "fixtures")
"""The folders of tests/ that hold no test module: the helpers, and data (with the script that made a corpus)."""


def module_name(path: Path, tests: Path = TESTS) -> str:
    """The dotted name of ``path`` under the package ``tests`` rooted at ``tests``."""
    parts = path.relative_to(tests).with_suffix("").parts
    return ".".join((tests.name, *(parts[:-1] if parts[-1] == "__init__" else parts)))


def is_test_module(name: str) -> bool:
    """A test module (``tests.**.test_*``) or a conftest (``tests.conftest``, ``tests.**.conftest``)."""
    parts = name.split(".")
    return len(parts) > 1 and parts[0] == "tests" and (parts[-1].startswith("test_") or parts[-1] == "conftest")


def imported(path: Path, tests: Path = TESTS) -> Iterator[tuple[int, str]]:
    """(line, module) of every module ``path`` imports, or may import: for ``from a import b``, both ``a`` and
    ``a.b`` (``b`` may be a module)."""
    name = module_name(path, tests)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def importers(tests: Path = TESTS) -> list[Path]:
    """The test modules and conftest.py files under ``tests``."""
    return sorted(p for p in tests.rglob("*.py") if p.name.startswith("test_") or p.name == "conftest.py")


def imports_of_test_modules(tests: Path = TESTS) -> list[str]:
    """``path:line imports module`` for every import of a test module or a conftest by a test module or a conftest."""
    return [
        f"{path.relative_to(tests.parent)}:{line} imports {module}"
        for path in importers(tests)
        for line, module in imported(path, tests)
        if is_test_module(module)
    ]


def stray_modules(tests: Path = TESTS) -> list[str]:
    """Python files under ``tests`` that are neither a test module, a conftest.py nor an ``__init__.py``, outside
    tests/helpers and tests/fixtures: helpers that belong in tests/helpers."""
    return sorted(
        str(path.relative_to(tests.parent))
        for path in tests.rglob("*.py")
        if path.relative_to(tests).parts[0] not in SHARED
        and not (path.name.startswith("test_") or path.name in ("conftest.py", "__init__.py"))
    )


def test_no_test_module_or_conftest_imports_another() -> None:
    assert imports_of_test_modules() == []


def test_helpers_live_in_tests_helpers() -> None:
    assert stray_modules() == []
    assert (TESTS / "helpers" / "__init__.py").is_file()
    assert not any(p.name.startswith("test_") for p in (TESTS / "helpers").rglob("*.py"))


def test_the_check_finds_every_form_of_the_import(tmp_path: Path) -> None:
    """The check itself, on a tests/ tree made here: absolute, ``from`` a package, relative and function-level
    imports of a test module or a conftest are found; imports of helpers are not."""
    tests = tmp_path / "tests"
    for folder in (tests, tests / "unit", tests / "integration", tests / "helpers"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("")
    (tests / "helpers" / "cli.py").write_text("def run():\n    pass\n")
    (tests / "conftest.py").write_text("from tests.helpers.cli import run\n")
    (tests / "unit" / "test_a.py").write_text("from tests.helpers import cli\nimport tests.helpers.cli\n")
    assert imports_of_test_modules(tests) == []
    (tests / "unit" / "test_b.py").write_text(
        "import tests.unit.test_a as a\n"
        "from tests.unit import test_a\n"
        "from .test_a import cli\n"
        "def later():\n"
        "    from tests.conftest import run\n"
    )
    (tests / "integration" / "conftest.py").write_text("from ..unit.test_a import cli\nfrom .. import conftest\n")
    (tests / "integration" / "test_c.py").write_text("from tests.integration.conftest import cli\n")
    assert imports_of_test_modules(tests) == [
        "tests/integration/conftest.py:1 imports tests.unit.test_a",
        "tests/integration/conftest.py:2 imports tests.conftest",
        "tests/integration/test_c.py:1 imports tests.integration.conftest",
        "tests/unit/test_b.py:1 imports tests.unit.test_a",
        "tests/unit/test_b.py:2 imports tests.unit.test_a",
        "tests/unit/test_b.py:3 imports tests.unit.test_a",
        "tests/unit/test_b.py:5 imports tests.conftest",
    ]
    assert stray_modules(tests) == []
    (tests / "unit" / "shared.py").write_text("")
    assert stray_modules(tests) == ["tests/unit/shared.py"]
