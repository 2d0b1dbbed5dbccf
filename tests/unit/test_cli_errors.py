"""One-line errors of the command line that come before the store starts (bad settings, a bad STaRK folder). The
helpers the CLI tests share (``run``, ``assert_one_line_error``) are in tests/helpers/cli.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import assert_one_line_error, run


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing", "does not exist"),
        (lambda d: (d / "empty").mkdir() or d / "empty", "no STaRK 'prime' node_info.pkl under"),
    ],
)
def test_bad_stark_dir(cli_env: dict[str, str], tmp_path: Path, make, message: str) -> None:
    assert_one_line_error(run(cli_env, "load", "stark", "--name", "prime", "--dir", str(make(tmp_path))), message)


def test_bad_config_value(cli_env: dict[str, str]) -> None:
    assert_one_line_error(run({**cli_env, "KGQA_TOP_K": "lots"}, "ask", "q", "--skb", "hpo"), "'top_k' must be int")


def test_a_degraded_step_prints_data_text_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Step details quote node names, aliases and LLM text: ``[/x]`` in them is text, not a closing markup tag."""
    from kgqa.cli.ask import _print_answer
    from kgqa.runtime.trace import Trace
    from kgqa.types import Answer

    trace = Trace("prime", "hybrid", "none", "none", 20, 0.5, 100, "tiny", ())
    with trace.step(2) as record:
        record.degrade("linked '[/x] [bold]evil' (disease)")
    _print_answer(Answer("q", [], trace), "prime", show_plan=False, as_json=True)
    assert "linked '[/x] [bold]evil' (disease)" in capsys.readouterr().err
