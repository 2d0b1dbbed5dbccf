"""Readers that turn a knowledge source into an :class:`kgqa.loaders.model.SkbData` (typed nodes with documents, typed
directed edges). They do no I/O to the store and no embedding; :mod:`kgqa.runtime.load` does both."""

from .model import Edge, Node, SkbData

__all__ = ["Edge", "Node", "SkbData"]
