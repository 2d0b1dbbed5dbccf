"""What ``import kgqa`` offers a library user (issue 32): every public name, and nothing of the pipeline until
it is used."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import kgqa

_EXPECTED = """
Answer Api ArgumentError Cancelled Candidate Config ConfigError CypherSyntaxError EmbeddingError Explanation Export
GeneratedCypher GeneratedQuestion InputError Kgqa KgqaError LlmError LoadReport Match NodeText NodeView QuestionError
Readiness
Schema SkbMeta SkbNotLoadedError StoreError StoreLockedError StoreTimeoutError Trace UnknownSkbError WorkerBusyError
WorkerError connect load_config
"""
EXPECTED = sorted(_EXPECTED.split())


def test_all_names_what_kgqa_exports() -> None:
    assert sorted(kgqa.__all__) == EXPECTED


def test_every_public_name_is_importable_from_kgqa() -> None:
    namespace: dict[str, object] = {}
    exec(f"from kgqa import {', '.join(EXPECTED)}", namespace)  # the from-import a user writes
    for name in EXPECTED:
        assert namespace[name] is getattr(kgqa, name)
        assert name in dir(kgqa)


def test_the_public_names_are_the_defining_modules_own() -> None:
    from kgqa.errors import KgqaError
    from kgqa.runtime.app import Kgqa
    from kgqa.types import Answer

    assert kgqa.Kgqa is Kgqa and kgqa.Answer is Answer and kgqa.KgqaError is KgqaError
    for name in EXPECTED:
        value = getattr(kgqa, name)
        if inspect.isclass(value) and issubclass(value, Exception):
            assert issubclass(value, kgqa.KgqaError), name  # one error root


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        kgqa.Nonexistent  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "Nonexistent" in str(exc)
    else:
        raise AssertionError("kgqa.Nonexistent did not raise")


def test_the_cli_and_the_result_types_load_none_of_the_pipeline() -> None:
    """A command served by the worker only parses, sends and prints: its process imports no numpy and no store."""
    heavy = ("numpy", "kgqa.runtime.store.base", "kgqa.runtime.pipeline", "kgqa.runtime.app")
    code = f"import sys, kgqa.cli, kgqa.types; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_import_kgqa_loads_none_of_the_pipeline() -> None:
    heavy = ("kgqa.runtime.app", "kgqa.runtime.pipeline", "numpy")
    code = f"import sys, kgqa; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert importlib.import_module("kgqa").__version__


def test_what_the_api_returns_is_importable_from_kgqa() -> None:
    """Every kgqa class an API call returns (at any depth of its return type) is a public name."""
    import typing

    api = importlib.import_module("kgqa.api")
    namespace = {**vars(api), **{name: getattr(kgqa, name) for name in kgqa.__all__}}
    public = {getattr(kgqa, name) for name in kgqa.__all__}

    def classes(kind: object) -> list[type]:
        own = [kind] if inspect.isclass(kind) and kind.__module__.startswith("kgqa") else []
        return own + [c for arg in typing.get_args(kind) for c in classes(arg)]

    seen = set()
    for name in api.CALLS:
        returned = eval(getattr(api.Api, name).__annotations__["return"], namespace)
        for kind in classes(returned):
            assert kind in public, (name, kind)
            seen.add(kind.__name__)
    assert {"Answer", "Explanation", "LoadReport", "GeneratedQuestion"} <= seen
