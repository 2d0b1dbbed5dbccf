"""The ONNX Runtime embedder (issue 31): exported offline at first use under the unit tests' socket guard, the same
vectors as sentence-transformers (fp32), an int8 export that still gives unit vectors, and an export that a kill
cannot leave half-written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgqa.runtime.embed import make_encoder
from kgqa.runtime.onnx_encoder import export, export_dir, fp32_matmuls

TEXTS = ["Seizure", "Which drugs target CYP3A4?", "a much longer text about the phenotypes of a rare disease " * 4]


def test_the_fp32_export_gives_sentence_transformers_vectors(tiny_model: Path, tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    encoder = make_encoder(
        f"onnx:{tiny_model}", device="cpu", batch_size=2, base_url=None, api_key=None, models_dir=tmp_path
    )
    assert encoder.name == f"onnx:{tiny_model}" and encoder.dimension == 32
    vectors = encoder.encode(TEXTS, None)
    expected = SentenceTransformer(str(tiny_model), device="cpu").encode(TEXTS, normalize_embeddings=True)
    assert np.allclose(vectors, expected, atol=1e-4)
    short = encoder.encode(TEXTS, 4)  # a token budget truncates, as sentence-transformers' max_seq_length does
    assert not np.allclose(short[2], vectors[2], atol=1e-3)
    assert encoder.encode([], None).shape == (0, 32)


def test_the_int8_export_is_its_own_model_with_unit_vectors(tiny_model: Path, tmp_path: Path) -> None:
    encoder = make_encoder(
        f"onnx-int8:{tiny_model}", device="cpu", batch_size=8, base_url=None, api_key=None, models_dir=tmp_path
    )
    vectors = encoder.encode(TEXTS, None)
    assert vectors.shape == (3, 32) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert encoder.name.startswith("onnx-int8.2:")
    plain, int8 = export_dir(tmp_path, str(tiny_model), "onnx"), export_dir(tmp_path, str(tiny_model), "onnx-int8")
    assert plain != int8 and (int8 / "model.onnx").exists() and not plain.exists()
    import onnx

    ops = [node.op_type for node in onnx.load(str(int8 / "model.onnx")).graph.node]
    kept = fp32_matmuls(int8 / "model.onnx")  # the feed-forward output projections stay fp32, the rest is int8
    assert len(kept) == 1 and kept[0].endswith("layer.0/output/dense/MatMul") and "MatMulInteger" in ops


def test_an_export_is_made_once_and_a_killed_one_leaves_nothing_to_load(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = export_dir(tmp_path, str(tiny_model), "onnx")
    import kgqa.runtime.onnx_encoder as onnx_encoder

    def killed(model_path: str, work: Path, backend: str) -> None:
        (work / "model.onnx").write_bytes(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(onnx_encoder, "_export", killed)
    with pytest.raises(KeyboardInterrupt):
        export(str(tiny_model), target, "onnx")
    assert not target.exists() and list(tmp_path.iterdir()) == []  # neither the export nor its temporary folder
    monkeypatch.undo()
    model_file = export(str(tiny_model), target, "onnx")
    made = model_file.stat().st_mtime_ns
    assert export(str(tiny_model), target, "onnx") == model_file and model_file.stat().st_mtime_ns == made


def test_an_onnx_embedder_needs_a_folder_to_export_into(tiny_model: Path) -> None:
    from kgqa.errors import ConfigError

    with pytest.raises(ConfigError, match="needs a folder"):
        make_encoder(f"onnx:{tiny_model}", device="cpu", batch_size=8, base_url=None, api_key=None)
