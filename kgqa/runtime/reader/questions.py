"""``kgqa questions``: STaRK-style questions for any loaded SKB, with exact ground truth.

STaRK's recipe, over the live schema and store: sample a 1- or 2-hop relational template ending at the answer type
(``(y:T)-[r1]-(m:M)-[r2]-(a:A)``), pick a gold answer ``y`` and, among the nodes its template reaches, an anchor ``a``
(named in the question); add a textual condition, a word of the gold answer's document; the ground truth is every node
of type T that reaches the anchor along the template AND whose document contains the word, computed by one query.
Questions with 1-20 answers are kept. They are phrased by templates, and paraphrased by the LLM when one is configured
(a paraphrase that drops the anchor's name or the word is not used); or, with ``phrasing="natural"``, worded as analysts
type them by :mod:`kgqa.runtime.reader.phrasing` (the same sampled questions: their wording has its own random stream),
the anchor named, in lower case, by a synonym or by a short description. The natural wording names a hierarchy's
direction ("direct subtypes of X") where the graph has one, and the answers are then restricted to it. The word must be
specific, as STaRK's textual properties are: one found in more than ``max_word_share`` of the answer type's documents
("protein" in gene documents) says nothing and is never chosen. Output: STaRK's CSV (``id,query,answer_ids``) and a
metadata JSON (template, kind, phrasing, anchor and how it was mentioned, word, gold answer, the templated text).

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
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from kgqa.choices import PHRASINGS, SPLITS, Phrasing, Split
from kgqa.errors import InputError, LlmError, StoreTimeoutError
from kgqa.loaders.hpo import DISEASE, GENE, PARENT_CHILD, PHENOTYPE, PRESENT
from kgqa.runtime.llm import ChatModel, Message
from kgqa.runtime.reader.families import FAMILIES, as_families, inheritance_word, onset_word
from kgqa.runtime.reader.families import word as family_word
from kgqa.runtime.reader.family_words import Condition, ConditionKind, Family
from kgqa.runtime.reader.phrasing import DEFINITION, Direction, MentionStyle, description, directed, kind
from kgqa.runtime.store.base import NodeText, Schema
from kgqa.runtime.store.protocols import GraphReader, GraphStore, TextSearcher

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
synonym or a definition; a name already in lower case has no lower-case variant): the ``analyst`` family's."""
DEFAULT_FAMILIES = ("analyst",)
"""The families :func:`generate` words natural questions in unless told: the tuned generator's, so a seed gives
the questions it always gave (``kgqa questions --phrasing natural`` asks for every family)."""
ALL_FAMILIES = tuple(FAMILIES)
BRANCHES: dict[ConditionKind, str] = {"onset": "HP:0003674", "inheritance": "HP:0000005"}
"""HPO's Onset and Mode of inheritance terms: a disease's 'phenotype present' edge to a term under them is its onset
or its inheritance."""
NAME_WORD = re.compile(r"[A-Za-z]{4,}")
"""A word of a name that may be a condition (a run of letters: 'tonic-clonic' has 'tonic' and 'clonic')."""
PLAIN_TOKEN = re.compile(r"[A-Za-z](?:[A-Za-z-]*[A-Za-z])?")
_FUNCTION = "a an and as at by due for from in into of on or the to with without"
FUNCTION_WORDS = frozenset(_FUNCTION.split())
"""Words a definition phrase does not start or end with, and names with them have no dropped-word mention."""


@dataclass(frozen=True)
class GeneratedQuestion:
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
    """'negation', 'hierarchy', '1-hop' or '2-hop' (:func:`kgqa.runtime.reader.phrasing.kind`), for metrics per kind."""
    phrasing: Phrasing
    mention: MentionStyle
    """How the question names the anchor: 'name' (always with template phrasing), 'lower', 'alias', 'description'."""
    mention_text: str
    direction: Direction | None
    """The edge direction the natural wording names (the answers are restricted to it), or None."""
    family: str | None = None
    """The phrasing family (:data:`kgqa.runtime.reader.families.FAMILIES`); None in files written before families."""
    condition: ConditionKind = "doc-word"
    """The textual condition's kind; ``word`` is its text (the word, alias, phrase, prefix or term name)."""
    condition_id: str | None = None
    """The HPO term of an onset or inheritance condition (the answers have it or a term under it)."""


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


TEMPLATE_CONDITIONS: dict[ConditionKind, str] = {
    "doc-word": 'mention "{w}"',
    "name-word": 'have the word "{w}" in their name',
    "synonym": 'have the synonym "{w}"',
    "definition": 'have "{w}" in their definition',
    "symbol-prefix": 'have a name starting with "{w}"',
    "onset": f"have a '{PRESENT}' relation with \"{{w}}\" or a term under it",
    "inheritance": f"have a '{PRESENT}' relation with \"{{w}}\" or a term under it",
}


def phrase(
    target: str, hops: Sequence[tuple[str, str]], anchor: str, word: str, condition: ConditionKind = "doc-word"
) -> str:
    """A plain template sentence; names and the word are quoted exactly as in the graph."""
    if len(hops) == 1:
        relation = f"have a '{hops[0][0]}' relation with the {hops[0][1]} \"{anchor}\""
    else:
        relation = (
            f"have a '{hops[0][0]}' relation with a {hops[0][1]} that has a '{hops[1][0]}' relation with the "
            f'{hops[1][1]} "{anchor}"'
        )
    said = TEMPLATE_CONDITIONS[condition].replace("{w}", word)
    return f"Which {target} nodes {relation}, and {said}?"


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


def aliases(store: TextSearcher, skb: str, label: str, node_id: str) -> tuple[str, ...]:
    """The node's aliases (HPO synonyms, gene names) as its load stored them; none for a graph without aliases."""
    return store.aliases(skb, label, [node_id]).get(node_id, ())


def dropped_words(store: TextSearcher, skb: str, label: str, name: str) -> list[str]:
    """The name with one word before its head left out ("Generalized tonic-clonic seizures" -> "tonic-clonic
    seizures"), for names of 3+ plain words without function words; never a text that names another node."""
    tokens = name.split()
    plain = [PLAIN_TOKEN.fullmatch(t) is not None for t in tokens]
    if len(tokens) < 3 or not plain[-1] or any(t.lower() in FUNCTION_WORDS for t in tokens):
        return []
    out = []
    for i in range(len(tokens) - 1):
        text = " ".join(tokens[:i] + tokens[i + 1 :])
        if plain[i] and not store.exact_name(skb, label, text) and not store.exact_alias(skb, [label], text):
            out.append(text)
    return out


def choose_mention(
    store: GraphStore,
    skb: str,
    label: str,
    node_id: str,
    name: str,
    rng: random.Random,
    weights: Mapping[MentionStyle, int] = MENTION_WEIGHTS,
) -> Mention:
    """How a natural question names the anchor, drawn by ``weights`` (the family's) among the ways it has."""
    docs = store.documents(skb, label, [node_id])
    described = description(docs[0].doc) if docs else None
    options: dict[MentionStyle, list[str]] = {
        "name": [name],
        "lower": [name.lower()] if name.lower() != name else [],
        "alias": [a for a in aliases(store, skb, label, node_id) if a.lower() != name.lower()],
        "description": [described] if described else [],
        "dropped-word": dropped_words(store, skb, label, name) if weights.get("dropped-word") else [],
    }
    styles = [style for style in weights if options[style] and weights[style] > 0]
    style = rng.choices(styles, weights=[weights[s] for s in styles])[0]
    return Mention(style, rng.choice(options[style]))


def named_direction(
    store: GraphReader, skb: str, target: str, hops: Sequence[tuple[str, str]], anchor_id: str, gold: str
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


def name_frequencies(names: Sequence[str]) -> Counter[str]:
    """In how many of ``names`` each name word occurs (case-insensitive, once per name)."""
    return Counter(w for name in names for w in {w.lower() for w in NAME_WORD.findall(name)})


def has_word(name: str, word: str) -> bool:
    """Whether ``word`` is a word of ``name`` (a run of letters, ignoring case): the name-word condition."""
    return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", name, re.IGNORECASE) is not None


def definition_of(doc: str) -> str | None:
    match = DEFINITION.search(doc)
    return match.group(1).strip() if match else None


def definition_phrases(doc: str) -> list[str]:
    """The 3-6 word phrases of a document's definition that may be a condition: plain words only (no
    punctuation inside), not starting or ending with a function word, found verbatim in the definition."""
    definition = definition_of(doc)
    if not definition:
        return []
    tokens = definition.split()
    out: set[str] = set()
    for size in range(3, 7):
        for start in range(len(tokens) - size + 1):
            window = [*tokens[start : start + size - 1], tokens[start + size - 1].rstrip(",.;:")]  # may end a clause
            if not all(PLAIN_TOKEN.fullmatch(t) for t in window):
                continue
            if window[0].lower() in FUNCTION_WORDS or window[-1].lower() in FUNCTION_WORDS:
                continue
            text = " ".join(window)
            if text.lower() in definition.lower():
                out.add(text)
    return sorted(out)


def symbol_prefixes(name: str) -> list[str]:
    """The first 3 and 4 letters of a gene symbol ('KCNQ2' -> 'KCN', 'KCNQ'), never the whole symbol."""
    letters = re.match(r"[A-Za-z]*", name)
    run = letters.group() if letters else ""
    return [name[:k].upper() for k in (3, 4) if len(run) >= k and len(name) > k]


@dataclass
class _TypeWords:
    documents: Counter[str]
    names: Counter[str]
    total: int


def condition_reads(
    store: GraphStore, skb: str, types: Sequence[str], max_word_share: float = MAX_WORD_SHARE
) -> Conditions:
    """What :func:`generate` reads of the SKB as it samples (each type's node ids, then its documents' words), to
    share between calls."""
    return Conditions(store, skb, {t: store.label_ids(skb, t) for t in types}, max_word_share)


class Conditions:
    """The textual conditions a gold answer offers and their exact answers along a template, with what a
    generator run reads once: each answer type's word frequencies and HPO's onset and inheritance branches."""

    def __init__(self, store: GraphStore, skb: str, ids: Mapping[str, Sequence[str]], max_word_share: float) -> None:
        self.store, self.skb, self.ids, self.max_word_share = store, skb, ids, max_word_share
        self._words: dict[str, _TypeWords] = {}
        self._branches: dict[ConditionKind, dict[str, str]] = {}
        self._children: dict[str, set[str]] = {}
        self._direct: dict[str, set[str]] = {}  # term -> diseases with a 'phenotype present' edge to it

    def type_words(self, target: str) -> _TypeWords:
        """One pass over the type's documents, the first time it is asked for."""
        if target not in self._words:
            docs = self.store.documents(self.skb, target, self.ids[target])
            self._words[target] = _TypeWords(
                document_frequencies([d.doc for d in docs]), name_frequencies([d.name for d in docs]), len(docs)
            )
        return self._words[target]

    def doc_words(self, target: str, doc: str) -> list[str]:
        stats = self.type_words(target)
        return specific_words(doc, stats.documents, len(self.ids[target]), self.max_word_share)

    def name_words(self, target: str, name: str) -> list[str]:
        """Words of the name found in at most ``max_word_share`` of the type's names; none for a one-word name."""
        if len(name.split()) < 2:
            return []
        stats = self.type_words(target)
        limit = max(1, int(self.max_word_share * stats.total))
        found = {w for w in NAME_WORD.findall(name) if w.lower() not in COMMON and w.lower() not in FUNCTION_WORDS}
        return sorted(w for w in found if stats.names[w.lower()] <= limit)

    def branch(self, kind: ConditionKind) -> dict[str, str]:
        """id -> name of the terms under HPO's Onset or Mode of inheritance term, worded as such ('Infantile onset',
        'X-linked inheritance'), read once; with who has each (:meth:`holders`). Empty for another SKB."""
        if kind not in self._branches:
            names: dict[str, str] = {}
            frontier = {BRANCHES[kind]}
            while frontier:
                found: set[str] = set()
                for r in self.store.relations(self.skb, PHENOTYPE, sorted(frontier)):
                    if r.out:
                        continue
                    if r.type == PARENT_CHILD and r.neighbour not in names:
                        names[r.neighbour] = r.name
                        self._children.setdefault(r.node, set()).add(r.neighbour)
                        found.add(r.neighbour)
                    elif r.type == PRESENT:
                        self._direct.setdefault(r.node, set()).add(r.neighbour)
                frontier = found
            worded = onset_word if kind == "onset" else inheritance_word
            self._branches[kind] = {t: n for t, n in names.items() if worded(n)}
        return self._branches[kind]

    def holders(self, term: str) -> frozenset[str]:
        """The diseases annotated with ``term`` or a term under it."""
        out: set[str] = set()
        stack, seen = [term], {term}
        while stack:
            node = stack.pop()
            out |= self._direct.get(node, set())
            for child in self._children.get(node, set()) - seen:
                seen.add(child)
                stack.append(child)
        return frozenset(out)

    def options(
        self, target: str, gold: NodeText, kinds: Sequence[ConditionKind]
    ) -> dict[ConditionKind, list[Condition]]:
        """The conditions of ``kinds`` the gold answer has (not every node has a synonym or a definition)."""
        out: dict[ConditionKind, list[Condition]] = {}
        for kind_ in kinds:
            found: list[Condition] = []
            if kind_ == "doc-word":
                found = [Condition(kind_, w) for w in self.doc_words(target, gold.doc)]
            elif kind_ == "name-word":
                found = [Condition(kind_, w) for w in self.name_words(target, gold.name)]
            elif kind_ == "synonym":
                names = aliases(self.store, self.skb, target, gold.id)
                found = [Condition(kind_, a) for a in names if a.lower() != gold.name.lower() and len(a) <= 80]
            elif kind_ == "definition":
                found = [Condition(kind_, p) for p in definition_phrases(gold.doc)]
            elif kind_ == "symbol-prefix" and target == GENE:
                found = [Condition(kind_, p) for p in symbol_prefixes(gold.name)]
            elif kind_ in BRANCHES and target == DISEASE:
                terms = self.branch(kind_)
                found = [Condition(kind_, terms[t], t) for t in sorted(terms) if gold.id in self._direct.get(t, ())]
            if found:
                out[kind_] = found
        return out

    def answers(self, target: str, hops: Sequence[tuple[str, str]], anchor: str, condition: Condition) -> list[str]:
        """The exact answers: the nodes of ``target`` reaching ``anchor`` along ``hops`` that meet ``condition``."""
        store, skb, text = self.store, self.skb, condition.text
        if condition.kind == "doc-word":
            return store.path_answers(skb, target, hops, anchor, text.lower())
        if condition.kind in BRANCHES:
            assert condition.term_id is not None
            held = self.holders(condition.term_id)
            return [a for a in store.path_answers(skb, target, hops, anchor, "") if a in held]
        # the document holds the name, the aliases and the definition: its matches are the candidates
        found = store.path_answers(skb, target, hops, anchor, text.lower())
        if not found:
            return []
        if condition.kind == "synonym":
            named = store.aliases(skb, target, found)
            return [a for a in found if any(x.lower() == text.lower() for x in named.get(a, ()))]
        docs = {d.id: d for d in store.documents(skb, target, found)}
        return [a for a in found if a in docs and meets(condition, docs[a])]


def meets(condition: Condition, node: NodeText) -> bool:
    """Whether ``node`` meets a name-word, definition or symbol-prefix condition (its document contains the text)."""
    text = condition.text.lower()
    if condition.kind == "name-word":
        return has_word(node.name, text)
    if condition.kind == "definition":
        return text in (definition_of(node.doc) or "").lower()
    if condition.kind == "symbol-prefix":
        return node.name.lower().startswith(text)
    raise ValueError(f"not a condition on the name or definition: {condition.kind}")


def as_family_names(phrasing: Phrasing, families: Sequence[str] | None) -> tuple[Family, ...]:
    """The families to word questions in: ``template`` for template phrasing, else those named (default
    :data:`DEFAULT_FAMILIES`), or an input error."""
    if phrasing == "template":
        if families is not None and tuple(families) != ("template",):
            raise InputError("phrasing families need natural phrasing (--phrasing natural)")
        return (FAMILIES["template"],)
    try:
        return as_families(DEFAULT_FAMILIES if families is None else families)
    except ValueError as exc:
        raise InputError(str(exc)) from None


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
    families: Sequence[str] | None = None,
    reads: Conditions | None = None,
) -> list[GeneratedQuestion]:
    """``n`` questions (fewer only if the graph cannot give them); deterministic for a seed without an LLM.

    ``rejected`` counts the (answer type, reason) of every sampled attempt that did not become a question, so a short
    result can say why (HPO gene documents, for one, have no word specific enough to ask about). ``phrasing="natural"``
    words the sampled questions in ``families`` (:mod:`kgqa.runtime.reader.families`, by turns; default ``analyst``),
    never paraphrased by the LLM, from a random stream of its own, so the template set of a seed stays what it was;
    ``analyst`` and ``template`` ask for a word of the answer's document as they always did, the other families draw a
    condition kind among those the gold answer has. ``split`` keeps only questions whose gold answer is in it
    (:func:`split_of`), drawn before any store query; the attempts grow by the inverse of its share of the nodes.
    ``reads``: what an earlier call over the same store, SKB, types and ``max_word_share`` read
    (:func:`condition_reads`), so that calls one family at a time read the documents once."""
    rejected = Counter() if rejected is None else rejected
    if not 0 < max_word_share <= 1:
        raise InputError(f"max_word_share must be in (0, 1], got {max_word_share}")
    phrasing = as_phrasing(phrasing)
    split = as_split(split)
    chosen = as_family_names(phrasing, families)
    share = {"all": 1.0, "train": TRAIN_SHARE, "test": 1.0 - TRAIN_SHARE}[split]
    rng = random.Random(seed)
    wording = random.Random(f"natural-{seed}")
    conditions = condition_reads(store, skb, types, max_word_share) if reads is None else reads
    ids = conditions.ids
    options = {t: templates(schema, t) for t in types if ids[t] and templates(schema, t)}
    if not options:
        raise InputError(f"SKB '{skb}' has no relationships from its answer types to sample questions from")
    out: list[GeneratedQuestion] = []
    seen: set[str] = set()
    for _ in range(math.ceil(n * attempts_per_question / share)):
        if len(out) == n:
            break
        family = chosen[len(out) % len(chosen)]  # by turns: no draw, so one family's stream is what it was
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
        kinds = list(family.conditions)
        if kinds == ["doc-word"]:  # the tuned families: the draws they always made
            words = conditions.doc_words(target, docs[0].doc)
            if not words:
                rejected[target, f"no document word in at most {max_word_share:g} of its type's documents"] += 1
                continue
            condition = Condition("doc-word", rng.choice(words))
        else:
            try:
                offered = conditions.options(target, docs[0], kinds)
            except StoreTimeoutError:
                rejected[target, TIMED_OUT] += 1
                continue
            if not offered:
                rejected[target, "no textual condition the answer has"] += 1
                continue
            drawn = sorted(offered)
            kind_ = rng.choices(drawn, weights=[family.conditions[k] for k in drawn])[0]
            condition = rng.choice(offered[kind_])
        try:
            answers = conditions.answers(target, hops, anchor_id, condition)
        except StoreTimeoutError:
            rejected[target, TIMED_OUT] += 1
            continue
        if not 1 <= len(answers) <= MAX_ANSWERS or gold not in answers:
            rejected[target, f"not 1-{MAX_ANSWERS} answers"] += 1
            continue
        templated = phrase(target, hops, anchor_name, condition.text, condition.kind)
        if templated in seen:
            rejected[target, "a question already made"] += 1
            continue
        seen.add(templated)
        template = " / ".join([target, *(f"{t} {label}" for t, label in hops)])
        mention, direction = Mention("name", anchor_name), None
        if phrasing == "natural" and family.name != "template":
            mention = choose_mention(store, skb, hops[-1][1], anchor_id, anchor_name, wording, family.mentions)
            direction, side = named_direction(store, skb, target, hops, anchor_id, gold)
            if direction is not None and family.undirected and wording.random() < family.undirected:
                direction = None  # "one level above or below X": both sides are the answers
            if direction is not None:
                answers = [a for a in answers if a in side]
            text = family_word(
                family, target, hops, mention.text, condition, wording, style=mention.style, direction=direction
            )
            paraphrased = False
        elif phrasing == "natural":
            text, paraphrased = templated, False
        else:
            paraphrased_text = paraphrase(llm, templated, anchor_name, condition.text) if llm is not None else None
            text, paraphrased = paraphrased_text or templated, paraphrased_text is not None
        out.append(
            GeneratedQuestion(
                str(len(out)),
                text,
                answers,
                template,
                anchor_id,
                anchor_name,
                condition.text,
                gold,
                templated,
                paraphrased,
                kind(hops),
                phrasing,
                mention.style,
                mention.text,
                direction,
                family.name,
                condition.kind,
                condition.term_id,
            )
        )
    return out


def write(questions: Sequence[GeneratedQuestion], out: Path, meta: dict[str, object]) -> Path:
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


def unasked_types(
    made: Sequence[GeneratedQuestion], rejected: Counter[tuple[str, str]], types: Sequence[str]
) -> dict[str, str]:
    """Answer type -> why no question of ``made`` has it: the reason most attempts failed with ('' when none was
    recorded)."""
    unasked: dict[str, str] = {}
    for label in types:
        if not any(g.template.split(" / ")[0] == label for g in made):
            reasons = [(k, v) for (t, k), v in rejected.most_common() if t == label]
            unasked[label] = f"; most attempts failed with: {reasons[0][0]} ({reasons[0][1]}x)" if reasons else ""
    return unasked
