"""``kgqa questions``: STaRK-style questions for any loaded SKB, with exact ground truth.

STaRK's recipe, over the live schema and store: sample a 1- or 2-hop relational template ending at the answer type
(``(y:T)-[r1]-(m:M)-[r2]-(a:A)``), pick a gold answer ``y`` and, among the nodes its template reaches, an anchor
``a`` (named in the question); add a textual condition, a word of the gold answer's document; the ground truth is
every node of type T that reaches the anchor along the template AND whose document contains the word, computed by
one query. Questions with 1-20 answers are kept. They are phrased by templates, and paraphrased by the LLM when one is
configured (a paraphrase that drops the anchor's name or the word is not used); or, with ``phrasing="natural"``, worded
as analysts type them by :mod:`kgqa.phrasing` (the same sampled questions: their wording has its own random stream),
the anchor named, in lower case, by a synonym or by a short description. The natural wording names a hierarchy's
direction ("direct subtypes of X") where the graph has one, and the answers are then restricted to it. The word must
be specific, as STaRK's textual properties are: one found in more than ``max_word_share`` of the answer type's
documents ("protein" in gene documents) says nothing and is never chosen. Output: STaRK's CSV (``id,query,answer_ids``)
and a metadata JSON (template, kind, phrasing, anchor and how it was mentioned, word, gold answer, the templated
text).

``split`` partitions the questions by their gold answer, so that a model trained on generated questions (``kgqa
train-reranker``) can be tested on questions about other nodes: a stable hash of the gold answer's id puts
:data:`TRAIN_SHARE` of the nodes in ``train`` and the rest in ``test``; ``all`` (the default) keeps every question,
so the question set of a seed is what it always was."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, TypeVar

from kgqa.errors import InputError, LlmError, StoreTimeoutError
from kgqa.llm import ChatModel, Message
from kgqa.phrasing import Direction, MentionStyle, description, directed, kind, natural
from kgqa.store.base import GraphStore, Schema

MAX_ANSWERS = 20
MAX_WORD_SHARE = 0.05
"""Default: a word in more than 5% of the answer type's documents is too generic to be a textual condition."""
WORD = re.compile(r"[A-Za-z][a-z]{6,}")
_COMMON = """because between another through without however include including associated characterized
disorder disease patients usually typically several caused called either within different"""
COMMON = frozenset(_COMMON.split())
TIMED_OUT = "its template's query timed out"
"""The rejection of a sample whose path query ran past the store's timeout: 2-hop templates through hub nodes of a
MAG-size graph take tens of seconds; the generator tries another sample instead of failing."""
Phrasing = Literal["template", "natural"]
PHRASINGS: tuple[Phrasing, ...] = ("template", "natural")
Split = Literal["all", "train", "test"]
SPLITS: tuple[Split, ...] = ("all", "train", "test")
TRAIN_SHARE = 0.8
"""The share of nodes whose questions are in the ``train`` split (by a hash of the gold answer's id)."""


def as_phrasing(text: str) -> Phrasing:
    """``text`` as a :data:`Phrasing`, or an input error naming the choices."""
    return _as_choice(text, PHRASINGS, "phrasing")


def as_split(text: str) -> Split:
    """``text`` as a :data:`Split`, or an input error naming the choices."""
    return _as_choice(text, SPLITS, "split")


C = TypeVar("C", bound=str)


def _as_choice(text: str, choices: tuple[C, ...], what: str) -> C:
    for choice in choices:
        if text == choice:
            return choice
    raise InputError(f"{what} must be one of {', '.join(choices)}, got '{text}'")


def split_of(node_id: str) -> Split:
    """The split of questions whose gold answer is ``node_id``: ``train`` or ``test``, by SHA-256 of the id (stable
    across processes and machines, unlike Python's salted ``hash``)."""
    bucket = int.from_bytes(hashlib.sha256(node_id.encode("utf-8")).digest()[:8], "big") / 2**64
    return "train" if bucket < TRAIN_SHARE else "test"


def in_split(node_id: str, split: Split) -> bool:
    return split == "all" or split_of(node_id) == split


MENTION_WEIGHTS: dict[MentionStyle, int] = {"name": 4, "lower": 2, "alias": 3, "description": 1}
"""How often a natural question names its anchor each way, among the ways the anchor has (not every node has a
synonym or a definition; a name already in lower case has no lower-case variant)."""


@dataclass(frozen=True)
class Generated:
    id: str
    query: str
    answer_ids: list[str]
    template: str
    anchor_id: str
    anchor_name: str
    word: str
    gold_id: str
    templated: str
    paraphrased: bool
    kind: str
    """'negation', 'hierarchy', '1-hop' or '2-hop' (:func:`kgqa.phrasing.kind`), for metrics per kind."""
    phrasing: Phrasing
    mention: MentionStyle
    """How the question names the anchor: 'name' (always with template phrasing), 'lower', 'alias', 'description'."""
    mention_text: str
    direction: Direction | None
    """The edge direction the natural wording names (the answers are restricted to it), or None."""


def templates(schema: Schema, target: str) -> list[list[tuple[str, str]]]:
    """All 1- and 2-hop paths (as (type, label) hops) from ``target`` over the schema, edges read undirected."""
    steps: dict[str, list[tuple[str, str]]] = {}
    for r in schema.relationships:
        steps.setdefault(r.source, []).append((r.type, r.target))
        if r.source != r.target:
            steps.setdefault(r.target, []).append((r.type, r.source))
    paths = [[hop] for hop in steps.get(target, [])]
    paths += [[first, second] for first in steps.get(target, []) for second in steps.get(first[1], [])]
    return paths


def phrase(target: str, hops: Sequence[tuple[str, str]], anchor: str, word: str) -> str:
    """A plain template sentence; names and the word are quoted exactly as in the graph."""
    if len(hops) == 1:
        relation = f"have a '{hops[0][0]}' relation with the {hops[0][1]} \"{anchor}\""
    else:
        relation = (
            f"have a '{hops[0][0]}' relation with a {hops[0][1]} that has a '{hops[1][0]}' relation with the "
            f'{hops[1][1]} "{anchor}"'
        )
    return f'Which {target} nodes {relation}, and mention "{word}"?'


def paraphrase(llm: ChatModel, text: str, anchor: str, word: str) -> str | None:
    prompt = (
        f'Rewrite this question as a person would ask it, in one sentence. Keep "{anchor}" and '
        f'"{word}" exactly as written.\n\nQuestion: {text}\nRewritten question:'
    )
    try:
        reply = llm.complete([Message("user", prompt)], max_tokens=80, temperature=0.0).text.strip()
    except LlmError:
        return None
    reply = reply.splitlines()[0].strip().strip('"') if reply else ""
    ok = anchor.lower() in reply.lower() and word.lower() in reply.lower() and reply.endswith("?")
    return reply if ok else None


def candidate_words(doc: str) -> set[str]:
    """The words of a document that may become a textual condition: 7+ letters, not a common word."""
    return {w for w in WORD.findall(doc) if w.lower() not in COMMON}


def document_frequencies(docs: Sequence[str]) -> Counter[str]:
    """In how many of ``docs`` each candidate word occurs (case-insensitive, once per document)."""
    return Counter(w for doc in docs for w in {w.lower() for w in candidate_words(doc)})


def specific_words(doc: str, frequencies: Counter[str], total: int, max_share: float) -> list[str]:
    """The candidate words of ``doc`` found in at most ``max_share`` of the ``total`` documents (at least 1)."""
    limit = max(1, int(max_share * total))
    return sorted(w for w in candidate_words(doc) if frequencies[w.lower()] <= limit)


@dataclass(frozen=True)
class Mention:
    """How a question names its anchor, and the text it names it by."""

    style: MentionStyle
    text: str


def aliases(store: GraphStore, skb: str, label: str, node_id: str) -> tuple[str, ...]:
    """The node's aliases (HPO synonyms, gene names) as its load stored them; none for a graph without aliases."""
    return store.aliases(skb, label, [node_id]).get(node_id, ())


def choose_mention(store: GraphStore, skb: str, label: str, node_id: str, name: str, rng: random.Random) -> Mention:
    """How a natural question names the anchor, drawn by :data:`MENTION_WEIGHTS` among the ways it has."""
    docs = store.documents(skb, label, [node_id])
    described = description(docs[0].doc) if docs else None
    options: dict[MentionStyle, list[str]] = {
        "name": [name],
        "lower": [name.lower()] if name.lower() != name else [],
        "alias": [a for a in aliases(store, skb, label, node_id) if a.lower() != name.lower()],
        "description": [described] if described else [],
    }
    styles = [style for style in MENTION_WEIGHTS if options[style]]
    style = rng.choices(styles, weights=[MENTION_WEIGHTS[s] for s in styles])[0]
    return Mention(style, rng.choice(options[style]))


def named_direction(
    store: GraphStore, skb: str, target: str, hops: Sequence[tuple[str, str]], anchor_id: str, gold: str
) -> tuple[Direction | None, frozenset[str]]:
    """The direction a 1-hop question between nodes of one label may name, and the answer's side of the anchor's
    edges in it; (None, {}) when it names none.

    Templates read edges undirected, so the answers of "(phenotype)-[parent-child]-(Seizure)" are Seizure's children
    AND parents. The natural wording says which ("direct subtypes of Seizure"), so its answers are restricted to that
    side, the one holding the gold answer; a gold answer on both sides (PRIME stores every edge in both
    directions) names none."""
    if len(hops) != 1 or hops[0][1] != target or not directed(hops[0][0]):
        return None, frozenset()
    try:
        relations = store.relations(skb, target, [anchor_id])
    except StoreTimeoutError:  # a hub anchor: word it without a direction
        return None, frozenset()
    edges = [r for r in relations if r.type == hops[0][0] and r.node == anchor_id]
    to_anchor = frozenset(r.neighbour for r in edges if not r.out)
    from_anchor = frozenset(r.neighbour for r in edges if r.out)
    if gold in to_anchor and gold not in from_anchor:
        return "to_anchor", to_anchor
    if gold in from_anchor and gold not in to_anchor:
        return "from_anchor", from_anchor
    return None, frozenset()


def generate(
    store: GraphStore,
    skb: str,
    schema: Schema,
    types: Sequence[str],
    n: int,
    seed: int,
    llm: ChatModel | None = None,
    attempts_per_question: int = 50,
    max_word_share: float = MAX_WORD_SHARE,
    rejected: Counter[tuple[str, str]] | None = None,
    phrasing: Phrasing = "template",
    split: Split = "all",
) -> list[Generated]:
    """``n`` questions (fewer only if the graph cannot give them); deterministic for a seed without an LLM.

    ``rejected`` counts the (answer type, reason) of every sampled attempt that did not become a question, so a
    short result can say why (HPO gene documents, for one, have no word specific enough to ask about).
    ``phrasing="natural"`` words the same sampled questions by :func:`kgqa.phrasing.natural` (never paraphrased by
    the LLM) from a random stream of its own, so the template set of a seed stays what it was. ``split`` keeps only
    questions whose gold answer is in it (:func:`split_of`), drawn before any store query; the attempts grow by the
    inverse of its share of the nodes."""
    rejected = Counter() if rejected is None else rejected
    if not 0 < max_word_share <= 1:
        raise InputError(f"max_word_share must be in (0, 1], got {max_word_share}")
    phrasing = as_phrasing(phrasing)
    split = as_split(split)
    share = {"all": 1.0, "train": TRAIN_SHARE, "test": 1.0 - TRAIN_SHARE}[split]
    rng = random.Random(seed)
    wording = random.Random(f"natural-{seed}")
    ids = {t: store.label_ids(skb, t) for t in types}
    frequencies: dict[str, Counter[str]] = {}
    options = {t: templates(schema, t) for t in types if ids[t] and templates(schema, t)}
    if not options:
        raise InputError(f"SKB '{skb}' has no relationships from its answer types to sample questions from")
    out: list[Generated] = []
    seen: set[str] = set()
    for _ in range(math.ceil(n * attempts_per_question / share)):
        if len(out) == n:
            break
        target = rng.choice(sorted(options))
        hops = rng.choice(options[target])
        gold = rng.choice(ids[target])
        if not in_split(gold, split):
            rejected[target, f"the gold answer is outside the {split} split"] += 1
            continue
        try:
            reached = store.reachable(skb, target, hops, gold)
        except StoreTimeoutError:  # a hub on the template's path: try another sample
            rejected[target, TIMED_OUT] += 1
            continue
        docs = store.documents(skb, target, [gold])
        if not reached or not docs:
            rejected[target, "the gold answer has no node along the template"] += 1
            continue
        anchor_id, anchor_name = rng.choice(reached)
        if target not in frequencies:  # one pass over the type's documents, the first time it is sampled
            frequencies[target] = document_frequencies([d.doc for d in store.documents(skb, target, ids[target])])
        words = specific_words(docs[0].doc, frequencies[target], len(ids[target]), max_word_share)
        if not words:
            rejected[target, f"no document word in at most {max_word_share:g} of its type's documents"] += 1
            continue
        word = rng.choice(words)
        try:
            answers = store.path_answers(skb, target, hops, anchor_id, word.lower())
        except StoreTimeoutError:
            rejected[target, TIMED_OUT] += 1
            continue
        if not 1 <= len(answers) <= MAX_ANSWERS or gold not in answers:
            rejected[target, f"not 1-{MAX_ANSWERS} answers"] += 1
            continue
        templated = phrase(target, hops, anchor_name, word)
        if templated in seen:
            rejected[target, "a question already made"] += 1
            continue
        seen.add(templated)
        template = " / ".join([target, *(f"{t} {label}" for t, label in hops)])
        mention, direction = Mention("name", anchor_name), None
        if phrasing == "natural":
            mention = choose_mention(store, skb, hops[-1][1], anchor_id, anchor_name, wording)
            direction, side = named_direction(store, skb, target, hops, anchor_id, gold)
            if direction is not None:
                answers = [a for a in answers if a in side]
            text = natural(target, hops, mention.text, word, wording, style=mention.style, direction=direction)
            paraphrased = False
        else:
            paraphrased_text = paraphrase(llm, templated, anchor_name, word) if llm is not None else None
            text, paraphrased = paraphrased_text or templated, paraphrased_text is not None
        out.append(
            Generated(
                str(len(out)),
                text,
                answers,
                template,
                anchor_id,
                anchor_name,
                word,
                gold,
                templated,
                paraphrased,
                kind(hops),
                phrasing,
                mention.style,
                mention.text,
                direction,
            )
        )
    return out


def write(questions: Sequence[Generated], out: Path, meta: dict[str, object]) -> Path:
    """STaRK CSV at ``out`` and ``<out stem>.meta.json`` beside it; returns the metadata path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "query", "answer_ids"])
        for g in questions:
            writer.writerow([g.id, g.query, json.dumps(g.answer_ids, allow_nan=False)])
    meta_path = out.with_name(out.stem + ".meta.json")
    doc = {**meta, "questions": [asdict(g) for g in questions]}
    meta_path.write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return meta_path
