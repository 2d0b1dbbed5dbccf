"""Progress where output is no terminal (nohup, CI, a pipe): a plain line per running task every 30 s, with counts,
rate and ETA, and one when a task completes (issue 31, item 4)."""

from __future__ import annotations

import pytest

from kgqa.runtime.progress import LineProgress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_period_with_counts_rate_and_eta_and_one_at_completion() -> None:
    lines: list[str] = []
    clock = Clock()
    with LineProgress(lines.append, every=30, clock=clock) as progress:
        task = progress.add_task("embedding names", total=1000)
        clock.now = 10
        progress.advance(task, 100)
        assert lines == []  # within the period: nothing yet
        clock.now = 40
        progress.advance(task, 300)
        assert lines == ["embedding names: 400/1,000 (40%), 10.0/s, ETA 1m 00s"]
        clock.now = 50
        progress.advance(task, 600)
        assert lines[-1] == "embedding names: 1,000/1,000 (100%), 20.0/s, done in 50s"
    assert len(lines) == 2  # a completed task is not repeated on exit


def test_a_resumed_task_counts_its_rate_from_where_it_started_and_shows_its_fields() -> None:
    lines: list[str] = []
    clock = Clock()
    with LineProgress(lines.append, every=30, clock=clock) as progress:
        task = progress.add_task("fusion-rrf", total=200, completed=150, score="")
        clock.now = 31
        progress.update(task, completed=181, score="hit@1 0.850")
        clock.now = 35
        progress.update(task, completed=190)
    # the last state is written on exit, however soon after the last line
    assert lines == [
        "fusion-rrf: 181/200 (90%), 1.0/s, ETA 19s, hit@1 0.850",
        "fusion-rrf: 190/200 (95%), 1.1/s, ETA 9s, hit@1 0.850",
    ]


def test_the_cli_writes_lines_where_output_is_no_terminal_and_a_bar_in_one() -> None:
    from io import StringIO

    from rich.console import Console
    from rich.progress import Progress

    from kgqa.cli.output import progress_bar as _progress

    out = StringIO()
    with _progress(Console(file=out, force_terminal=False)) as progress:
        assert isinstance(progress, LineProgress)
        task = progress.add_task("nodes", total=2)
        progress.advance(task, 2)
    assert out.getvalue().startswith("kgqa: nodes: 2/2 (100%), ")
    assert isinstance(_progress(Console(file=StringIO(), force_terminal=True)), Progress)


def test_a_piped_answer_is_two_plain_lines_per_entity(capsys: pytest.CaptureFixture[str]) -> None:
    from kgqa.cli.ask import _print_answer
    from kgqa.runtime.trace import Trace
    from kgqa.types import Answer, Candidate

    trace = Trace("hpo", "hybrid", "none", "none", 20, 0.5, 100, "tiny", ())
    answers = [
        Candidate("HP:1", "effect/phenotype", "Seizure", 0.9, ("graph",), 1),
        Candidate("HP:2", "effect/phenotype", "[bold]Focal seizure", 0.5, ("vector",)),
    ]
    _print_answer(Answer("which seizures?", answers, trace), "hpo", show_plan=False, as_json=False)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("which seizures?  [hpo; steps=")
    assert lines[1] == "  1. Seizure  (effect/phenotype HP:1)  0.900" and lines[2] == "     graph; l=1"
    assert lines[3].startswith("  2. [bold]Focal seizure  (effect/phenotype HP:2)")  # data, never markup
    assert len(lines) == 5
