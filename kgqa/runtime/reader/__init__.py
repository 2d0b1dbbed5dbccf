"""The question reader learned from an SKB (``kgqa train-reader``, docs/reader.md): the SKB's own spelling, for
typo-tolerant linking (:mod:`.spelling`), and a learned answer type (:mod:`.types`). It lives beside the SKB in the
data directory, ``<home>/readers/<skb>/``; answering only reads it, and asks without one as before. How it is trained
is here too (:mod:`.training`), on questions generated from the SKB (:mod:`.questions`, worded by :mod:`.phrasing` and
the families of :mod:`.families`, varied by :mod:`.examples`): a load trains it."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.errors import ConfigError
from kgqa.runtime.reader.spelling import Spelling
from kgqa.runtime.reader.types import TypeHead

READERS = "readers"
"""Folder of the data directory holding one trained reader per SKB."""
MANIFEST = "reader.json"
"""How the reader was made, and its vocabulary; the folder holds a usable reader only with it."""
WEIGHTS = "types.npz"
FORMAT = 1


def reader_folder(home: Path, skb: str) -> Path:
    return home / READERS / skb


@dataclass(frozen=True)
class Reader:
    """A reader trained for ``skb``: its spelling, its type head and how it was made (``info``)."""

    skb: str
    spelling: Spelling
    types: TypeHead
    info: dict[str, Any]

    @property
    def key(self) -> str:
        """Identifies this training: a retrained reader is another reader."""
        return f"{self.skb}@{self.info.get('trained_at')}"

    def save(self, home: Path) -> Path:
        """Written into a fresh folder, then moved over the old one, so a reader is never half written."""
        target = reader_folder(home, self.skb)
        work = target.with_name(f".{self.skb}.{os.getpid()}.tmp")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        np.savez(work / WEIGHTS, weights=self.types.weights, labels=np.array(self.types.labels))
        manifest = {
            "format": FORMAT,
            **self.info,
            "vocabulary": dict(self.spelling.counts),
            "known": sorted(self.spelling.known),
            "acronyms": dict(self.spelling.short),
            "completions": dict(self.spelling.endings),
            "series": dict(self.spelling.series),
            "fillers": sorted(self.spelling.fillers),
        }
        (work / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
        old = target.with_name(f".{self.skb}.{os.getpid()}.old")
        if target.exists():
            target.rename(old)
        work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
        return target


def find_reader(home: Path, skb: str) -> Reader | None:
    """The reader trained for ``skb`` in ``home``, None when there is none; a damaged one is a ConfigError that
    says how to retrain it."""
    folder = reader_folder(home, skb)
    if not (folder / MANIFEST).is_file():
        return None
    try:
        raw = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        if raw.get("format") != FORMAT:
            raise ValueError(f"format {raw.get('format')!r}, this kgqa reads {FORMAT}")
        with np.load(folder / WEIGHTS) as arrays:
            head = TypeHead(tuple(str(x) for x in arrays["labels"]), np.array(arrays["weights"]))
        vocabulary = {str(k): int(v) for k, v in raw.pop("vocabulary").items()}
        short = {str(k): str(v) for k, v in raw.pop("acronyms").items()}
        endings = {str(k): str(v) for k, v in raw.pop("completions", {}).items()}  # none before recipe 3
        series = {str(k): [str(name) for name in v] for k, v in raw.pop("series", {}).items()}  # from recipe 6
        fillers = frozenset(str(w) for w in raw.pop("fillers", []))
        spelling = Spelling(vocabulary, frozenset(raw.pop("known")), short, endings, series, fillers)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(
            f"the reader in {folder} cannot be read ({exc}); retrain it: kgqa train-reader --skb {skb} --force"
        ) from exc
    return Reader(skb, spelling, head, raw)
