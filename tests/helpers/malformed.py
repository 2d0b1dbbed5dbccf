"""Malformed STaRK folders for ``kgqa load stark``, as data: tests/fixtures/malformed/load_stark.csv names each case,
the SKB fixture it spoils, when it is refused (``read``: while reading, before the store starts; ``render``: when the
node's document is made, during the load), the exit code and a fragment of the one-line error. The builders below
spoil a fresh real-format fixture (tests/helpers/stark_fixture.py), one per case."""

from __future__ import annotations

import csv
import io
import os
import pickle
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from kgqa.loaders.stark_files import read_pickle
from tests.helpers.stark_fixture import write_amazon_real, write_mag_real, write_prime_real

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "malformed" / "load_stark.csv"
WRITERS: dict[str, tuple[Callable[[Path], Path], tuple[str, ...]]] = {
    "prime": (write_prime_real, ("processed",)),
    "mag": (write_mag_real, ("processed",)),
    "amazon": (write_amazon_real, ("processed", "cache", "brand-category-color")),
}
"""SKB -> (fixture writer returning the SKB root, the folder under it that STaRK loads)."""
NEVER = ("Traceback", "internal error", "weights_only", "safe_globals", "will likely succeed")
"""Text no refusal may contain: a bug's marks, and torch's advice to turn its guard off."""


@dataclass(frozen=True)
class Case:
    case: str
    skb: str
    stage: str
    exit_code: int
    message: str


def read_table(path: Path = TABLE) -> list[Case]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Case(row["case"], row["skb"], row["stage"], int(row["exit_code"]), row["message"])
            for row in csv.DictReader(handle)
        ]


CASES = read_table()


# ---------------------------------------------------------------------------------------------------------------------
# Builders: each spoils the folder STaRK loads (processed/, or AMAZON's cache folder) of a fresh fixture.
# ---------------------------------------------------------------------------------------------------------------------


def _edit_info(folder: Path, edit: Callable[[dict[int, Any]], object]) -> None:
    info = read_pickle(folder / "node_info.pkl")
    edit(info)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # pickling a 3,000-deep list recurses; reading it back must not
    try:
        (folder / "node_info.pkl").write_bytes(pickle.dumps(info, protocol=4))
    finally:
        sys.setrecursionlimit(limit)


def _edit_dict(folder: Path, file: str, edit: Callable[[dict[Any, str]], object]) -> None:
    value = read_pickle(folder / file)
    edit(value)
    (folder / file).write_bytes(pickle.dumps(value, protocol=4))


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _bomb(width: int = 40, levels: int = 8) -> list[Any]:
    """One list shared ``width`` times at each of ``levels`` levels: a few hundred bytes, width**levels values."""
    value: list[Any] = [0]
    for _ in range(levels):
        value = [value] * width
    return value


def _self_list() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


class _System:
    """A ``__reduce__`` payload through os.system."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("true",))


def _rewrite_data_pkl(path: Path, edit: Callable[[bytes], bytes]) -> None:
    """A torch.save zip archive with its pickle (``archive/data.pkl``) rewritten by ``edit``."""
    source = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    entries = [(info, source.read(info.filename)) for info in source.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for info, body in entries:
            archive.writestr(info, edit(body) if info.filename.endswith("data.pkl") else body)
    path.write_bytes(out.getvalue())


def _shape_beyond_int64(folder: Path) -> None:
    path = folder / "edge_index.pt"
    torch.save(torch.tensor([[0, 1, 2], [1, 2, 0]], dtype=torch.long), path)
    big = b"\x8a\x09" + (2**70).to_bytes(9, "little")  # LONG1: a 9-byte integer
    _rewrite_data_pkl(path, lambda body: body.replace(b"K\x02K\x03\x86", b"K\x02" + big + b"\x86"))
    torch.save(torch.tensor([0, 0, 0], dtype=torch.long), folder / "edge_types.pt")


def _repeated_values(folder: Path) -> None:
    """An edge_index whose strides are 0: its 6 stored values read as 2^61 (numpy cannot hold them: a ValueError or
    OverflowError that ended the load as an internal error, exit 70)."""
    path = folder / "edge_index.pt"
    torch.save(torch.tensor([[0, 1, 2], [1, 2, 0]], dtype=torch.long), path)
    size = b"\x8a\x08" + (2**60).to_bytes(8, "little")  # LONG1: an 8-byte integer
    _rewrite_data_pkl(
        path,
        lambda body: body.replace(b"K\x02K\x03\x86", b"K\x02" + size + b"\x86").replace(
            b"K\x03K\x01\x86", b"K\x00K\x00\x86"
        ),
    )
    torch.save(torch.tensor([0, 0, 0], dtype=torch.long), folder / "edge_types.pt")


def _sparse_edge_index(folder: Path) -> None:
    indices = torch.tensor([[0, 1], [0, 1]])
    sparse = torch.sparse_coo_tensor(indices, torch.tensor([1, 2]), (2, 2), check_invariants=True)
    torch.save(sparse, folder / "edge_index.pt")


def _tent_vote(info: dict[int, Any]) -> None:
    info[0]["review"][0]["vote"] = "many"


def _nul_name(info: dict[int, Any]) -> None:
    info[0]["name"] = "strongy\x00loidiasis"


def _surrogate_abstract(info: dict[int, Any]) -> None:
    info[11]["abstract"] = "A lone \ud800 half of a pair."


BUILDERS: dict[str, Callable[[Path], object]] = {
    "self_referencing_details": lambda f: _edit_info(f, lambda i: i[0]["details"].__setitem__("self", i[0]["details"])),
    "self_referencing_entry": lambda f: _edit_info(f, lambda i: i[0].__setitem__("details", i[0])),
    "node_info_inside_itself": lambda f: _edit_info(f, lambda i: i.__setitem__(3, i)),
    "self_referencing_list": lambda f: _edit_info(f, lambda i: i[0].__setitem__("DisplayName", _self_list())),
    "nested_3000_deep": lambda f: _edit_info(f, lambda i: i[0].__setitem__("feature", nested(3000))),
    "shared_reference_bomb": lambda f: _edit_info(f, lambda i: i[1].__setitem__("details", {"x": _bomb()})),
    "bytes_key": lambda f: _edit_info(f, lambda i: i[0]["details"].__setitem__(b"k", 1)),
    "int_key_among_text_keys": lambda f: _edit_info(f, lambda i: i[0].__setitem__(1, "one")),
    "integer_beyond_int64": lambda f: _edit_info(f, lambda i: i[2]["details"].__setitem__("taxid", 2**70)),
    "integer_past_str_digit_limit": lambda f: _edit_info(f, lambda i: i[11].__setitem__("Year", 10**5000)),
    "edge_type_id_beyond_int64": lambda f: _edit_dict(f, "edge_type_dict.pkl", lambda d: d.__setitem__(2**70, "x")),
    "bool_type_id": lambda f: _edit_dict(f, "node_type_dict.pkl", lambda d: d.__setitem__(True, d.pop(1))),
    "type_name_with_lone_surrogate": lambda f: _edit_dict(
        f, "node_type_dict.pkl", lambda d: d.__setitem__(0, "product\ud83d")
    ),
    "blank_type_name": lambda f: _edit_dict(f, "edge_type_dict.pkl", lambda d: d.__setitem__(0, " ")),
    "float_node_types_inf": lambda f: torch.save(torch.full((13,), float("inf")), f / "node_types.pt"),
    "edge_index_uint64": lambda f: torch.save(torch.zeros(2, 3, dtype=torch.uint64), f / "edge_index.pt"),
    "edge_index_shape_beyond_int64": _shape_beyond_int64,
    "edge_index_sparse": _sparse_edge_index,
    "edge_index_repeats_values": _repeated_values,
    "evil_pt_reduce": lambda f: torch.save({"edge_index": torch.zeros(2, 1), "x": _System()}, f / "edge_index.pt"),
    "evil_pt_legacy_protocol_4": lambda f: (f / "edge_types.pt").write_bytes(pickle.dumps(_System(), protocol=4)),
    "evil_pt_builds_a_class": lambda f: _rewrite_data_pkl(
        f / "node_types.pt", lambda _: b"\x80\x02ctorch\nfloat32\n}b."
    ),
    "empty_pt": lambda f: (f / "node_types.pt").write_bytes(b""),
    "truncated_pt": lambda f: (f / "edge_index.pt").write_bytes((f / "edge_index.pt").read_bytes()[:200]),
    "pickle_overflow": lambda f: (f / "node_info.pkl").write_bytes(b"\x80\x04\x8e" + (2**63 + 5).to_bytes(8, "little")),
    "evil_pickle": lambda f: (f / "node_info.pkl").write_bytes(pickle.dumps({0: _System()}, protocol=4)),
    "generif_not_text": lambda f: _edit_info(f, lambda i: i[2]["details"].__setitem__("generif", [1, 2])),
    "review_not_a_dict": lambda f: _edit_info(f, lambda i: i[1].__setitem__("review", ["great", "awful"])),
    "vote_not_a_number": lambda f: _edit_info(f, _tent_vote),
    "name_with_nul": lambda f: _edit_info(f, _nul_name),
    "abstract_with_lone_surrogate": lambda f: _edit_info(f, _surrogate_abstract),
}


def spoiled(case: Case, base: Path) -> Path:
    """A fresh fixture of the case's SKB, spoiled by its builder; returns the SKB root."""
    writer, loaded = WRITERS[case.skb]
    root = writer(base / case.skb)
    BUILDERS[case.case](root.joinpath(*loaded))
    return root


def assert_clean_refusal(result: Any, case: Case, *, one_line: bool = True) -> None:
    """The exit code and the fragment; no traceback, no internal error, no advice to lower a guard."""
    output = result.output + result.stderr
    assert result.exit_code == case.exit_code, output
    lines = result.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("error: ") and case.message in lines[-1], output
    if one_line:
        assert len(lines) == 1, output
    assert not any(text in output for text in NEVER), output
