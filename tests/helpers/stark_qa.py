"""Where the real STaRK question sets are, for the tests that read them."""

from __future__ import annotations

import os
from pathlib import Path

STARK = Path(os.environ.get("STARK_QA_DIR", "stark_qa"))
"""STaRK's question sets (the stark_qa/ folder of its release, as STaRK's loaders read it): $STARK_QA_DIR; CI sets
it. Without it the tests of the real files skip."""
