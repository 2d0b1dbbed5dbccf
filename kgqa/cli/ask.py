"""``kgqa ask``, ``kgqa explain`` and ``kgqa shell``: questions and their answers."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kgqa.api import check_question
from kgqa.choices import STEPS, STORES, RerankerSetting, Steps, StoreKind
from kgqa.config import MAX_TOP_K
from kgqa.errors import (
    EmbeddingError,
    InputError,
    KgqaError,
    LlmError,
    QuestionError,
    StoreError,
    WorkerBusyError,
)
from kgqa.runtime.rows import RefusedRow, Rows, usable_rows
from kgqa.types import Candidate, shown_score

if TYPE_CHECKING:
    from kgqa.api import Api
    from kgqa.types import Answer, Explanation, Readiness
from kgqa.cli import session
from kgqa.cli.options import answer_flags, ask_options, skb_option
from kgqa.cli.output import json_text, plain, print_block, say, stderr, stdout
from kgqa.cli.root import main


@main.command()
@click.argument("question", required=False)
@skb_option
@ask_options
@click.option(
    "--questions",
    "questions_file",
    type=click.File("rb"),
    default=None,
    help="Ask every non-empty line of FILE ('-': standard input, as QUESTION '-' is).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="With several questions: exit 1 when a line was refused (too long, not UTF-8 ...); the other lines are "
    "still answered. Without it a refused line is reported and skipped.",
)
@click.option("--explain", "show_plan", is_flag=True, help="Also print the plan and the compiled query.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON (answers with evidence, trace of all 8 steps); one line per question for several.",
)
@click.pass_context
def ask(
    ctx: click.Context,
    question: str | None,
    skb: str,
    types: tuple[str, ...],
    top_k: int | None,
    llm: str | None,
    steps: Steps | None,
    reranker: RerankerSetting | None,
    cross_encoder: str | None,
    alpha: float | None,
    l_max: int | None,
    questions_file: BinaryIO | None,
    strict: bool,
    show_plan: bool,
    as_json: bool,
) -> None:
    """Answer QUESTION with a ranked list of entities of the SKB, each with its evidence. QUESTION '-' (or
    --questions FILE) asks one question per line in one process: a line that cannot be a question (too long, not
    UTF-8) is reported with its line number and skipped (exit 1 only with --strict), and a question that fails
    while answered is reported and the others are still answered (exit 1)."""
    if (question is None) == (questions_file is None):
        raise click.UsageError("give a QUESTION, '-' (one per line on standard input) or --questions FILE")
    flags = answer_flags(ctx)
    if question is not None and question != "-":
        with session.connect(ctx, question, **flags) as kg:
            answer = kg.ask(question, skb, types=types or None)
        _print_answer(answer, skb, show_plan=show_plan, as_json=as_json)
        return
    config = session.settings(ctx, **flags)
    stream = questions_file if questions_file is not None else sys.stdin.buffer
    name = getattr(stream, "name", None)
    source = name if isinstance(name, str) and name not in ("", "-") else "<stdin>"
    seen: Rows[str] = Rows(source)
    failed = 0
    with contextlib.ExitStack() as opened:
        api: Api | None = None
        # answered as read (a pipe gets each answer before it sends the next line); the store starts at the first
        # usable line, so input without one is refused before any work (kgqa.runtime.rows)
        for number, item in usable_rows(source, question_lines(stream, config.max_question_chars)):
            seen.add(number, item)
            if isinstance(item, RefusedRow):
                stderr().print(item.reported(source), markup=False, highlight=False, soft_wrap=True)
                if as_json:
                    error = {"type": type(item.error).__name__, "message": str(item.error)}
                    click.echo(json_text({"line": number, "question": item.key, "error": error}, ensure_ascii=False))
                continue
            if api is None:
                api = opened.enter_context(session.start(config))
            try:
                answer = api.ask(item, skb, types=types or None)
            except PER_QUESTION_ERRORS as exc:  # this question's fault: report it and go on with the others
                failed += 1
                stderr().print(f"error: line {number}: {exc}", markup=False, highlight=False)
                if as_json:
                    error = {"type": type(exc).__name__, "message": str(exc)}
                    click.echo(json_text({"line": number, "question": item, "error": error}, ensure_ascii=False))
                continue
            _print_answer(answer, skb, show_plan=show_plan, as_json=as_json, line=number)
    if not seen.good:
        raise InputError(f"no questions: {source} has no non-empty line")
    refused = seen.strict_error() if strict else None
    if refused is not None:
        raise refused
    if failed:
        ctx.exit(1)


def question_lines(stream: BinaryIO, max_chars: int) -> Iterator[tuple[int, str | RefusedRow]]:
    """The questions of ``kgqa ask -`` (one per line), for :func:`kgqa.runtime.rows.take_rows`: a blank line is no
    row; a line that is not UTF-8 text or that :func:`kgqa.api.check_question` refuses (too long, a NUL) is a refused
    row, found before the store starts. Read as bytes, so one bad byte refuses its line, not the whole input."""
    for number, raw in enumerate(stream, 1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8").strip()
        except UnicodeDecodeError as exc:
            bad = InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the questions as UTF-8")
            yield number, RefusedRow(number, bad)
            continue
        if not text:
            continue
        try:
            check_question(text, max_chars)
        except QuestionError as exc:
            yield number, RefusedRow(number, exc, text)
            continue
        yield number, text


def report_refused(rows: Rows[Any]) -> None:
    """Each row the row policy skipped of a file read whole, one line on stderr (escaped, as everything printed)."""
    console = stderr()
    for line in rows.report():
        console.print(line, markup=False, highlight=False, soft_wrap=True)


PER_QUESTION_ERRORS = (InputError, LlmError, EmbeddingError, StoreError, WorkerBusyError)
"""What one question of many can fail with while the others still get answers; the rest (no such SKB, a worker or
settings problem) would fail every line, so they end the command."""


def _print_answer(answer: Answer, skb: str, *, show_plan: bool, as_json: bool, line: int | None = None) -> None:
    """A table (with --explain: the plan and query first), or JSON: indented for one question, one line each with
    its input line number for several."""
    trace = answer.trace
    if trace.documents:
        stderr().print(
            f"[yellow]note:[/yellow] {escape(trace.documents)}", markup=True, highlight=False, soft_wrap=True
        )
    for record in trace.degraded:
        stderr().print(
            f"[yellow]step {record.step} ({record.name}) degraded:[/yellow] {escape(record.detail)}",
            markup=True,
            highlight=False,
            soft_wrap=True,
        )
    if as_json:
        doc = answer.to_json()
        if line is None:
            click.echo(json_text(doc, ensure_ascii=False, indent=2, default=str))
        else:
            click.echo(json_text({"line": line, **doc}, ensure_ascii=False, default=str))
        return
    console = stdout()
    if show_plan:
        console.print(f"[bold]target type[/bold] {escape(str(trace.target_type))}")
        if not trace.plans:
            console.print("no plan was grounded", markup=False)
        for grounded in trace.plans:
            rounds = ", ".join(f"l={r['scope']}: {r['targets']}" for r in grounded["rounds"])
            head = f"{grounded['source']} plan (vote weight {grounded['weight']:g}; {rounds})"
            console.print(f"[bold]{escape(head)}[/bold]", soft_wrap=True, highlight=False)
            console.print(json_text(grounded["plan"], ensure_ascii=False), markup=False, soft_wrap=True)
            console.print(f"[bold]query[/bold] {escape(str(grounded['query']))}", soft_wrap=True, highlight=False)
            console.print(json_text(grounded["params"], ensure_ascii=False), markup=False, soft_wrap=True)
    usage = trace.usage
    title = (
        f"{answer.question}  [{skb}; steps={trace.steps_mode}; llm={trace.llm}; reranker={trace.reranker}; "
        f"{usage.calls} LLM calls, {usage.prompt_tokens}+{usage.completion_tokens} tokens]"
    )
    if not console.is_terminal or console.width < TABLE_MIN_WIDTH:  # a pipe, or a narrow terminal: plain lines
        for text in (title, *_answer_lines(answer.answers, trace.llm != "none")):
            console.print(text, markup=False, highlight=False, soft_wrap=True)
        return
    table = Table(title=plain(title))
    for column in ("rank", "id", "type", "name", "score", "evidence"):
        table.add_column(column, justify="right" if column in ("rank", "score") else "left")
    for rank, c in enumerate(answer.answers, 1):
        cells = (str(rank), str(c.id), c.type, c.name, f"{shown_score(c):.3f}", _evidence(c, trace.llm != "none"))
        table.add_row(*map(plain, cells))  # user and data text, never markup
    console.print(table)


TABLE_MIN_WIDTH = 120
"""Narrower than this (a pipe's console is 80 wide) the answer table wraps each evidence cell over many lines: the
answers are printed as two plain lines each instead."""


def _answer_lines(answers: Sequence[Candidate], with_llm: bool) -> list[str]:
    """Two lines per answer: rank, name, type, id and score; then its evidence, indented."""
    lines = []
    for rank, c in enumerate(answers, 1):
        lines.append(f"{rank:>3}. {c.name}  ({c.type} {c.id})  {shown_score(c):.3f}")
        lines.append(f"     {_evidence(c, with_llm)}")
    return lines


def _evidence(c: Candidate, with_llm: bool) -> str:
    """Strands, round and constants; with an LLM, which plans grounded a graph answer (without one, every graph
    answer is the linked entities' plan's)."""
    parts = ["+".join(c.strands)]
    if c.round_l is not None:
        parts.append(
            f"l={c.round_l}" + (f" ({' + '.join(c.plans)} plan{'s' if len(c.plans) > 1 else ''})" if with_llm else "")
        )
    by_symbol: dict[str, list[str]] = {}
    for match in c.matches:
        name = match.name or match.id
        by_symbol.setdefault(f"'{match.search}'", []).append(f"{name} (alias '{match.alias}')" if match.alias else name)
    parts += [f"{search} -> {', '.join(names)}" for search, names in by_symbol.items()]
    return "; ".join(parts)


@main.command()
@skb_option
@click.argument("question", required=False)
@click.option("--cypher", "cypher_text", help="The Cypher text to explain (as an LLM wrote it), instead of QUESTION.")
@click.option("--llm", default=None, help="QUESTION mode: none | openai:MODEL | llama:PATH.gguf (config 'llm').")
@click.option("--type", "types", multiple=True, help="QUESTION mode: answer type(s), as for kgqa ask.")
@click.option(
    "--dialect",
    type=click.Choice(STORES),
    default="falkordb",
    show_default=True,
    help="Whose Cypher to print; neo4j adds a block to paste into Neo4j Browser.",
)
@click.option(
    "--neo4j-version",
    default=None,
    help="Neo4j release to write for (config neo4j_version); 2026.01+ uses the Cypher 25 SEARCH clause.",
)
@click.option(
    "--l",
    "scope",
    type=click.IntRange(1, 1000),
    default=1,
    show_default=True,
    help="Candidates per constant in the shown parameters.",
)
@click.option("--lenient", is_flag=True, help="Map every label and type to the most similar one in the schema.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON; a rejected input prints {'error': ...}, exit 2.")
@click.pass_context
def explain(
    ctx: click.Context,
    skb: str,
    question: str | None,
    cypher_text: str | None,
    llm: str | None,
    types: tuple[str, ...],
    dialect: StoreKind,
    neo4j_version: str | None,
    scope: int,
    lenient: bool,
    as_json: bool,
) -> None:
    """Show the plan kgqa builds from a Cypher text, or from the Cypher the LLM writes for QUESTION (without an LLM:
    the plan of the entities linked in it): what it dropped or repaired, and the compiled query with its
    parameters."""
    if (question is None) == (cypher_text is None):
        raise click.UsageError("give either a QUESTION or --cypher TEXT (not both)")
    try:
        flags = {"neo4j_version": neo4j_version, "llm": llm, "cypher_mode": "lenient" if lenient else None}
        with session.connect(ctx, question, **flags) as kg:
            result = kg.explain(
                skb, cypher=cypher_text, question=question, scope=scope, types=types or None, dialect=dialect
            )
    except KgqaError as exc:  # a rejected Cypher text is a bad argument (a QuestionError): exit 2
        if not as_json:
            raise
        click.echo(json_text({"error": {"type": type(exc).__name__, "message": str(exc)}}))
        ctx.exit(2)
    if as_json:
        click.echo(json_text(result.to_json(), ensure_ascii=False, indent=2, default=str))
        return
    console = stdout()
    _print_explanation(console, result)
    if result.beside is not None:
        console.print("[bold]beside it, kgqa ask grounds the linked entities' plan:[/bold]")
        _print_explanation(console, result.beside)


def _print_explanation(console: Console, result: Explanation) -> None:
    from kgqa.runtime.steps.s4_grounding import NAMES_NO_NODE

    plan = result.plan
    if result.generated is not None:
        g = result.generated
        console.print(
            f"[bold]{escape(g.model)}[/bold] wrote ({g.usage.completion_tokens} tokens, {g.usage.seconds} s"
            f"{', cached' if g.usage.cached else ''}):"
        )
        print_block(console, g.reply, soft_wrap=True)
    console.print(f"[bold]target[/bold] {escape(str(plan.target))}")
    for symbol in plan.symbols:
        kind = f"constant '{symbol.search_string}'" if symbol.search_string is not None else "variable"
        console.print(f"  ({symbol.name}:{'|'.join(symbol.labels) or '?'}) {kind}", markup=False)
    for t in plan.triplets:
        console.print(
            f"  ({t.head})-[:{'|'.join(t.types)}]{'->' if t.direction == 'out' else '-'}({t.tail})", markup=False
        )
    for repair in result.repairs:
        console.print(
            f"repaired {repair.kind} {repair.original!r} -> {repair.replacement!r} ({repair.similarity})", markup=False
        )
    for dropped in plan.dropped:
        console.print(f"dropped {dropped.text!r}: {dropped.reason}", markup=False)
    if result.unnamed and result.generated is not None:
        console.print(
            f"no constant names a node (each one's best candidate under {NAMES_NO_NODE}, none exact): kgqa ask does "
            "not ground the LLM's plan",
            markup=False,
        )
    elif result.weak:
        console.print(
            f"weak constant(s) {', '.join(result.weak)}: kgqa ask counts this plan's rounds one later, its vote "
            "weighing nothing",
            markup=False,
        )
    console.print(f"[bold]query ({result.dialect})[/bold]")
    print_block(console, result.query, soft_wrap=True)
    console.print(json_text(result.params, ensure_ascii=False, default=str), markup=False)
    if result.browser is not None:
        console.print("[bold]Neo4j Browser[/bold] (paste both lines)")
        print_block(console, result.browser, soft_wrap=True)


SHELL_HELP = (
    "Type a question to answer it. Commands: :k N (answers), :steps vss|graph|hybrid|full, :json (toggle JSON), "
    ":explain (toggle plan and query), :help, :quit (or Ctrl-D). Up/down recall earlier lines (HOME/shell_history)."
)


@main.command()
@skb_option
@ask_options
@click.pass_context
def shell(
    ctx: click.Context,
    skb: str,
    types: tuple[str, ...],
    top_k: int | None,
    llm: str | None,
    steps: Steps | None,
    reranker: RerankerSetting | None,
    cross_encoder: str | None,
    alpha: float | None,
    l_max: int | None,
) -> None:
    """Ask questions one after another with the store and the models kept open, with line editing and history."""
    import readline

    flags = answer_flags(ctx)
    config = session.settings(ctx, **flags)
    history = config.home / "shell_history"
    view = {"json": False, "explain": False}
    prompt = f"{skb}> " if sys.stdin.isatty() else ""  # piped input gets answers only
    with session.start(config) as kg:  # opening kgqa made the data directory and proved it writable
        with contextlib.suppress(OSError):
            readline.read_history_file(history)
        readline.set_history_length(1000)
        ready = kg.readiness(skb)  # an SKB that is not loaded fails here, not at the first question
        say(f"kgqa shell on '{skb}'. {SHELL_HELP}", err=True)
        if not ready.documents:
            _readiness_line(ready)
        try:
            while True:
                try:
                    line = input(prompt).strip()
                except EOFError:
                    click.echo(err=True)
                    break
                if not line:
                    continue
                if line.startswith(":"):
                    if not _shell_command(line, view, flags):
                        break
                    kg.config = session.settings(ctx, **flags)
                    continue
                try:
                    answer = kg.ask(line, skb, types=types or None)
                except KgqaError as exc:
                    say(f"error: {exc}", err=True)
                    continue
                _print_answer(answer, skb, show_plan=view["explain"], as_json=view["json"])
        finally:
            with contextlib.suppress(OSError):
                readline.write_history_file(history)


def _readiness_line(ready: Readiness) -> None:
    """How far the documents' vectors are, one line on stderr; with a bar where a terminal is attached."""
    console = stderr()
    if console.is_terminal:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        row = Table.grid(padding=(0, 1))
        row.add_row(ProgressBar(total=max(1, ready.total), completed=ready.embedded, width=30), escape(ready.line()))
        console.print(row)
    else:
        console.print(ready.line(), markup=False, highlight=False, soft_wrap=True)


def _shell_command(line: str, view: dict[str, bool], flags: dict[str, Any]) -> bool:
    """Apply one ``:command`` of the shell; False to quit."""
    name, _, arg = line[1:].partition(" ")
    arg = arg.strip()
    if name in ("q", "quit", "exit"):
        return False
    if name in ("json", "explain"):
        view[name] = not view[name]
        say(f"{name} {'on' if view[name] else 'off'}", err=True)
    elif name == "k" and arg.isdigit() and 1 <= int(arg) <= MAX_TOP_K:
        flags["top_k"] = int(arg)
    elif name == "steps" and arg in STEPS:
        flags["steps"] = arg
    else:
        say(SHELL_HELP if name == "help" else f"unknown command {line!r}; {SHELL_HELP}", err=True)
    return True
