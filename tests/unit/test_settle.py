"""What a model load does to the garbage collector (kgqa.runtime.app.settle): the first load of a process is taken
out of the full passes after a full collection; a later one (a caller opening kgqa again) after a young one only."""

from __future__ import annotations

import gc

import pytest

from kgqa.runtime import app


def test_the_full_pass_runs_once_a_process_then_only_the_young_generations(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: calls.append(generation) or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    app.settle()
    app.settle(full=False)
    assert calls == ["unfreeze", 2, "freeze", 1, "freeze"]
