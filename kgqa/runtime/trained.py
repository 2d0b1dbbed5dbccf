"""A reranker trained for an SKB, as step 8 finds it in the data directory: the model folder and the manifest
saying how it was made. ``kgqa train-reranker`` (kgqa.lab.train_reranker) writes them; answering only reads them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kgqa.errors import ConfigError

RERANKERS = "rerankers"
"""Folder of the data directory holding one trained reranker per SKB."""
MANIFEST = "kgqa-reranker.json"
"""The file in a trained reranker's folder saying how it was made; the folder holds a usable model only with it."""


def model_folder(home: Path, skb: str) -> Path:
    """Where the reranker trained for ``skb`` lives: ``<home>/rerankers/<skb>/``."""
    return home / RERANKERS / skb


@dataclass(frozen=True)
class Manifest:
    """How a trained reranker was made; written beside the model (:data:`MANIFEST`)."""

    skb: str
    settings: dict[str, Any]
    questions: int
    skipped: int
    pairs: int
    positives: int
    negatives: int
    gold_in_candidates: float
    """Share of the training questions whose pipeline candidates held a gold answer."""
    steps: int
    total_steps: int
    complete: bool
    stopped: str | None
    collect_seconds: float
    """Seconds of this run's stages 1-2 (a resumed run reads back what an earlier one made)."""
    train_seconds: float
    """Seconds of this run's fine-tuning (a resumed run continues from a checkpoint)."""
    trained_at: str
    split: str = "train"
    train_share: float | None = None
    """The share of nodes in the train split (None in a manifest that predates it)."""
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def evidence(self) -> bool:
        """Whether the model reads documents that lead with the pipeline's evidence
        (kgqa.runtime.steps.s8_rerank.evidence_text)."""
        return bool(self.settings.get("evidence", False))

    @classmethod
    def read(cls, path: Path) -> Manifest:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(**{f.name: raw[f.name] for f in fields(cls) if f.name in raw})
        except (OSError, ValueError, TypeError) as exc:
            raise ConfigError(f"{path} cannot be read ({exc}); retrain with kgqa train-reranker --force") from exc


@dataclass(frozen=True)
class Trained:
    """A trained reranker found in the data directory."""

    path: Path
    manifest: Manifest

    @property
    def key(self) -> str:
        """Identifies this training of the model: a retrained model at the same path is another model."""
        return f"{self.path}@{self.manifest.trained_at}"


def find_trained(home: Path, skb: str) -> Trained | None:
    """The reranker trained for ``skb`` in the data directory ``home``, None when there is none."""
    folder = model_folder(home, skb)
    if not (folder / MANIFEST).is_file():
        return None
    return Trained(folder, Manifest.read(folder / MANIFEST))
