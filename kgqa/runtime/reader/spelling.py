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

from kgqa.runtime.text import LETTERS, PART

MIN_LETTERS = 4
"""Shorter words are not corrected: within an edit of a three-letter word lies half the vocabulary."""
LONG_WORD = 8
"""Words of this many letters may be two edits from what was meant; shorter ones one ("whats" is not "warts")."""
RARE_RATIO = 20
"""An SKB word is read as its neighbour too when the neighbour is this many times as common (a typo in the SKB's own
names, "syndrom", is no reason to leave the question's typo as it is)."""
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
        counts.update(set(LETTERS.findall(text.lower())))
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


def _fillers(texts: Sequence[str]) -> tuple[list[list[str]], Counter[str], set[str]]:
    """:func:`_common`, the names' endings (:data:`ENDING_SHARE`) added to the common words: the words around a
    name's own ones ("syndrome", "disease", "type")."""
    parts, held, common = _common(texts)
    ends = Counter(words[-1] for words in parts if words)
    return parts, held, common | {w for w, n in ends.items() if n > ENDING_SHARE * len(texts) and not w.isdigit()}


def completions(texts: Sequence[str], dictionary: frozenset[str] = frozenset()) -> dict[str, str]:
    """A name's own words -> the name, for names (and aliases) that end in common words (:data:`COMMON_SHARE`),
    endings (:data:`ENDING_SHARE`) or numbers only, after words that are none and start with a rare one
    (:data:`RARE_SHARE`), not all of them in the ``dictionary`` (the words the tokenizer holds whole: "kid", "young" and
    "phenotypic" are words, "KID syndrome" is no way to say them): people type the eponym and leave the common
    ending out ("marfan" -> "marfan syndrome", "tay sachs" -> "tay sachs disease"). Of several names with the same
    own words, the one with the shortest ending ("noonan syndrome", not "noonan syndrome 1"), then the commonest."""
    parts, held, ending = _fillers(texts)
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


DESIGNATION = re.compile(r"(\d+)([a-z]?)|(?=[ivx])(x{0,3}(?:ix|iv|v?i{0,3}))([a-z]?)")
"""A name's last word numbering it in a series: "1", "1a", "IIIB" ("Usher syndrome, type IIIB"); roman numerals of
i, v and x only (a letter after one is the subtype)."""
GLUED = re.compile(r"([A-Z][A-Za-z]*[A-Z])(\d+[A-Za-z]?)")
"""An abbreviation typed with its number: "CMT1A", "TS2", "LQT1"."""
ROMAN = {"i": 1, "v": 5, "x": 10}


def designation(word: str) -> str | None:
    """``word`` as a number in a series, roman numerals read as arabic ("IIIB" -> "3b", "1A" -> "1a"), or None."""
    found = DESIGNATION.fullmatch(word.lower())
    if found is None:
        return None
    if found.group(1) is not None:
        return f"{int(found.group(1))}{found.group(2)}"
    values = [ROMAN[c] for c in found.group(3)]
    number = sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))
    return f"{number}{found.group(4)}"


def _initials(words: Sequence[str]) -> str:
    """How the words are abbreviated: first letters, a word of one or two letters whole ("long QT" -> "lqt")."""
    return "".join(w if len(w) <= 2 else w[0] for w in words)


def fillers(texts: Sequence[str]) -> frozenset[str]:
    """The names' common words and endings (:func:`_fillers`): a numbered name is typed with or without them."""
    return frozenset(_fillers(texts)[2])


SERIES_NAMES = 4
"""Names kept for one way of typing a numbered name: the SKB may hold one member under several names ("Stickler
syndrome, type I", "Stickler syndrome type 1"), and the one numbered as typed is taken."""


def designations(texts: Sequence[str]) -> dict[str, list[str]]:
    """Each way to type a numbered name -> the name. People write a member of a series as its eponym or abbreviation
    and its number: the name's own words before its number (common words and endings left out: :data:`COMMON_SHARE`,
    :data:`ENDING_SHARE`), or their first words where the first is rare (:data:`RARE_SHARE`: an eponym, not
    "seizures"), or their initials in capitals, with the number ("charcot marie tooth 1a", "CMT 1a" ->
    "Charcot-Marie-Tooth disease type 1A"; "TS 2" -> "Tuberous sclerosis-2"). Several names come fewest words first
    (:data:`SERIES_NAMES`)."""
    parts, held, filler = _fillers(texts)
    found: dict[str, set[tuple[int, str]]] = {}
    for text, words in zip(texts, parts, strict=True):
        number = designation(words[-1]) if words else None
        if number is None:
            continue
        own = [w for w in words[:-1] if w not in filler and not w.isdigit()]
        eponym = bool(own) and held[own[0]] <= RARE_SHARE * len(texts)
        for size in range(1, len(own) + 1):
            keys = [" ".join(own[:size])] if size == len(own) or eponym else []
            if size >= 2 and len(_initials(own[:size])) in ACRONYM_LETTERS:
                keys.append(_initials(own[:size]).upper())
            for key in keys:
                found.setdefault(f"{key} {number}", set()).add((len(words), text))
    return {key: [text for _, text in sorted(names)[:SERIES_NAMES]] for key, names in found.items()}


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
    series: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """A numbered name's own words, first words or initials, and number -> the names (:func:`designations`)."""
    fillers: frozenset[str] = frozenset()
    """The names' common words and endings, which a numbered name may be typed with or without ("type", "disease")."""
    _index: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False)
    """Tuples, not lists: tuples of strings leave the garbage collector's reach, and 150,000 lists of HPO's index
    made each full collection of a worker cost ~0.2 s in the middle of an ask."""

    def __post_init__(self) -> None:
        index: dict[str, list[str]] = {}
        for word in self.counts:
            if len(word) >= MIN_LETTERS:
                for key in {word, *_deletes(word)}:
                    index.setdefault(key, []).append(word)
        self._index = {key: tuple(words) for key, words in index.items()}

    def correct(self, word: str) -> str | None:
        """The SKB word ``word`` most likely misspells: the most common of the nearest within reach
        (:data:`LONG_WORD`); None for a word the tokenizer knows, an SKB word with no far more common neighbour
        (:data:`RARE_RATIO`), or when none is near."""
        nearest = self.nearest(word, 1)
        return nearest[0] if nearest else None

    def nearest(self, word: str, n: int, known: bool = False) -> list[str]:
        """Up to ``n`` SKB words ``word`` may misspell, the likeliest first (:meth:`correct`'s order: nearest, then
        most common): which one the question meant is for the name index to say, by the name each forms with the
        words beside it ("zodazo syndrome" may be "zoda" or "dazo"). A word the tokenizer knows has none, unless
        ``known``."""
        lowered = word.lower()
        if not LETTERS.fullmatch(word) or len(lowered) < MIN_LETTERS or (lowered in self.known and not known):
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
            if not fixed and self._beside_a_name(words, i):  # "prader *willy*": as typed first, then a guess
                fixed = [word, *(w for w in self.nearest(word, n, known=True) if w != word.lower())]
            if fixed and fixed != [word]:
                out[i] = fixed
        return out

    def _beside_a_name(self, words: Sequence[str], i: int) -> bool:
        """Whether a known word that no name of the SKB holds stands beside a word of its names ("*prader* willy"):
        there, an everyday word may misspell the name's next word."""
        word = words[i].lower()
        if word not in self.known or word in self.counts:
            return False
        beside = [words[j].lower() for j in (i - 1, i + 1) if 0 <= j < len(words)]
        return any(w in self.counts and len(w) >= MIN_LETTERS for w in beside)

    def complete(self, text: str) -> str | None:
        """The SKB name ``text`` is typed as without its common ending ("Marfan" -> "marfan syndrome"), or None."""
        return self.endings.get(" ".join(PART.findall(text.lower())))

    def designated(self, text: str) -> str | None:
        """The numbered SKB name ``text`` types as its own words, first words or abbreviation and its number, or None:
        "CMT1A", "CMT type 1A" and "charcot marie tooth 1A" -> "Charcot-Marie-Tooth disease type 1A". Initials count
        only typed in capitals ("he is 12" names nothing). Of the names of one member, the one numbered as typed."""
        typed = PART.findall(text)
        if not typed:
            return None
        glued = GLUED.fullmatch(typed[-1])
        head, last = ([*typed[:-1], glued.group(1)], glued.group(2)) if glued else (typed[:-1], typed[-1])
        number = designation(last)
        own = [w for w in head if w.lower() not in self.fillers and not w.isdigit()]
        if number is None or not own:
            return None
        initials = len(own) == 1 and ABBREVIATION.fullmatch(own[0]) is not None
        names = self.series.get(f"{own[0].upper()} {number}", ()) if initials else ()
        names = names or self.series.get(f"{' '.join(own).lower()} {number}", ())
        as_typed = [name for name in names if PART.findall(name.lower())[-1:] == [last.lower()]]  # "type I", not 1
        return next(iter([*as_typed, *names]), None)

    def dictionary_word(self, text: str) -> bool:
        """Whether ``text`` is one word the tokenizer knows whole, typed in small letters ("son"): it names no
        node whose name is a symbol in capitals (the gene SON) unless it is typed so."""
        return text.islower() and text in self.known

    def cue_of(self, word: str, cues: frozenset[str]) -> str | None:
        """The one word of ``cues`` (the reader's own words: "subtypes", "without", "symptoms") that ``word`` (lower
        case) misspells, or None: only for a word neither the SKB nor the tokenizer knows, whose nearest cue is one
        edit away (two for long words: :data:`LONG_WORD`) and no other cue is as near. Question words steps 1-3 look
        for ("subtyeps of hypotonia") are read through the same typos as names."""
        if len(word) < MIN_LETTERS or word in cues or word in self.known or word in self.counts or not word.isalpha():
            return None
        reach = 2 if len(word) >= LONG_WORD else 1
        near = sorted(
            (edit_distance(word, c), c) for c in cues if abs(len(c) - len(word)) <= reach and len(c) >= MIN_LETTERS
        )
        if not near or near[0][0] > reach or (len(near) > 1 and near[1][0] == near[0][0]):
            return None
        return near[0][1]
