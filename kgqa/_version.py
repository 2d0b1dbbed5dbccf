"""kgqa's version, in a module of its own: the worker's build id reads it without importing the package's API."""

__version__ = "0.1.0"
