"""Issue 34, item 5: no control character of a question, of the data or of a file reaches the terminal raw. The CLI
escapes what it prints as GNU ``ls -b`` does (kgqa.runtime.terminal.shown); JSON escapes it as JSON does.

The commands run in-process with click's CliRunner on a fake kgqa (``kgqa.cli.session.start`` patched): what is tested
is the printing, not the pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text

from kgqa.cli.output import SafeConsole, json_text, print_block
from kgqa.runtime.terminal import shown
from tests.helpers.cli import run
from tests.helpers.terminal import EVIL, OSC, FakeKg

OSC_SHOWN = "\\033]0;pwned\\a"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (OSC, OSC_SHOWN),
        ("a\nb\tc\rd\x08e\x0bf\x0cg", "a\\nb\\tc\\rd\\be\\vf\\fg"),
        ("\x00\x01\x7f", "\\000\\001\\177"),
        ("\x9b31m", "\\302\\23331m"),  # the C1 CSI, as its UTF-8 bytes
        ("abc\u202edef", "abc\\342\\200\\256def"),  # RIGHT-TO-LEFT OVERRIDE
        ("one\u2028two", "one\\342\\200\\250two"),  # LINE SEPARATOR
        ("caf\udce9", "caf\\351"),  # a non-UTF-8 byte of a command line, as Python decodes it
    ],
)
def test_control_characters_are_shown_as_ls_b_shows_them(text: str, expected: str) -> None:
    assert shown(text) == expected


def test_printable_text_is_shown_as_it_is() -> None:
    text = "Café 中文 🙂 שָׁלוֹם [bold]x[/bold] C:\\path $\\alpha$"  # RTL letters are text, not an override
    assert shown(text) == text
    assert shown("\\033") == "\\033"  # a backslash stays one: escaping is for safety, JSON is the exact form


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_json_escapes_every_control_character_and_reads_back_the_same(ensure_ascii: bool) -> None:
    value = {"q": f"{OSC} \x7f \x9b \u202e \u2028 é", "n": [1, 2]}
    text = json_text(value, ensure_ascii=ensure_ascii, indent=2)
    assert not any(shown(char) != char for char in text.replace("\n", ""))  # nothing a terminal acts on
    assert json.loads(text) == value


def test_the_console_escapes_strings_markup_and_text_keeping_styles(capsys: pytest.CaptureFixture[str]) -> None:
    console = SafeConsole(force_terminal=True, color_system="truecolor", width=200, highlight=False)
    console.print(f"[bold]{EVIL}[/bold]")
    console.print(Text.assemble(("name ", "bold"), (EVIL, "red"), " end"))  # rich drops a BEL of a Text itself
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"\x1b[1mmigraine {OSC_SHOWN} relief\x1b[0m",  # rich's own styles still reach the terminal
        "\x1b[1mname \x1b[0m\x1b[31mmigraine \\033]0;pwned relief\x1b[0m end",  # the span moved with its text
    ]


def test_a_block_keeps_its_line_breaks_and_escapes_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    print_block(SafeConsole(width=200), f"- name: {OSC}\n- type: drug\r")
    assert capsys.readouterr().out == f"- name: {OSC_SHOWN}\n- type: drug\\r\n"


# ---------------------------------------------------------------------------------------------------------------------
# The commands, on a fake kgqa whose data carries the sequence.
# ---------------------------------------------------------------------------------------------------------------------


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kgqa.cli.session.start", FakeKg)


def assert_escaped(output: str) -> None:
    assert "\x1b" not in output and "\x07" not in output, output
    assert OSC_SHOWN in output, output


@pytest.mark.usefixtures("fake")
def test_a_question_in_argv_and_the_data_are_shown_escaped(cli_env: dict[str, str]) -> None:
    result = run(cli_env, "ask", EVIL, "--skb", "prime")
    assert result.exit_code == 0, result.stderr
    assert_escaped(result.stdout)
    assert result.stdout.splitlines()[0].startswith(f"migraine {OSC_SHOWN} relief  [prime;")  # the header
    assert f"{EVIL.replace(OSC, OSC_SHOWN)}  (disease{OSC_SHOWN} 7)" in result.stdout  # the answer's name


@pytest.mark.usefixtures("fake")
def test_a_question_in_ask_batch_input_is_shown_escaped(cli_env: dict[str, str]) -> None:
    result = run(cli_env, "ask", "-", "--skb", "prime", input=f"first question\n{EVIL}\n")
    assert result.exit_code == 0, result.stderr
    assert_escaped(result.stdout)
    as_json = run(cli_env, "ask", "-", "--skb", "prime", "--json", input=f"{EVIL}\n")
    assert "\x1b" not in as_json.stdout and json.loads(as_json.stdout)["question"] == EVIL  # JSON: exact


@pytest.mark.usefixtures("fake")
@pytest.mark.parametrize("command", ["node", "schema"])
def test_a_node_name_and_schema_names_from_the_data_are_shown_escaped(cli_env: dict[str, str], command: str) -> None:
    args = ("node", "7", "--skb", "prime") if command == "node" else ("schema", "--skb", "prime")
    result = run(cli_env, *args)
    assert result.exit_code == 0, result.stderr
    assert_escaped(result.stdout)
    if command == "node":
        assert f"- name: {EVIL.replace(OSC, OSC_SHOWN)}\n" in result.stdout  # the document keeps its line


def test_an_error_that_quotes_the_input_is_shown_escaped(cli_env: dict[str, str], tmp_path: Path) -> None:
    result = run(cli_env, "eval", "--skb", "prime", "--qa", str(tmp_path / f"{OSC}.csv"))
    assert result.exit_code == 1
    assert_escaped(result.stderr)
    assert result.stderr == f"error: --qa {tmp_path / OSC_SHOWN}.csv does not exist\n"


def test_a_usage_error_that_quotes_the_input_is_shown_escaped(cli_env: dict[str, str], tmp_path: Path) -> None:
    result = run(cli_env, "ask", "-", "--skb", "prime", "--questions", str(tmp_path / f"{OSC}.txt"))
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr, result.stderr
