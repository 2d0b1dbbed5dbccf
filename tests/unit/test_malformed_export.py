"""A stored vector with a non-finite element (malformed stored data): ``kgqa export`` names the node instead of writing
``nan`` into a float[] cell, which neo4j-admin would import as NaN."""

from __future__ import annotations

import math

import pytest

from kgqa.errors import StoreError
from kgqa.runtime.export import _cells, _floats


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_element_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="non-finite"):
        _floats([0.5, bad])


def test_the_node_is_named() -> None:
    with pytest.raises(StoreError) as exc:
        _cells("42", [[0.1, 0.2], None, [math.nan]], "disease")
    assert str(exc.value).startswith("disease node 42: a vector with a non-finite element in the stored graph")


def test_finite_vectors_are_written_as_before() -> None:
    assert _cells("1", [[0.25, -1.0], None], "gene") == ["0.25;-1.0", ""]
