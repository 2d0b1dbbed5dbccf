"""A small SKB written exactly in STaRK's processed format (pickles + torch tensors), modelled on PRIME."""

from __future__ import annotations

import pickle
from pathlib import Path

import torch

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


def write_prime_fixture(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    node_info = {
        i: {"id": f"SRC{i}", "type": NODE_TYPES[t], "name": name, "source": source, "details": details}
        for i, (name, t, source, details) in enumerate(NODES)
    }
    files = {"node_info.pkl": node_info, "node_type_dict.pkl": NODE_TYPES, "edge_type_dict.pkl": EDGE_TYPES}
    for name, value in files.items():
        with (directory / name).open("wb") as handle:
            pickle.dump(value, handle)
    torch.save(torch.tensor([t for _, t, _, _ in NODES], dtype=torch.long), directory / "node_types.pt")
    torch.save(
        torch.tensor([[h for h, _, _ in EDGES], [t for _, t, _ in EDGES]], dtype=torch.long),
        directory / "edge_index.pt",
    )
    torch.save(torch.tensor([e for _, _, e in EDGES], dtype=torch.long), directory / "edge_types.pt")
    return directory
