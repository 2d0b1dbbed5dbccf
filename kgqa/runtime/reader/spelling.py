"""Typo-tolerant linking: a misspelt name ("marfans syndrom", "hypotonai") or an abbreviation ("PWS") reaches its node.

The embedder reads a misspelt word as other word pieces, and the span falls under the link threshold. So the reader
keeps the SKB's own vocabulary (every word of its names and aliases, with how many hold it) and the words known
otherwise (those its documents use, and those the embedder's tokenizer holds whole). A question word that neither
knows, or that the SKB holds only rarely beside a far more common neighbour ("syndrom" beside "syndrome"), is read
as the most common SKB word one edit away (two for long words: a deletion, insertion, substitution or swap of
neighbours each), and the span is looked up both ways. An abbreviation typed in capitals is read as the run of words
of the SKB's names whose initials it is most often, and a name typed without its common last words ("marfan",
"tay-sachs") as the shortest name that adds only such words ("marfan syndrome", "tay sachs disease"). Nothing here
knows a language: the vocabulary, its common words, its abbreviations and its names' endings are the SKB's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

MIN_LETTERS = 4
"""Shorter words are not corrected: within an edit of a three-letter word lies half the vocabulary."""
LONG_WORD = 8
"""Words of this many letters may be two edits from what was meant; shorter ones one ("whats" is not "warts")."""
RARE_RATIO = 20
"""An SKB word is read as its neighbour too when the neighbour is this many times as common (a typo in the SKB's own
names, "syndrom", is no reason to leave the question's typo as it is)."""
TOKEN = re.compile(r"[^\W\d_]+")
"""The words a correction may replace: runs of letters (digits and symbols are ids, never typos)."""
PART = re.compile(r"[^\W_]+")
ACRONYM_LETTERS = range(2, 6)
"""Lengths of the abbreviations read: "ID" to "CMTDI"."""
ABBREVIATION = re.compile(r"[A-Z][A-Za-z]*[A-Z]")
"""How an abbreviation is typed: two or more capitals, maybe small letters between ("GTC", "PWS", "EIEE")."""
COMMON_SHARE = 0.02
"""A word in more than this share of the names is one of their common words ("of", "the", "syndrome"): a run of
words an abbreviation stands for does not start with one (on HPO, "TSC" is no "the spinal cord")."""


def vocabulary(texts: Iterable[str]) -> Counter[str]:
    """How many of ``texts`` (names and aliases) hold each lower-case word."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(TOKEN.findall(text.lower())))
    return counts


def acronyms(texts: Sequence[str]) -> dict[str, str]:
    """Initials -> the run of words they abbreviate in most of ``texts`` (names and aliases): "prader willi
    syndrome" for "pws", "generalized tonic clonic" for "gtc". The run starts with no common word
    (:data:`COMMON_SHARE`) and its first and last words have three letters or more."""
    every, _, common = _common(texts)
    counts: Counter[tuple[str, str]] = Counter()
    for words in every:
        parts = [w for w in words if w.isalpha()]
        runs = set()
        for i, first in enumerate(parts):
            if first in common or len(first) < 3:
                continue
            for size in ACRONYM_LETTERS:
                run = parts[i : i + size]
                if len(run) == size and len(run[-1]) >= 3:
                    runs.add(("".join(w[0] for w in run), " ".join(run)))
        counts.update(runs)
    best: dict[str, tuple[int, str]] = {}
    for (letters, phrase), n in counts.items():
        if letters not in best or (n, phrase) > best[letters]:
            best[letters] = (n, phrase)
    return {letters: phrase for letters, (_, phrase) in best.items()}


def _common(texts: Sequence[str]) -> tuple[list[list[str]], Counter[str], set[str]]:
    """Each text's lower-case words (:data:`PART`), how many texts hold each word, and the words in more than
    :data:`COMMON_SHARE` of them."""
    parts = [PART.findall(text.lower()) for text in texts]
    held: Counter[str] = Counter()
    for words in parts:
        held.update(set(words))
    return parts, held, {word for word, n in held.items() if n > COMMON_SHARE * len(texts)}


ENDING_SHARE = 0.005
"""A word that ends more than this share of the names is one of their endings ("syndrome", "disease", "deficiency")."""
RARE_SHARE = 0.001
"""A name typed without its ending starts with a word this rare among the names (an eponym: "marfan", "tay"): a
common first word ("long", "broad") completed would make a name of any phrase."""


def completions(texts: Sequence[str], dictionary: frozenset[str] = frozenset()) -> dict[str, str]:
    """A name's own words -> the name, for names (and aliases) that end in common words (:data:`COMMON_SHARE`),
    endings (:data:`ENDING_SHARE`) or numbers only, after words that are none and start with a rare one
    (:data:`RARE_SHARE`), not all of them in the ``dictionary`` (the words the tokenizer holds whole: "kid", "young" and
    "phenotypic" are words, "KID syndrome" is no way to say them): people type the eponym and leave the common
    ending out ("marfan" -> "marfan syndrome", "tay sachs" -> "tay sachs disease"). Of several names with the same
    own words, the one with the shortest ending ("noonan syndrome", not "noonan syndrome 1"), then the commonest."""
    parts, held, common = _common(texts)
    ends = Counter(words[-1] for words in parts if words)
    ending = common | {word for word, n in ends.items() if n > ENDING_SHARE * len(texts)}
    counts: Counter[tuple[str, str]] = Counter()
    for words in parts:
        cut = len(words)
        while cut > 0 and (words[cut - 1] in ending or words[cut - 1].isdigit()):
            cut -= 1
        head, tail = words[:cut], words[cut:]
        if not head or not tail or any(w in ending or w.isdigit() for w in head):
            continue
        if len(head[0]) >= 3 and held[head[0]] <= RARE_SHARE * len(texts) and not set(head) <= dictionary:
            counts[(" ".join(head), " ".join(tail))] += 1
    best: dict[str, tuple[int, int, str]] = {}
    for (own, ending_words), n in sorted(counts.items()):  # of equals, the first ending ("martsolf syndrome 1")
        rank = (-len(ending_words.split()), n, ending_words)
        if own not in best or rank[:2] > best[own][:2]:
            best[own] = rank
    return {own: f"{own} {ending_words}" for own, (_, _, ending_words) in best.items()}


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein with swaps of neighbours)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, previous2[j - 2] + 1)
            row.append(cost)
        previous2, previous = previous, row
    return previous[-1]


@dataclass
class Spelling:
    """The SKB's words (``counts``), the other words known (``known``: its documents' and the tokenizer's), the SKB's
    abbreviations (``short``: :func:`acronyms`), and the index of the words' one-letter deletions, built once."""

    counts: Mapping[str, int]
    known: frozenset[str] = frozenset()
    short: Mapping[str, str] = field(default_factory=dict)
    endings: Mapping[str, str] = field(default_factory=dict)
    """A name's own words -> the name with its common ending (:func:`completions`)."""
    _index: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for word in self.counts:
            if len(word) >= MIN_LETTERS:
                for key in {word, *_deletes(word)}:
                    self._index.setdefault(key, []).append(word)

    def correct(self, word: str) -> str | None:
        """The SKB word ``word`` most likely misspells: the most common of the nearest within reach
        (:data:`LONG_WORD`); None for a word the tokenizer knows, an SKB word with no far more common neighbour
        (:data:`RARE_RATIO`), or when none is near."""
        nearest = self.nearest(word, 1)
        return nearest[0] if nearest else None

    def nearest(self, word: str, n: int) -> list[str]:
        """Up to ``n`` SKB words ``word`` may misspell, the likeliest first (:meth:`correct`'s order: nearest, then
        most common): which one the question meant is for the name index to say, by the name each forms with the
        words beside it ("zodazo syndrome" may be "zoda" or "dazo")."""
        lowered = word.lower()
        if not TOKEN.fullmatch(word) or len(lowered) < MIN_LETTERS or lowered in self.known:
            return []
        reach = 2 if len(lowered) >= LONG_WORD else 1
        floor = RARE_RATIO * self.counts[lowered] if lowered in self.counts else 0
        near = {c for key in {lowered, *_deletes(lowered)} for c in self._index.get(key, ()) if c != lowered}
        scored = [(edit_distance(lowered, c), -self.counts[c], c) for c in near if self.counts[c] > floor]
        return [c for distance, _, c in sorted(scored) if distance <= reach][:n]

    def expand(self, word: str) -> str | None:
        """The phrase an abbreviation typed in capitals stands for in the SKB's names ("PWS" -> "prader willi
        syndrome"); None for another word, or initials no name has."""
        if not ABBREVIATION.fullmatch(word) or len(word) not in ACRONYM_LETTERS:
            return None
        return self.short.get(word.lower())

    def variants(self, words: Sequence[str], n: int = 1) -> dict[int, list[str]]:
        """Position -> what each abbreviation (:meth:`expand`) or misspelt word of a question may stand for: up to
        ``n`` SKB words (:meth:`nearest`), the likeliest first."""
        out = {}
        for i, word in enumerate(words):
            expanded = self.expand(word)
            fixed = [expanded] if expanded is not None else self.nearest(word, n)
            if fixed:
                out[i] = fixed
        return out

    def complete(self, text: str) -> str | None:
        """The SKB name ``text`` is typed as without its common ending ("Marfan" -> "marfan syndrome"), or None."""
        return self.endings.get(" ".join(PART.findall(text.lower())))

    def dictionary_word(self, text: str) -> bool:
        """Whether ``text`` is one word the tokenizer knows whole, typed in small letters ("son"): it names no
        node whose name is a symbol in capitals (the gene SON) unless it is typed so."""
        return text.islower() and text in self.known
