"""A load whose names FalkorDB cannot quote is refused before it writes, and the graph loaded before stays as it was
(issue 18, item 4: a node type with a backtick reached FalkorDB as CREATE INDEX FOR (n:`gene``) and failed
mid-load). The rules per dialect: tests/unit/test_identifiers.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgqa.config import load_config
from kgqa.errors import InputError
from kgqa.loaders.stark import read_stark
from kgqa.runtime.embed import Embedder, EmbeddingCache
from kgqa.runtime.load import load_skb
from kgqa.runtime.store.falkordb import FalkorStore
from kgqa.runtime.store.server import RDB_NAME
from tests.helpers.environment import QUIET
from tests.helpers.identifiers import BACKTICK_LABEL, write_with_node_type
from tests.helpers.load_fakes import HashEncoder


def test_a_backtick_label_is_refused_before_any_write_and_the_previous_graph_stays(
    tmp_path: Path, prime_dir: Path
) -> None:
    settings = load_config({"home": tmp_path / "home"}, env=QUIET, cwd=tmp_path)
    embedder = Embedder(HashEncoder("st:tiny", 8), EmbeddingCache(tmp_path / "cache.sqlite"))
    bad = read_stark("prime", write_with_node_type(prime_dir, tmp_path / "bad", BACKTICK_LABEL))
    with FalkorStore(tmp_path / "db") as store:
        load_skb(store, embedder, read_stark("prime", prime_dir), settings)
        before = (store.meta("prime"), store.schema("prime"))
        saved = (tmp_path / "db" / RDB_NAME).stat().st_mtime_ns
        with pytest.raises(InputError) as refused:
            load_skb(store, embedder, bad, settings, force=True)
        assert str(refused.value) == (
            "label 'gene`' cannot be stored in FalkorDB: FalkorDB cannot quote a backtick; nothing was written"
        )
        assert (store.meta("prime"), store.schema("prime")) == before
        assert store.client.connection.execute_command("GRAPH.LIST") == ["prime"]  # no staging graph either
        assert (tmp_path / "db" / RDB_NAME).stat().st_mtime_ns == saved
        assert store.read("prime", "MATCH (n:`gene/protein`) RETURN count(n)") == [[2]]
