"""kgqa: question answering over semi-structured knowledge bases (AF-Retriever).

The embedded default feels like sqlite3: ``kgqa.connect()`` opens (and owns) a FalkorDB server on a unix socket
inside the data directory and closes it when you are done.
"""

from kgqa.config import Config, load_config
from kgqa.errors import KgqaError

__all__ = ["Config", "KgqaError", "load_config"]
__version__ = "0.1.0"
