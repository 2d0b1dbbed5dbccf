"""Method step 6: rank the grounded targets of the graph strand.

Targets are ordered by tier (the earliest round l in which a plan grounded them, then the plans' votes:
:func:`plan_votes`), turn (:func:`turns`) and relevance (similarity of the question to the node's document WITHOUT
relations, plus ``lexical_weight`` times the full-text score of the question's residual words, scaled to [0, 1] by
the best among the ranked, plus as much again for a quoted phrase of its condition: :func:`lexical_scores`);
``round(alpha * k)`` are kept, and past them the targets several plans corroborate, up to k. That similarity is to
the plain-document vector each node got at load time (``plain_emb``, or ``doc_emb`` where one vector serves both, by
the configured embedder), computed by the store: nothing but the question is embedded here. Only the targets of the
rounds that can reach the kept slots are scored, at most ``cap`` of them: a round of a 2-hop pattern through a hub
grounds thousands, whose scores would cost more than a lookup costs, so the ``cap`` scored are those the document
index already ranks closest to the question or the full-text index best matches to its residual words (one lookup of
each per label), not an arbitrary first ``cap``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kgqa.errors import StoreTimeoutError
from kgqa.runtime.scoring import Lexical, lexical_scores, next_scope, stored_similarities
from kgqa.runtime.steps.s4_grounding import Grounded, PlanGrounding
from kgqa.runtime.store.protocols import Searcher
from kgqa.runtime.text import plain_words
from kgqa.types import Candidate, Match, fused_score


@dataclass(frozen=True)
class GraphRanking:
    kept: list[Candidate]
    grounded: dict[str, Candidate]
    """every grounded target that was ranked, by id (so the vector strand can tag overlaps)"""
    detail: str
    excluded: frozenset[str] = frozenset()
    """ids the plans exclude (:attr:`kgqa.cypher.plan.QueryPlan.excluded`): no answer of the fill either"""


Tier = tuple[int, float]
"""Where a target ranks among the grounded ones, best first when sorted: (the earliest round l in which a plan
grounded it, as :func:`counted_round` counts it, minus the summed weight of the plans that grounded it in that
round)."""


@dataclass(frozen=True)
class Supported:
    """A grounded target with the plans that grounded it: ``plans`` as (source, round l), ``tier`` its
    :data:`Tier`, ``agreed`` the plans that grounded it in its earliest round, ``first`` the grounding of the first of
    them (whose evidence leads)."""

    first: Grounded
    plans: tuple[tuple[str, int], ...]
    tier: Tier
    agreed: tuple[str, ...]
    matches: tuple[tuple[str, str, tuple[str, ...]], ...]
    """(plan source, constant symbol, ids of its candidates the target was grounded through)"""
    voters: int
    """How many of the ``agreed`` plans have a vote of weight (:func:`counted_weight`): two or more corroborate it"""

    @property
    def id(self) -> str:
        return self.first.id

    @property
    def label(self) -> str:
        return self.first.label

    @property
    def round_l(self) -> int:
        """The round in which the leading plan grounded it (its tier may count it later: :func:`counted_round`)."""
        return self.first.round_l


WEIGHT_DIGITS = 9
"""Summed weights are rounded to this many digits before they are compared (sums must tie where they are equal)."""


def counted_round(grounding: PlanGrounding, target: Grounded) -> int:
    """The round step 6 counts ``target`` in: the round its plan grounded it in, or the next round of the schedule
    when the plan has a weak constant (kgqa.runtime.steps.s4_grounding.weak_constants) or answers another type than
    the ask's without being strong (``off_type`` ``behind``). Its first round then matched the graph only through a
    node the question does not name, or found answers of a type the evidence set aside, and must not tie with the
    targets of a plan that does not."""
    return next_scope(target.round_l) if discounted(grounding) else target.round_l


def counted_weight(grounding: PlanGrounding) -> float:
    """The weight of a plan's vote in step 6: its own, or none for a plan with a weak constant or of another answer
    type that is not strong (``off_type`` ``behind``). Such a plan's targets follow the other plans' targets of the
    round they are counted in, and agreeing with it adds nothing: its grounding passes through a node the question
    does not name, or reads the question as asking for another type on no evidence, so that agreement is chance."""
    return 0.0 if discounted(grounding) else grounding.weight


def discounted(grounding: PlanGrounding) -> bool:
    """Whether step 6 counts a plan's rounds one later and gives its vote no weight (:func:`counted_round`,
    :func:`counted_weight`): it has a weak constant, or answers another type than the ask's without being strong."""
    return bool(grounding.weak) or grounding.off_type == "behind"


def plan_votes(groundings: Sequence[PlanGrounding]) -> list[Supported]:
    """Every target of ``groundings`` once, with the plans that grounded it, best tier first (the order of the
    groundings within a tier). A target ranks by the earliest round l in which any plan grounded it (the method's
    measure of how well a plan fits the graph as written), then by the summed weight of the plans that grounded it in
    that round: what several plans agree on rises, a plan that grounds nothing changes nothing, a late round of one
    plan (a constant's 5th-best candidate) never adds to another plan's first, and a plan through a weak constant
    (:func:`counted_round`, :func:`counted_weight`) neither ties with nor adds to the others' round. With one plan
    the order is its rounds' (l = 1 first), as the method ranks them."""
    found: dict[str, list[tuple[PlanGrounding, Grounded, int]]] = {}
    for grounding in groundings:
        for g in grounding.result.targets:
            found.setdefault(g.id, []).append((grounding, g, counted_round(grounding, g)))
    supported = []
    for triples in found.values():
        best = min(counted for _, _, counted in triples)
        agreed = [(grounding, g) for grounding, g, counted in triples if counted == best]
        strength = round(sum(counted_weight(grounding) for grounding, _ in agreed), WEIGHT_DIGITS)
        supported.append(
            Supported(
                agreed[0][1],
                tuple((grounding.source, g.round_l) for grounding, g, _ in triples),
                (best, -strength),
                tuple(grounding.source for grounding, _ in agreed),
                tuple((grounding.source, symbol, ids) for grounding, g, _ in triples for symbol, ids in g.matches),
                sum(counted_weight(grounding) > 0 for grounding, _ in agreed),
            )
        )
    return sorted(supported, key=lambda s: s.tier)


def rank_graph_strand(
    groundings: Sequence[PlanGrounding],
    store: Searcher,
    skb: str,
    question_vector: np.ndarray,
    *,
    keep: int,
    cap: int,
    doc_vector: np.ndarray | None = None,
    lexical: Lexical | None = None,
    keep_corroborated: int = 0,
    excluded: frozenset[str] = frozenset(),
    reached: Mapping[str, Mapping[str, int]] | None = None,
    documents: bool = True,
) -> GraphRanking:
    """Step 6 over the targets of one plan or several: by tier (:func:`plan_votes`), then by turn (:func:`turns`),
    then by relevance: the question's similarity to the node's document plus the weighted full-text score.

    ``keep`` answers are kept; where two or more voting plans concur (:func:`concur`), so are the next ranked
    targets they both grounded in their best round (:attr:`Supported.voters`), up to ``keep_corroborated`` in all:
    plans written apart that find the very same answer set leave no doubt that the answers lie in it, so its best
    are better evidence than the vector strand's fill. So are those of plans that all name their constants exactly
    (:func:`named_exactly`), unless the question states what the answers' text holds (:attr:`Lexical.stated`): there
    the fill's full-text answers are the evidence ("genes implicated in a sign of X whose symbols start with 'JAK'": 1
    of 174 grounded matches, the full-text search finds the rest; the left-out families lost 0.016 recall@20 to it at
    ca2233f). Plans that overlap only in part (a reversed hop grounds a subset of the undirected one) keep ``keep``,
    as does a plan otherwise.

    ``question_vector`` is the configured embedder's (the stored ``plain_emb`` are by it); ``doc_vector``, the
    question's vector for the stored document index that preselects over-cap targets (None: ``question_vector``;
    they differ when the SKB's document vectors come from another model). ``excluded``: ids no plan's target may
    be (kgqa.runtime.steps.s4_grounding.ground_exclusions), left out before anything is ranked. ``reached``: label ->
    :func:`reach_of` already read in this ask with ``lexical``'s terms (step 5 grounds a lone hub among them), not
    read again."""
    voted = plan_votes(groundings)
    targets = [s for s in voted if s.id not in excluded]
    exact = named_exactly(groundings) and not (lexical is not None and lexical.stated)
    extra = keep_corroborated if exact or concur(groundings) else keep
    tier = {key: i for i, key in enumerate(dict.fromkeys(s.tier for s in targets))}
    chosen: list[Supported] = []
    for key in tier:
        members = [s for s in targets if s.tier == key]
        wanted = extra if exact or any(s.voters >= 2 for s in members) else keep
        if len(chosen) >= max(keep, wanted):
            break
        chosen.extend(members)
    note = ""
    if len(chosen) > cap:
        terms = lexical.terms if lexical is not None and lexical.weight else ()
        by = "document vectors and full-text" if terms else "document vectors"
        note = f"; ranked {cap} of {len(chosen)} targets (graph_rank_cap; preselected by {by})"
        vector = question_vector if doc_vector is None else doc_vector
        try:
            chosen = _preselect(chosen, tier, store, skb, vector, cap, terms, reached or {}, documents)
        except StoreTimeoutError as exc:  # as below: the full-text side is a refinement
            note += f"; full-text preselection skipped: {exc}"
            chosen = _preselect(chosen, tier, store, skb, vector, cap, (), {}, documents)
    keys = [(s.label, s.id) for s in chosen]
    dense = stored_similarities(store, skb, keys, question_vector, documents=documents)
    matched = np.zeros(len(chosen))
    weight = lexical.weight if lexical is not None else 0.0
    if lexical is not None and lexical.weight and lexical.terms and chosen:
        try:
            matched = lexical_scores(store, skb, keys, lexical.terms)
        except StoreTimeoutError as exc:  # the lexical side is a refinement: rank by the dense similarity alone
            note += f"; lexical {list(lexical.terms)} skipped: {exc}"
        else:
            note += f"; lexical {list(lexical.terms)}: {int((matched > 0).sum())} of {len(chosen)} match"
    scores = dense + weight * matched
    turn = turns(chosen, tier, scores)
    held = names_hold(chosen, lexical)
    ranked = sorted(range(len(chosen)), key=lambda i: (tier[chosen[i].tier], not held[i], turn[i], -float(scores[i])))
    sources = {g.source: g for g in groundings}
    candidates = [
        _candidate(chosen[i], float(scores[i]), sources, float(dense[i]), weight * float(matched[i])) for i in ranked
    ]
    past = [chosen[i] for i in ranked[keep:extra]]
    kept_n = keep + (len(past) if exact else corroborated_run(past))
    kept = with_fused(candidates[:kept_n], [(chosen[i].tier, turn[i]) for i in ranked[:kept_n]])
    behind = {g.source for g in groundings if g.off_type == "behind"}
    if behind:  # ranked, but not kept ahead of the settled type's fill
        kept = [c for c in kept if not set(c.plans) <= behind]
    total = len(targets)
    out = f" ({len(voted) - total} more excluded)" if len(voted) > total else ""
    detail = f"{total} grounded{out}, {len(chosen)} ranked, {len(kept)} kept{note}"
    if kept_n > keep:
        why = "every voting plan's constants named exactly" if exact else "corroborated by several plans"
        detail += f" ({kept_n - keep} past {keep}: {why})"
    if len(groundings) > 1:
        agreed = sum(len(s.plans) > 1 for s in targets)
        detail += f"; {agreed} grounded by {' and '.join(g.source for g in groundings)} both"
    return GraphRanking(kept, {c.id: c for c in candidates}, detail, excluded)


def names_hold(chosen: Sequence[Supported], lexical: Lexical | None) -> list[bool]:
    """Whether each target's own name holds every term of what the question states the answers' text holds
    (:attr:`Lexical.stated`: "disorders whose name contains 'tumor'", "genes whose symbols start with 'JAK'", a prefix
    beginning a word of the name): within its tier such a target goes first, whatever the full-text scores of
    documents that say the words too. All False where the question states nothing."""
    if lexical is None or not lexical.stated or not lexical.terms:
        return [False] * len(chosen)
    phrases = [plain_words(term) for term in lexical.terms if not term.endswith("*")]
    starts = {term[:-1] for term in lexical.terms if term.endswith("*")}

    def holds(name: str) -> bool:  # a quoted phrase's words in its order, a prefix beginning a word
        own = plain_words(name)
        said = all(any(own[i : i + len(p)] == p for i in range(len(own))) for p in phrases)
        return said and all(any(w.startswith(p) for w in own) for p in starts)

    return [holds(s.first.name) for s in chosen]


def concur(groundings: Sequence[PlanGrounding]) -> bool:
    """Whether two or more plans with a vote of weight (:func:`counted_weight`) grounded the very same targets,
    and some."""
    voting = [
        frozenset(g.id for g in grounding.result.targets) for grounding in groundings if counted_weight(grounding)
    ]
    return len(voting) >= 2 and bool(voting[0]) and all(ids == voting[0] for ids in voting)


def named_exactly(groundings: Sequence[PlanGrounding]) -> bool:
    """Whether every plan that votes names its constants exactly: each one's best candidate matches its search string,
    by name or alias (the linked plan's and its relaxations' constants are the names and aliases its links matched).
    Their targets hold the pattern as the question names it, and up to k of them are better evidence than the
    vector strand's fill ("features of Stickler syndrome type I": 39 phenotypes, 13 kept and 7 nearest documents
    before; "diseases associated with FGFR3" after a lead-in: 25, 13 kept before)."""
    voting = [g for g in groundings if counted_weight(g)]
    return bool(voting) and all(g.result.exact and all(g.result.exact.values()) for g in voting)


def corroborated_run(ranked: Sequence[Supported]) -> int:
    """How many of ``ranked``, from the first, two or more plans corroborate (:attr:`Supported.voters`)."""
    return next((i for i, s in enumerate(ranked) if s.voters < 2), len(ranked))


def _candidate(
    s: Supported, score: float, groundings: Mapping[str, PlanGrounding], dense: float, lexical: float
) -> Candidate:
    """The ranked target as an answer: its evidence from every plan that grounded it (the three best candidates of
    each constant), and how its tier and relevance were made."""
    results = {source: g.result for source, g in groundings.items()}
    first_source = next(iter(results))
    matches = [
        Match(
            symbol if source == first_source else f"{source}.{symbol}",
            results[source].searches.get(symbol, ""),
            node,
            results[source].names.get(node, ""),
            results[source].via_alias.get((symbol, node), ""),
        )
        for source, symbol, nodes in s.matches
        for node in nodes[:3]
    ]
    plans = " + ".join(_counted(source, scope, groundings[source]) for source, scope in s.plans)
    why = f"weight {-s.tier[1]:g} at l={s.tier[0]} ({plans}); relevance {score:.3f}"
    why += f" = dense {dense:.3f} + lexical {lexical:.3f}"
    return Candidate(
        s.id,
        s.label,
        s.first.name,
        score,
        ("graph",),
        s.round_l,
        tuple(matches),
        s.first.plan,
        plans=tuple(source for source, _ in s.plans),
        why=why,
    )


def _counted(source: str, scope: int, grounding: PlanGrounding) -> str:
    """How a plan's round shows in ``why``: with the round step 6 counts it in, where that is a later one, and why."""
    why = [f"weak {', '.join(grounding.weak)}"] if grounding.weak else []
    why += ["another answer type than the ask's, not strong"] if grounding.off_type == "behind" else []
    return f"{source} l={scope}" + (f" counted as l={next_scope(scope)}, {'; '.join(why)}" if why else "")


PRESELECT_FACTOR = 10
"""The lookups that preselect over-cap targets fetch this many times ``cap`` nearest documents (best matches)."""


def _preselect(
    chosen: list[Supported],
    tier: Mapping[Tier, int],
    store: Searcher,
    skb: str,
    question_vector: np.ndarray,
    cap: int,
    terms: Sequence[str],
    reached: Mapping[str, Mapping[str, int]],
    documents: bool = True,
) -> list[Supported]:
    """The ``cap`` targets to rank: better tiers first, within a tier by their better rank in two lookups, the
    document vector index's nearest to the question and the full-text index's best matches for ``terms`` (a
    textual condition's rare word finds its few targets among thousands that dense similarity would pass over);
    targets beyond both lookups' reach come last, in grounding order. ``reached``: those lookups already read."""
    depth = cap * PRESELECT_FACTOR
    reach: dict[str, int] = {}
    for label in dict.fromkeys(s.label for s in chosen):
        known = reached.get(label)
        if known is None:
            known = reach_of(store, skb, label, question_vector, depth, terms, documents=documents)
        reach.update(known)
    return sorted(chosen, key=lambda s: (tier[s.tier], reach.get(s.id, depth)))[:cap]


def reach_of(
    store: Searcher,
    skb: str,
    label: str,
    question_vector: np.ndarray,
    depth: int,
    terms: Sequence[str],
    *,
    documents: bool = True,
) -> dict[str, int]:
    """id -> its better rank among the ``depth`` nodes of ``label`` nearest the question by the document vector
    index (none while ``documents`` is False) and the ``depth`` best full-text matches of ``terms``: the nodes step
    6 ranks first among too many."""
    reach: dict[str, int] = {}

    def reached(ids: Iterable[str]) -> None:
        for rank, i in enumerate(ids):
            reach[i] = min(reach.get(i, rank), rank)

    if documents:
        reached(str(hit.id) for hit in store.vector_top_k(skb, label, "doc", question_vector, depth))
    if terms:
        reached(hit.id for hit in store.text_top_k(skb, label, terms, depth))
    return reach


def turns(chosen: Sequence[Supported], tier: Mapping[Tier, int], scores: np.ndarray) -> list[int]:
    """Each target's turn within its tier: its position among the tier's targets of each plan that grounded it in
    the tier's round, by relevance, the best over those plans (0: some plan's most relevant). Plans take turns within
    a tier, so a plan that grounds many targets of its own cannot push the best of another below its own second;
    with one plan the turn is the relevance order."""
    members: dict[tuple[int, str], list[int]] = defaultdict(list)
    for i, s in enumerate(chosen):
        for source in s.agreed:
            members[tier[s.tier], source].append(i)
    turn = [len(chosen)] * len(chosen)
    for indices in members.values():
        for position, i in enumerate(sorted(indices, key=lambda i: -float(scores[i]))):
            turn[i] = min(turn[i], position)
    return turn


def with_fused(kept: Sequence[Candidate], places: Sequence[tuple[Tier, int]]) -> list[Candidate]:
    """The kept answers with their fused score (:func:`kgqa.types.fused_score`): as tier, the number of distinct
    tiers from theirs down to the lowest kept (so every kept answer outranks step 7's fill, tier 0); within it their
    turn and relevance. ``places``: each answer's (tier, turn)."""
    distinct = sorted({key for key, _ in places}, reverse=True)
    out = []
    for c, (key, turn) in zip(kept, places, strict=True):
        number = distinct.index(key) + 1
        out.append(replace(c, fused=fused_score(number, c.score, turn), why=f"tier {number}, turn {turn}: {c.why}"))
    return out
