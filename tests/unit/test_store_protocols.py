"""The store's interfaces stay small, the dialects implement what they claim, and capabilities are protocols."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from kgqa.runtime.store import protocols
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.neo4j import Neo4jStore
from kgqa.runtime.store.protocols import GraphStore, ManagedServer, Searcher

MAX_MEMBERS = 8
"""The issue asked for about eight members a protocol; more than ten would fail its acceptance."""

KGQA = Path(__file__).resolve().parents[2] / "kgqa"


def own_members(cls: type) -> set[str]:
    """The members a protocol declares in its own body (methods, properties, annotated attributes)."""
    declared = {name for name, value in vars(cls).items() if inspect.isfunction(value) or isinstance(value, property)}
    return {name for name in declared | set(vars(cls).get("__annotations__", {})) if not name.startswith("_")}


def all_members(cls: type) -> set[str]:
    return set().union(*(own_members(base) for base in cls.__mro__ if getattr(base, "_is_protocol", False)))


def store_protocols() -> list[type]:
    return [getattr(protocols, name) for name in protocols.__all__]


def test_every_protocol_of_the_store_is_small_and_runtime_checkable() -> None:
    found = store_protocols()
    assert len(found) >= 10  # the __all__ lists them: a protocol left out of it would escape this test
    for cls in found:
        assert getattr(cls, "_is_protocol", False), cls
        assert getattr(cls, "_is_runtime_protocol", False), f"{cls.__name__} is not runtime_checkable"
        assert len(own_members(cls)) <= MAX_MEMBERS, (cls.__name__, sorted(own_members(cls)))


def test_the_limit_catches_a_big_protocol() -> None:
    """The size rule counts what a protocol declares: eleven members would fail it."""
    namespace: dict[str, object] = {f"m{i}": (lambda self: None) for i in range(11)}
    big = type("Big", (protocols.Catalogue,), namespace)
    assert len(own_members(big)) == 11 > MAX_MEMBERS


def test_the_whole_store_and_the_searcher_only_compose_the_small_ones() -> None:
    assert own_members(GraphStore) == set() and own_members(Searcher) == set()
    small = [p for p in store_protocols() if p not in (GraphStore, Searcher, ManagedServer)]
    parts = [p for p in small if p in GraphStore.__mro__]
    assert {p.__name__ for p in parts} == {
        "Catalogue",
        "GraphReader",
        "PathReader",
        "VectorSearcher",
        "TextSearcher",
        "Publisher",
        "Dumper",
    }
    members = [own_members(p) for p in parts]
    assert sum(len(m) for m in members) == len(all_members(GraphStore))  # no member in two protocols


@pytest.mark.parametrize("store", [FalkorStore, Neo4jStore])
def test_both_dialects_claim_the_whole_store_and_implement_every_member(store: type) -> None:
    """Each method comes from the dialect, not from a protocol's empty body; an attribute is set when it opens."""
    assert GraphStore in store.__mro__
    opening = inspect.getsource(store.__init__)
    for name in sorted(all_members(GraphStore)):
        owner = next((base for base in store.__mro__ if name in vars(base)), None)
        if owner is None:  # an attribute the protocols only annotate
            assert f"self.{name} = " in opening, (store.__name__, name)
        else:
            assert not getattr(owner, "_is_protocol", False), (store.__name__, name, owner.__name__)


def test_only_the_embedded_store_manages_a_server() -> None:
    assert ManagedServer in FalkorStore.__mro__
    assert ManagedServer not in Neo4jStore.__mro__
    for name in own_members(ManagedServer):
        assert name in vars(FalkorStore), name


def test_no_getattr_on_a_store_object_in_kgqa() -> None:
    """What a store can do beyond a protocol is asked with isinstance (``ManagedServer``), never getattr."""
    offenders = []
    for path in sorted(KGQA.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            asks = isinstance(node, ast.Call) and ast.unparse(node.func) in {"getattr", "hasattr"}
            if asks and node.args and "store" in ast.unparse(node.args[0]).lower():
                offenders.append(f"{path.relative_to(KGQA.parent)}:{node.lineno}: {ast.unparse(node)}")
    assert offenders == []


def test_the_managed_server_check_is_an_isinstance_check() -> None:
    class Managed:
        server_pid = 7
        failure = None

        def supervise(self) -> None:
            """Nothing to restart."""

    assert isinstance(Managed(), ManagedServer)
    assert not isinstance(object(), ManagedServer)
