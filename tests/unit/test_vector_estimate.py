"""The embedded store's vector directory refuses a load that cannot fit on disk before writing anything."""

from __future__ import annotations

import shutil
from collections import namedtuple
from pathlib import Path

import pytest

from kgqa.errors import StoreError
from kgqa.runtime.store.vectors import check_disk, estimate_bytes


def test_the_estimate_covers_three_float32_vectors_per_node_and_the_indexes() -> None:
    # MAG with MiniLM: 1.87M nodes x (name, plain, document) x 384 floats
    assert estimate_bytes(1_872_968, 384, 384) > 1_872_968 * 3 * 384 * 4
    assert estimate_bytes(1_872_968, 384, 1536) > 1_872_968 * (2 * 384 + 1536) * 4


def test_a_load_that_cannot_fit_on_disk_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10 * 2**30, 9 * 2**30, 2**30))
    check_disk(tmp_path / "vectors", 2**30)
    with pytest.raises(StoreError, match=r"need about 2\.0 GiB in .*vectors, and 1\.0 GiB are free.*KGQA_HOME"):
        check_disk(tmp_path / "vectors", 2 * 2**30)
