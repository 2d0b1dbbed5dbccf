"""Step 5 is bounded by what a round costs, not by its number: a join binds its cheapest constant first (one degree
count per candidate), a round estimated past ``round_cost_cap`` is not run, and the expansion stops after a round
that adds no target. Each bound that ends the expansion says so (issue 52)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from kgqa.cypher.parser import parse
from kgqa.cypher.plan import NodeKeys
from kgqa.cypher.sanitize import GraphSchema, sanitize
from kgqa.errors import StoreTimeoutError
from kgqa.runtime.pipeline.grounding import _hub_alone
from kgqa.runtime.scoring import Lexical
from kgqa.runtime.steps.s4_grounding import (
    Bounds,
    Degrees,
    GroundingResult,
    NodeMatch,
    first_hops,
    ground,
    round_order,
    second_hops,
)
from kgqa.runtime.store import deadline as deadline_module
from kgqa.runtime.store.base import VectorHit
from kgqa.runtime.store.deadline import Deadline

SCHEMA = GraphSchema(
    ("disease", "phenotype"),
    (("disease", "present", "phenotype"), ("disease", "absent", "phenotype")),
    NodeKeys("id", "name"),
)
PLAN = sanitize(
    parse(
        "MATCH (y:disease)-[:present]->(h:phenotype {name: 'Seizure'}), "
        "(y)-[:absent]->(r:phenotype {name: 'Ataxia'}) RETURN y"
    ),
    SCHEMA,
).plan
HUB = [f"h{i}" for i in range(30)]
RARE = [f"r{i}" for i in range(30)]
FOUND = {"h": [NodeMatch(i, i) for i in HUB], "r": [NodeMatch(i, i) for i in RARE]}
VECTORS = {"h": np.zeros(4, dtype=np.float32), "r": np.zeros(4, dtype=np.float32)}


class Store:
    """Hub candidates join 1,000 diseases each, rare ones 2; each round grounds the diseases ``rows`` gives for
    its scope."""

    def __init__(self, rows: dict[int, list[str]] | None = None) -> None:
        self.rows = rows or {}
        self.queries: list[str] = []
        self.probes: list[tuple[str, tuple[str, ...], str, tuple[str, ...]]] = []

    def degrees(
        self, graph: str, label: str, ids: Sequence[str], types: Sequence[str], direction: str, other: str
    ) -> dict[str, int]:
        self.probes.append((label, tuple(types), direction, tuple(ids)))
        return {i: 1000 if i.startswith("h") else 2 for i in ids}

    def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
        self.queries.append(query)
        scope = max(len(v) for k, v in params.items() if k.startswith("c"))
        ids = next((found for at, found in sorted(self.rows.items(), reverse=True) if scope >= at), [])
        columns = [["h0"], ["r0"]][: len(re.findall(r" AS m\d", query))]
        return [[i, i, "disease", *columns] for i in ids]


def first_bound(query: str) -> str:
    """The constant parameter the query's first MATCH looks up."""
    found = re.match(r"MATCH \(\w+:`?\w+`?\) WHERE \w+\.`?id`? IN \$(c\d)", query)
    assert found is not None, query
    return found[1]


def test_each_constant_is_probed_along_its_first_hop_toward_the_answer() -> None:
    assert first_hops(PLAN) == {
        "h": ("phenotype", ("present",), "in", "disease"),
        "r": ("phenotype", ("absent",), "in", "disease"),
    }


def test_the_cheaper_side_of_the_join_is_bound_first() -> None:
    store = Store({1: ["d1"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=1, l_max=5, found=FOUND)  # type: ignore[arg-type]
    params = result.query.constant_params
    assert first_bound(store.queries[0]) == params["r"]  # 'Ataxia' absent (2 edges), not 'Seizure' (1,000)
    assert result.costs[1] == 2 * 1  # the rare side's edges times the hub's one candidate
    assert result.query.text == store.queries[-1]


def test_a_round_estimated_past_the_cap_is_not_run_and_says_so() -> None:
    store = Store({1: ["d1"], 2: ["d1", "d2"], 3: ["d1", "d2", "d3"]})
    bounds = Bounds(cost_cap=10, stall=False)
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=5, found=FOUND, bounds=bounds)  # type: ignore[arg-type]
    # l = 2: 2 rare candidates (4 edges) x 2 hub candidates = 8 rows; l = 3: 6 x 3 = 18 > 10
    assert [r.scope for r in result.rounds] == [1, 2]
    assert result.stopped == "l=3 not run: ~18 rows estimated, over 10 (bound: round_cost_cap)"
    assert [t.id for t in result.targets] == ["d1", "d2"]


def test_the_first_round_runs_whatever_its_estimate() -> None:
    store = Store({1: ["d1"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=1, found=FOUND, bounds=Bounds(cost_cap=1))  # type: ignore[arg-type]
    assert [r.scope for r in result.rounds] == [1] and result.stopped == ""


def test_a_round_that_adds_no_target_ends_the_expansion() -> None:
    store = Store({1: ["d1"], 3: ["d1", "d3"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=100, found=FOUND)  # type: ignore[arg-type]
    assert [r.scope for r in result.rounds] == [1, 2]
    assert result.stopped == "l=2 added no target: stopped (bound: expansion_stall)"
    unbounded = ground(
        Store({1: ["d1"], 3: ["d1", "d3"]}),
        "hpo",
        PLAN,
        VECTORS,
        SCHEMA,
        k=20,
        l_max=5,
        found=FOUND,
        bounds=Bounds(stall=False),
    )  # type: ignore[arg-type]
    assert [r.scope for r in unbounded.rounds] == [1, 2, 3, 5] and unbounded.stopped == ""
    assert [t.id for t in unbounded.targets] == ["d1", "d3"]


def test_rounds_that_find_nothing_yet_go_on_expanding() -> None:
    store = Store({3: ["d3"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=8, found=FOUND)  # type: ignore[arg-type]
    assert [r.scope for r in result.rounds] == [1, 2, 3, 5]
    assert result.stopped == "l=5 added no target: stopped (bound: expansion_stall)"


def test_degrees_are_read_once_per_candidate_for_the_whole_ask() -> None:
    store = Store({1: ["d1"]})
    degrees = Degrees(store, "hpo")  # type: ignore[arg-type]
    for _ in range(2):
        ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=3, found=FOUND, degrees=degrees)  # type: ignore[arg-type]
    read = [i for *_, ids in store.probes for i in ids]
    assert sorted(read) == sorted(HUB[:12] + RARE[:12])  # one probe of the first 12 per constant, then none


MAG = GraphSchema(
    ("paper", "field"), (("paper", "cites", "paper"), ("paper", "topic", "field")), NodeKeys("id", "name")
)
CITING_A_FIELD_OF = sanitize(
    parse(
        "MATCH (y:paper)-[:cites]->(x:paper {name: 'X'}), (y)-[:topic]->(f:field), "
        "(o:paper {name: 'Y'})-[:topic]->(f) RETURN y"
    ),
    MAG,
).plan
"""Papers citing X with a field of study paper Y has: Y has two fields (its first hop), but they have thousands of
papers (its second); X is cited by 100."""


class Walks(Store):
    """X's candidates are cited by ``cited`` papers each, Y's have two fields, with ``fields_papers`` papers in all."""

    def __init__(self, fields_papers: int, cited: int = 100) -> None:
        super().__init__({1: ["p1"]})
        self.fields_papers, self.cited = fields_papers, cited
        self.walks: list[tuple[str, ...]] = []

    def degrees(
        self, graph: str, label: str, ids: Sequence[str], types: Sequence[str], direction: str, other: str
    ) -> dict[str, int]:
        self.probes.append((label, tuple(types), direction, tuple(ids)))
        return {i: self.cited if i.startswith("x") else 2 for i in ids}

    def walk_degrees(self, graph: str, label: str, ids: Sequence[str], *hops: Any) -> dict[str, int]:
        self.walks.append((label, *map(str, hops), *ids))
        return {i: self.fields_papers for i in ids}


def walks_ground(store: Walks, y_candidates: int = 1) -> GroundingResult:
    found = {"x": [NodeMatch("x1", "X")], "o": [NodeMatch(f"o{i}", "Y") for i in range(1, y_candidates + 1)]}
    vectors = {c: np.zeros(4, dtype=np.float32) for c in found}
    return ground(store, "mag", CITING_A_FIELD_OF, vectors, MAG, k=1, l_max=1, found=found)  # type: ignore[arg-type]


@pytest.mark.parametrize(("fields_papers", "first", "cost"), [(5000, "x", 100 * 1), (40, "o", (2 + 40) * 1)])
def test_a_walk_whose_second_hop_is_the_hub_is_not_bound_first(fields_papers: int, first: str, cost: int) -> None:
    assert second_hops(CITING_A_FIELD_OF) == {"o": ("field", ("topic",), "in", "paper")}
    store = Walks(fields_papers)
    result = walks_ground(store)
    assert first_bound(store.queries[0]) == result.query.constant_params[first]
    assert result.costs == {1: cost}
    # the walk on from Y's fields is counted from their degrees, once; X's walk has no second hop to count
    assert store.walks == [("paper", "('topic',)", "out", "field", "('topic',)", "in", "o1")]


def test_a_second_hop_is_probed_only_where_its_first_would_go_first() -> None:
    """A first hop alone is a lower bound of the walk: one already past the other side's whole walk rules its
    constant out without reading its second hop, which is where the hub would be."""
    store = Walks(5000, cited=1)
    result = walks_ground(store)
    assert store.walks == [] and result.costs == {1: 1 * 1}  # X's one citer goes first: Y's fields' papers unread
    store = Walks(5000)
    walks_ground(store, y_candidates=3)
    assert [w[-1] for w in store.walks] == ["o1"]  # only the candidates of the round are counted, none ahead


def test_a_plan_of_one_constant_is_not_probed() -> None:
    plan = sanitize(parse("MATCH (y:disease)-[:present]->(h:phenotype {name: 'Seizure'}) RETURN y"), SCHEMA).plan
    store = Store({1: ["d1"]})
    ground(store, "hpo", plan, {"h": VECTORS["h"]}, SCHEMA, k=20, l_max=3, found={"h": FOUND["h"]})  # type: ignore[arg-type]
    assert store.probes == []


@pytest.mark.parametrize(
    ("walked", "order", "cost"),
    [
        ({"a": 50, "b": 3}, ("b", "a"), 3 * 2),
        ({"b": 5}, ("b", "a"), None),  # a has no probe (unlabelled): after the probed one, and no estimate
        ({}, ("a", "b"), None),
    ],
)
def test_round_order(walked: dict[str, int], order: tuple[str, ...], cost: int | None) -> None:
    assert round_order(walked, {"a": ["1", "2"], "b": ["3", "4"]}) == (order, cost)


def test_a_single_constant_expands_past_a_round_that_adds_nothing() -> None:
    """Its neighbours by name are how a misread name still finds its node ("GTC seizures"): cheap, and kept."""
    plan = sanitize(parse("MATCH (y:disease)-[:present]->(h:phenotype {name: 'Seizure'}) RETURN y"), SCHEMA).plan
    store = Store({1: ["d1"], 3: ["d1", "d3"]})
    result = ground(store, "hpo", plan, {"h": VECTORS["h"]}, SCHEMA, k=20, l_max=3, found={"h": FOUND["h"]})  # type: ignore[arg-type]
    assert [r.scope for r in result.rounds] == [1, 2, 3] and result.stopped == ""


def test_a_round_not_run_for_its_cost_leaves_the_grounding_incomplete() -> None:
    store = Store({1: ["d1"], 2: ["d1", "d2"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=5, found=FOUND, bounds=Bounds(cost_cap=3))  # type: ignore[arg-type]
    assert result.stopped_by == "round_cost_cap" and result.incomplete
    stalled = ground(Store({1: ["d1"]}), "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=5, found=FOUND)  # type: ignore[arg-type]
    assert stalled.stopped_by == "expansion_stall" and not stalled.incomplete


def test_a_round_that_fills_the_limit_is_no_stall() -> None:
    """Past the LIMIT lie targets not read: the same first rows again say nothing of what the round would add."""
    store = Store({1: ["d1", "d2"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=3, found=FOUND, limit=2)  # type: ignore[arg-type]
    assert [r.scope for r in result.rounds] == [1, 2, 3] and result.stopped == ""
    assert result.capped.startswith("l=1 reached the LIMIT of 2 rows")


def test_a_probe_past_the_time_limit_binds_in_the_plans_order_and_says_so() -> None:
    class Slow(Store):
        def degrees(self, *args: Any) -> dict[str, int]:
            raise StoreTimeoutError("query ran past 60 s")

    store = Slow({1: ["d1"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=1, l_max=3, found=FOUND)  # type: ignore[arg-type]
    assert result.unordered.startswith("the degree probe ran past the time limit (query ran past 60 s)")
    assert first_bound(store.queries[0]) == result.query.constant_params["h"] and result.costs == {}
    assert [t.id for t in result.targets] == ["d1"]


def test_answers_restricted_to_given_ids_are_bound_first_and_replay_with_them() -> None:
    plan = sanitize(parse("MATCH (y:disease)-[:present]->(h:phenotype {name: 'Seizure'}) RETURN y"), SCHEMA).plan
    store = Store({1: ["d1"]})
    result = ground(
        store, "hpo", plan, {"h": VECTORS["h"]}, SCHEMA, k=20, l_max=1, found={"h": FOUND["h"]}, within=["d1", "d7"]
    )  # type: ignore[arg-type]
    assert store.queries[0].startswith("MATCH (v0:`disease`) WHERE v0.`id` IN $targets WITH v0 ")
    assert result.last_params["targets"] == ["d1", "d7"] and result.query.text == store.queries[0]
    with pytest.raises(ValueError, match="only the answers of a plan of one constant"):
        target_constant = sanitize(
            parse("MATCH (y:disease {name: 'Dravet'})-[:present]->(h:phenotype) RETURN y"), SCHEMA
        )
        ground(
            store,
            "hpo",
            target_constant.plan,
            {"y": VECTORS["h"]},
            SCHEMA,
            k=1,
            l_max=1,
            found={"y": FOUND["h"]},
            within=["d1"],
        )  # type: ignore[arg-type]


REACHED = {"d0": ["h0"], "d1": ["h4", "h1"], "d2": ["h2"], "d3": ["h9"], "d4": ["h25"]}


class Among(Store):
    """Given diseases (:data:`REACHED`), each reached through hub candidates of other ranks."""

    def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
        self.queries.append(query)
        allowed = set(params["c0"])
        return [[t, t, "disease", [h for h in hs if h in allowed]] for t, hs in REACHED.items() if set(hs) & allowed]


def test_grounding_among_given_ids_reads_every_round_in_one_query() -> None:
    """The walk out from given ids costs the same in every round (MAG's worst generated question re-walked ~2,000
    papers' authors twelve times): one query at l_max, each target in the round of its best candidate, and the
    rounds stop at k as the expansion would."""
    plan = sanitize(parse("MATCH (y:disease)-[:present]->(h:phenotype {name: 'Seizure'}) RETURN y"), SCHEMA).plan
    among = list(REACHED)

    def grounded(k: int) -> tuple[Among, Any]:
        store = Among()
        found = {"h": FOUND["h"]}
        return store, ground(store, "hpo", plan, {"h": VECTORS["h"]}, SCHEMA, k=k, l_max=30, found=found, within=among)  # type: ignore[arg-type]

    store, result = grounded(3)
    assert len(store.queries) == 1
    assert [(t.id, t.round_l) for t in result.targets] == [("d0", 1), ("d1", 2), ("d2", 3)]
    assert result.targets[1].matches == (("h", ("h1",)),)  # h4 comes in at l = 5
    assert [(r.scope, r.targets) for r in result.rounds] == [(3, 3)]
    assert result.last_params["c0"] == HUB[:3] and result.last_params["targets"] == among
    store, result = grounded(20)
    assert [(t.id, t.round_l) for t in result.targets][-2:] == [("d3", 12), ("d4", 27)]
    assert result.targets[1].matches == (("h", ("h1",)),)
    assert [(r.scope, r.targets) for r in result.rounds] == [(30, 5)]


class Ranked(Store):
    """The vector index's nearest diseases to the question; a full-text index that runs past the time limit."""

    def vector_top_k(self, graph: str, label: str, index: str, vector: Any, k: int) -> list[VectorHit]:
        return [VectorHit(f"d{i}", f"D{i}", label, 1 - i / 10) for i in range(3)]

    def text_top_k(self, graph: str, label: str, terms: Sequence[str], k: int) -> list[Any]:
        raise StoreTimeoutError("query ran past 60 s")


def test_a_relaxed_hub_is_grounded_among_the_nodes_step_6_ranks_first() -> None:
    """'Seizure' alone (1,000 diseases here, over graph_rank_cap) is grounded among the question's nearest diseases,
    once looked up for the ask; a constant joining fewer, or a timed-out count, is grounded whole and said so."""
    plan = sanitize(parse("MATCH (y:disease)-[:present]->(h:phenotype {name: 'Seizure'}) RETURN y"), SCHEMA).plan
    store = Ranked()
    ctx = SimpleNamespace(config=SimpleNamespace(graph_rank_cap=200), store=store, skb="hpo", documents=True)
    vectors = (np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.float32))
    near: dict[str, tuple[dict[str, int], str]] = {}
    lexical = Lexical(("seizure",), 1.0)
    within, note = _hub_alone(ctx, plan, {"h": FOUND["h"]}, Degrees(store, "hpo"), vectors, lexical, near)  # type: ignore[arg-type]
    assert within == ["d0", "d1", "d2"]
    assert note.startswith("; 'Seizure' alone joins ~1000: grounded among the 3 disease nodes step 6 ranks first")
    assert "its full-text side ran past the time limit (query ran past 60 s)" in note
    rare = {"h": [NodeMatch("r1", "Ataxia")]}
    assert _hub_alone(ctx, plan, rare, Degrees(store, "hpo"), vectors, None, near) == (None, "")  # type: ignore[arg-type]

    class Slow(Ranked):
        def degrees(self, *args: Any) -> dict[str, int]:
            raise StoreTimeoutError("count ran past 60 s")

    assert _hub_alone(ctx, plan, {"h": FOUND["h"]}, Degrees(Slow(), "hpo"), vectors, None, {}) == (  # type: ignore[arg-type]
        None,
        "; its count ran past the time limit (count ran past 60 s): grounded whole",
    )


def test_no_round_starts_past_the_ask_s_deadline_and_the_grounding_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ask_budget``: each round here takes 1 s of a clock the store advances; with 2.5 s, rounds l = 1, 2, 3 run
    and l = 5 does not start. What the rounds found stands; the grounding is incomplete, by that bound."""
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(deadline_module, "time", SimpleNamespace(monotonic=lambda: clock.now))

    class Slow(Store):
        def read(self, graph: str, query: str, params: dict[str, Any]) -> list[list[Any]]:
            clock.now += 1.0
            return super().read(graph, query, params)

    bounds = Bounds(stall=False, deadline=Deadline(102.5, "ask_budget"))
    store = Slow({1: ["d1"], 2: ["d1", "d2"], 3: ["d1", "d2", "d3"], 5: ["d5"]})
    result = ground(store, "hpo", PLAN, VECTORS, SCHEMA, k=20, l_max=8, found=FOUND, bounds=bounds)  # type: ignore[arg-type]
    assert [r.scope for r in result.rounds] == [1, 2, 3]
    assert result.stopped == "l=5 not run: nothing left of ask_budget (bound: ask_budget)"
    assert result.stopped_by == "ask_budget" and result.incomplete
    assert [t.id for t in result.targets] == ["d1", "d2", "d3"]
