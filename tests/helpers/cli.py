"""Running the command line in-process (click's CliRunner) and checking its one-line errors."""

from __future__ import annotations

from click.testing import CliRunner

from kgqa.cli import main


def run(env: dict[str, str], *args: str, input: str | bytes | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False, input=input)


def assert_one_line_error(result, message: str) -> None:
    assert result.exit_code != 0
    assert message in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
