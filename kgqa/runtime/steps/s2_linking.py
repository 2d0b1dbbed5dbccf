"""Entity linking without an LLM (``--llm none``; method step 2): which spans of a question name which nodes.

Entities are linked by the name index: every word n-gram of the question that may name one (1-6 words, not starting or
ending with a stop word: kgqa.runtime.steps.s2_spans) is embedded and looked up in the name vector index of each label;
n-grams whose best match is at least ``threshold`` similar are links, taken greedily without overlapping: well-matching
longer spans first, then by similarity (see ``_priority``). Where the graph has aliases (HPO synonyms, gene names),
spans are looked up in the alias index too, so "enlarged liver" links to 'Hepatomegaly'. The linked entity becomes a
constant whose search string is the node's own name, or the alias that matched, so an exact match puts it first in step
4 (an alias two nodes share puts both there, in id order) and scope expansion still works. The plan that joins the links
is kgqa.runtime.steps.s2_schema_plan's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice, product
from typing import NamedTuple

from kgqa.runtime import lexicon
from kgqa.runtime.embed import Embedder
from kgqa.runtime.reader.spelling import Spelling, designation, edit_distance
from kgqa.runtime.reading import Reading
from kgqa.runtime.scoring import EXACT_LINK
from kgqa.runtime.steps.s2_conditions import QUOTED_CONDITION, after_prefix_verb, not_entities
from kgqa.runtime.steps.s2_spans import (
    CLAUSE_WORDS,
    CONJUNCTIONS,
    MAX_LINK_SPANS,
    SHORT_NGRAM,
    Span,
    capped,
    typed_ngrams,
)
from kgqa.runtime.store.base import LabelInfo
from kgqa.runtime.store.protocols import Catalogue, GraphReader, GraphStore, TextSearcher, VectorSearcher
from kgqa.runtime.text import (
    HIERARCHY,
    KINDS,
    PART,
    RELATIONAL,
    STOP_WORDS,
    Mention,
    words_of,
)

LONG_SPAN_SIMILARITY = 0.9
JOINED_SPAN_SIMILARITY = 0.97
"""A span joining phrases by a conjunction counts as one name only this similar to it (punctuation aside)."""


@dataclass(frozen=True)
class Link:
    span: str
    start: int
    end: int
    """word positions [start, end) in the question"""
    label: str
    id: str
    name: str
    similarity: float
    alias: str = ""
    """the node's alias that matched the span ('' when its name did)"""
    described: bool = False
    """the span is a quotation of the node's definition (:func:`described_anchors`), not a name of it"""
    others: tuple[Link, ...] = field(default=(), compare=False)
    """links of the same span to nodes of other labels by the same name or alias: the plan takes one of them where
    the schema joins this one to no answer (HPO's disease and phenotype 'Ectopia lentis')"""

    @property
    def search(self) -> str:
        """The linked constant's search string: the name or alias that matched, so that step 4 finds the node by
        an exact match first (and its evidence says which alias matched)."""
        return self.alias or self.name


def describe(link: Link) -> str:
    """How the trace shows a link: span -> label 'name' (via which alias) (similarity)."""
    via = f" via alias '{link.alias}'" if link.alias else " by its document" if link.described else ""
    others = "".join(f" or {o.label} '{o.name}' ({o.similarity:.2f})" for o in link.others)
    return f"'{link.span}' -> {link.label} '{link.name}'{via} ({link.similarity:.2f}){others}"


ALIAS_HITS = 10
"""Alias-index hits read per n-gram: the index spans every label, so the best of each label needs a few."""


def link_entities(
    reading: Reading,
    store: GraphStore,
    skb: str,
    labels: Sequence[str],
    embedder: Embedder,
    *,
    threshold: float,
    aliases: bool = False,
    limit: int = MAX_LINK_SPANS,
    nouns: Sequence[Mention] = (),
    documents: bool = False,
    spelling: Spelling | None = None,
    id_prefixes: Mapping[str, int | None] | None = None,
) -> list[Link]:
    """Non-overlapping question spans whose best match by the name index (and, with ``aliases``, the alias index)
    is at least ``threshold`` similar; a name beats an alias of equal similarity. Answer-type words (and type
    ``nouns``) and textual conditions are not looked up (:func:`kgqa.runtime.steps.s2_conditions.not_entities`); at
    most ``limit`` spans are (``max_link_ngrams``, :func:`kgqa.runtime.steps.s2_spans.link_spans`). With
    ``documents`` (the document index holds the embedder's vectors), a quoted definition links the node it describes
    (:func:`described_anchors`). With ``spelling``, a span with a misspelt word or an abbreviation is also looked up
    respelled (:func:`respellings`) where the words as written link under :data:`LONG_SPAN_SIMILARITY`; a link keeps
    the words as written."""
    every, types = typed_ngrams(reading, labels, nouns)
    grams, _ = capped(reading, every, limit)
    if not grams:
        return []
    respelled = respellings(grams, reading, spelling)
    vectors = embedder.embed([text for _, _, text in grams] + [r.text for r in respelled])
    by_label = {label: store.vector_top_k_many(skb, label, "name", vectors, 1, floor=threshold) for label in labels}
    by_alias = store.alias_top_k_many(skb, vectors, ALIAS_HITS, floor=threshold) if aliases else []
    found: list[Link] = []
    rows = [*((number, number) for number in range(len(grams))), *enumerate((r.number for r in respelled), len(grams))]
    typed: set[tuple[int, int]] = set()  # spans the words as typed link well: no respelling ("PTEN" is PTEN)
    for row, number in rows:
        start, end, text = grams[number]
        if row == len(grams):
            typed = {(link.start, link.end) for link in found if link.similarity >= LONG_SPAN_SIMILARITY}
        if row >= len(grams) and (start, end) in typed and not respelled[row - len(grams)].numbered:
            continue
        guess = row >= len(grams) and not respelled[row - len(grams)].likeliest
        floor = threshold if end - start <= SHORT_NGRAM and not guess else max(threshold, JOINED_SPAN_SIMILARITY)
        for label in labels:
            for hit in by_label[label][row]:
                if hit.similarity >= floor:
                    found.append(Link(text, start, end, label, str(hit.id), hit.name, hit.similarity))
        if aliases:
            best: dict[str, Link] = {}
            for alias in by_alias[row]:
                if alias.label in labels and alias.similarity >= floor and alias.label not in best:
                    best[alias.label] = Link(
                        text, start, end, alias.label, alias.id, alias.name, alias.similarity, alias.alias
                    )
            found += best.values()
    found = [link for link in found if not (_type_named(link, types) or _not_a_name(link, reading.lowered))]
    unnamed = unnamed_quotations(reading, store, skb, labels, types)
    found = [link for link in found if not any(r.start < link.end and link.start < r.stop for r in unnamed)]
    if spelling is not None:
        found = [link for link in found if not word_not_symbol(link, found, reading.quoted_runs, spelling)]
    found = tightest(found)
    if spelling is not None:
        found = [link for link in found if not unnumbered_member(link, found, spelling)]
    anchors = described_anchors(reading, store, skb, labels, embedder, found, nouns) if documents else []
    anchors += typed_ids(reading, store, skb, labels, id_prefixes)
    anchors += glued_names(reading, store, skb, labels, [*found, *anchors])
    found = [link for link in found if not any(a.start < link.end and link.start < a.end for a in anchors)]
    found.sort(key=_priority)
    taken: list[Link] = list(anchors)
    for link in found:
        if all(link.end <= t.start or link.start >= t.end for t in taken):
            taken.append(_with_others(link, found))
    return sorted(taken, key=lambda link: link.start)


IDENTIFIER = re.compile(r"(?<![\w:#])([A-Za-z]+)([:_#]\s?|\s#?\s?)?(\d+)(?![\w:])")
"""A node id typed in the question: a prefix of letters, then a colon (or the OBO files' underscore), a "#", a space
or nothing, and a number ("OMIM:154700", "HP_0001250", "MIM #154700", "ORPHA 558", "HP0001250")."""
PREFIXED = re.compile(r"([A-Za-z]+):(\d+)")
"""An SKB's id: a prefix, a colon and a number (HPO's "HP:0001250", "OMIM:154700", "NCBIGene:2200")."""
ID_PREFIX_LABEL = 200_000
"""Labels of at most this many nodes are read for their id prefixes (:func:`id_prefixes`): STaRK's larger ones
(MAG's 1.8 million papers) number their nodes without a prefix."""
SHORT_PREFIX = 3
"""The least letters of a typed prefix that begins or ends an SKB's longer one ("MIM" for OMIM, "NCBI" for
NCBIGene); an SKB's prefix of one letter fewer may begin a typed one ("HPO" for HP)."""


def id_prefixes(store: Catalogue, skb: str, labels: Sequence[LabelInfo]) -> dict[str, int | None]:
    """The prefixes of the SKB's ids (:data:`PREFIXED`), each with the digits of its numbers where they all have as
    many (HPO's seven: "HP 1250" is HP:0001250), read from the ids of every label of at most
    :data:`ID_PREFIX_LABEL` nodes."""
    widths: dict[str, set[int]] = {}
    for label in labels:
        if label.count > ID_PREFIX_LABEL:
            continue
        for node in store.label_ids(skb, label.name):
            found = PREFIXED.fullmatch(node)
            if found is not None:
                widths.setdefault(found[1], set()).add(len(found[2]))
    return {prefix: next(iter(sizes)) if len(sizes) == 1 else None for prefix, sizes in widths.items()}


LOOSE_NUMBER = 3
"""The least digits of an id typed without a colon or underscore ("ORPHA 558"); with nothing between prefix and
number, as many as the SKB's ids have ("HP0001250"): a symbol ends in a short number ("HPS1", "BBS 4")."""


def _stands_for(typed: str, prefix: str) -> bool:
    """Whether a typed id prefix stands for an SKB's ``prefix``: the same letters, or begun by it ("HPO" for HP,
    "Orphanet" for ORPHA), or :data:`SHORT_PREFIX` letters or more that begin or end it ("NCBI" for NCBIGene, "MIM"
    for OMIM)."""
    typed, prefix = typed.upper(), prefix.upper()
    if typed == prefix or (typed.startswith(prefix) and len(prefix) >= SHORT_PREFIX - 1):
        return True
    return len(typed) >= SHORT_PREFIX and (prefix.startswith(typed) or prefix.endswith(typed))


def typed_ids(
    reading: Reading,
    store: GraphReader,
    skb: str,
    labels: Sequence[str],
    prefixes: Mapping[str, int | None] | None = None,
) -> list[Link]:
    """The nodes whose ids the question types (:data:`IDENTIFIER`), each found by its id in one lookup per label:
    an exact link over the words the id takes. Written with a colon or underscore, the id is looked up as typed or
    with its prefix in capitals ("omim:154700"); and as each of the SKB's ``prefixes`` (:func:`id_prefixes`) the
    typed one stands for ("MIM #154700", "Orphanet 558", "HPO:0001250"), with the number padded to the prefix's
    digits where the prefix is the SKB's own ("HP 1250"); without a colon or underscore, only a number of
    :data:`LOOSE_NUMBER` digits or more, all of them with nothing between ("HP0001250"). An id no node has links
    nothing. Linking by name would take "HP" in "HP:0001250" for Hermansky-Pudlak syndrome."""
    typed = []
    for match in IDENTIFIER.finditer(reading.text):
        prefix, separator, number = match[1], match[2], match[3]
        explicit = separator is not None and separator.strip() in (":", "_")
        forms = [f"{p}:{number}" for p in (prefix, prefix.upper())] if explicit else []
        for known, width in (prefixes or {}).items():
            if not _stands_for(prefix, known):
                continue
            if not explicit and (len(number) < LOOSE_NUMBER or (not separator and width and len(number) != width)):
                continue  # "HPS1" and "HPS 1" are Hermansky-Pudlak syndrome's genes and types, no ids
            forms.append(f"{known}:{number}")
            if width and len(number) < width and prefix.upper() == known.upper():
                forms.append(f"{known}:{number.zfill(width)}")
        if forms:
            start = len(words_of(reading.text[: match.start()]))
            typed.append((match[0], start, start + len(words_of(match[0])), tuple(dict.fromkeys(forms))))
    if not typed:
        return []
    wanted = list(dict.fromkeys(form for *_, said in typed for form in said))
    nodes = {node.id: (label, node.name) for label in labels for node in store.documents(skb, label, wanted)}
    links = []
    for text, start, end, said in typed:
        found = next((form for form in said if form in nodes), None)
        if found is not None:
            label, name = nodes[found]
            links.append(Link(text, start, end, label, found, name, 1.0))
    return links


GLUED = re.compile(r"([^\W_][\w/]*)-[a-z]+")
"""A name glued by a hyphen to a lower-case word: "KCNJ11-linked", "SON-related", "prnp-linked"."""


def glued_names(
    reading: Reading, store: TextSearcher, skb: str, labels: Sequence[str], found: Sequence[Link]
) -> list[Link]:
    """Words that glue a node's exact name or alias to a lower-case word ("Which KCNJ11-linked entities ...") and
    that no link of at least :data:`LONG_SPAN_SIMILARITY` covers (the disease "SIM1-related Prader-Willi-like
    syndrome" links whole): an exact link of that node over the word. The word as a whole embeds far from the
    name ("KCNJ11-linked" is no gene), so the name index alone never links it."""
    covered = {i for link in found if link.similarity >= LONG_SPAN_SIMILARITY for i in range(link.start, link.end)}
    links = []
    for position, word in enumerate(reading.words):
        glued = GLUED.fullmatch(word)
        if glued is None or position in covered or len(glued[1]) < 2:
            continue
        head = glued[1]
        named = [(label, node_id, name) for label in labels for node_id, name in store.exact_name(skb, label, head)]
        if named:
            label, node_id, name = named[0]
            links.append(Link(word, position, position + 1, label, node_id, name, 1.0))
            continue
        alias = next(iter(store.exact_alias(skb, labels, head)), None)
        if alias is not None:
            links.append(Link(word, position, position + 1, alias.label, alias.id, alias.name, 1.0, alias.alias))
    return links


def unnumbered_member(link: Link, found: Sequence[Link], spelling: Spelling) -> bool:
    """Whether ``link`` names a numbered member of a series (its name ends in a number: 'Usher syndrome, type IE')
    from words that type no number, all of them a shorter link's inside it, the names' filler words
    (:attr:`Spelling.fillers`: "type", "types") or stop words, the shorter link an exact name ('Usher syndrome'): "Usher
    syndrome, any type" means the family, which the shorter link stands for
    (kgqa.runtime.steps.s2_fallback.family), not one member the MiniLM vectors put nearest."""
    name = PART.findall(link.name)
    if not name or designation(name[-1]) is None or link.similarity >= EXACT_LINK:
        return False
    typed = PART.findall(link.span)
    if any(designation(word) is not None for word in typed if word.isupper() or any(c.isdigit() for c in word)):
        return False
    for other in found:
        inside = link.start <= other.start and other.end <= link.end and other.end - other.start < link.end - link.start
        if inside and other.similarity >= EXACT_LINK:
            extra = {w.lower() for w in typed} - {w.lower() for w in PART.findall(other.span)}
            if all(w in STOP_WORDS or w in spelling.fillers or w.removesuffix("s") in spelling.fillers for w in extra):
                return True
    return False


def _with_others(link: Link, found: Sequence[Link]) -> Link:
    """``link`` with the best link of each other label to its span by the same name or alias (case aside), most
    similar first: a name several labels share. A link to another name of another label is no stand-in: on the
    synthetic PRIME, 'beberu' linked 'kaxika beberu' at 0.90, not joined, and 'lotafafa beberu' (0.88) in its place
    was a wrong constraint where the word had gone to the full-text search."""
    best: dict[str, Link] = {}
    for other in found:
        same = (other.start, other.end) == (link.start, link.end) and other.label != link.label
        named = other.search.lower() == link.search.lower()
        if same and named and (other.label not in best or other.similarity > best[other.label].similarity):
            best[other.label] = other
    others = tuple(sorted(best.values(), key=lambda other: -other.similarity))
    return replace(link, others=others) if others else link


def word_not_symbol(link: Link, found: Sequence[Link], quoted: Sequence[range], spelling: Spelling) -> bool:
    """Whether ``link`` is a common word in small letters taken for a symbol in capitals ("my son's exome ... COL1A1"
    is no gene SON): only where the question links something else, and the word is not quoted ("linked to 'sry'")."""
    if not (link.search.isupper() and spelling.dictionary_word(link.span)):
        return False
    if any(link.start in run for run in quoted):
        return False
    return any(other.end <= link.start or other.start >= link.end for other in found)


SPELLINGS = 3
"""SKB words a misspelt word may stand for, and respelt texts of one span, looked up at most: the name index
takes the one that names a node best."""


class Respelt(NamedTuple):
    number: int
    """the gram's number"""
    text: str
    likeliest: bool
    """each word its likeliest SKB word; any other respelling is a guess that links only all but exactly
    (:data:`JOINED_SPAN_SIMILARITY`): "one rung up" is no 'RUNX2' (0.89)"""
    numbered: bool = False
    """a numbered name typed as its eponym or initials and number (:meth:`Spelling.designated`): looked up even where
    the words as typed link well, for they link as well to the series' other members ("OI type I" to type XX)"""


def respellings(grams: Sequence[Span], reading: Reading, spelling: Spelling | None) -> list[Respelt]:
    """The gram's text with each misspelt word replaced by an SKB word it may misspell, for every gram of at most
    :data:`kgqa.runtime.steps.s2_spans.SHORT_NGRAM` words that holds one (:meth:`Spelling.variants`, up to
    :data:`SPELLINGS` texts a gram, the likeliest first), and the name a gram is typed as without its common ending
    or as its eponym or initials and number, as typed or likeliest respelt (:meth:`Spelling.complete`: "marfans" ->
    "marfan syndrome"; :meth:`Spelling.designated`: "CMT1A"); none without
    ``spelling``. Quoted words are as typed (a quoted definition's "(VEP)" is no mention of another node), and so is
    a name's beginning after a prefix verb."""
    if spelling is None:
        return []
    words = reading.words
    kept = after_prefix_verb(words) | {i for run in reading.quoted_runs for i in run}
    fixes = {i: fixed for i, fixed in spelling.variants(words, SPELLINGS).items() if i not in kept}
    out = []
    for number, (start, end, text) in enumerate(grams):
        texts = [text]
        guesses: list[str] = []
        # a known word's guesses ("prader *willy*") only beside the name word they may continue, never alone
        alone = end - start == 1 and start in fixes and fixes[start][0] == words[start]
        if end - start <= SHORT_NGRAM and any(i in fixes for i in range(start, end)) and not alone:
            options = product(*(fixes.get(i, [words[i]]) for i in range(start, end)))
            respelt = [Respelt(number, " ".join(option), n == 0) for n, option in enumerate(islice(options, SPELLINGS))]
            out += respelt
            texts += [r.text for r in respelt if r.likeliest]
            guesses += [r.text for r in respelt if not r.likeliest]
        if not kept.intersection(range(start, end)):  # a name typed without its common ending: "marfan", "rett"
            after = reading.lowered[end] if end < len(words) else ""  # "martsolf *syndrome* 1": the ending is typed
            for said, likeliest in ((texts, True), (guesses, False)):  # a guess completed stays a guess
                wholes = [whole for whole in dict.fromkeys(map(spelling.complete, said)) if whole]
                out += [Respelt(number, whole, likeliest) for whole in wholes if after not in whole.split()]
            numbered = [whole for whole in dict.fromkeys(map(spelling.designated, texts)) if whole]
            out += [Respelt(number, whole, True, numbered=True) for whole in numbered]  # "CMT1A", "OI type I"
    return out


DESCRIBED_SIMILARITY = 0.65
DESCRIBED_MARGIN = 0.02
"""A long quotation names the node whose document is at least this similar to it, and this much more similar than
the next node's (measured on the read families' definitions, often cut short with "...": the anchor is first by
the document index in 19 of 23, at 0.62-0.85, and its lead is at least 0.024 where it is first; the misses lead by
0.002-0.06 at 0.60-0.70)."""


def described_anchors(
    reading: Reading,
    store: VectorSearcher,
    skb: str,
    labels: Sequence[str],
    embedder: Embedder,
    found: Sequence[Link],
    nouns: Sequence[Mention] = (),
) -> list[Link]:
    """The nodes the question names by their definition: "the manifestation whose definition reads 'Intense or
    prolonged psychological distress occurs when ...'". A quotation of more than
    :data:`kgqa.runtime.steps.s2_conditions.QUOTED_CONDITION` words that states no condition of the answers (no cue:
    :func:`kgqa.runtime.steps.s2_conditions.not_entities`) and that no link of ``found`` names whole is looked up in
    the document index of every label; the best node links it when it is clear (:data:`DESCRIBED_SIMILARITY`,
    :data:`DESCRIBED_MARGIN`). Its words are then no names of their own: the name index linked "prolonged" inside it
    to HPO's modifier 'Prolonged'."""
    long = [(run, text) for run, text in reading.quotations if len(run) > QUOTED_CONDITION]
    if not long:
        return []
    textual = not_entities(reading, labels, nouns=nouns)[1]
    anchors: list[Link] = []
    for run, text in long:
        if textual.intersection(run):
            continue
        if any(link.start <= run.start and run.stop <= link.end for link in found):
            continue  # a long name quoted whole ("Shortening of all innermost bones of the fingers")
        vector = embedder.embed_one(text)
        hits = sorted(
            (hit for label in labels for hit in store.vector_top_k(skb, label, "doc", vector, 2)),
            key=lambda hit: -hit.similarity,
        )
        if not hits or hits[0].similarity < DESCRIBED_SIMILARITY:
            continue
        if len(hits) > 1 and hits[0].similarity - hits[1].similarity < DESCRIBED_MARGIN:
            continue
        best = hits[0]
        anchors.append(
            Link(text, run.start, run.stop, best.label, str(best.id), best.name, best.similarity, described=True)
        )
    return anchors


COMPOUND_WINDOW = 6
COMPOUND_WORDS = 3
COMPOUND_TIE = 0.01
"""Words either side of a link that :func:`compound_link` reads, words it joins to the link at most, and how much
less similar a longer compound may be and still win ("young adult onset" over "adult onset")."""


def compound_link(
    reading: Reading,
    link: Link,
    store: VectorSearcher,
    skb: str,
    embedder: Embedder,
    threshold: float,
    taken: set[int],
) -> Link | None:
    """The longer name of ``link``'s label that the question splits around it: "their *onset* falling within the
    *young adult* category" and "onset recorded as *infantile*" say 'Young adult onset' and 'Infantile onset', where
    'Onset' alone is a root no disease presents. Each run of up to :data:`COMPOUND_WORDS` content words within
    :data:`COMPOUND_WINDOW` words (none of another link, a type's noun: ``taken``) is joined before and after the
    span and looked up in the name index; the best at least ``threshold`` similar, longer at a tie, links it."""
    words, lowered = reading.words, reading.lowered
    near = range(max(0, link.start - COMPOUND_WINDOW), min(len(words), link.end + COMPOUND_WINDOW))
    free = [
        i
        for i in near
        if i not in taken
        and not link.start <= i < link.end
        and lowered[i] not in STOP_WORDS | RELATIONAL | CLAUSE_WORDS
        and words[i].isalpha()
    ]
    runs = [
        [words[i] for i in range(a, b + 1)]
        for a in free
        for b in free
        if 0 <= b - a < COMPOUND_WORDS and all(j in free for j in range(a, b + 1))
    ]
    texts = [text for run in runs for text in (f"{' '.join(run)} {link.span}", f"{link.span} {' '.join(run)}")]
    if not texts:
        return None
    found: list[tuple[float, int, Link]] = []
    hits = store.vector_top_k_many(skb, link.label, "name", embedder.embed(texts), 1, floor=threshold)
    for text, best_hits in zip(texts, hits, strict=True):
        for hit in best_hits:
            if str(hit.id) != link.id:  # every hit is at least ``threshold`` similar (the search's floor)
                joined = Link(text, link.start, link.end, link.label, str(hit.id), hit.name, hit.similarity)
                found.append((hit.similarity, len(text.split()), joined))
    if not found:
        return None
    best = max(similarity for similarity, _, _ in found)
    return max((f for f in found if f[0] >= best - COMPOUND_TIE), key=lambda f: (f[1], f[0]))[2]


def unnamed_quotations(
    reading: Reading, store: TextSearcher, skb: str, labels: Sequence[str], types: set[int]
) -> list[range]:
    """The short quotations (at most :data:`QUOTED_CONDITION` words) that name no node: quotation marks give words
    verbatim, and verbatim words that are no node's name or alias (case aside) are what the answers' own text holds
    ("conditions carrying 'spastic' in the term name" is no 'Spasticity'; kgqa.runtime.steps.s2_conditions.
    read_conditions then states them), so no link takes them. A quotation right after a type's word names its node
    all the same ("the disease 'Marfan sindrome'")."""
    out = []
    for run, text in reading.quotations:
        if len(run) > QUOTED_CONDITION or run.start - 1 in types or not text.strip():
            continue
        if any(store.exact_name(skb, label, text) for label in labels) or store.exact_alias(skb, labels, text):
            continue
        out.append(run)
    return out


def _type_named(link: Link, types: set[int]) -> bool:
    """Whether ``link`` matched only the type words inside its span: "classes of the *phenotypic abnormality*"
    (or "which *phenotypic abnormalities* are ...") finding HPO's node 'Phenotypic abnormality' is the type named,
    not that node."""
    typed = {
        _singular(w.lower()) for i, w in zip(range(link.start, link.end), link.span.split(), strict=False) if i in types
    }
    return bool(typed) and {_singular(w) for w in _lower(link.search)} <= typed


PLACES = lexicon.words("places")
"""Words that place a node in a hierarchy: a word right before one modifies it ("*right* above")."""


def _not_a_name(link: Link, lowered: Sequence[str]) -> bool:
    """Whether ``link``'s span reads as part of the sentence, not a name: a lower-case word heading an of-phrase,
    linked to a symbol in capitals ("the complete *set* of signs" says no gene 'SET'; a symbol the question means
    is not followed by "of": "mapping to *gpi*"); a lower-case word right before a word of :data:`PLACES`
    ("*right* above or right below X" says no 'Right'); a span that opens with a hierarchy word and "of"
    ("*children of* X"); ``lowered``: the question's words in lower case."""
    after = lowered[link.end] if link.end < len(lowered) else ""
    one_word = link.end - link.start == 1 and link.span.islower()
    if one_word and ((link.search.isupper() and after == "of") or after in PLACES):
        return True
    hierarchy_words = KINDS[HIERARCHY][0]
    return link.end - link.start > 2 and lowered[link.start] in hierarchy_words and lowered[link.start + 1] == "of"


def _singular(word: str) -> str:
    """``word`` without a plural ending: "abnormalities" is the type noun that names 'Phenotypic abnormality'."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def tightest(found: Sequence[Link]) -> list[Link]:
    """``found`` without the spans whose best link a shorter span inside them makes as well or better, to the same
    node, with every word of its name or alias the longer one had: "phenotype present in spondylocostal
    dysostosis 5" and "spondylocostal dysostosis 5" name the same disease, and the words around it ("phenotype",
    "present") are the plan's hop, not the entity's name. Nor does a span win whose words past a better link inside
    or overlapping it are none of its own node's name, misspelt or not: "the *syndrome* spinocerebellar ataxia type
    35" is no better name of 'Spinocerebellar ataxia type 34' than "spinocerebellar ataxia type 35" is of type 35,
    nor "*genes associated with* Marfan" of anything than "Marfan syndrome" is, nor "*recorded for* osteogenesis
    imperfecta, type" of type XI than "osteogenesis imperfecta, type ii" of type II; but "*glanzman*
    thrombasthenia" is 'Glanzmann thrombasthenia', more than "thrombasthenia" is an alias of another node. Every
    link of such a span goes (its weaker matches to other nodes would take the words back)."""

    def inside(other: Link, link: Link) -> bool:
        return (
            link.start <= other.start
            and other.end <= link.end
            and other.end - other.start < link.end - link.start
            and other.similarity >= link.similarity
        )

    def overlaps(other: Link, link: Link) -> bool:
        return other is not link and other.start < link.end and link.start < other.end

    def replaced(link: Link) -> bool:
        own = _lower(f"{link.name} {link.alias}")
        for other in (other for other in found if overlaps(other, link)):
            extra = _lower(link.span) - _lower(other.span)
            if inside(other, link) and (other.label, other.id) == (link.label, link.id) and not extra & own:
                return True
            if other.similarity > link.similarity and extra and not _of_name(extra - STOP_WORDS, own):
                return True  # its words past the better link only frame it, inside or overlapping it
        return False

    best: dict[tuple[int, int], Link] = {}
    for link in found:
        if (link.start, link.end) not in best or link.similarity > best[link.start, link.end].similarity:
            best[link.start, link.end] = link
    dropped = {span for span, link in best.items() if replaced(link)}
    return [link for link in found if (link.start, link.end) not in dropped]


TYPO_EDITS = 1
"""Edits by which a typed word of four letters or more may miss a name's word and still be that word ("glanzman
thrombasthenia" is 'Glanzmann thrombasthenia')."""


def _of_name(words: set[str], own: set[str]) -> bool:
    """Whether any of ``words`` is one of a name's ``own`` words, as typed or :data:`TYPO_EDITS` away."""
    return any(
        word in own or (len(word) >= 4 and any(edit_distance(word, w) <= TYPO_EDITS for w in own)) for word in words
    )


def _lower(text: str) -> set[str]:
    return {w.lower() for w in words_of(text)}


def _priority(link: Link) -> tuple[int, float, int]:
    """Longer spans first when they match well and join no two phrases: a full name beats a word of it even when
    the word alone is a node's exact name (HPO's modifier "Generalized" inside "generalized tonic-clonic
    seizures"), but "Arachnoid cyst and Acute" must not beat "Arachnoid cyst", unless the joined span is all but
    exactly a node's name (the disease "Brachycephaly, trichomegaly, and developmental delay" is not three
    phenotypes). Then the most similar."""
    words = set(link.span.lower().split())
    joined = bool(words & CONJUNCTIONS)
    whole = link.similarity >= (JOINED_SPAN_SIMILARITY if joined else LONG_SPAN_SIMILARITY)
    return (-(link.end - link.start) if whole else 0, -link.similarity, link.start)
