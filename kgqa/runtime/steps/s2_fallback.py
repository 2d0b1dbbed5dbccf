"""The schema-guided plan (kgqa.runtime.steps.s2_schema_plan) of the entities linked in the question
(kgqa.runtime.steps.s2_linking): the plan without an LLM, and the plan grounded beside the LLM's (``plan_fallback``).

An LLM's plan is evidence, not a switch: a small local model often invents a relation, reverses one, or turns the
question's free-text condition into a node constant, and any model gets some questions wrong. So with an LLM both
plans are grounded and step 6 ranks their targets by the plans' votes (kgqa.runtime.steps.s6_graph_ranking.plan_votes):
what both ground rises, and a plan that grounds nothing costs nothing (measured in docs/results.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgqa.cypher.plan import QueryPlan
from kgqa.runtime.context import Context
from kgqa.runtime.reader.spelling import PART
from kgqa.runtime.reading import Reading
from kgqa.runtime.steps.s2_conditions import not_entities
from kgqa.runtime.steps.s2_linking import Link, compound_link, describe, link_entities
from kgqa.runtime.steps.s2_relation_meaning import RelationMeaning
from kgqa.runtime.steps.s2_schema_plan import Hop, schema_guided_plan
from kgqa.runtime.steps.s2_type_nouns import type_nouns
from kgqa.runtime.text import STOP_WORDS, Mention


@dataclass(frozen=True)
class QuestionLinks:
    """What the name index links in a question and the type nouns read there: read once per ask, before step 1 (which
    reads the linked names, the hierarchy a step walks from one of them and the types they reach:
    kgqa.runtime.steps.s2_schema_plan.hierarchy_answer, reachable_labels) and the linked plan (:func:`linked_plan`),
    neither of whose answer type it depends on."""

    links: tuple[Link, ...]
    nouns: tuple[Mention, ...]


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
    )
    return QuestionLinks(tuple(links), tuple(nouns))


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
    ``target`` by the schema."""
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

    plan = schema_guided_plan(
        links,
        target,
        ctx.graph,
        reading,
        meaning,
        max_triplets=ctx.config.max_triplets,
        reaches=reaches,
        nouns=nouns,
        rejoin=rejoin,
    )
    if compounds:
        shown += "; longer names tried for an unreached link: " + ", ".join(map(describe, compounds))
    if meaning.choices:
        shown += "; relation types: " + "; ".join(choice.describe() for choice in meaning.choices)
    return plan, shown


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
