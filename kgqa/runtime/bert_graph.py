"""A BERT encoder (all-MiniLM-L6-v2's architecture) written as an ONNX graph from its safetensors weights, no torch.

The default embedder runs on ONNX Runtime; exporting it with ``torch.onnx.export`` made torch, transformers and
sentence-transformers part of every install (issue 71). BERT is a short, fixed graph: embeddings (word, position,
token type) and a layer norm, then per layer self-attention (its heads, an additive padding mask), a residual and
a layer norm, a feed-forward block with exact GELU, a residual and a layer norm; its last hidden state is the output,
pooled in numpy by kgqa.runtime.onnx_encoder. The node names follow the torch exporter's (``/encoder/layer.N/output/
dense/MatMul``), so the int8 recipe (kgqa.runtime.onnx_encoder.FP32_MATMULS) keeps the same layers fp32. On MiniLM
the fp32 graph gives sentence-transformers' vectors within 2e-7, and its int8 export is as close to fp32 as the torch
export's was and three times as fast as torch (docs/benchmarks.md, embedder_fidelity); tests/unit/test_onnx_encoder.py
holds a tiny BERT to sentence-transformers within 1e-5.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.errors import EmbeddingError

WEIGHTS = "model.safetensors"


def is_bert(model_dir: Path) -> bool:
    """Whether the sentence-transformers model at ``model_dir`` is a BERT with mean pooling (then, maybe, normalised,
    as kgqa.runtime.onnx_encoder always does), its weights in one safetensors file: the models this graph reproduces
    (others need the torch exporter)."""
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):  # no Dense after pooling
        return False
    pooling = modules[1]
    try:
        mode = json.loads((model_dir / pooling["path"] / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError):
        return False
    others = ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
    mean = mode.get("pooling_mode") == "mean" or (  # sentence-transformers 6 writes one mode, older ones flags
        mode.get("pooling_mode_mean_tokens") and not any(mode.get(k) for k in others)
    )
    return (
        config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and bool(mean)
        and (model_dir / WEIGHTS).is_file()
    )


def bert_graph(model_dir: Path, out: Path, opset: int) -> None:
    """Writes the fp32 ONNX graph of the BERT at ``model_dir`` (:func:`is_bert`) to ``out``: inputs ``input_ids``,
    ``attention_mask``, ``token_type_ids`` (int64, batch x tokens), output ``last_hidden_state``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    raw = load_file(str(model_dir / WEIGHTS))
    weights = {key.removeprefix("bert."): value for key, value in raw.items()}
    hidden, heads, layers = int(config["hidden_size"]), int(config["num_attention_heads"]), config["num_hidden_layers"]
    head = hidden // heads
    nodes: list[Any] = []
    initializers: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(value, name))
        return name

    def scalar(name: str, value: float) -> str:
        return const(name, np.array(value, dtype=np.float32))

    def weight(key: str) -> str:
        if key not in weights:
            raise EmbeddingError(f"{model_dir / WEIGHTS} has no tensor '{key}': not a BERT this export reads")
        return const(key, weights[key])

    def op(kind: str, inputs: list[str], name: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [f"{name}_output_0"], name=name, **attributes))
        return f"{name}_output_0"

    def linear(x: str, key: str, scope: str) -> str:
        kernel = const(f"{key}.weight.T", np.ascontiguousarray(weights[f"{key}.weight"].T))
        return op("Add", [op("MatMul", [x, kernel], f"{scope}/MatMul"), weight(f"{key}.bias")], f"{scope}/Add")

    def norm(x: str, key: str, scope: str) -> str:
        inputs = [x, weight(f"{key}.weight"), weight(f"{key}.bias")]
        return op(
            "LayerNormalization", inputs, f"{scope}/LayerNormalization", axis=-1, epsilon=config["layer_norm_eps"]
        )

    words = op("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "/embeddings/word/Gather")
    kinds = op(
        "Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "/embeddings/type/Gather"
    )
    length = op(
        "Gather",
        [op("Shape", ["input_ids"], "/embeddings/Shape"), const("axis_1", np.array(1, dtype=np.int64))],
        "/len",
        axis=0,
    )
    positions = op(
        "Range",
        [const("zero", np.array(0, dtype=np.int64)), length, const("step", np.array(1, dtype=np.int64))],
        "/embeddings/Range",
    )
    places = op("Gather", [weight("embeddings.position_embeddings.weight"), positions], "/embeddings/position/Gather")
    x = op("Add", [op("Add", [words, kinds], "/embeddings/Add"), places], "/embeddings/Add_1")
    x = norm(x, "embeddings.LayerNorm", "/embeddings/LayerNorm")
    # the additive padding mask, [batch, 1, 1, tokens]: 0 where attended, float32's minimum where padded
    mask = op("Cast", ["attention_mask"], "/mask/Cast", to=TensorProto.FLOAT)
    mask = op("Unsqueeze", [mask, const("mask_axes", np.array([1, 2], dtype=np.int64))], "/mask/Unsqueeze")
    mask = op("Sub", [scalar("mask_one", 1.0), mask], "/mask/Sub")
    mask = op("Mul", [mask, scalar("mask_min", float(np.finfo(np.float32).min))], "/mask/Mul")
    split, merge = (
        const("split", np.array([0, 0, heads, head], dtype=np.int64)),
        const("merge", np.array([0, 0, hidden], dtype=np.int64)),
    )
    scale, half, root, one = (
        scalar("scale", 1 / np.sqrt(head)),
        scalar("half", 0.5),
        scalar("root", 2**0.5),
        scalar("one", 1.0),
    )

    def heads_of(x: str, key: str, scope: str, order: list[int]) -> str:
        """A projection split into heads: [batch, heads, tokens, head] (keys: [batch, heads, head, tokens])."""
        shaped = op("Reshape", [linear(x, key, scope), split], f"{scope}/Reshape")
        return op("Transpose", [shaped], f"{scope}/Transpose", perm=order)

    for i in range(int(layers)):
        key, scope = f"encoder.layer.{i}", f"/encoder/layer.{i}"
        attention = f"{scope}/attention/self"
        q, k, v = (
            heads_of(x, f"{key}.attention.self.{part}", f"{attention}/{part}", order)
            for part, order in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3]))
        )
        scores = op("Mul", [op("MatMul", [q, k], f"{attention}/scores/MatMul"), scale], f"{attention}/scores/Mul")
        probabilities = op(
            "Softmax", [op("Add", [scores, mask], f"{attention}/mask/Add")], f"{attention}/Softmax", axis=-1
        )
        context = op("MatMul", [probabilities, v], f"{attention}/context/MatMul")
        context = op("Transpose", [context], f"{attention}/context/Transpose", perm=[0, 2, 1, 3])
        context = op("Reshape", [context, merge], f"{attention}/context/Reshape")
        attended = linear(context, f"{key}.attention.output.dense", f"{scope}/attention/output/dense")
        x = norm(
            op("Add", [attended, x], f"{scope}/attention/residual/Add"),
            f"{key}.attention.output.LayerNorm",
            f"{scope}/attention/output/LayerNorm",
        )
        inner = linear(x, f"{key}.intermediate.dense", f"{scope}/intermediate/dense")
        erf = op("Erf", [op("Div", [inner, root], f"{scope}/gelu/Div")], f"{scope}/gelu/Erf")  # exact GELU
        inner = op(
            "Mul",
            [op("Mul", [inner, half], f"{scope}/gelu/Mul"), op("Add", [erf, one], f"{scope}/gelu/Add")],
            f"{scope}/gelu/Mul_1",
        )
        fed = linear(inner, f"{key}.output.dense", f"{scope}/output/dense")
        x = norm(
            op("Add", [fed, x], f"{scope}/output/residual/Add"), f"{key}.output.LayerNorm", f"{scope}/output/LayerNorm"
        )
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="/output/Identity"))
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", hidden])
    graph = helper.make_graph(nodes, "bert", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="kgqa")
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
