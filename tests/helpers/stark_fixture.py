"""A small SKB written exactly in STaRK's processed format (pickles + torch tensors), modelled on PRIME."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

NODE_TYPES = {0: "disease", 1: "drug", 2: "gene/protein", 3: "effect/phenotype"}
EDGE_TYPES = {0: "indication", 1: "target", 2: "phenotype present", 3: "associated with"}
# (name, type id, source, details)
NODES = [
    ("strongyloidiasis", 0, "MONDO", {"mondo_definition": "An intestinal infection by the roundworm Strongyloides."}),
    ("migraine", 0, "MONDO", {"mondo_definition": "A neurological disorder with recurrent headaches."}),
    (
        "ivermectin",
        1,
        "DrugBank",
        {"description": "An anthelmintic drug used against parasitic worms.", "half_life": "18 hours"},
    ),
    ("sumatriptan", 1, "DrugBank", {"description": "A triptan that relieves migraine attacks."}),
    (
        "CYP3A4",
        2,
        "NCBI",
        {
            "name": "cytochrome P450 family 3 subfamily A member 4",
            "summary": "Enzyme that metabolises many drugs in the liver.",
        },
    ),
    ("HTR1B", 2, "NCBI", {"name": "5-hydroxytryptamine receptor 1B", "summary": "Serotonin receptor."}),
    ("Headache", 3, "HPO", {}),
    ("Diarrhea", 3, "HPO", {}),
]
EDGES = [(2, 0, 0), (3, 1, 0), (2, 4, 1), (3, 5, 1), (3, 4, 1), (1, 6, 2), (0, 7, 2), (5, 1, 3)]
"""(head, tail, edge type id)."""


Node = tuple[str, int, str, dict[str, Any]]


def write_prime_fixture(
    directory: Path, nodes: list[Node] | None = None, edges: list[tuple[int, int, int]] | None = None
) -> Path:
    """The fixture (or ``nodes`` and ``edges`` of the same types) in PRIME's processed format."""
    import torch  # here, not at import: collecting the tests needs no torch

    nodes = NODES if nodes is None else nodes
    edges = EDGES if edges is None else edges
    directory.mkdir(parents=True, exist_ok=True)
    node_info = {
        i: {"id": f"SRC{i}", "type": NODE_TYPES[t], "name": name, "source": source, "details": details}
        for i, (name, t, source, details) in enumerate(nodes)
    }
    files = {"node_info.pkl": node_info, "node_type_dict.pkl": NODE_TYPES, "edge_type_dict.pkl": EDGE_TYPES}
    for name, value in files.items():
        with (directory / name).open("wb") as handle:
            pickle.dump(value, handle)
    torch.save(torch.tensor([t for _, t, _, _ in nodes], dtype=torch.long), directory / "node_types.pt")
    torch.save(
        torch.tensor([[h for h, _, _ in edges], [t for _, t, _ in edges]], dtype=torch.long),
        directory / "edge_index.pt",
    )
    torch.save(torch.tensor([e for _, _, e in edges], dtype=torch.long), directory / "edge_types.pt")
    return directory


SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "su")


def write_prime_sized(directory: Path, diseases: int, *, words: int = 48, seed: int = 0) -> Path:
    """The fixture plus ``diseases`` generated diseases, each with a definition of ``words`` seeded random words (of
    two to four syllables) and a phenotype edge: an SKB whose documents take seconds to embed one by one, but which
    loads in a second or two (the real HPO graph takes ten)."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array(["".join(rng.choice(SYLLABLES, size=rng.integers(2, 5))) for _ in range(500)])
    nodes: list[Node] = list(NODES)
    edges = list(EDGES)
    for i in range(diseases):
        definition = " ".join(rng.choice(vocabulary, size=words))
        edges.append((len(nodes), 6 + i % 2, 2))  # Headache or Diarrhea
        nodes.append((f"generated disease {i}", 0, "MONDO", {"mondo_definition": f"{definition}."}))
    return write_prime_fixture(directory, nodes, edges)


# ---------------------------------------------------------------------------------------------------------------------
# Fixtures of the three real STaRK SKBs, written the way STaRK's code writes them (stark_qa/skb/{prime,mag,amazon}.py,
# stark_qa/tools/io.py save_files: pickle.dump of dicts with the default protocol, torch.save of int64 tensors), with
# the quirks of the real files. Expected documents for these nodes are in tests/unit/test_stark_documents.py.
# ---------------------------------------------------------------------------------------------------------------------

NAN = float("nan")

PRIME_NODE_TYPES = [
    "disease",
    "gene/protein",
    "molecular_function",
    "drug",
    "pathway",
    "anatomy",
    "effect/phenotype",
    "biological_process",
    "cellular_component",
    "exposure",
]
"""PrimeSKB.NODE_TYPES: node_type_dict is ``dict(enumerate(...))``."""
PRIME_RELATION_TYPES = [
    "ppi",
    "carrier",
    "enzyme",
    "target",
    "transporter",
    "contraindication",
    "indication",
    "off-label use",
    "synergistic interaction",
    "associated with",
    "parent-child",
    "phenotype absent",
    "phenotype present",
    "side effect",
    "interacts with",
    "linked to",
    "expression present",
    "expression absent",
]
"""PrimeSKB.RELATION_TYPES: edge_type_dict is ``dict(enumerate(...))``."""

CYP3A4_DETAILS: dict[str, Any] = {
    "_id": "1576",
    "_score": 21.834597,
    "alias": ["CP33", "CP34", "CYP3A", "CYP3A3", "CYPIIIA3", "CYPIIIA4", "HLP", "NF-25", "P450C3", "P450PCN1"],
    "genomic_pos": {"chr": "7", "end": 99381888, "ensemblgene": "ENSG00000160868", "start": 99354604, "strand": -1},
    "generif": [
        {"pubmed": 11159812, "text": "CYP3A4 activity is decreased by grapefruit juice."},
        {"pubmed": [12514186, 12646290], "text": "Polymorphisms  of CYP3A4 alter   midazolam clearance."},
        {"pubmed": 15120454, "text": "Induced by rifampicin via PXR."},
    ],
    "interpro": [
        {"desc": "Cytochrome P450", "id": "IPR001128", "short_desc": "Cyt_P450"},
        {"desc": "Cytochrome P450, E-class, group II", "id": "IPR002402", "short_desc": "Cyt_P450_E_grp-II"},
    ],
    "MIM": "124010",
    "name": "cytochrome P450 family 3 subfamily A member 4",
    "other_names": [],
    "summary": "This gene encodes a member of the cytochrome P450 superfamily of enzymes.",
    "symbol": "CYP3A4",
    "taxid": 9606,
    "type_of_gene": "protein-coding",
}
"""A mygene record: ``_`` keys, list-of-dicts generif (texts with runs of spaces), interpro as a list."""
HTR1B_DETAILS: dict[str, Any] = {
    "_id": "3351",
    "_score": 19.5,
    "alias": "5-HT1B",
    "genomic_pos": [
        {"chr": "6", "end": 77464022, "ensemblgene": "ENSG00000135312", "start": 77461407, "strand": -1},
        {"chr": "6_ssto_hap7", "end": 4021, "start": 1406, "strand": -1},
    ],
    "generif": [{"pubmed": 19087232, "text": "HTR1B variants are associated with migraine."}],
    "interpro": {"desc": "5-hydroxytryptamine 1B receptor", "id": "IPR002147", "short_desc": "5HT1B_rcpt"},
    "map_location": "6q14.1",
    "name": "5-hydroxytryptamine receptor 1B",
    "summary": "",
    "type_of_gene": "protein-coding",
    "uniprot": {"Swiss-Prot": "P28222", "TrEMBL": NAN},
}
"""alias as a plain string, genomic_pos as a list, interpro as a single dict, an empty summary, a nested nan."""
IVERMECTIN_DETAILS: dict[str, Any] = {
    "description": "Ivermectin is a broad-spectrum anti-parasite medication.",
    "half_life": "18 hours",
    "indication": "For the treatment of intestinal strongyloidiasis.",
    "mechanism_of_action": NAN,
    "protein_binding": "93%",
    "pharmacodynamics": "",
    "state": "solid",
    "atc_1": "Antiparasitic products, insecticides and repellents",
    "category": "Anthelmintics; Antiparasitic Agents",
    "group": "approved | vet_approved",
    "pathway": NAN,
    "molecular_weight": 875.1,
    "drugbank_id": "DB00602",
}
SUMATRIPTAN_DETAILS: dict[str, Any] = {"mechanism_of_action": NAN, "pathway": "", "drugbank_id": "DB00669"}
"""Every value nan, empty or an ``_id`` key: no ``- details:`` block."""
STRONGYLOIDIASIS_DETAILS: dict[str, Any] = {
    "mondo_id": 8380,
    "mondo_name": "strongyloidiasis",
    "group_id_bert": NAN,
    "group_name_bert": NAN,
    "mondo_definition": "An intestinal infection caused by Strongyloides stercoralis.",
    "umls_description": NAN,
    "orphanet_prevalence": NAN,
    "mayo_symptoms": "",
    "mayo_causes": "Walking barefoot on contaminated soil.",
}
MIGRAINE_DETAILS: dict[str, Any] = {
    "mondo_id": "5277_17293",
    "mondo_name": "migraine disorder",
    "group_id_bert": "13422",
    "group_name_bert": "migraine",
    "mondo_definition": NAN,
    "orphanet_prevalence": 0.12,
    "mayo_see_doc": "See a doctor if headaches change.",
}
PATHWAY_DETAILS: dict[str, Any] = {
    "dbId": 211981,
    "name": ["Xenobiotics"],
    "speciesName": "Homo sapiens",
    "stId": "R-HSA-211981",
    "stIdVersion": "R-HSA-211981.2",
}
PRIME_NODES: list[dict[str, Any]] = [
    {
        "id": "8380",
        "type": "disease",
        "name": "strongyloidiasis",
        "source": "MONDO",
        "details": STRONGYLOIDIASIS_DETAILS,
    },
    {"id": NAN, "type": "exposure", "name": "Benzo(a)pyrene", "source": "CTD"},
    {"id": 1576, "type": "gene/protein", "name": "CYP3A4", "source": "NCBI", "details": CYP3A4_DETAILS},
    {"id": 3351, "type": "gene/protein", "name": "HTR1B", "source": "NCBI", "details": HTR1B_DETAILS},
    {"id": "DB00602", "type": "drug", "name": "Ivermectin", "source": "DrugBank", "details": IVERMECTIN_DETAILS},
    {"id": "DB00669", "type": "drug", "name": "Sumatriptan", "source": "DrugBank", "details": SUMATRIPTAN_DETAILS},
    {"id": 6805, "type": "biological_process", "name": "xenobiotic metabolic process", "source": "GO"},
    {"id": 2315, "type": "effect/phenotype", "name": "Headache", "source": "HPO"},
    {"id": 2107, "type": "anatomy", "name": "liver", "source": "UBERON"},
    {
        "id": "5277_17293",
        "type": "disease",
        "name": "migraine disorder",
        "source": "MONDO",
        "details": MIGRAINE_DETAILS,
    },
    {"id": "R-HSA-211981", "type": "pathway", "name": "Xenobiotics", "source": "REACTOME", "details": PATHWAY_DETAILS},
    {"id": 19825, "type": "molecular_function", "name": "oxygen binding", "source": "GO"},
    {"id": 5789, "type": "cellular_component", "name": "endoplasmic reticulum membrane", "source": "GO"},
]
"""Node 1 (an exposure) has id nan: clean_dict drops it. Ids are str or int as pandas read kg.csv."""
PRIME_EDGES: list[tuple[int, int, str]] = [
    (2, 3, "ppi"),
    (4, 2, "enzyme"),
    (5, 3, "target"),
    (4, 0, "indication"),
    (5, 9, "indication"),
    (5, 9, "off-label use"),
    (4, 5, "synergistic interaction"),
    (9, 3, "associated with"),
    (9, 7, "phenotype present"),
    (5, 7, "side effect"),
    (1, 6, "interacts with"),
    (1, 2, "interacts with"),
    (2, 6, "interacts with"),
    (3, 6, "interacts with"),
    (2, 10, "interacts with"),
    (2, 11, "interacts with"),
    (3, 12, "interacts with"),
    (2, 8, "expression present"),
]
"""(head, tail, relation); written in both directions as in PRIME's kg.csv. Node 6's ``interacts with`` neighbours
(ids 1, 2, 3) have types 9, 1, 1: ``set([9, 1, 1])`` iterates 9 then 1; node 2's have types 9, 7, 4, 2 (ids 1, 6, 10,
11): the set iterates 9, 2, 4, 7; node 3's have types 7, 8: the set iterates 8, 7. Pair (5, 9) has two relations."""


def _dump(path: Path, value: object) -> None:
    with path.open("wb") as handle:
        pickle.dump(value, handle, protocol=4)  # the default protocol of the Pythons STaRK was built with


def write_prime_real(root: Path) -> Path:
    """A PRIME fixture at ``root/processed`` (the six files PrimeSKB saves); returns the SKB root."""
    import torch  # here, not at import: collecting the tests needs no torch

    processed = root / "processed"
    processed.mkdir(parents=True, exist_ok=True)
    heads = [x for h, t, _ in PRIME_EDGES for x in (h, t)]
    tails = [x for h, t, _ in PRIME_EDGES for x in (t, h)]
    types = [PRIME_RELATION_TYPES.index(r) for _, _, r in PRIME_EDGES for _ in range(2)]
    _dump(processed / "node_info.pkl", dict(enumerate(PRIME_NODES)))
    _dump(processed / "node_type_dict.pkl", dict(enumerate(PRIME_NODE_TYPES)))
    _dump(processed / "edge_type_dict.pkl", dict(enumerate(PRIME_RELATION_TYPES)))
    node_types = [PRIME_NODE_TYPES.index(str(node["type"])) for node in PRIME_NODES]
    torch.save(torch.tensor(node_types, dtype=torch.long), processed / "node_types.pt")
    torch.save(torch.tensor([heads, tails], dtype=torch.long), processed / "edge_index.pt")
    torch.save(torch.tensor(types, dtype=torch.long), processed / "edge_types.pt")
    return root


MAG_NODE_TYPES = {0: "author", 1: "institution", 2: "field_of_study", 3: "paper"}
"""MagSKB.node_type_dict (a class constant: no node_type_dict.pkl in mag/processed)."""
MAG_EDGE_TYPES = {
    0: "author___affiliated_with___institution",
    1: "paper___cites___paper",
    2: "paper___has_topic___field_of_study",
    3: "author___writes___paper",
}
"""MagSKB.edge_type_dict (a class constant: no edge_type_dict.pkl)."""


def _author(new_id: int, ogbn: int, mag: int, name: object, papers: int, citations: int) -> dict[str, Any]:
    return {
        "id": ogbn,
        "mag_id": mag,
        "Rank": 10102 + ogbn,
        "DisplayName": name,
        "LastKnownAffiliationId": -1,
        "PaperCount": papers,
        "CitationCount": citations,
        "CreatedDate": "2016-06-24",
        "type": "author",
        "new_id": new_id,
    }


def _institution(new_id: int, ogbn: int, mag: int, name: object, papers: int, citations: int) -> dict[str, Any]:
    return {
        "id": ogbn,
        "mag_id": mag,
        "Rank": 7203,
        "DisplayName": name,
        "GridId": "grid.12527.33",
        "OfficialPage": -1,
        "PaperCount": papers,
        "CitationCount": citations,
        "Latitude": 40.0,
        "Longitude": 116.3,
        "CreatedDate": "2016-06-24",
        "type": "institution",
        "new_id": new_id,
    }


def _field(new_id: int, ogbn: int, mag: int, name: object, papers: int, citations: int) -> dict[str, Any]:
    return {
        "id": ogbn,
        "mag_id": mag,
        "Rank": 9370,
        "DisplayName": name,
        "MainType": -1,
        "Level": 1,
        "PaperCount": papers,
        "CitationCount": citations,
        "CreatedDate": "2016-06-24",
        "type": "field_of_study",
        "new_id": new_id,
    }


def _paper(
    new_id: int,
    ogbn: int,
    mag: int,
    title: str,
    abstract: str,
    date: object,
    venues: tuple[object, object, object, object],
) -> dict[str, Any]:
    original, journal, series, instance = venues
    return {
        "id": ogbn,
        "mag_id": mag,
        "PaperRank": 15234,
        "Doi": -1,
        "DocType": "Conference" if series != -1 else "Journal",
        "Year": 2016,
        "Date": date,
        "Publisher": -1,
        "JournalId": -1 if journal == -1 else 137773608,
        "ConferenceSeriesId": -1 if series == -1 else 1158167855,
        "ConferenceInstanceId": -1 if instance == -1 else 2613578367,
        "OriginalVenue": original,
        "PaperCitationCount": 52340,
        "JournalDisplayName": journal,
        "ConferenceSeriesDisplayName": series,
        "ConferenceInstancesDisplayName": instance,
        "type": "paper",
        "new_id": new_id,
        "title": title,
        "abstract": abstract,
    }


MAG_NODES: list[dict[str, Any]] = [
    _author(0, 1043, 2175589869, "lei wang", 120, 1345),
    _author(1, 2210, 2589172201, -1, 7, 40),
    _author(2, 5031, 2098441223, "john smith", 3, -1),
    _author(3, 5807, 2716734419, "a. kumar", 0, 0),
    _author(4, 9120, 2141309427, "wei zhang", -1, 21),
    _institution(5, 12, 99065089, "Tsinghua University", 201458, 2849521),
    _institution(6, 80, 1290206253, "Microsoft", -1, -1),
    _institution(7, 311, 2801003451, "-1", 12, 310),
    _field(8, 2004, 31972630, "Computer vision", 1432110, 12934857),
    _field(9, 3518, 2777180221, "Type-1 diabetes", 1001, -1),
    _field(10, 7705, 108583219, "Deep learning", 98231, 2100341),
    _paper(
        11,
        40021,
        2194775991,
        "Deep Residual Learning for Image Recognition",
        "Deeper neural networks are more difficult to train.\r\nWe present a residual learning framework. \n\n",
        "2016-06-27",
        ("computer vision and pattern recognition", -1, "CVPR", "CVPR 2016"),
    ),
    _paper(
        12,
        40377,
        1522301498,
        "Insulin resistance in Type-1 diabetes",
        "We study the L-1 regularised model of insulin response.",
        -1,
        ("-1", "Nature", -1, -1),
    ),
    _paper(
        13,
        41290,
        2963403868,
        "Attention Is All You Need",
        "The dominant sequence transduction models are based on recurrent networks.\n",
        "2017-12-04",
        (-1, -1, "Neural Information Processing Systems", "NIPS 2017"),
    ),
    _paper(
        14,
        41552,
        1836465849,
        "Batch Normalization",
        "Training deep networks is complicated.",
        "2015-07-06",
        (-1, -1, -1, "ICML 2015"),
    ),
    _paper(15, 42008, 2100495367, "An orphan paper", "No links.\r\n", "1998-01-01", (-1, -1, -1, -1)),
]
"""Rows as ``row.to_dict()`` of STaRK's merged MAG tables (-1 for missing, as int or, read back from the CSV cache,
as the string "-1"); "id" is the ogbn-mag index, the STaRK id is the dict key (= "new_id")."""
MAG_EDGES: list[tuple[int, int, int]] = [
    (0, 11, 3),
    (1, 11, 3),
    (4, 11, 3),
    (2, 12, 3),
    (3, 13, 3),
    (1, 14, 3),
    (0, 5, 0),
    (0, 6, 0),
    (1, 5, 0),
    (2, 7, 0),
    (4, 5, 0),
    (11, 8, 2),
    (11, 10, 2),
    (12, 9, 2),
    (13, 10, 2),
    (11, 12, 1),
    (11, 13, 1),
    (12, 13, 1),
    (13, 12, 1),
    (14, 11, 1),
]
"""(head, tail, edge type id), one direction only as STaRK saves them (writes, affiliated_with, has_topic, cites)."""


def write_mag_real(root: Path) -> Path:
    """A MAG fixture at ``root/processed``: node_info, edge_index, edge_types, node_types only; returns the SKB root."""
    import torch  # here, not at import: collecting the tests needs no torch

    processed = root / "processed"
    processed.mkdir(parents=True, exist_ok=True)
    (processed / "mag_cache").mkdir(exist_ok=True)
    (processed / "paper100M_cache").mkdir(exist_ok=True)
    type_ids = {name: i for i, name in MAG_NODE_TYPES.items()}
    # the paper frame comes out of an outer merge on mag_id (sorted by it), so papers are inserted in mag_id order
    papers = sorted((row for row in MAG_NODES if row["type"] == "paper"), key=lambda row: row["mag_id"])
    rows = [row for row in MAG_NODES if row["type"] != "paper"] + papers
    node_info = {row["new_id"]: row for row in rows}
    _dump(processed / "node_info.pkl", node_info)
    node_types = [type_ids[row["type"]] for row in node_info.values()]
    torch.save(torch.tensor(node_types, dtype=torch.long), processed / "node_types.pt")
    torch.save(
        torch.tensor([[h for h, _, _ in MAG_EDGES], [t for _, t, _ in MAG_EDGES]], dtype=torch.long),
        processed / "edge_index.pt",
    )
    torch.save(torch.tensor([e for _, _, e in MAG_EDGES], dtype=torch.long), processed / "edge_types.pt")
    return root


_PurePythonPickler: Any = pickle._Pickler  # its save/save_global/memoize are not in the stubs


class _Numpy1Pickler(_PurePythonPickler):  # type: ignore[misc]
    """Pickles numpy scalars as numpy 1.x did: ``numpy.core.multiarray.scalar`` (numpy 2 writes
    ``numpy._core.multiarray.scalar``) applied to a ``numpy.dtype`` and the raw bytes; otherwise plain protocol 4."""

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if obj is _NUMPY_SCALAR:
            self.save("numpy.core.multiarray")
            self.save("scalar")
            self.write(pickle.STACK_GLOBAL)
            self.memoize(obj)
            return
        super().save_global(obj, name)


_NUMPY_SCALAR = np.float64(0).__reduce__()[0]


def _dump_numpy1(path: Path, value: object) -> None:
    with path.open("wb") as handle:
        _Numpy1Pickler(handle, protocol=4).dump(value)


AMAZON_NODE_TYPES = {0: "product", 1: "brand", 2: "category", 3: "color"}
AMAZON_EDGE_TYPES = {0: "also_buy", 1: "also_view", 2: "has_brand", 3: "has_category", 4: "has_color"}


def _review(n: int, vote: object, summary: object, text: object) -> dict[str, Any]:
    """A review as ``df_row_to_dict(df.iloc[i], review_columns)``: numpy scalars for overall/verified."""
    return {
        "reviewerID": f"A{n:03d}X7Q2ZK",
        "summary": summary,
        "style": {"Color:": " Green"} if n % 3 else NAN,
        "reviewText": text,
        "vote": vote,
        "overall": np.float64(5.0 - n % 5),
        "verified": np.bool_(n % 2 == 0),
        "reviewTime": f"0{1 + n % 9} {1 + n}, 2016",
    }


TENT_VOTES: list[object] = [
    "5", NAN, "1,203", "12", "2", "10", "9", NAN, "31", "4",
    "3", "1", "27", "6", "7", "8", "11", "2,010", "13", "14",
    "15", "16", "17", "18", "19", "20", "21", "22", "23", "24",
]  # fmt: skip
"""Votes of product 0's 30 reviews: the 27 shown (distinct, >= 2) outrank the 3 cut off (nan, nan, "1")."""
TENT_REVIEWS = [
    _review(n, vote, f"Tent review {n + 1}", f"Text of tent review {n + 1}.") for n, vote in enumerate(TENT_VOTES)
]
TENT_REVIEWS[2]["reviewText"] = 'Survived a "real" storm.\nStill dry inside.'
TENT_REVIEWS[17]["summary"] = "Best tent ever "


def _qa(kind: str, answer_type: object, question: str, answer: str) -> dict[str, Any]:
    return {
        "questionType": kind,
        "answerType": answer_type,
        "question": question,
        "answer": answer,
        "answerTime": "Jun 1, 2015",
    }


TENT_QA = [
    _qa("yes/no", "Y", "Is it waterproof?", "Yes."),
    _qa("open-ended", NAN, "How tall is it?", "About 5 feet."),
    _qa("yes/no", "N", "Does it include stakes?", "No"),
]
BOTTLE_QA = [_qa("open-ended", NAN, f"Question {k}?", f"Answer {k}.") for k in range(1, 29)]
"""28 questions: STaRK shows the first 27 (it breaks after index 26 > max_entries=25)."""

AMAZON_PRODUCTS: list[dict[str, Any]] = [
    {
        "review": TENT_REVIEWS,
        "qa": TENT_QA,
        "color": ["green", "blue"],
        "asin": "B004J2GUOU",
        "title": "Coleman Sundome 4-Person Tent",
        "global_category": "Sports and Outdoors",
        "category": ["tents", "camping & hiking"],
        "price": "$89.99",
        "brand": "Coleman",
        "feature": [
            "Sleeps 4 adults",
            "ASIN: B004J2GUOU",
            "",
            "Packs into a basin-sized carry bag",
            "WeatherTec system with welded floors",
        ],
        "rank": ">#1,204 in Sports & Outdoors (See Top 100 in Sports & Outdoors)",
        "details": {
            "product_dimensions": "8 x 5 x 2 inches ; 1.6 ounces",
            "shipping_weight": "10 pounds",
            "asin": "B004J2GUOU",
            "item_model_number": "2000012345",
        },
        "description": ["The Coleman Sundome sets up in 10 minutes.", "Includes rainfly."],
    },
    {
        "review": [
            _review(100, "3", "OK", "Does the job."),
            _review(101, NAN, "Meh", NAN),
            _review(102, "12", "Bright", "Very bright lantern."),
        ],
        "qa": [],
        "asin": "B00008XYZL",
        "title": "Coleman Northstar Propane Lantern",
        "global_category": "Sports and Outdoors",
        "category": ["camping & hiking", "lanterns"],
        "price": "",
        "brand": "Coleman",
        "feature": [],
        "rank": [">#3,117 in Sports & Outdoors", ">#12 in Lanterns"],
        "details": {},
        "description": [],
    },
    {
        "review": [],
        "qa": BOTTLE_QA,
        "asin": "B000FZX93K",
        "title": "Stanley Classic Vacuum Bottle",
        "global_category": "Sports and Outdoors",
        "category": ["thermoses"],
        "price": "$35.00",
        "feature": ["ASIN: B000FZX93K", "Model: asin-compatible lid"],
        "rank": ">#88 in Kitchen & Dining",
        "details": {"product_dimensions": "4 x 4 x 12 inches", "asin": "B000FZX93K"},
        "description": ["", "Keeps drinks hot for 24 hours."],
    },
    {
        "review": [_review(200, "1,203", "Keeps ice", "Ice lasts two days.")],
        "qa": [TENT_QA[0]],
        "color": ["black"],
        "asin": "B01ACATW7E",
        "title": "Hydro Flask 32 oz Wide Mouth",
        "global_category": "Sports and Outdoors",
        "category": ["thermoses", "camping & hiking"],
        "price": "$44.95",
        "brand": "Hydro Flask",
        "feature": ["Double-wall vacuum insulation"],
        "rank": ">#41 in Sports & Outdoors",
        "details": {"product_dimensions": "3.6 x 3.6 x 9.4 inches ; 15.2 ounces", "asin": "B01ACATW7E"},
        "description": [""],
    },
    {
        "review": [],
        "qa": [],
        "asin": "B00363WZY2",
        "title": "Coleman Brazos Sleeping Bag",
        "global_category": "Sports and Outdoors",
        "category": ["sleeping bags", "camping & hiking"],
        "price": "$29.99",
        "brand": "Coleman",
        "feature": ["Fits adults up to 5 ft 11 in"],
        "rank": ">#7 in Sleeping Bags",
        "details": {"shipping_weight": "4.2 pounds"},
        "description": ["Rated to 30 degrees."],
    },
]
"""Product rows in construct_raw_node_info's key order (review, qa, color?, meta columns; no brand/category key when
empty). Product 2 has no brand and no ' ; ' in its dimensions."""
AMAZON_PRODUCT_EDGES: list[tuple[int, int, int]] = [
    (0, 2, 0),
    (0, 2, 1),
    (0, 3, 1),
    (1, 0, 0),
    (2, 3, 1),
    (3, 2, 1),
    (4, 0, 0),
    (4, 1, 1),
]
"""(head, tail, 0 also_buy / 1 also_view) in create_raw_product_graph's order (per product: also_buy, then also_view).
0 -> 2 is both also_buy and also_view: to_undirected(reduce='mean') makes the pair's type mean(0, 1) = 0.5 -> 0."""


def write_amazon_real(root: Path) -> Path:
    """AMAZON at ``root/processed`` (the product graph) and ``root/processed/cache/brand-category-color`` (the SKB
    AmazonSKB loads: products plus brand/category/color nodes as post_process appends them); returns the SKB root."""
    import torch  # here, not at import: collecting the tests needs no torch

    processed = root / "processed"
    cache = processed / "cache" / "brand-category-color"
    cache.mkdir(parents=True, exist_ok=True)
    products = dict(enumerate(AMAZON_PRODUCTS))
    heads = [h for h, _, _ in AMAZON_PRODUCT_EDGES]
    tails = [t for _, t, _ in AMAZON_PRODUCT_EDGES]
    types = [e for _, _, e in AMAZON_PRODUCT_EDGES]
    _dump_numpy1(processed / "node_info.pkl", products)
    _dump(processed / "edge_type_dict.pkl", {0: "also_buy", 1: "also_view"})
    torch.save(torch.tensor([heads, tails], dtype=torch.long), processed / "edge_index.pt")
    torch.save(torch.tensor(types, dtype=torch.long), processed / "edge_types.pt")

    # post_process(meta_link_types=['brand', 'category', 'color']): one node per np.unique value, product -> value edges
    node_info: dict[int, dict[str, Any]] = dict(products)
    node_types = [0] * len(products)
    for offset, link in enumerate(("brand", "category", "color")):
        pairs = [
            (idx, value)
            for idx, row in products.items()
            if link in row
            for value in ([row[link]] if link == "brand" else row[link])
        ]
        for value in np.unique(np.array([value for _, value in pairs])):
            node = len(node_info)
            node_info[node] = {f"{link}_name": value}  # a numpy.str_, as np.unique returns it
            node_types.append(1 + offset)
            for idx, linked in pairs:
                if linked == value:
                    heads.append(idx)
                    tails.append(node)
                    types.append(2 + offset)
    _dump_numpy1(cache / "node_info.pkl", node_info)
    _dump(cache / "node_type_dict.pkl", AMAZON_NODE_TYPES)
    _dump(cache / "edge_type_dict.pkl", AMAZON_EDGE_TYPES)
    torch.save(torch.tensor(node_types, dtype=torch.long), cache / "node_types.pt")
    torch.save(torch.tensor([heads, tails], dtype=torch.long), cache / "edge_index.pt")
    torch.save(torch.tensor(types, dtype=torch.long), cache / "edge_types.pt")
    return root
