"""Malformed STaRK folders for ``kgqa load stark`` (the cases, their table and the builders that spoil a fixture:
tests/helpers/malformed.py).

Here: ``read`` cases through the CLI (the unit guard fails the test if the store starts) and ``render`` cases
through read_stark; tests/integration/test_malformed_load.py loads the ``render`` cases into the embedded store and
checks that the graph loaded before them is intact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgqa.errors import InputError
from kgqa.loaders.plain_data import MAX_DEPTH, PlainCheck, PlainDataError
from kgqa.loaders.stark import read_stark
from tests.helpers.cli import run
from tests.helpers.malformed import BUILDERS, CASES, WRITERS, Case, assert_clean_refusal, nested, spoiled


def test_every_case_has_a_builder_and_every_builder_a_case() -> None:
    assert sorted({c.case for c in CASES}) == sorted(BUILDERS)
    assert len({c.case for c in CASES}) == len(CASES)
    assert {c.stage for c in CASES} == {"read", "render"} and {c.skb for c in CASES} == set(WRITERS)


@pytest.mark.parametrize("case", [c for c in CASES if c.stage == "read"], ids=lambda c: c.case)
def test_refused_before_the_store_starts(case: Case, cli_env: dict[str, str], tmp_path: Path) -> None:
    """Through the CLI: one line, before any server (the unit guard fails a server start)."""
    root = spoiled(case, tmp_path)
    assert_clean_refusal(run(cli_env, "load", "stark", "--name", case.skb, "--dir", str(root)), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.stage == "render"], ids=lambda c: c.case)
def test_refused_when_the_node_is_rendered(case: Case, tmp_path: Path) -> None:
    data = read_stark(case.skb, spoiled(case, tmp_path))
    with pytest.raises(InputError) as exc:
        for _ in data.nodes:
            pass
    assert case.message in str(exc.value) and "\n" not in str(exc.value)


# ---------------------------------------------------------------------------------------------------------------------
# The plain-data check itself.
# ---------------------------------------------------------------------------------------------------------------------


def test_shared_containers_within_the_budget_pass() -> None:
    """STaRK's pickles may share a value (pickle memoizes): sharing is fine, only its blow-up is not."""
    shared = {"a": [1, 2, 3]}
    PlainCheck(budget=1000).check({"x": shared, "y": shared, "z": [shared] * 10})


def test_depth_is_bounded_exactly() -> None:
    PlainCheck(budget=10**6).check(nested(MAX_DEPTH - 1))
    with pytest.raises(PlainDataError, match="deeper than"):
        PlainCheck(budget=10**6).check(nested(MAX_DEPTH))


def test_a_cycle_is_found_where_it_closes() -> None:
    inner: dict[str, Any] = {}
    value = {"a": {"b": inner}}
    inner["back"] = value
    with pytest.raises(PlainDataError) as exc:
        PlainCheck(budget=100).check(value)
    assert exc.value.where() == "['a']['b']['back']" and "refers back" in exc.value.problem


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**5000], ids=["2^63", "-2^63-1", "10^5000"])
def test_integers_beyond_int64_are_refused(value: int) -> None:
    with pytest.raises(PlainDataError, match="beyond 64 bits"):
        PlainCheck(budget=100).check({"n": value})
    PlainCheck(budget=100).check({"n": 2**63 - 1, "m": -(2**63)})


def test_a_huge_key_is_shown_cut() -> None:
    with pytest.raises(PlainDataError) as exc:
        PlainCheck(budget=100).check({b"k" * 10**6: 1})
    assert len(exc.value.problem) < 120
