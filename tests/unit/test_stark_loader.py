"""The STaRK processed-format reader, on a fixture written in that exact format."""

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from kgqa.errors import InputError
from kgqa.loaders.model import alias_count
from kgqa.loaders.stark import prime_aliases, read_stark
from kgqa.loaders.stark_files import REFUSED as NOT_PLAIN
from kgqa.loaders.stark_files import read_pickle
from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.stark_fixture import (
    _NUMPY_SCALAR,
    CYP3A4_DETAILS,
    EDGES,
    HTR1B_DETAILS,
    NODES,
    _dump_numpy1,
    write_amazon_real,
    write_mag_real,
    write_prime_real,
)


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
        def __reduce__(self) -> tuple[Any, ...]:
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


# ---------------------------------------------------------------------------------------------------------------------
# Pickled code is refused before it runs, in every file kgqa reads, with a one-line error naming the file.
# ---------------------------------------------------------------------------------------------------------------------


class _Touch:
    """A ``__reduce__`` payload: unpickling it would create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


class _System:
    """A ``__reduce__`` payload through os.system (pickled as posix.system)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


SKBS: dict[str, tuple[Callable[[Path], Path], tuple[str, ...]]] = {
    "prime": (write_prime_real, ("processed",)),
    "mag": (write_mag_real, ("processed",)),
    "amazon": (write_amazon_real, ("processed", "cache", "brand-category-color")),
}
"""SKB -> (fixture writer returning the SKB root, the folder under the root that STaRK loads)."""


def _real_skb(name: str, tmp_path: Path) -> tuple[Path, Path]:
    """(SKB root, the folder STaRK loads) of a fresh real-format fixture."""
    writer, loaded = SKBS[name]
    root = writer(tmp_path / name)
    return root, root.joinpath(*loaded)


def _assert_one_line(exc: pytest.ExceptionInfo[InputError], text: str) -> None:
    message = str(exc.value)
    assert text in message, message
    assert "\n" not in message and "\x1b" not in message, message


@pytest.mark.parametrize("name", list(SKBS))
@pytest.mark.parametrize("payload", [_Touch, _System])
def test_malicious_node_info_is_refused_in_every_skb(name: str, payload: type, tmp_path: Path) -> None:
    root, folder = _real_skb(name, tmp_path)
    marker = tmp_path / "pwned"
    info = read_pickle(folder / "node_info.pkl")
    info[0] = {**info[0], "title": payload(marker)}  # hidden inside an otherwise valid node_info
    (folder / "node_info.pkl").write_bytes(pickle.dumps(info, protocol=4))
    with pytest.raises(InputError) as exc:
        read_stark(name, root)
    _assert_one_line(exc, "node_info.pkl is not a valid STaRK pickle: refusing to load ")
    assert not marker.exists()


@pytest.mark.parametrize("name", list(SKBS))
@pytest.mark.parametrize("payload", [_Touch, _System])
def test_malicious_edge_index_is_refused_in_every_skb(name: str, payload: type, tmp_path: Path) -> None:
    root, folder = _real_skb(name, tmp_path)
    marker = tmp_path / "pwned"
    torch.save({"edge_index": torch.zeros(2, 1, dtype=torch.long), "x": payload(marker)}, folder / "edge_index.pt")
    with pytest.raises(InputError) as exc:
        read_stark(name, root)
    _assert_one_line(exc, "edge_index.pt is not a valid torch tensor file: " + NOT_PLAIN + " (refusing to load ")
    assert "weights_only" not in str(exc.value)  # torch's advice to turn the guard off is not passed on
    assert not marker.exists()


def test_malicious_type_dict_is_refused(tmp_path: Path) -> None:
    root, folder = _real_skb("amazon", tmp_path)
    marker = tmp_path / "pwned"
    (folder / "edge_type_dict.pkl").write_bytes(pickle.dumps({0: _Touch(marker)}))
    with pytest.raises(InputError) as exc:
        read_stark("amazon", root)
    _assert_one_line(exc, "edge_type_dict.pkl is not a valid STaRK pickle: refusing to load ")
    assert not marker.exists()


def test_a_plain_pickle_as_pt_file_is_refused(tmp_path: Path) -> None:
    """A .pt written by pickle.dump (torch's legacy format) with a payload: refused, the reason on one line."""
    root, folder = _real_skb("mag", tmp_path)
    marker = tmp_path / "pwned"
    (folder / "edge_types.pt").write_bytes(pickle.dumps(_System(marker), protocol=2))
    with pytest.raises(InputError) as exc:
        read_stark("mag", root)
    _assert_one_line(
        exc, "edge_types.pt is not a valid torch tensor file: " + NOT_PLAIN + " (refusing to load posix.system"
    )
    assert not marker.exists()


def _global(module: str, name: str, *args: bytes) -> bytes:
    """A protocol-2 pickle calling ``module.name(*args)`` (text GLOBAL opcode, so any module path can be named)."""
    body = b"".join(b"C" + bytes([len(a)]) + a for a in args)
    return b"\x80\x02c" + f"{module}\n{name}\n".encode() + b"(" + body + b"tR."


@pytest.mark.parametrize(
    ("data", "refused"),
    [
        (_global("numpy.core.multiarray", "_reconstruct"), "numpy.core.multiarray._reconstruct"),
        (_global("numpy._core.multiarray", "_reconstruct"), "numpy._core.multiarray._reconstruct"),
        (pickle.dumps({0: np.arange(3)}, protocol=4), "numpy._core.multiarray._reconstruct"),
        (_global("numpy", "frombuffer", b"\0" * 8), "numpy.frombuffer"),
        (_global("os", "system", b"touch pwned"), "os.system"),
        (_global("posix", "system", b"touch pwned"), "posix.system"),
        (_global("builtins", "eval", b"print(1)"), "builtins.eval"),
        (_global("builtins", "getattr"), "builtins.getattr"),
        (_global("numpy", "load"), "numpy.load"),
    ],
)
def test_pickled_globals_beyond_scalars_are_refused(
    data: bytes, refused: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where a `touch pwned` that ran would leave its file
    path = tmp_path / "node_info.pkl"
    path.write_bytes(data)
    with pytest.raises(InputError) as exc:
        read_pickle(path)
    _assert_one_line(exc, f"node_info.pkl is not a valid STaRK pickle: refusing to load {refused}")
    assert list(tmp_path.iterdir()) == [path]


NUMPY_SCALARS: list[tuple[Any, str]] = [
    (np.float64(0.1), "0.1"),
    (np.float64(-2.5e-300), "-2.5e-300"),
    (np.float64(1e16), "1e+16"),
    (np.float64("nan"), "nan"),
    (np.float32(0.1), "0.1"),
    (np.float32(3.14159), "3.14159"),
    (np.float32(1e-5), "1e-05"),
    (np.float32(1e-4), "0.0001"),
    (np.float32(1e6), "1000000.0"),
    (np.float32(16777217), "16777216.0"),
    (np.float32("-inf"), "-inf"),
    (np.float16(0.1), "0.1"),
    (np.float16(1000), "1000.0"),
    (np.bool_(True), "True"),
    (np.bool_(False), "False"),
    (np.str_("héllo ☂"), "héllo ☂"),
    (np.str_(""), ""),
    (np.unique(np.array(["", "Coleman"]))[0], ""),
    (np.bytes_(b"ab"), "b'ab'"),
    (np.int64(-5), "-5"),
    (np.int64(2**62 + 1), str(2**62 + 1)),
    (np.int32(7), "7"),
    (np.uint8(200), "200"),
]
"""(numpy scalar, its str() as numpy 1.x printed it in STaRK's documents: positional from 1e-4 to 1e16 for every
float width, the shortest digits that round-trip at the scalar's own precision; numpy >= 2.3 prints float16/float32
in scientific notation from 10**precision on, e.g. '1e+06', which STaRK's documents never contain)."""


@pytest.mark.parametrize("numpy1", [True, False], ids=["numpy1", "numpy2"])
def test_numpy_scalars_come_back_as_python_values(numpy1: bool, tmp_path: Path) -> None:
    path = tmp_path / "node_info.pkl"
    value = {i: {"x": scalar} for i, (scalar, _) in enumerate(NUMPY_SCALARS)}
    if numpy1:
        _dump_numpy1(path, value)
        assert b"numpy.core.multiarray" in path.read_bytes() and b"numpy._core" not in path.read_bytes()
    else:
        path.write_bytes(pickle.dumps(value, protocol=4))
    loaded = read_pickle(path)
    for i, (scalar, printed) in enumerate(NUMPY_SCALARS):
        got = loaded[i]["x"]
        python = {"f": float, "b": bool, "U": str, "S": bytes, "i": int, "u": int}[scalar.dtype.kind]
        assert type(got) is python, (scalar, got)
        assert str(got) == printed, (scalar, got)
        assert got == scalar or (got != got and scalar != scalar), (scalar, got)  # nan


@pytest.mark.parametrize(
    "reduced",
    [
        (np.dtype("O"), b"\0" * 8),
        np.datetime64("2016-06-27").__reduce__()[1],
        np.timedelta64(3, "D").__reduce__()[1],
        (np.dtype([("a", "f8")]), b"\0" * 8),
        (np.dtype("f8"), "not bytes"),
        (np.dtype("f8"), b"\0" * 3),
    ],
    ids=["object", "datetime", "timedelta", "structured", "str-data", "short-data"],
)
def test_numpy_scalars_of_other_dtypes_are_refused(reduced: tuple[Any, ...], tmp_path: Path) -> None:
    class Scalar:
        def __reduce__(self) -> tuple[Any, ...]:
            return (_NUMPY_SCALAR, reduced)

    path = tmp_path / "node_info.pkl"
    _dump_numpy1(path, {0: {"x": Scalar()}})
    with pytest.raises(InputError) as exc:
        read_pickle(path)
    _assert_one_line(exc, "node_info.pkl is not a valid STaRK pickle: ")
    assert "numpy scalar" in str(exc.value)


@pytest.mark.parametrize(
    "data",
    [b"Pfoo\n.", b"\x80\x04X\x03\x00\x00\x00fooQ.", b"Fabc\n.", b"", b"\x80\x04h\x05.", b"\x80\x09."],
    ids=["persistent-id", "binpersid", "bad-float", "empty", "bad-memo", "protocol-9"],
)
def test_a_malformed_pickle_is_a_one_line_error(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "node_info.pkl"
    path.write_bytes(data)
    with pytest.raises(InputError) as exc:
        read_pickle(path)
    _assert_one_line(exc, "node_info.pkl is not a valid STaRK pickle: ")


@pytest.mark.parametrize(
    ("file", "message"),
    [
        ("node_info.pkl", "node_info.pkl is not a valid STaRK pickle: refusing to load "),
        ("edge_index.pt", "edge_index.pt is not a valid torch tensor file: " + NOT_PLAIN + " (refusing to load "),
    ],
)
def test_cli_load_of_a_malicious_file_is_a_one_line_error(
    file: str, message: str, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Refused before the store starts (the unit tests' guard would fail a server start)."""
    root, folder = _real_skb("prime", tmp_path)
    marker = tmp_path / "pwned"
    if file.endswith(".pkl"):
        (folder / file).write_bytes(pickle.dumps({0: _Touch(marker)}, protocol=4))
    else:
        torch.save(_Touch(marker), folder / file)
    result = run(cli_env, "load", "stark", "--name", "prime", "--dir", str(root))
    assert_one_line_error(result, message)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        (
            CYP3A4_DETAILS,
            ("cytochrome P450 family 3 subfamily A member 4", *CYP3A4_DETAILS["alias"]),
        ),
        (HTR1B_DETAILS, ("5-hydroxytryptamine receptor 1B", "5-HT1B")),
        ({"name": "CYP3A4", "alias": ["cyp3a4", " CYP3A ", "CYP3A", float("nan")]}, ("CYP3A",)),
        ({"other_names": ["long  name"], "alias": None}, ("long name",)),
        ({}, ()),
    ],
)
def test_prime_gene_aliases(details: dict[str, Any], expected: tuple[str, ...]) -> None:
    """STaRK's "gene name", "other gene names" and "extended other gene names": distinct, the symbol left out."""
    symbol = "CYP3A4" if details is not HTR1B_DETAILS else "HTR1B"
    assert prime_aliases(symbol, {"name": symbol, "details": details}) == expected
    assert prime_aliases(symbol, {"name": symbol}) == ()


@pytest.mark.parametrize("name", list(SKBS))
def test_aliases_are_counted_without_rendering_as_rendering_finds_them(name: str, tmp_path: Path) -> None:
    """A load's progress total counts aliases from the records; it must agree with the rendered nodes."""
    root, _ = _real_skb(name, tmp_path)
    data = read_stark(name, root)
    rendered = sum(len(node.aliases) for node in data.nodes)
    assert alias_count(data.nodes) == rendered
    assert (rendered > 0) == (name == "prime")
    assert alias_count([*data.nodes]) == rendered  # a plain list (HPO's) is counted node by node
