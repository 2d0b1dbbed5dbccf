"""Waiting on and finding processes: polling for a condition, and the FalkorDB servers of a data directory."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import psutil

from kgqa.runtime.store.server import SOCKET_NAME


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll ``predicate`` until it holds; fail the test naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def servers_for(home: Path) -> list[psutil.Process]:
    """FalkorDB server processes bound to the socket of ``home`` (there must be none once kgqa has exited)."""
    socket = str(home / "falkordb" / SOCKET_NAME)
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info.get("cmdline") or []
        # redis-server rewrites its title to "redis-server unixsocket:PATH", so match within the arguments
        if any(socket in part for part in cmdline) and proc.status() != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found
