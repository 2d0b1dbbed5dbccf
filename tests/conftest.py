"""Shared fixtures: a tiny offline embedding model, isolated data directories, a STaRK-format fixture folder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgqa.config import Config, load_config
from tests.helpers.environment import QUIET
from tests.helpers.processes import servers_for
from tests.helpers.shared import built_once
from tests.helpers.stark_fixture import write_prime_fixture
from tests.helpers.tiny_model import build_tiny_model

os.environ["HF_HUB_OFFLINE"] = "1"  # tests never touch the network
for _key in [k for k in os.environ if k.startswith("KGQA_")]:
    del os.environ[_key]  # a developer's own settings must not leak into tests
os.environ["KGQA_WORKER_IDLE_TIMEOUT"] = "0"  # commands run in-process; tests/integration/test_worker.py: the worker
os.environ.update(QUIET)  # no load trains a question reader unless its test asks (tests/helpers/environment.py)


DURATIONS = Path(__file__).with_name("durations.json")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, by their measured seconds (tests/durations.json, written by
    ``benchmarks/suite_time.py --durations-file``; a file it does not name counts as quick). xdist hands out whole files
    in this order (``--dist loadfile --no-loadscope-reorder``), so the two workers end together instead of one waiting
    for the other's last long file. A stale table only reorders: every test still runs."""
    seconds = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.exists() else {}
    items.sort(key=lambda item: -seconds.get(item.nodeid.split("::")[0], 0.0))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model for the whole run: its path is the embedder's name, which a data directory records, so homes built
    once (:func:`hpo_template`) serve every worker."""
    return built_once(tmp_path_factory, "model", build_tiny_model) / "tiny-st"


def _loaded_once(
    factory: pytest.TempPathFactory, name: str, embedder: str, skb: str, directory: Path | None = None
) -> Path:
    """A data directory with ``skb`` loaded by ``embedder``, built once per run (:func:`built_once`), closed."""

    def load(home: Path) -> None:
        from kgqa.runtime.app import Kgqa

        with Kgqa(load_config({"home": home, "embedder": embedder}, env=QUIET, cwd=home.parent)) as kg:
            kg.load(skb, directory)

    return built_once(factory, name, load)


@pytest.fixture(scope="session")
def hpo_template(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path) -> Path:
    """A data directory with the real HPO graph loaded by the tiny model through ONNX Runtime (``onnx:``, as the
    default embedder runs, and without torch's per-batch cost: 59,306 names and 36,853 documents), built once per
    run: copy it (:func:`tests.helpers.shared.copy_home`), never open it."""

    return _loaded_once(tmp_path_factory, "hpo-home", f"onnx:{tiny_model}", "hpo")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "kgqa-home"


@pytest.fixture(scope="session")
def tiny_embedder(tiny_model: Path) -> str:
    """The tiny model as the ``embedder`` setting: through ONNX Runtime (``onnx:``), as the default embedder runs, so
    a ``kgqa`` subprocess does not import torch (seconds each) and a batch costs no torch overhead."""
    return f"onnx:{tiny_model}"


@pytest.fixture
def config(home: Path, tiny_embedder: str) -> Config:
    return load_config({"home": home, "embedder": tiny_embedder}, env=QUIET, cwd=home.parent)


@pytest.fixture
def cli_env(home: Path, tiny_embedder: str) -> dict[str, str]:
    """Environment for running ``kgqa`` against an isolated home with the tiny model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGQA_")}
    env.update(
        {
            "KGQA_HOME": str(home),
            "KGQA_EMBEDDER": tiny_embedder,
            "HF_HUB_OFFLINE": "1",
            "KGQA_WORKER_IDLE_TIMEOUT": "0",
            **QUIET,
        }
    )
    return env


@pytest.fixture(scope="session")
def prime_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PRIME fixture's STaRK folder, one for the whole run (a load records its source)."""
    return built_once(tmp_path_factory, "stark", lambda root: write_prime_fixture(root / "processed")) / "processed"


@pytest.fixture(scope="session")
def prime_template(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, prime_dir: Path) -> Path:
    """A data directory with the PRIME fixture loaded by the tiny model through ONNX Runtime (``onnx:``, as the
    default embedder runs: a worker answers without importing torch), built once per run: copy it
    (:func:`tests.helpers.shared.copy_home`), never open it."""

    return _loaded_once(tmp_path_factory, "prime-home", f"onnx:{tiny_model}", "prime", prime_dir)


@pytest.fixture
def no_orphans(home: Path) -> Iterator[None]:
    yield
    assert servers_for(home) == []
