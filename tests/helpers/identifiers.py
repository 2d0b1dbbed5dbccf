"""A STaRK fixture folder with a node type of a given name: how the tests feed a load a label it must refuse."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

BACKTICK_LABEL = "gene`"


def write_with_node_type(source: Path, folder: Path, name: str, type_id: int = 2) -> Path:
    """A copy of the STaRK fixture folder ``source`` whose node type ``type_id`` is called ``name``, in
    node_type_dict.pkl and in its nodes' node_info.pkl entries alike."""
    shutil.copytree(source, folder)
    for file in ("node_type_dict.pkl", "node_info.pkl"):
        with (folder / file).open("rb") as handle:
            value = pickle.load(handle)
        if file == "node_type_dict.pkl":
            old, value[type_id] = value[type_id], name
        else:
            for info in value.values():
                if info["type"] == old:
                    info["type"] = name
        with (folder / file).open("wb") as handle:
            pickle.dump(value, handle)
    return folder
