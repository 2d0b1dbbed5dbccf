"""STaRK's processed SKB folders as shipped, read without importing ``stark_qa`` and without running pickled code.

Each SKB class of STaRK loads a different folder (PRIME ``prime/processed``, MAG ``mag/processed`` whose two type
dicts are class constants in STaRK's mag.py, AMAZON ``amazon/processed/cache/brand-category-color``); this module
finds that folder from the SKB root or anything on the way down. Pickles go through an unpickler that admits plain
containers plus exactly what numpy scalars need (``numpy.core.multiarray.scalar``, as numpy 1.x wrote them, or
``numpy._core``, and ``numpy.dtype``), turning scalars into Python values; tensors are read with
``torch.load(weights_only=True)``. Anything else in a file is refused before it runs.
"""

from __future__ import annotations

import pickle
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.errors import ConfigError, InputError, KgqaError

from .plain_data import INT64_MAX

PKL_FILES = ("node_info.pkl", "edge_type_dict.pkl", "node_type_dict.pkl")
PT_FILES = ("edge_index.pt", "edge_types.pt", "node_types.pt")
MAG_NODE_TYPES = {0: "author", 1: "institution", 2: "field_of_study", 3: "paper"}
MAG_EDGE_TYPES = {
    0: "author___affiliated_with___institution",
    1: "paper___cites___paper",
    2: "paper___has_topic___field_of_study",
    3: "author___writes___paper",
}
"""STaRK's MagSKB.node_type_dict / edge_type_dict: MAG's processed folder has no type-dict files."""
AMAZON_CACHE = ("cache", "brand-category-color")
"""AmazonSKB's default meta_link_types folder under processed/ (the parent holds only the product graph)."""
SKB_FOLDERS = {"prime": "primekg", "mag": "mag", "amazon": "amazon"}

_CONTAINERS = {
    ("builtins", n)
    for n in ("dict", "list", "tuple", "set", "frozenset", "str", "int", "float", "bool", "bytes", "complex")
} | {("collections", "OrderedDict")}
_SCALAR_KINDS = "biufcUS"


def _scalar(dtype: Any, data: Any = None) -> Any:
    """numpy's ``multiarray.scalar(dtype, bytes)`` reconstruction, returning the equal Python value.

    float16/float32 go through their shortest decimal text, so ``str()`` of the value prints as numpy 1.x (which
    wrote STaRK's documents) printed it. An empty ``np.str_``/``np.bytes_`` (as ``np.unique`` returns for '') has dtype
    ``<U``/``S`` of itemsize 0 and no bytes.
    """
    if not isinstance(dtype, np.dtype) or dtype.kind not in _SCALAR_KINDS or not isinstance(data, bytes):
        raise pickle.UnpicklingError(f"refusing a numpy scalar of dtype {dtype!r}")
    if dtype.itemsize == 0 and dtype.kind in "US":  # an empty np.str_/np.bytes_ pickles as dtype('<U'), b''
        return "" if dtype.kind == "U" else b""
    try:
        value = np.frombuffer(data, dtype=dtype, count=1)[0]
    except ValueError as exc:
        raise pickle.UnpicklingError(f"malformed numpy scalar of dtype {dtype}: {exc}") from exc
    if dtype.kind == "f" and dtype.itemsize < 8:
        return float(str(value))
    return value.item()


_NUMPY: dict[tuple[str, str], Callable[..., Any]] = {
    ("numpy.core.multiarray", "scalar"): _scalar,
    ("numpy._core.multiarray", "scalar"): _scalar,
    ("numpy", "dtype"): np.dtype,
}


class SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _CONTAINERS:
            return super().find_class(module, name)
        if (module, name) in _NUMPY:
            return _NUMPY[(module, name)]
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


_REFUSED_GLOBAL = re.compile(r"\bGLOBAL ([\w.]+)")
"""The global torch's weights_only unpickler refused, as its message names it ("Unsupported global: GLOBAL x.y")."""


def _one_line(text: str) -> str:
    """An error text as one line, without terminal escapes (some unpickler messages span lines)."""
    return " ".join(re.sub(r"\x1b\[[0-9;]*m", "", text).split())


def read_pickle(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return SafeUnpickler(handle).load()
    except MemoryError as exc:
        raise InputError(f"{path} does not fit in memory") from exc
    except KgqaError:
        raise
    except Exception as exc:  # a crafted or damaged pickle raises any type (OverflowError, KeyError, ...): the file's
        raise InputError(f"{path} is not a valid STaRK pickle: {_one_line(str(exc)) or type(exc).__name__}") from exc


def torch_module() -> Any:
    """torch, which STaRK's .pt files need (the ``torch`` extra: a core install has none)."""
    try:
        import torch
    except ImportError as exc:
        raise ConfigError(
            "reading STaRK's .pt files needs torch: pip install torch==2.13.0 && pip install 'kgqa[torch]'"
        ) from exc
    return torch


def read_torch(path: Path) -> Any:
    """``torch.load`` with weights_only: tensors and containers of them, never pickled code. torch's warnings (a
    pickle protocol it did not expect) are not passed on: the command's one line says what matters."""
    torch = torch_module()

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.load(path, map_location="cpu", weights_only=True)
    except MemoryError as exc:
        raise InputError(f"{path} does not fit in memory") from exc
    except Exception as exc:  # torch raises many types for a bad file; all mean the same to the user
        raise InputError(f"{path} is not a valid torch tensor file: {_torch_reason(exc)}") from exc


REFUSED = "it holds something other than tensors and plain data, which kgqa never loads"
_UNSAFE_ADVICE = re.compile(r"weights_only|safe_globals|allowlist|trust", re.I)
"""Words of torch's advice to loosen its guard: a message that has them is not passed on."""


def _torch_reason(exc: Exception) -> str:
    """What torch.load refused, on one line. A weights_only refusal comes with torch's multi-line advice to rerun
    with ``weights_only=False`` (running the file's code) or to allowlist globals; kgqa does neither and never
    suggests it, so only what the file holds is named."""
    text = str(exc).strip()
    if isinstance(exc, pickle.UnpicklingError) and text.startswith("Weights only load failed"):
        refused = _REFUSED_GLOBAL.search(text)
        if refused:
            return f"{REFUSED} (refusing to load {refused.group(1)})"
        detail = re.search(r"WeightsUnpickler error:\s*(.+?)(?:\n\n|$)", text, re.S)
        reason = _one_line(detail.group(1)) if detail else ""
        built = re.search(r"but got <class '([\w.]+)'>", reason)
        if built:
            reason = f"refusing to build {built.group(1)}"
        opcode = re.fullmatch(r"Unsupported operand (\d+)", reason)
        if opcode:
            reason = f"pickle opcode {_opcode_name(int(opcode.group(1)))} is not allowed"
        if not reason or _UNSAFE_ADVICE.search(reason):
            return REFUSED
        return f"{REFUSED} ({reason})"
    if isinstance(exc, EOFError):
        return "the file is empty or cut short"
    if isinstance(exc, OverflowError) or "Overflow when unpacking" in text:
        return "a tensor's size, stride or offset is beyond 64 bits"
    if "incompatible function arguments" in text:
        return "a tensor storage record with arguments of the wrong type"
    line = _one_line(text.splitlines()[0]) if text else type(exc).__name__
    if len(line) > 160:  # torch's archive errors go on with advice about how checkpoints get corrupted
        line = line.split(". ")[0]
    return type(exc).__name__ if _UNSAFE_ADVICE.search(line) else line


def _opcode_name(code: int) -> str:
    """``107``, or ``105 (INST)`` where pickletools knows the opcode."""
    import pickletools

    name = next((op.name for op in pickletools.opcodes if op.code == chr(code)), None)
    return f"{code} ({name})" if name else str(code)


def read_index_tensor(path: Path, ndim: int) -> np.ndarray:
    torch = torch_module()

    tensor = read_torch(path)
    if not isinstance(tensor, torch.Tensor) or tensor.dim() != ndim:
        raise InputError(f"{path.name} must hold a {ndim}-d integer tensor")
    check_dense(tensor, path.name)
    if tensor.dtype.is_floating_point and ndim == 1 and _integral(tensor):
        tensor = tensor.long()  # STaRK's product-only AMAZON writes node_types as torch.zeros (float)
    if tensor.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8):
        raise InputError(f"{path.name} must hold a {ndim}-d integer tensor, found {tensor.dtype}")
    values: np.ndarray = tensor.numpy().astype(np.int64, copy=False)
    return values


def check_dense(tensor: Any, where: str) -> None:
    """A plain dense tensor in CPU memory, as ``torch.save`` of STaRK's arrays writes: a sparse, quantized or
    meta tensor loads under weights_only too, but has no numpy form (and a sparse one need not be well formed); and
    no more values than it stores (:func:`check_extent`)."""
    torch = torch_module()

    if tensor.is_quantized:
        found = "a quantized tensor"
    elif tensor.layout != torch.strided:
        found = f"a {str(tensor.layout).removeprefix('torch.')} tensor"
    elif tensor.device.type != "cpu":
        found = f"a tensor on device {tensor.device.type}"
    else:
        check_extent(tensor, where)
        return
    raise InputError(f"{where} must hold dense tensors, found {found}")


def check_extent(tensor: Any, where: str) -> None:
    """A tensor holds no more values than its file stores. torch.load takes any size and strides whose values fall
    inside the stored bytes, so a few bytes with stride 0 can claim 2^60 values: numpy cannot hold them (a ValueError
    or OverflowError that ended the load as an internal error), and a size it can hold is copied into all of memory.
    STaRK's tensors are plain arrays, each value stored once."""
    stored = tensor.untyped_storage().nbytes() // max(1, tensor.element_size())
    if tensor.numel() > stored:
        raise InputError(
            f"{where} holds a tensor of shape {list(tensor.shape)} ({tensor.numel():,} values) but stores "
            f"{stored:,} values: its strides repeat them, which STaRK's tensors never do"
        )


def _integral(tensor: Any) -> bool:
    """Whether a float tensor holds only whole numbers that convert to int64 exactly (no nan, inf or 1e30, which
    ``.long()`` would turn into some other number)."""
    torch = torch_module()

    finite = bool(torch.isfinite(tensor).all())
    return finite and bool((tensor == tensor.round()).all()) and bool((tensor.abs() <= 2**53).all())


@dataclass(frozen=True)
class StarkFolder:
    """The folder STaRK's SKB class loads, and what its files must provide."""

    path: Path
    name: str

    @property
    def type_dicts_in_files(self) -> bool:
        return self.name != "mag"

    @property
    def files(self) -> tuple[str, ...]:
        pkl = PKL_FILES if self.type_dicts_in_files else PKL_FILES[:1]
        return pkl + PT_FILES


def _candidates(name: str, path: Path) -> list[Path]:
    """Where the loaded folder may sit relative to what the user named: itself, processed/, the cache folder."""
    tails: list[tuple[str, ...]] = [(), ("processed",)]
    if name == "amazon":
        tails = [AMAZON_CACHE, ("processed", *AMAZON_CACHE), (), ("processed",)]
    if path.name != SKB_FOLDERS[name]:
        tails += [(SKB_FOLDERS[name], *tail) for tail in tails]
    return [path.joinpath(*tail) for tail in tails]


def find_folder(name: str, path: Path) -> StarkFolder:
    """Accept the SKB root, its processed/ folder or the folder itself; name what is missing otherwise."""
    if not path.exists():
        raise InputError(f"STaRK directory {path} does not exist")
    if not path.is_dir():
        raise InputError(f"STaRK path {path} is not a directory")
    candidates = _candidates(name, path)
    found = next((c for c in candidates if (c / "node_info.pkl").is_file()), None)
    if found is None:
        where = ", ".join(str(c.relative_to(path)) if c != path else "." for c in candidates)
        raise InputError(f"no STaRK '{name}' node_info.pkl under {path} (looked in: {where})")
    if name == "amazon" and found.name != AMAZON_CACHE[1]:
        raise InputError(
            f"{found} is AMAZON's product-only graph; STaRK loads {found / Path(*AMAZON_CACHE)} "
            "(brand, category and color nodes): point --dir at the SKB root or that folder"
        )
    folder = StarkFolder(found, name)
    missing = [file for file in folder.files if not (found / file).is_file()]
    if missing:
        raise InputError(f"STaRK directory {found} is missing {', '.join(missing)}")
    return folder


def type_dicts(folder: StarkFolder) -> tuple[dict[int, str], dict[int, str]]:
    """(node type dict, edge type dict) as STaRK's SKB class has them."""
    if not folder.type_dicts_in_files:
        return dict(MAG_NODE_TYPES), dict(MAG_EDGE_TYPES)
    out = []
    for file in ("node_type_dict.pkl", "edge_type_dict.pkl"):
        value = read_pickle(folder.path / file)
        if not isinstance(value, dict) or not all(type(k) is int and isinstance(v, str) for k, v in value.items()):
            raise InputError(f"{file} must map integer type ids to type names")
        huge = next((k for k in value if not 0 <= k <= INT64_MAX), None)
        if huge is not None:
            raise InputError(f"{file} has type id {_id_text(huge)}, outside 0..2^63-1 (the tensors hold int64 ids)")
        bad = next((v for v in value.values() if text_problem(v) or not v.strip()), None)
        if bad is not None:
            raise InputError(f"{file} has type name {bad[:60]!r}: {text_problem(bad) or 'it is blank'}")
        out.append(value)
    return out[0], out[1]


def _id_text(value: int) -> str:
    """An id as text, or its size where ``str()`` would refuse it (past 4,300 digits)."""
    return str(value) if value.bit_length() <= 256 else f"of {value.bit_length()} bits"


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (a lone surrogate, which no UTF-8 store takes, or a NUL), else None."""
    if text.isascii():
        return "it contains a NUL character" if "\x00" in text else None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"it is not valid Unicode (a lone surrogate {text[exc.start]!r} at character {exc.start})"
    return "it contains a NUL character" if "\x00" in text else None
