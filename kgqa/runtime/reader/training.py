"""``kgqa train-reader``: the question reader learned from the SKB itself (issue 51), offline, in minutes.

Stages, one function each:

1. :func:`skb_texts`: every word of the SKB's names and aliases, with how many hold it (typo-tolerant linking:
   :mod:`kgqa.runtime.reader.spelling`), and the words its documents use and the embedder's tokenizer knows whole.
2. :func:`training_questions`: questions generated from the SKB in every phrasing family (no LLM), each family's
   written once to ``<home>/readers/.work-<skb>/`` and read back, so a killed run resumes there and a retraining
   (or a family left out) generates nothing again; ``--force`` starts over.
3. :func:`training_examples` and :meth:`TypeHead.fit`: the questions and their varied copies
   (:mod:`kgqa.runtime.reader.examples`), embedded by the SKB's embedder, and the answer-type head fitted on them.
4. :meth:`Reader.save`: the reader into ``<home>/readers/<skb>/`` at once; ``kgqa ask`` then uses it.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgqa.errors import KgqaError
from kgqa.provenance import provenance
from kgqa.runtime.embed import Embedder
from kgqa.runtime.progress import ProgressSink, task
from kgqa.runtime.reader import READERS, Reader, find_reader
from kgqa.runtime.reader.examples import Example, variants
from kgqa.runtime.reader.families import FAMILIES
from kgqa.runtime.reader.questions import Conditions, GeneratedQuestion, condition_reads, generate
from kgqa.runtime.reader.spelling import Spelling, acronyms, completions, designations, fillers, vocabulary
from kgqa.runtime.reader.types import TypeHead, asking_sentence
from kgqa.runtime.skbs import check_name
from kgqa.runtime.text import LETTERS

if TYPE_CHECKING:
    from kgqa.runtime.engine import Engine

QUESTIONS_PER_FAMILY = 120
SEED = 202
"""Not the seeds of the benchmarks' question sets (11 for quality_hpo, the families' own)."""
CHUNK = 5000
"""Ids per read of names and aliases."""
DOC_WORD_FLOOR = 3
"""Documents a word must be in to count as a word of the SKB's language (on HPO, "syndrom" is in 2, "ontology" in
11, the misspellings of the natural dev half in none)."""
NAMES_PER_LABEL = 200
"""Node names per label that lead-ins draw from."""
RECIPE = 6
"""What the reader is trained on and how; a reader of another recipe is trained again even with the same settings
(2: the type head reads the sentence that asks, not a trailer after it; 3: the names' common endings, to complete a
name typed without one; 4: only eponyms are completed; 5: numbered names typed as eponym or initials and number;
6: and numbered as typed)."""


@dataclass(frozen=True)
class ReaderSettings:
    skb: str
    questions_per_family: int = QUESTIONS_PER_FAMILY
    seed: int = SEED
    families: tuple[str, ...] = tuple(FAMILIES)
    """The phrasing families the questions are generated in; leaving one out measures phrasing never seen."""


def work_folder(home: Path, skb: str) -> Path:
    return home / READERS / f".work-{skb}"


@dataclass(frozen=True)
class SkbTexts:
    """What the reader reads from the SKB's own text (:func:`skb_texts`)."""

    names: list[str]
    """Every name and alias: the vocabulary, abbreviations and endings are read from them."""
    in_docs: frozenset[str]
    """The words its documents use in :data:`DOC_WORD_FLOOR` or more of them (words of its language, never typos:
    "ontology" is no misspelt "oncology")."""
    lower_in_docs: frozenset[str]
    """Those of them written in small letters in as many documents: common words, not names ("phenotypic",
    "young"; an eponym is written "Marfan")."""


def skb_texts(kg: Engine, skb: str, progress: ProgressSink | None) -> SkbTexts:
    """Stage 1: every name and alias of the SKB, and the words of its documents."""
    schema = kg.schema(skb)
    texts: list[str] = []
    in_docs: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    labels = [info.name for info in schema.labels]
    with task(progress, "reading names", None) as advance:
        for label in labels:
            ids = kg.store.label_ids(skb, label)
            for start in range(0, len(ids), CHUNK):
                part = ids[start : start + CHUNK]
                for node in kg.store.documents(skb, label, part):
                    texts.append(node.name)
                    words = set(LETTERS.findall(node.doc))
                    in_docs.update({word.lower() for word in words})
                    lower.update({word for word in words if word.islower()})
                if schema.has_aliases:
                    texts += [a for found in kg.store.aliases(skb, label, part).values() for a in found]
                advance(len(part))

    def floor(counts: Counter[str]) -> frozenset[str]:
        return frozenset(word for word, n in counts.items() if n >= DOC_WORD_FLOOR)

    return SkbTexts(texts, floor(in_docs), floor(lower))


def whole_words(embedder: Embedder) -> frozenset[str]:
    """The words the embedder's tokenizer holds whole (common words of its language): never taken for typos. Empty
    for an embedder without a word-piece vocabulary (an API model)."""
    tokenizer = getattr(embedder.encoder, "tokenizer", None)
    get_vocab = getattr(tokenizer, "get_vocab", None)
    if get_vocab is None:
        return frozenset()
    return frozenset(word for word in get_vocab() if LETTERS.fullmatch(word))


def training_questions(
    kg: Engine, settings: ReaderSettings, folder: Path, notice: Callable[[str], None]
) -> list[GeneratedQuestion]:
    """Stage 2: ``questions_per_family`` questions in each family, each family's generated once for this graph, count
    and seed and kept in ``folder`` (a killed run, a retraining and a family left out read them back)."""
    meta = kg.meta(settings.skb)
    schema = kg.schema(settings.skb)
    key = {"fingerprint": meta.fingerprint, "n": settings.questions_per_family, "seed": settings.seed}
    made: list[GeneratedQuestion] = []
    reads: Conditions | None = None  # read once, for the first family to generate, and shared by the next ones
    for family in settings.families:
        path = folder / f"{family}.json"
        saved = _read_json(path)
        if saved.get("key") == key:
            made += [GeneratedQuestion(**q) for q in saved["questions"]]
            continue
        if reads is None:
            reads = condition_reads(kg.store, settings.skb, meta.candidate_types)
        found = generate(
            kg.store,
            settings.skb,
            schema,
            meta.candidate_types,
            settings.questions_per_family,
            settings.seed,
            phrasing="natural",
            families=[family],
            reads=reads,
        )
        notice(f"{family}: {len(found)} questions")
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        partial.write_text(json.dumps({"key": key, "questions": [asdict(q) for q in found]}), encoding="utf-8")
        partial.replace(path)  # whole or not at all: a kill mid-write leaves no torn file to read back
        made += found
    if not made:
        raise KgqaError(f"no training question could be generated from SKB '{settings.skb}'")
    return made


def _read_json(path: Path) -> dict[str, Any]:
    """A kept family's questions, or {} when there are none that can be read (they are generated again)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def training_examples(kg: Engine, skb: str, questions: Sequence[GeneratedQuestion], seed: int) -> list[Example]:
    """Stage 3a: the questions and their varied copies, lead-ins naming nodes of every label."""
    names = {
        label: kg.store.example_names(skb, label, NAMES_PER_LABEL)
        for label in (info.name for info in kg.schema(skb).labels)
    }
    return variants(questions, names, seed)


def fit_types(embedder: Embedder, examples: Sequence[Example], labels: Sequence[str]) -> TypeHead:
    """Stage 3b: the type head on the examples' asking sentences, read as step 1 reads a question's."""
    sentences = [asking_sentence(e.text) for e in examples]
    return TypeHead.fit(sentences, embedder.embed(sentences), [e.target for e in examples], labels)


@dataclass(frozen=True)
class Outcome:
    reader: Reader
    already: bool


def train(
    kg: Engine,
    settings: ReaderSettings,
    *,
    force: bool = False,
    progress: ProgressSink | None = None,
    notice: Callable[[str], None] = lambda _: None,
) -> Outcome:
    """Train (or, with the same settings and graph and no ``force``, keep) the reader of ``settings.skb`` in
    ``kg``'s data directory (``kgqa train-reader``, and ``kgqa load`` with ``reader_on_load``)."""
    check_name(settings.skb)
    home = kg.config.home
    folder = work_folder(home, settings.skb)
    if force:
        shutil.rmtree(folder, ignore_errors=True)
    meta = kg.meta(settings.skb)
    existing = None if force else find_reader(home, settings.skb)
    wanted = asdict(settings) | {"families": list(settings.families), "embedder": kg.embedder_name(), "recipe": RECIPE}
    same = existing is not None and existing.info.get("settings") == wanted
    if existing is not None and same and existing.info.get("fingerprint") == meta.fingerprint:
        return Outcome(existing, True)
    start = time.perf_counter()
    read = skb_texts(kg, settings.skb, progress)
    names = read.names
    counts = dict(vocabulary(names))
    embedder = kg.embedder
    whole = whole_words(embedder)
    known = whole | read.in_docs
    questions = training_questions(kg, settings, folder, notice)
    examples = training_examples(kg, settings.skb, questions, settings.seed)
    with task(progress, "fitting the type head", None):
        head = fit_types(embedder, examples, meta.candidate_types)
    info = {
        "skb": settings.skb,
        "settings": wanted,
        "fingerprint": meta.fingerprint,
        "questions": len(questions),
        "examples": len(examples),
        "vocabulary_words": len(counts),
        "known_words": len(known),
        "seconds": round(time.perf_counter() - start, 1),
        "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "provenance": provenance(),
    }
    reader = Reader(
        settings.skb,
        Spelling(
            counts,
            known,
            acronyms(names),
            completions(names, whole | read.lower_in_docs),
            designations(names),
            fillers(names),
        ),
        head,
        info,
    )
    reader.save(home)
    return Outcome(reader, False)
