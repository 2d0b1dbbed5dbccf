"""``kgqa questions`` and ``kgqa eval``: question sets and how well they are answered."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import click
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from kgqa.choices import BASELINES, RERANKER_SETTINGS, STEPS, Baseline, RerankerSetting, Steps
from kgqa.cli import session
from kgqa.cli.ask import report_refused
from kgqa.cli.options import skb_option
from kgqa.cli.output import progress_bar, spinning, stderr, stdout
from kgqa.cli.root import main
from kgqa.config import MAX_TOP_K
from kgqa.errors import (
    InputError,
    KgqaError,
)
from kgqa.lab.qa import SPLITS


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
    with session.connect(ctx, llm=llm) as kg:
        meta = kg.meta(skb)
        chosen = types or meta.candidate_types
        with spinning(stderr(), f"generating {count} questions"):
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
    stderr().print(
        f"wrote {len(made)} questions to {out} and {meta_path} ({how}; {kinds})", highlight=False, markup=False
    )
    for label, why in unasked.items():
        stderr().print(f"note: no question has answer type '{label}'{why}", highlight=False, markup=False)


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
@click.option("--k", "top_k", type=click.IntRange(1, MAX_TOP_K), default=None)
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

    config = session.settings(ctx, steps=steps, reranker=reranker, llm=llm, top_k=top_k)
    given = eval_input(qa_path, split, limit, config.max_question_chars, query_embeddings, out)
    questions = given.questions
    report_refused(given.rows)
    skipped = f"; skipped {len(given.rows.refused)} refused rows" if given.rows.refused else ""
    stderr().print(
        f"read {len(questions)} questions ({split}) from {qa_path}{skipped}", highlight=False, soft_wrap=True
    )
    with session.start(config) as kg:
        rows = eval_rows(kg.config, skb, ablation, baselines)
        kg.meta(skb)
        with progress_bar(
            stderr(),
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
    stdout().print(table)
    refused = given.rows.strict_error() if strict else None
    if refused is not None:
        raise refused
