"""The deadline an ask's step 5 keeps (``ask_budget``): each read's time limit is what is left of it where that is
sooner than ``query_timeout``, and no read starts once nothing is left."""

from __future__ import annotations

import time

import pytest

from kgqa.errors import StoreTimeoutError
from kgqa.runtime.store.deadline import Deadline, read_limit, reads_within


def test_without_a_deadline_a_read_gets_query_timeout() -> None:
    assert read_limit(60.0) == (60.0, "60 s")


def test_a_sooner_deadline_is_the_read_s_limit_and_named() -> None:
    with reads_within(Deadline(time.monotonic() + 0.5, "ask_budget")):
        seconds, named = read_limit(60.0)
        assert 0.4 < seconds <= 0.5
        assert named.startswith("the 0.") and named.endswith(" s left of ask_budget")
        assert read_limit(0.1) == (0.1, "0.1 s")  # query_timeout is sooner
    assert read_limit(60.0) == (60.0, "60 s")  # the block ends the deadline


def test_no_read_starts_once_nothing_is_left() -> None:
    with (
        reads_within(Deadline(time.monotonic() - 1, "ask_budget")),
        pytest.raises(StoreTimeoutError, match="nothing left of ask_budget"),
    ):
        read_limit(60.0)


def test_an_inner_deadline_holds_inside_its_block_only() -> None:
    outer = Deadline(time.monotonic() + 10, "ask_budget")
    with reads_within(outer):
        with reads_within(Deadline(time.monotonic() + 1, "ask_budget")):
            assert read_limit(60.0)[0] <= 1
        assert read_limit(60.0)[0] > 9
