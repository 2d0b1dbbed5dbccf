"""The small GGUF chat model of the llama.cpp tests (SmolLM2-135M-Instruct): junk replies, but the real in-process
code path. Where it is not present, those tests skip and say how to provide it."""

from __future__ import annotations

import os
from pathlib import Path

SMOLLM2 = Path(os.environ.get("KGQA_TEST_GGUF", "~/.cache/kgqa/models/SmolLM2-135M-Instruct.Q4_1.gguf")).expanduser()
MISSING = (
    f"no {SMOLLM2}: set KGQA_TEST_GGUF to a SmolLM2-135M-Instruct GGUF file, and install the llama extra as "
    "docs/llm.md's 'Providers' says"
)
