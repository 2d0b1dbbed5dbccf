"""Cypher that kgqa writes, one module per dialect. Pure Python: this package imports no database driver.

Identifiers (labels, relationship types, property keys) are always backtick-quoted by :func:`quote`; values are
always query parameters (``$name``), never text.
"""

from cypher.identifiers import quote

__all__ = ["quote"]
