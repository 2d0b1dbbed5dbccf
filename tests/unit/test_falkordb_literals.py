"""The FalkorDB store's Cypher literals (values it cannot pass as parameters), without a server."""

from __future__ import annotations

import numpy as np
import pytest

from kgqa.errors import StoreError
from kgqa.runtime.store.falkordb import literal


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ('a"b\\c', '"a\\"b\\\\c"'),
        (None, "null"),
        (True, "true"),
        (3, "3"),
        (1.5, "1.5"),
        ([1, "x"], '[1,"x"]'),
        ({"k": [1.0]}, "{`k`:[1.0]}"),
        (np.array([0.5, -1.0], dtype=np.float32), "[0.5, -1.0]"),
    ],
)
def test_literal(value: object, text: str) -> None:
    assert literal(value) == text


@pytest.mark.parametrize("value", [float("nan"), np.array([np.inf]), object()])
def test_literal_refuses_what_it_cannot_send(value: object) -> None:
    with pytest.raises(StoreError):
        literal(value)
