"""Running ``kgqa`` as real subprocesses (thin clients of a data directory's worker) and reading the worker's state."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import psutil

from kgqa.runtime.worker.client import read_state
from kgqa.runtime.worker.common import WorkerPaths

KGQA = [sys.executable, "-m", "kgqa.cli"]


def kgqa(env: dict[str, str], *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([*KGQA, *args], env=env, input=input, capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def gone(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def state(home: Path):
    return read_state(WorkerPaths(home / "worker"))


def version_2(prime_dir: Path, target: Path) -> Path:
    """The fixture with every name changed: an answer mixing both versions would hold names of both."""
    shutil.copytree(prime_dir, target)
    info = pickle.loads((target / "node_info.pkl").read_bytes())
    for node in info.values():
        node["name"] = f"{node['name']} v2"
    (target / "node_info.pkl").write_bytes(pickle.dumps(info))
    return target
