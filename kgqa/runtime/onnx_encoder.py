"""A sentence-transformers model run by ONNX Runtime on the CPU, exported offline at first use (issue 31).

sentence-transformers' own ONNX backend needs ``optimum``, whose releases pin transformers below what
sentence-transformers 6 needs; onnxruntime alone does not. A BERT with mean pooling (the bundled all-MiniLM-L6-v2) is
written as an ONNX graph straight from its safetensors weights (kgqa.runtime.bert_graph), so the default embedder
needs neither torch nor transformers (issue 71); any other architecture is exported with ``torch.onnx.export`` (the
``torch`` extra). Pooling and normalisation are two lines of numpy; the tokenizer is the model's own
``tokenizer.json``, read by the ``tokenizers`` library. The export is optionally quantized with
``onnxruntime.quantization.quantize_dynamic`` (int8 weights of the linear layers but each feed-forward block's
output projection, per channel: the choice and its measured fidelity are in docs/benchmarks.md), and kept in the
data directory, keyed by model, backend and quantization. Nothing is downloaded: the model is read from its local
path, the export is written to a temporary folder and renamed into place, so a killed export leaves nothing
half-written to load.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from kgqa.errors import EmbeddingError
from kgqa.runtime.bert_graph import bert_graph, is_bert

Backend = Literal["onnx", "onnx-int8"]
BACKENDS: tuple[Backend, ...] = ("onnx", "onnx-int8")
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17
FORMAT = 3
"""Bumped when the export changes: an export of another format is made again (2: the feed-forward output projections
stay fp32 in the int8 export; 3: a BERT's graph written from its weights, not traced by torch)."""
TOKENIZER = "tokenizer.json"
"""The fast tokenizer's one file, which the ``tokenizers`` library reads (every sentence-transformers model with a
fast tokenizer saves it)."""
FP32_MATMULS = re.compile(r"/encoder/layer\.\d+/output/dense/MatMul$")
"""The int8 export keeps these fp32: each layer's feed-forward output projection (1,536 inputs in MiniLM, the widest
sum an int8 weight error accumulates over). Quantized too, answers moved past issue 31's bound (docs/benchmarks.md)."""
SMALL_FILE = 1 << 20


def export_dir(root: Path, model_path: str, backend: Backend) -> Path:
    """Where ``backend``'s export of the model at ``model_path`` lives under ``root``: keyed by the model's folder
    name and a digest of its files (the configuration and tokenizer files by content, the weights by name and size,
    which a read of 90 MB at every start would not improve on much): another model of the same name is another
    export."""
    source = Path(model_path)
    digest = hashlib.sha256(f"{FORMAT}|{backend}".encode())
    for path in sorted(p for p in source.iterdir() if p.suffix in (".json", ".safetensors", ".bin", ".txt")):
        digest.update(path.name.encode())
        size = path.stat().st_size
        digest.update(path.read_bytes() if size < SMALL_FILE else str(size).encode())
    return root / f"{source.name}-{backend}-{digest.hexdigest()[:12]}"


def export(model_path: str, target: Path, backend: Backend) -> Path:
    """The ONNX file of the model at ``model_path`` for ``backend``, exported into ``target`` if it is not there yet
    (atomically: a temporary folder beside it, renamed). Needs torch and transformers, as the model itself does."""
    model_file = target / "model.onnx"
    if model_file.exists():
        return model_file
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        _export(model_path, work, backend)
        try:
            os.replace(work, target)
        except OSError:  # another process exported it meanwhile: theirs is as good
            if not model_file.exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return model_file


def _export(model_path: str, work: Path, backend: Backend) -> None:
    source = Path(model_path)
    if not (source / TOKENIZER).is_file():
        raise EmbeddingError(f"the model at {source} has no {TOKENIZER} (a fast tokenizer): ONNX Runtime cannot run it")
    plain = work / "plain.onnx"
    if is_bert(source):
        bert_graph(source, plain, OPSET)
        settings = {"max_seq_length": _max_seq_length(source), "dimension": _hidden_size(source)}
    else:
        settings = _torch_export(model_path, plain)
    if backend == "onnx-int8":
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.quantization.shape_inference import quant_pre_process

        prepared = work / "prepared.onnx"  # onnxruntime's recommended pre-processing (graph optimised, shapes)
        quant_pre_process(str(plain), str(prepared), skip_symbolic_shape=True)
        quantize_dynamic(
            str(prepared),
            str(work / "model.onnx"),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=fp32_matmuls(prepared),
        )
        plain.unlink()  # the folder becomes the export: only what is loaded stays
        prepared.unlink()
    else:
        plain.rename(work / "model.onnx")
    (work / "tokenizer").mkdir()
    shutil.copy(source / TOKENIZER, work / "tokenizer" / TOKENIZER)
    (work / "kgqa.json").write_text(json.dumps(settings), encoding="utf-8")


def _max_seq_length(source: Path) -> int:
    """The model's token budget as sentence-transformers reads it (sentence_bert_config.json), else its positions."""
    try:
        return int(json.loads((source / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return int(json.loads((source / "config.json").read_text(encoding="utf-8"))["max_position_embeddings"])


def _hidden_size(source: Path) -> int:
    return int(json.loads((source / "config.json").read_text(encoding="utf-8"))["hidden_size"])


def _torch_export(model_path: str, plain: Path) -> dict[str, int]:
    """Another architecture than :func:`kgqa.runtime.bert_graph.is_bert` reads: traced by ``torch.onnx.export``;
    its token budget and dimension."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbeddingError(
            f"the model at {model_path} is no BERT with mean pooling; exporting it needs torch: "
            "pip install torch==2.13.0 && pip install 'kgqa[torch]'"
        ) from exc

    model = SentenceTransformer(model_path, device="cpu", local_files_only=True)
    transformer: Any = model[0].auto_model
    transformer.eval()

    class LastHidden(torch.nn.Module):  # type: ignore[misc]  # torch is not followed by mypy (pyproject.toml)
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = model.tokenizer(["an example", "a second, longer example"], padding=True, return_tensors="pt")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on constants it folds (the mask is always given)
        torch.onnx.export(
            LastHidden(transformer),
            tuple(sample[name] for name in INPUTS),
            str(plain),
            input_names=list(INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
    budget, dimension = model.max_seq_length, model.get_embedding_dimension()
    if budget is None or dimension is None:
        raise EmbeddingError(f"the model at {model_path} does not report its token budget and dimension")
    return {"max_seq_length": int(budget), "dimension": int(dimension)}


def fp32_matmuls(model_file: Path) -> list[str]:
    """The names of the MatMul nodes of ``model_file`` that the int8 export leaves in fp32 (:data:`FP32_MATMULS`)."""
    import onnx

    graph = onnx.load(str(model_file), load_external_data=False).graph
    kept = [node.name for node in graph.node if node.op_type == "MatMul" and FP32_MATMULS.search(node.name)]
    if not kept:  # the exporter named its nodes otherwise: the export would not be the measured recipe
        raise EmbeddingError(f"no feed-forward output projection found to keep fp32 in {model_file.name}")
    return kept


class OnnxEncoder:
    """The :class:`kgqa.runtime.embed.Encoder` of a sentence-transformers model (mean pooling, normalised, as MiniLM's
    modules are) run by ONNX Runtime."""

    def __init__(self, model: str, model_path: str, root: Path, backend: Backend, batch_size: int = 64) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise EmbeddingError(
                f"embedder '{backend}:{model}' needs onnxruntime, a dependency of kgqa: reinstall kgqa"
            ) from exc
        from tokenizers import Tokenizer

        target = export_dir(root, model_path, backend)
        model_file = export(model_path, target, backend)
        settings = json.loads((target / "kgqa.json").read_text(encoding="utf-8"))
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(target / "tokenizer" / TOKENIZER))
        self._tokenizer.no_padding()  # batches are padded here, fewest tokens first (:meth:`encode`)
        self._limit: int | None = None
        self._tokenizing = threading.Lock()  # the truncation is the tokenizer's state; asks may embed at once
        self._max: int = int(settings["max_seq_length"])
        self._batch_size = batch_size
        self.dimension = int(settings["dimension"])
        self.name = f"{backend}:{model}" if backend == "onnx" else f"{backend}.{FORMAT}:{model}"
        """Keys the embedding cache and a store's fingerprint: an int8 vector of another export format is another
        model's (fp32 gives the same vectors in every format)."""

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer (its whole words are the reader's known words: kgqa.runtime.reader.training)."""
        return self._tokenizer

    def encode(self, texts: Sequence[str], max_tokens: int | None) -> np.ndarray:
        """Normalised mean-pooled vectors, in ``texts``' order; tokenized once, then computed fewest tokens first so
        that each batch pads little (cost grows with the longest text of a batch)."""
        limit = min(max_tokens or self._max, self._max)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:  # the tokenizer refuses an empty batch
            return out
        with self._tokenizing:
            if limit != self._limit:
                self._tokenizer.enable_truncation(limit)
                self._limit = limit
            ids = [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        pad = 0  # masked out of attention and pooling: any id does
        for start in range(0, len(order), self._batch_size):
            batch = order[start : start + self._batch_size]
            width = max(len(ids[i]) for i in batch)
            tokens = np.full((len(batch), width), pad, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                tokens[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            feed = {"input_ids": tokens, "attention_mask": mask, "token_type_ids": np.zeros_like(tokens)}
            hidden = self._session.run(None, feed)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[batch] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out
