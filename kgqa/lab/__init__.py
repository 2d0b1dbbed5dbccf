"""Beside the question path: evaluation, question generation, reranker training and the provenance of results
files. The runtime never needs it to answer a question."""
