"""Beside the question path: evaluation (``kgqa eval``) and the reranker's training. It depends on the runtime,
never the other way (tests/unit/test_import_cycles.py); the question generator and the reader's training, which a
load runs, live with the reader (kgqa.runtime.reader)."""
