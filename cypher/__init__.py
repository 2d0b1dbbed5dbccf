"""The front end for LLM-written Cypher (method step 3): lexer, parser, query plan, sanitizer and compiler.

Pure Python: this package imports no database driver and nothing from ``kgqa``; the Cypher kgqa itself sends lives
with the stores (``kgqa/runtime/store/*_queries.py``). Identifiers (labels, relationship types, property keys) are
always backtick-quoted by :func:`quote`; values are always query parameters (``$name``), never text.
"""

from .identifiers import quote

__all__ = ["quote"]
