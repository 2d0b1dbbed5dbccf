"""Every public call refuses arguments of the wrong type as an InputError naming the argument (issue 53, item 2):
checked by :func:`kgqa.api.check_arguments` from :class:`kgqa.api.Api`'s declarations, in process and at the
worker's client before anything is sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kgqa.api import CALLS, check_arguments
from kgqa.config import load_config
from kgqa.errors import InputError
from kgqa.runtime.worker import client
from kgqa.runtime.worker.common import WorkerInfo

WRONG = [
    ("ask", {"question": {"q": 1}, "skb": "prime"}, "ask: 'question' must be a string, got dict"),
    ("ask", {"question": "x", "skb": 7}, "ask: 'skb' must be a string, got 7"),
    ("ask", {"question": "x", "skb": "p", "top_k": "5"}, "ask: 'top_k' must be an integer or None, got '5'"),
    ("ask", {"question": "x", "skb": "p", "top_k": True}, "ask: 'top_k' must be an integer or None, got True"),
    (
        "ask",
        {"question": "x", "skb": "p", "types": "disease"},
        "'types' must be a list of strings or None, got 'disease'",
    ),
    ("ask", {"question": "x", "skb": "p", "types": ["a", 1]}, "'types' must be a list of strings or None, got list"),
    ("ask", {"question": "x", "skb": "p", "steps": "all"}, "'steps' must be one of 'vss', 'graph', 'hybrid', 'full'"),
    ("ask", {"question": "x", "skb": "p", "query_vector": "v"}, "'query_vector' must be an array or None, got 'v'"),
    ("node", {"skb": "prime", "node_id": 42}, "node: 'node_id' must be a string, got 42"),
    ("documents", {"skb": "p", "label": "drug", "ids": "2"}, "documents: 'ids' must be a list of strings, got '2'"),
    ("explain", {"skb": "p", "scope": 1.5}, "explain: 'scope' must be an integer, got 1.5"),
    ("explain", {"skb": "p", "dialect": "mysql"}, "'dialect' must be one of 'falkordb', 'neo4j', got 'mysql'"),
    ("text2cypher", {"question": "x", "skb": "p", "validate": "yes"}, "'validate' must be true or false, got 'yes'"),
    ("export_neo4j_admin", {"skb": "p", "out": 3}, "export_neo4j_admin: 'out' must be a path, got 3"),
    ("generate_questions", {"skb": "p", "types": ["a"], "count": 2, "seed": 1, "max_word_share": "x"}, "a number"),
]
RIGHT = [
    ("ask", {"question": "x", "skb": "p", "types": ("a", "b"), "top_k": np.int64(5), "steps": "vss"}),
    ("ask", {"question": "x", "skb": "p", "query_vector": np.zeros(3), "types": None}),
    ("export_neo4j_admin", {"skb": "p", "out": "relative/dir"}),
    ("load_source", {"skb": "hpo", "directory": Path("x"), "force": False, "progress": object()}),
    ("generate_questions", {"skb": "p", "types": ["a"], "count": 2, "seed": 1, "max_word_share": 1, "split": "test"}),
]


@pytest.mark.parametrize(("method", "arguments", "message"), WRONG, ids=[f"{m}-{i}" for i, (m, *_) in enumerate(WRONG)])
def test_a_wrong_type_is_an_input_error_naming_the_argument(
    method: str, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError) as raised:
        check_arguments(method, arguments)
    assert message in str(raised.value)


@pytest.mark.parametrize(("method", "arguments"), RIGHT, ids=[m for m, _ in RIGHT])
def test_what_the_declarations_allow_passes(method: str, arguments: dict[str, Any]) -> None:
    check_arguments(method, arguments)


def test_every_call_s_wrong_argument_is_refused_before_the_worker_is_asked(tmp_path: Path) -> None:
    class Refused:
        def call(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("sent to the worker")

    info = WorkerInfo(1, "build", {}, str(tmp_path), 60.0, "now")
    remote = client.RemoteKgqa(load_config({"home": tmp_path}), Refused(), info, print)  # type: ignore[arg-type]
    for method, arguments, message in WRONG:
        with pytest.raises(InputError) as raised:
            getattr(remote, method)(**arguments)
        assert message in str(raised.value)
    assert {m for m, _, _ in WRONG} <= CALLS
