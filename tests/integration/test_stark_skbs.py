"""The three STaRK SKBs as shipped (real-format fixtures of PRIME, MAG and AMAZON), through the command line on the
embedded store: ``load stark`` from the SKB root or its processed folder, ``schema``, ``node`` (the exact STaRK
documents and relation counts) and ``ask`` without an LLM. One home holds all three, loaded once for the module."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kgqa.loaders.model import SkbData
from kgqa.loaders.stark import read_stark
from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.processes import servers_for
from tests.helpers.stark_fixture import (
    AMAZON_EDGE_TYPES,
    AMAZON_NODE_TYPES,
    MAG_EDGE_TYPES,
    MAG_NODE_TYPES,
    PRIME_EDGES,
    PRIME_NODES,
    write_amazon_real,
    write_mag_real,
    write_prime_real,
)

WRITERS: dict[str, Callable[[Path], Path]] = {
    "prime": write_prime_real,
    "mag": write_mag_real,
    "amazon": write_amazon_real,
}
LOADED_FOLDER = {
    "prime": ("processed",),
    "mag": ("processed",),
    "amazon": ("processed", "cache", "brand-category-color"),
}
"""The folder under the SKB root that STaRK's SKB class loads."""


@dataclass(frozen=True)
class Skb:
    name: str
    root: Path
    data: SkbData
    """What read_stark makes of the fixture: the expected documents, names and edges."""


@dataclass(frozen=True)
class Loaded:
    env: dict[str, str]
    skbs: dict[str, Skb]
    load_output: dict[str, str]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory, tiny_embedder: str) -> Iterator[Loaded]:
    """A fresh home with the three fixture SKBs loaded from their roots, as on a fresh clone."""
    base = tmp_path_factory.mktemp("stark-skbs")
    home = base / "kgqa-home"
    env = {"KGQA_HOME": str(home), "KGQA_EMBEDDER": tiny_embedder, "HF_HUB_OFFLINE": "1"}
    skbs, output = {}, {}
    for name, write in WRITERS.items():
        root = write(base / name)
        skbs[name] = Skb(name, root, read_stark(name, root))
        result = run(env, "load", "stark", "--name", name, "--dir", str(root))
        assert result.exit_code == 0, result.output + result.stderr
        output[name] = result.stderr
    yield Loaded(env, skbs, output)
    assert servers_for(home) == []  # every command stopped its embedded server


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result.output + result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", list(WRITERS))
def test_load_from_the_skb_root(loaded: Loaded, name: str) -> None:
    data = loaded.skbs[name].data
    assert f"{name}: loaded {len(data.nodes)} nodes, {len(data.edges)} edges" in loaded.load_output[name]
    meta = _json(run(loaded.env, "schema", "--skb", name, "--json"))["meta"]
    folder = loaded.skbs[name].root.joinpath(*LOADED_FOLDER[name])
    assert meta["source"] == f"STaRK {name} processed SKB from {folder}"
    assert (meta["node_count"], meta["edge_count"]) == (len(data.nodes), len(data.edges))


@pytest.mark.parametrize(
    ("name", "below_root"),
    [
        ("prime", ("processed",)),
        ("mag", ("processed",)),
        ("amazon", ("processed",)),  # whose cache/brand-category-color/ is what STaRK loads
        ("amazon", ("processed", "cache", "brand-category-color")),
    ],
    ids=["prime-processed", "mag-processed", "amazon-processed", "amazon-cache"],
)
def test_load_from_the_processed_folder_finds_the_same_skb(
    loaded: Loaded, name: str, below_root: tuple[str, ...]
) -> None:
    """The same folder is found (same fingerprint), so the stored graph is up to date."""
    data = loaded.skbs[name].data
    result = run(
        loaded.env, "load", "stark", "--name", name, "--dir", str(loaded.skbs[name].root.joinpath(*below_root))
    )
    assert result.exit_code == 0, result.stderr
    assert f"{name}: already loaded and up to date ({len(data.nodes)} nodes, {len(data.edges)} edges)" in result.stderr


def _prime_relationships() -> set[tuple[str, str, str]]:
    typed = {(PRIME_NODES[h]["type"], r, PRIME_NODES[t]["type"]) for h, t, r in PRIME_EDGES}
    return typed | {(target, r, source) for source, r, target in typed}  # PRIME ships both directions


def _split(edge_types: dict[int, str]) -> set[tuple[str, str, str]]:
    """MAG's 'source___relation___target' type names, as STaRK's constants have them."""
    return {(t.split("___")[0], t, t.split("___")[2]) for t in edge_types.values()}


EXPECTED_SCHEMA: dict[str, tuple[set[str], set[tuple[str, str, str]]]] = {
    "prime": ({str(node["type"]) for node in PRIME_NODES}, _prime_relationships()),
    "mag": (set(MAG_NODE_TYPES.values()), _split(MAG_EDGE_TYPES)),
    "amazon": (
        set(AMAZON_NODE_TYPES.values()),
        {("product", "also_buy", "product"), ("product", "also_view", "product")}
        | {("product", f"has_{kind}", kind) for kind in ("brand", "category", "color")},
    ),
}
"""(labels, (source label, relationship type, target label)) per SKB."""


@pytest.mark.parametrize("name", list(WRITERS))
def test_schema_lists_the_skbs_labels_and_relationship_types(loaded: Loaded, name: str) -> None:
    out = _json(run(loaded.env, "schema", "--skb", name, "--json"))
    labels, relationships = EXPECTED_SCHEMA[name]
    schema = out["schema"]
    assert {label["name"] for label in schema["labels"]} == labels
    assert {(r["source"], r["type"], r["target"]) for r in schema["relationships"]} == relationships
    data = loaded.skbs[name].data
    assert sum(label["count"] for label in schema["labels"]) == len(data.nodes)
    assert sum(r["count"] for r in schema["relationships"]) == len(data.edges)
    assert out["meta"]["candidate_types"] == list(data.candidate_types)
    if name == "mag":  # no type dicts in MAG's folder: the types are STaRK's MagSKB constants
        assert {r["type"] for r in schema["relationships"]} == set(MAG_EDGE_TYPES.values())
        assert sorted(label["name"] for label in schema["labels"]) == sorted(MAG_NODE_TYPES.values())
    if name == "amazon":
        assert {r["type"] for r in schema["relationships"]} == set(AMAZON_EDGE_TYPES.values())


def _expected_relations(data: SkbData, node: int) -> dict[tuple[str, str], tuple[int, int, int, set[str]]]:
    """Per (relationship type, neighbour label): distinct neighbours, stored edges, outgoing edges, their names."""
    found: dict[tuple[str, str], tuple[set[int], int, int]] = {}
    for source, target, type_id in zip(data.edges.source, data.edges.target, data.edges.type, strict=True):
        if node not in (source, target):
            continue
        other = int(target if source == node else source)
        key = (data.edges.type_names[type_id], data.nodes[other].type)
        neighbours, edges, out = found.get(key, (set(), 0, 0))
        found[key] = (neighbours | {other}, edges + 1, out + int(source == node))
    return {
        key: (len(neighbours), edges, out, {data.nodes[n].name for n in neighbours})
        for key, (neighbours, edges, out) in found.items()
    }


NODES = [
    ("prime", 2),  # CYP3A4: ppi, enzyme, four 'interacts with' labels, expression present
    ("prime", 5),  # Sumatriptan: two relations (indication, off-label use) to the same disease
    ("prime", 6),  # xenobiotic metabolic process: one 'interacts with' type towards two labels
    ("prime", 1),  # an exposure whose id is nan
    ("mag", 11),  # a paper cited by one paper and citing two: in and out of one type
    ("mag", 0),  # an author (no relation text; MAG lists relations of papers only)
    ("mag", 15),  # a paper without links
    ("amazon", 0),  # a product: also_buy both ways, also_view, brand, categories, colours
    ("amazon", 2),  # the product without a brand
    ("amazon", 5),  # a brand node (its name a numpy.str_ in the pickle)
]


@pytest.mark.parametrize(("name", "node"), NODES, ids=[f"{n}-{i}" for n, i in NODES])
def test_node_shows_the_stark_documents_and_relation_counts(loaded: Loaded, name: str, node: int) -> None:
    data = loaded.skbs[name].data
    expected = data.nodes[node]
    view = _json(run(loaded.env, "node", str(node), "--skb", name, "--json"))
    assert (view["skb"], view["id"], view["type"], view["name"]) == (name, str(node), expected.type, expected.name)
    assert view["document"] == expected.doc
    assert view["document_with_relations"] == expected.doc + (expected.relations or "")
    assert sorted(view["aliases"]) == sorted(expected.aliases)
    got = {(r["type"], r["label"]): (r["neighbours"], r["edges"], r["out"], set(r["names"])) for r in view["relations"]}
    assert got == _expected_relations(data, node)
    if name == "prime":  # both directions stored: each neighbour once, its two edges one out and one in
        assert got and all(edges == 2 * neighbours and out == neighbours for neighbours, edges, out, _ in got.values())


def test_prime_node_counts_by_hand(loaded: Loaded) -> None:
    """Sumatriptan (5): target HTR1B; indication and off-label use of migraine; synergistic with Ivermectin; side
    effect Headache; each stored both ways."""
    view = _json(run(loaded.env, "node", "5", "--skb", "prime", "--json"))
    counts = {(r["type"], r["label"]): (r["neighbours"], r["edges"], r["out"], r["names"]) for r in view["relations"]}
    assert counts == {
        ("target", "gene/protein"): (1, 2, 1, ["HTR1B"]),
        ("indication", "disease"): (1, 2, 1, ["migraine disorder"]),
        ("off-label use", "disease"): (1, 2, 1, ["migraine disorder"]),
        ("synergistic interaction", "drug"): (1, 2, 1, ["Ivermectin"]),
        ("side effect", "effect/phenotype"): (1, 2, 1, ["Headache"]),
    }


def test_mag_node_counts_by_hand(loaded: Loaded) -> None:
    """Paper 11: written by authors 0, 1, 4; cites 12 and 13, cited by 14; topics 8 and 10 (one direction stored)."""
    view = _json(run(loaded.env, "node", "11", "--skb", "mag", "--json"))
    counts = {(r["type"], r["label"]): (r["neighbours"], r["edges"], r["out"]) for r in view["relations"]}
    assert counts == {
        ("author___writes___paper", "author"): (3, 3, 0),
        ("paper___cites___paper", "paper"): (3, 3, 2),
        ("paper___has_topic___field_of_study", "field_of_study"): (2, 2, 2),
    }


QUESTIONS = {
    "prime": ("Which drug is indicated for strongyloidiasis?", 0),
    "mag": ("Which papers cite Deep Residual Learning for Image Recognition?", 11),
    "amazon": ("What is also bought with the Coleman Sundome 4-Person Tent?", 0),
}
"""A question naming a fixture node, and that node's id."""


@pytest.mark.parametrize("name", list(WRITERS))
def test_ask_without_an_llm_answers_with_the_candidate_types(loaded: Loaded, name: str) -> None:
    question, named = QUESTIONS[name]
    data = loaded.skbs[name].data
    out = _json(run(loaded.env, "ask", question, "--skb", name, "--llm", "none", "--json"))
    answers = out["answers"]
    assert out["trace"]["llm"] == "none" and answers
    assert {a["type"] for a in answers} <= set(data.candidate_types)
    if name != "prime":  # MAG answers papers, AMAZON products
        assert {a["type"] for a in answers} == set(data.candidate_types)
        assert out["trace"]["target_type"] == data.candidate_types[0]
    # the graph strand linked the named node, and its answers are that node's neighbours
    linked = [a for a in answers if "graph" in a["strands"] and str(named) in {m["id"] for m in a["matches"]}]
    assert linked, answers
    neighbours = {
        int(t if s == named else s)
        for s, t in zip(data.edges.source, data.edges.target, strict=True)
        if named in (s, t)
    }
    assert {int(a["id"]) for a in linked} <= neighbours
    assert all(a["name"] == data.nodes[int(a["id"])].name for a in answers)


def test_ask_vector_strand_only(loaded: Loaded) -> None:
    """--steps vss: the top k over the candidate types only (MAG: papers, never authors or fields)."""
    out = _json(run(loaded.env, "ask", "lei wang", "--skb", "mag", "--steps", "vss", "--k", "20", "--json"))
    papers = [i for i, node in enumerate(loaded.skbs["mag"].data.nodes) if node.type == "paper"]
    assert sorted(int(a["id"]) for a in out["answers"]) == papers


def test_amazon_product_only_folder_names_the_folder_stark_loads(cli_env: dict[str, str], tmp_path: Path) -> None:
    root = write_amazon_real(tmp_path / "amazon")
    processed = root / "processed"
    shutil.rmtree(processed / "cache")
    expected = processed / "cache" / "brand-category-color"
    for directory in (root, processed):
        result = run(cli_env, "load", "stark", "--name", "amazon", "--dir", str(directory))
        assert_one_line_error(result, f"STaRK loads {expected}")
        assert "product-only" in result.stderr
