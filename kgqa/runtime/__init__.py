"""The question path: the API's implementation (app), the eight steps (steps/), the stores, the
embedder, the LLM layer and the worker."""
