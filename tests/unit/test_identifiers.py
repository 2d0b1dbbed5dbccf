"""Names a load refuses per dialect (issue 18, item 4): labels, relationship types and property keys each database
can quote, checked before anything is written. Against the real embedded store: tests/integration/test_identifiers.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kgqa.config import load_config
from kgqa.errors import InputError
from kgqa.loaders.stark import read_stark
from kgqa.runtime.embed import Embedder, EmbeddingCache
from kgqa.runtime.load import load_skb
from kgqa.runtime.progress import ProgressSink
from kgqa.runtime.store import falkordb_queries, neo4j_queries
from kgqa.runtime.store.base import NameKind, SkbMeta
from kgqa.runtime.store.falkordb import FalkorStore
from tests.helpers.environment import QUIET
from tests.helpers.identifiers import BACKTICK_LABEL, write_with_node_type
from tests.helpers.load_fakes import HashEncoder
from tests.helpers.neo4j_fakes import FakeDriver, store_with

QUOTABLE = ["gene/protein", "phenotype present", "paper___cites___paper", "é 😀", "q'x", 'q"x', "back\\slash", "x)y"]
REFUSED_BY_BOTH: list[tuple[str, str]] = [
    ("", "it is empty"),
    ("  ", "it is blank"),
    ("a\x00b", "it holds the control character U+0000"),
    ("two\nlines", "it holds the control character U+000A"),
    ("\x1b[31mred", "it holds the control character U+001B"),
    ("c1\x85", "it holds the control character U+0085"),
    ("half \ud83d", "it holds a lone surrogate (U+D83D), which is not text"),
    ("_KgqaAlias", "names starting with _Kgqa are kgqa's own"),
    ("_KgqaMeta", "names starting with _Kgqa are kgqa's own"),
]
KINDS: list[NameKind] = ["label", "relationship type", "property key"]


@pytest.mark.parametrize("kind", KINDS)
def test_both_dialects_take_what_they_can_quote(kind: NameKind) -> None:
    for name in QUOTABLE:
        assert falkordb_queries.name_problem(name, kind) is None
        assert neo4j_queries.name_problem(name, kind) is None


@pytest.mark.parametrize(("name", "why"), REFUSED_BY_BOTH)
def test_both_dialects_refuse_names_no_quoting_makes_safe(name: str, why: str) -> None:
    for kind in KINDS:
        assert falkordb_queries.name_problem(name, kind) == why
        assert neo4j_queries.name_problem(name, kind) == why


def test_a_backtick_only_neo4j_can_quote_and_a_colon_only_in_falkordb_property_keys() -> None:
    """FalkorDB does not read a doubled backtick inside a quoted name as one; its bulk loader takes no colon in a
    label or type. Neo4j reads ``a``b`` as a`b and takes any colon."""
    for kind in KINDS:
        assert falkordb_queries.name_problem("gene`", kind) == "FalkorDB cannot quote a backtick"
        assert neo4j_queries.name_problem("gene`", kind) is None
        assert neo4j_queries.name_problem("a:b", kind) is None
    assert falkordb_queries.name_problem("a:b", "label") == "FalkorDB's bulk loader takes no colon in a label"
    assert falkordb_queries.name_problem("a:b", "relationship type") == (
        "FalkorDB's bulk loader takes no colon in a relationship type"
    )
    assert falkordb_queries.name_problem("a:b", "property key") is None


def _falkordb() -> FalkorStore:
    return object.__new__(FalkorStore)  # check_names needs no server


def test_the_stores_name_the_refused_name_what_it_is_and_that_nothing_was_written() -> None:
    with pytest.raises(InputError) as refused:
        _falkordb().check_names(["disease", "gene`"], ["indication"])
    assert str(refused.value) == (
        "label 'gene`' cannot be stored in FalkorDB: FalkorDB cannot quote a backtick; nothing was written"
    )
    with pytest.raises(InputError, match=r"^relationship type 'x\\x00' cannot be stored in FalkorDB: it holds"):
        _falkordb().check_names(["disease"], ["indication", "x\x00"])
    with pytest.raises(InputError, match=r"^property key '' cannot be stored in FalkorDB: it is empty; nothing"):
        _falkordb().check_names(["disease"], ["indication"], ["id", ""])
    long = "a" * 500 + "`"
    with pytest.raises(InputError, match=r"^label 'a{80}'\.\.\. cannot be stored in FalkorDB") as shortened:
        _falkordb().check_names([long], [])
    assert len(str(shortened.value)) < 200
    _falkordb().check_names(QUOTABLE, QUOTABLE, ["id", "name"])


def test_neo4j_takes_a_backtick_and_refuses_a_control_character_without_a_query() -> None:
    driver = FakeDriver()
    store = store_with(driver)
    sent = list(driver.sent)
    store.check_names(["gene`", "gene/protein"], ["a`b"], ["id"])
    with pytest.raises(InputError) as refused:
        store.check_names(["disease"], ["indication", "bad\ttype"])
    assert str(refused.value) == (
        "relationship type 'bad\\ttype' cannot be stored in Neo4j: it holds the control character U+0009; "
        "nothing was written"
    )
    assert driver.sent == sent  # the server was not asked anything


class _NoWrites:
    """A FalkorDB-rule store that fails the test on any access but the name check."""

    check_names = FalkorStore.check_names

    def meta(self, graph: str) -> SkbMeta | None:
        raise AssertionError("read the store before checking the names")

    @contextmanager
    def writer(self, graph: str, meta: SkbMeta, progress: ProgressSink | None = None) -> Iterator[None]:
        raise AssertionError("opened a writer")
        yield


def test_a_load_checks_the_names_before_it_reads_embeds_or_writes(tmp_path: Path, prime_dir: Path) -> None:
    folder = write_with_node_type(prime_dir, tmp_path / "bad", BACKTICK_LABEL)
    data = read_stark("prime", folder)
    encoder = HashEncoder("st:tiny", 8)
    embedder = Embedder(encoder, EmbeddingCache(tmp_path / "cache.sqlite"))
    settings = load_config({"home": tmp_path / "home"}, env=QUIET, cwd=tmp_path)
    with pytest.raises(InputError, match=r"^label 'gene`' cannot be stored in FalkorDB: .*; nothing was written$"):
        load_skb(_NoWrites(), embedder, data, settings)  # type: ignore[arg-type]
    assert encoder.texts == []
