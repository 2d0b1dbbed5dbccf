"""The schema-guided plan (kgqa.runtime.steps.s2_schema_plan) of the entities linked in the question
(kgqa.runtime.steps.s2_linking): the plan without an LLM, and the plan grounded beside the LLM's (``plan_fallback``).

An LLM's plan is evidence, not a switch: a small local model often invents a relation, reverses one, or turns the
question's free-text condition into a node constant, and any model gets some questions wrong. So with an LLM both
plans are grounded and step 6 ranks their targets by the plans' votes (kgqa.runtime.steps.s6_graph_ranking.plan_votes):
what both ground rises, and a plan that grounds nothing costs nothing (measured in docs/results.md).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from kgqa.cypher.compile import pattern_query
from kgqa.cypher.plan import QueryPlan
from kgqa.runtime.context import Context
from kgqa.runtime.reading import Reading
from kgqa.runtime.steps.s2_conditions import DOC_NOUNS, not_entities
from kgqa.runtime.steps.s2_linking import Link, compound_link, describe, link_entities
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import (
    Family,
    Hop,
    family_answer,
    hierarchy_answer,
    hierarchy_types,
    plural_of,
    schema_guided_plan,
)
from kgqa.runtime.steps.s2_type_nouns import type_nouns
from kgqa.runtime.text import PART, STOP_WORDS, Mention, plain_words, type_mentions, type_words


@dataclass(frozen=True)
class QuestionLinks:
    """What the name index links in a question and the type nouns read there: read once per ask, before step 1 (which
    reads the linked names, the hierarchy a step walks from one of them and the types they reach:
    kgqa.runtime.steps.s2_schema_plan.hierarchy_answer, reachable_labels) and the linked plan (:func:`linked_plan`),
    neither of whose answer type it depends on."""

    links: tuple[Link, ...]
    nouns: tuple[Mention, ...]
    family: Family | None = None
    """The linked family whose members the question asks for (:func:`family_members`), if any."""
    weak: tuple[Link, ...] = ()
    """Spans no link takes that the name index matches less surely (:func:`weak_links`): each is joined to the
    linked plan only where the graph holds it together with the sure links (:func:`linked_plan`)."""
    hierarchy: tuple[str, str] | None = None
    """The label whose hierarchy a step word walks from a linked entity, and that word
    (kgqa.runtime.steps.s2_schema_plan.hierarchy_answer): read once, for the family's reading and step 1."""


def question_links(ctx: Context, reading: Reading) -> QuestionLinks:
    """The entities the name index links in the question (``reading``), whatever its answer type."""
    nouns = type_nouns(reading, ctx.graph.labels, ctx.embedder)
    links = link_entities(
        reading,
        ctx.store,
        ctx.skb,
        ctx.graph.labels,
        ctx.embedder,
        threshold=ctx.config.link_threshold,
        aliases=ctx.aliases,
        limit=ctx.config.max_link_ngrams,
        nouns=nouns,
        documents=ctx.embedder_documents,
        spelling=None if ctx.reader is None else ctx.reader.spelling,
        id_prefixes=ctx.id_prefixes,
    )
    walked = hierarchy_answer(reading, links, ctx.graph, nouns, ctx.config.relation_meaning)
    said = family_answer(reading, links, ctx.graph) if walked is None else None  # a step down a hierarchy is said
    family = family_members(ctx, reading, *said) if said is not None else None
    return QuestionLinks(tuple(links), tuple(nouns), family, weak_links(ctx, reading, nouns, links), walked)


WEAK_LINK = 0.75
"""The least similarity of a weak link (:func:`weak_links`): "cherry-red spot" is 'Cherry red spot of the macula' at
0.76 and "a bluish-gray colour to the whites" 'Blue sclerae' at 0.75, under ``link_threshold``; "floppy baby" is
'Neck muscle weakness' at 0.73."""


def weak_links(ctx: Context, reading: Reading, nouns: Sequence[Mention], links: Sequence[Link]) -> tuple[Link, ...]:
    """What the name index links at :data:`WEAK_LINK` or more but under ``link_threshold``, over words no link of
    ``links`` takes, most similar first: people describe a finding in their own words, which match its name or a lay
    synonym less closely than a name typed. Alone such a link is a guess; the graph tells whether it fits the
    question's other entities (:func:`linked_plan`). The words as typed only: respellings, ids and quoted
    definitions are the sure linking's (a second pass of them cost step 3 another 1-3 ms median a question)."""
    if ctx.config.link_threshold <= WEAK_LINK:
        return ()
    found = link_entities(
        reading,
        ctx.store,
        ctx.skb,
        ctx.graph.labels,
        ctx.embedder,
        threshold=WEAK_LINK,
        aliases=ctx.aliases,
        limit=ctx.config.max_link_ngrams,
        nouns=nouns,
    )
    taken = {i for link in links for i in range(link.start, link.end)}
    framing = STOP_WORDS | {w for label in ctx.graph.labels for form in type_words(label) for w in plain_words(form)}
    weak = [
        link
        for link in found
        if link.similarity < ctx.config.link_threshold
        and not taken.intersection(range(link.start, link.end))
        and shares_a_word(link, framing)
    ]
    return tuple(sorted(weak, key=lambda link: -link.similarity))


SHARED_FORM = 4
"""Letters two words share at the start to be one word's forms ("taller", 'Tall stature'; "SLC52", 'SLC52A2')."""


def shares_a_word(link: Link, framing: Collection[str]) -> bool:
    """Whether ``link``'s span says a word of its node's name or alias, in some form, other than a ``framing`` word
    (a type's word, a stop word): "among *disorders*" is no 'Psychiatric disorders', "*DNA*" no 'Congenital
    neurosensory deafness', but "a bluish-gray colour to the whites" is 'Whites of eyes are a bluish-gray colour'."""
    said = set(plain_words(link.span)) - set(framing)
    named = set(plain_words(f"{link.name} {link.alias}")) - set(framing)
    size = SHARED_FORM
    return any(a == b or (len(a) >= size and len(b) >= size and a[:size] == b[:size]) for a in said for b in named)


FAMILY_MEMBERS = 1000
"""Full-text hits read for a family's name (:func:`family_members`): HPO's largest families have about 130 members
(spinocerebellar ataxias), and other nodes' documents mention the name too."""
UNLINKED_MEMBERS = 3
"""The least members of a family no entity names ("which Charcot-Marie-Tooth types ..."), whose names begin with
its words: fewer is a word some names happen to hold, no family."""


def family_words(link: Link) -> tuple[str, ...]:
    """The family's name: the words of ``link``'s node name that its span says, from the start, a plural for the
    singular ("spinocerebellar ataxias" -> spinocerebellar ataxia of 'Spinocerebellar ataxia 2'); its whole name
    where the span says none of them (an abbreviation or alias: "OI" -> osteogenesis imperfecta)."""
    said, name = PART.findall(link.span.lower()), PART.findall(link.name.lower())
    n = 0
    while n < min(len(said), len(name)) and (said[n] == name[n] or plural_of(said[n], name[n])):
        n += 1
    return tuple(name[:n] if n else name)


def family_members(ctx: Context, reading: Reading, span: range, link: Link | None) -> Family | None:
    """The family said at ``span`` (:func:`kgqa.runtime.steps.s2_schema_plan.family_answer`): the nodes whose names
    hold its name as consecutive words, found by the full-text index. Named by ``link``: nodes of its label, two or
    more; else the label without a hierarchy with the most nodes whose names begin with the span's words,
    :data:`UNLINKED_MEMBERS` or more. None where no family is found: the entity is one node, or the words are no
    family's name."""
    if link is not None:
        return members_named(ctx, family_words(link), [link.label], least=2, anywhere=True, link=link)
    words = tuple(w for i in span for w in PART.findall(reading.lowered[i]))
    labels = [label for label in ctx.graph.labels if not hierarchy_types(ctx.graph, label)]
    return members_named(ctx, words, labels, least=UNLINKED_MEMBERS, anywhere=False)


def members_named(
    ctx: Context,
    words: tuple[str, ...],
    labels: Sequence[str],
    *,
    least: int,
    anywhere: bool,
    link: Link | None = None,
) -> Family | None:
    """The nodes whose names hold ``words`` as consecutive words (at the start of the name unless ``anywhere``), but
    one whose name is those words alone, found by the full-text index: of the label of ``labels`` with the most such
    nodes, ``least`` or more; else None."""
    if not words:
        return None
    term = f'"{" ".join(words)}"' if len(words) > 1 else words[0]
    size = len(words)
    best: Family | None = None
    for label in labels:
        hits = ctx.store.text_top_k(ctx.skb, label, [term], FAMILY_MEMBERS)
        names = [(hit.id, PART.findall(hit.name.lower())) for hit in hits]
        members = tuple(
            node
            for node, name in names
            if tuple(name) != words  # the family's own entry is none of its members
            and any(tuple(name[i : i + size]) == words for i in (range(len(name)) if anywhere else range(1)))
        )
        if len(members) >= least and (best is None or len(members) > len(best.members)):
            best = Family(label, words, members, link)
    return best


OWNER_WORDS = 4
"""Words between a type's word and the textual condition it owns ("a disease *whose name mentions* X")."""


def named_middle(
    ctx: Context,
    reading: Reading,
    target: str,
    nouns: Sequence[Mention],
    textual: set[int],
    linked: Collection[int] = (),
) -> Family | None:
    """The nodes of another label than the answers' that the question names by what their names hold: a textual
    condition (``textual``: its word positions) said within :data:`OWNER_WORDS` words after a type's word other than
    the answers', outside a linked name (``linked``), with a word for a node's text between ("genes tied to a
    *disease* whose *name* mentions Bardet-Biedl"): the nodes of that label whose names hold its words
    (:func:`members_named`). None where no such condition is said, or no name holds it."""
    runs = [i for i in sorted(textual) if i - 1 not in textual]
    mentions = [m for m in [*type_mentions(reading.lowered, ctx.graph.labels), *nouns] if m.position not in linked]
    for start in runs:
        owner = next(
            (m for m in sorted(mentions, key=lambda m: -m.position) if start - OWNER_WORDS <= m.position < start), None
        )
        if owner is None or owner.label == target:
            continue
        if not DOC_NOUNS.intersection(reading.lowered[owner.position + 1 : start]):  # "X and have 'Y' in their ..."
            continue
        end = next(i for i in range(start, len(reading.lowered) + 1) if i not in textual)
        words = tuple(w for i in range(start, end) for w in PART.findall(reading.lowered[i]) if w not in STOP_WORDS)
        found = members_named(ctx, words, [owner.label], least=1, anywhere=True) if words else None
        if found is not None:
            return found
    return None


def lead_in(reading: Reading, found: QuestionLinks | None) -> frozenset[str]:
    """The search strings of the entities linked only before the sentence that asks, where that sentence links one
    too: context, weaker evidence than what the question itself names. None where the asking sentence starts inside
    parentheses ("all phenotypes in Solar urticaria (syn. Skin writing)" is one sentence)."""
    lead = reading.text[: max(0, reading.text.rfind(reading.asking))]
    if found is None or lead.count("(") > lead.count(")"):
        return frozenset()
    before = {link.search for link in found.links if link.end <= reading.asking_start}
    asked = {link.search for link in found.links if link.end > reading.asking_start}
    return frozenset(before - asked) if asked else frozenset()


def linked_plan(ctx: Context, reading: Reading, target: str, found: QuestionLinks) -> tuple[QueryPlan | None, str]:
    """The schema-guided plan of the entities the name index linked in the question (``reading``; ``found``:
    :func:`question_links`), and what was linked (for the trace); None when no linked entity is connected to
    ``target`` by the schema. Each weak link (:attr:`QuestionLinks.weak`, most similar first) joins the plan where
    the graph holds its node with the sure links' far likelier than anywhere (:func:`fits`, :data:`WEAK_LIFT`):
    recall from the question's own words, precision from the graph. A plan of weak links alone is never made."""
    links, nouns = list(found.links), list(found.nouns)
    shown = ", ".join(map(describe, links)) or "none"
    typed, textual = not_entities(reading, ctx.graph.labels, nouns=nouns)
    spans = {i for link in links for i in range(link.start, link.end)}
    meaning = RelationMeaning(
        reading,
        ctx.embedder,
        ctx.config.relation_threshold,
        ignore=STOP_WORDS,
        by_kind=ctx.config.relation_meaning,
        skip=frozenset(spans | textual),
    )

    families: dict[tuple[str, str], list[str]] = {}  # a link's family is read once, whatever the paths tried

    def reaches(link: Link, path: Sequence[Hop]) -> bool:
        ends = [target, *(label for _, label, _ in path)]  # the labels along the path, from the answer's side
        back = [(types, ends[i]) for i, (types, _, _) in reversed(list(enumerate(path)))]
        same = [i for i, _ in ctx.store.exact_name(ctx.skb, link.label, link.name)]  # step 4 grounds through all
        if any(ctx.store.reaches(ctx.skb, link.label, back, i) for i in dict.fromkeys([link.id, *same])):
            return True
        if (link.label, link.id) not in families:
            families[(link.label, link.id)] = family(ctx, link)
        return any(ctx.store.reaches(ctx.skb, link.label, back, i) for i in families[(link.label, link.id)])

    compounds: list[Link] = []
    taken = spans | typed

    def rejoin(link: Link) -> Link | None:
        longer = compound_link(reading, link, ctx.store, ctx.skb, ctx.embedder, ctx.config.link_threshold, taken)
        compounds.extend([longer] if longer is not None else [])
        return longer

    middle = named_middle(ctx, reading, target, nouns, textual, spans)

    def planned(links: Sequence[Link]) -> QueryPlan | None:
        return schema_guided_plan(
            links,
            target,
            ctx.graph,
            reading,
            meaning,
            max_triplets=ctx.config.max_triplets,
            reaches=reaches,
            nouns=nouns,
            rejoin=rejoin,
            family=found.family,
            by_name=middle,
        )

    plan = planned(links)
    held = []
    everywhere = sum(label.count for label in ctx.schema.labels if label.name == target)
    base: int | None = None  # the plan's answers, counted once for every weak link tried against it
    for weak in found.weak:  # a weak link joins where the graph holds it with the sure ones
        if plan is None:
            break
        joined = sorted([*links, weak], key=lambda link: link.start)
        trial, alone = planned(joined), planned([weak])
        if trial is None or alone is None or len(trial.constants) <= len(plan.constants):
            continue
        together = answers(ctx, trial, joined)
        if not together:
            continue
        base = answers(ctx, plan, links) if base is None else base
        if fits(together, base, answers(ctx, alone, [weak]), everywhere) >= WEAK_LIFT:
            links, plan, base = joined, trial, together
            held.append(weak)
    if held:
        shown += "; weak links the graph holds with the others: " + ", ".join(map(describe, held))
    if compounds:
        shown += "; longer names tried for an unreached link: " + ", ".join(map(describe, compounds))
    if meaning.choices:
        shown += "; relation types: " + "; ".join(choice.describe() for choice in meaning.choices)
    return plan, shown


WEAK_LIFT = 5.0
"""How much likelier a weak link's node must be among the answers of the sure links than among all nodes of the
answers' type for the graph to hold it (:func:`fits`). Measured on every set (a62a3e2): the weak links that named
what the question meant lifted 14.8-46 ('Blue sclerae' 20, 'Cherry red spot of the macula' 24, 'Tall stature' for
"taller" 15); the wrong ones 0-3.8 ("eye" as 'Iris coloboma' via 'Cat eye' 3.8, hubs such as 'Atypical behavior'
1.2-8.6 before :func:`shares_a_word` set them aside)."""


def fits(together: int, base: int, alone: int, everywhere: int) -> float:
    """The lift of a weak link among the answers of the sure links: the share of the plan's ``base`` answers (each
    constant its linked node alone: :func:`answers`) that the plan with the weak link keeps (``together``), over the
    share of all ``everywhere`` nodes of the answers' type that the weak link ``alone`` reaches. A node that fits
    what the question names is far likelier among its answers than anywhere ('Blue sclerae' among the diseases with
    'Recurrent fractures'); a hub of the graph is as likely everywhere ('Congenital onset', 'Atypical behavior'), and
    0 where nothing holds it."""
    if not together:
        return 0.0
    return (together / max(base, 1)) / max(alone / max(everywhere, 1), 1e-9)


def answers(ctx: Context, plan: QueryPlan, links: Sequence[Link]) -> int:
    """How many answers ``plan`` grounds (up to ``pattern_limit``) with each constant its linked node alone (or a
    node of the same name)."""
    query = pattern_query(plan, ctx.graph.keys, limit=ctx.config.pattern_limit)
    nodes: dict[str, list[str]] = {}
    for link in links:
        nodes.setdefault(link.search, []).append(link.id)
    params = dict(query.params)
    for symbol, param in query.constant_params.items():
        params[param] = nodes.get(plan.symbol(symbol).search_string or "", [])
    return len(ctx.store.read(ctx.skb, query.text, params))


FAMILY_NAMES = 20
"""Nearest names read for a linked entity's family (:func:`family`): step 5 widens a constant's candidates along the
same order (1, 2, 3, 5, 8, 12, 18 ...)."""


def family(ctx: Context, link: Link) -> list[str]:
    """Ids of the nodes among the :data:`FAMILY_NAMES` nearest names to ``link``'s whose names begin with all of its
    name's words ("Usher syndrome type 1" for 'Usher syndrome'): an umbrella entry that the schema joins to nothing
    (Orphanet's 'Usher syndrome' holds no gene) stands for its members, which step 5 reaches as it widens the
    constant's candidates."""
    words = PART.findall(link.name.lower())
    hits = ctx.store.vector_top_k(ctx.skb, link.label, "name", ctx.embedder.embed_one(link.name), FAMILY_NAMES)
    return [
        str(hit.id) for hit in hits if str(hit.id) != link.id and PART.findall(hit.name.lower())[: len(words)] == words
    ]


def unconnected(links: str, target: str) -> str:
    return f"no linked entity ({links}) is connected to {target}"
