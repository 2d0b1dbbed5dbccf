"""Bounded logs: one over its limit is kept once (a crashed worker's stacks outlive the restart that follows)."""

from __future__ import annotations

from pathlib import Path

from kgqa.runtime.logfiles import kept, rotate


def test_a_log_over_its_limit_is_kept_once_and_the_next_starts_empty(tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    kept(log).write_text("the run before last\n")
    log.write_text("Fatal Python error: Segmentation fault\n" * 10)
    rotate(log, 100)
    assert not log.exists()
    assert kept(log) == tmp_path / "worker.log.1"
    assert kept(log).read_text().startswith("Fatal Python error: Segmentation fault")


def test_a_log_within_its_limit_or_none_at_all_is_left_as_it_is(tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    rotate(log, 100)
    assert not log.exists() and not kept(log).exists()
    log.write_text("ready\n")
    rotate(log, 100)
    assert log.read_text() == "ready\n" and not kept(log).exists()
