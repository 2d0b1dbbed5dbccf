"""The STaRK processed-format reader, on a fixture written in that exact format."""

import pickle
import shutil
from pathlib import Path

import pytest
import torch

from kgqa.errors import InputError
from loaders.stark import read_stark
from tests.stark_fixture import EDGES, NODES


def test_reads_nodes_edges_and_documents(prime_dir: Path) -> None:
    data = read_stark("prime", prime_dir)
    assert len(data.nodes) == len(NODES) and len(data.edges) == len(EDGES)
    assert data.candidate_types == ("disease", "drug", "effect/phenotype", "gene/protein")
    ivermectin = data.nodes[2]
    assert (ivermectin.id, ivermectin.type, ivermectin.name) == (2, "drug", "ivermectin")
    assert ivermectin.doc == (
        "- name: ivermectin\n- type: drug\n- source: DrugBank\n- details:\n"
        "  - description: An anthelmintic drug used against parasitic worms.\n  - half_life: 18 hours\n"
    )
    assert (data.edges[0].source, data.edges[0].type, data.edges[0].target) == (2, "indication", 0)


def test_accepts_the_parent_of_processed(prime_dir: Path) -> None:
    assert len(read_stark("prime", prime_dir.parent).nodes) == len(NODES)


def test_a_prime_folder_is_not_taken_for_mag(prime_dir: Path) -> None:
    with pytest.raises(InputError, match=r"is a 'disease' in node_info\.pkl but a 'author' by the type ids"):
        read_stark("mag", prime_dir)


def _copy(prime_dir: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(prime_dir, tmp_path / "processed"))


def test_missing_file_is_named(prime_dir: Path, tmp_path: Path) -> None:
    broken = _copy(prime_dir, tmp_path)
    (broken / "edge_types.pt").unlink()
    with pytest.raises(InputError, match=r"missing edge_types\.pt"):
        read_stark("prime", broken)


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        read_stark("prime", tmp_path / "nope")


def test_malicious_pickle_is_refused_without_running(prime_dir: Path, tmp_path: Path) -> None:
    broken = _copy(prime_dir, tmp_path)
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (Path.touch, (marker,))

    (broken / "node_info.pkl").write_bytes(pickle.dumps(Exploit()))
    with pytest.raises(InputError, match=r"node_info\.pkl is not a valid STaRK pickle: refusing to load"):
        read_stark("prime", broken)
    assert not marker.exists()


def test_corrupt_tensor_is_named(prime_dir: Path, tmp_path: Path) -> None:
    broken = _copy(prime_dir, tmp_path)
    (broken / "edge_index.pt").write_bytes(b"not a tensor")
    with pytest.raises(InputError, match=r"edge_index\.pt is not a valid torch tensor file"):
        read_stark("prime", broken)


def test_inconsistent_shapes_are_named(prime_dir: Path, tmp_path: Path) -> None:
    broken = _copy(prime_dir, tmp_path)
    torch.save(torch.tensor([0, 1], dtype=torch.long), broken / "edge_types.pt")
    with pytest.raises(InputError, match=r"edge_index.pt must be \[2, E\]"):
        read_stark("prime", broken)
    torch.save(torch.tensor([[0], [99]], dtype=torch.long), broken / "edge_index.pt")
    torch.save(torch.tensor([0], dtype=torch.long), broken / "edge_types.pt")
    with pytest.raises(InputError, match="refers to node 99"):
        read_stark("prime", broken)
