"""Names a package module offers without importing the code behind them until they are used (PEP 562), so that
``import kgqa`` and a thin client stay light."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(module: str, names: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``module``: each of ``names`` (name -> the module defining it) imported on first
    use and kept in ``namespace`` (the module's globals), so the next use finds it directly."""

    def __getattr__(name: str) -> Any:
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        namespace[name] = value
        return value

    return __getattr__
