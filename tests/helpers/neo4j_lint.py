"""Neo4j's own parser and semantic analysis, run from Node.js (tools/neo4j-lint): the tests' stand-in for a Neo4j
server, which cannot run here. Install with `npm ci --prefix tools/neo4j-lint` (.ci/run does).

The lint is a pure function of the statement (text, parameters, Browser commands allowed), the schema and the
linter's locked version, and costs ~70 ms a statement: a statement that linted clean is remembered by a digest of
all of these in :data:`CLEAN` (committed), and only a statement not seen clean before is linted again. A changed text,
parameter, schema or linter version is a new digest; a statement with diagnostics is never remembered, so a wrong
text fails every run. Delete the file to lint everything afresh."""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

Diagnostics = dict[str, list[dict[str, Any]]]
Linter = Callable[[list[dict[str, Any]]], Diagnostics]

LINTER = Path(__file__).resolve().parents[2] / "tools" / "neo4j-lint"
CLEAN = Path(__file__).resolve().parents[1] / "fixtures" / "neo4j_lint_clean.txt"
"""Digests of the statements that linted clean (see the module's docstring), one per line, sorted."""


def missing() -> str | None:
    """Why the lint cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "Neo4j lint needs Node.js (`node` is not on PATH)"
    if not (LINTER / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        return "Neo4j lint not installed: run `npm ci --prefix tools/neo4j-lint` (CI does)"
    return None


def _digest(statement: dict[str, Any], schema: dict[str, list[str]], linter: str) -> str:
    key = {k: v for k, v in statement.items() if k != "name"}
    text = json.dumps({"statement": key, "schema": schema, "linter": linter}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _run(statements: list[dict[str, Any]], schema: dict[str, list[str]]) -> Diagnostics:
    payload = json.dumps({"schema": schema, "statements": statements})
    done = subprocess.run(
        [shutil.which("node") or "node", str(LINTER / "lint.cjs")],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"neo4j lint failed: {done.stderr[-2000:]}")
    return {item["name"]: item["diagnostics"] for item in json.loads(done.stdout)}


def lint(statements: list[dict[str, Any]], schema: dict[str, list[str]]) -> Diagnostics:
    """Diagnostics per statement name; each statement is {name, query, parameters[, console]}. Statements seen
    clean before (:data:`CLEAN`) are not sent to the linter again."""
    linter = hashlib.sha256(
        (LINTER / "package-lock.json").read_bytes() + (LINTER / "lint.cjs").read_bytes()
    ).hexdigest()
    digests = [_digest(s, schema, linter) for s in statements]
    clean = set(CLEAN.read_text(encoding="utf-8").split()) if CLEAN.exists() else set()
    fresh = [s for s, d in zip(statements, digests, strict=True) if d not in clean]
    found = _run(fresh, schema) if fresh else {}
    newly = {d for s, d in zip(statements, digests, strict=True) if d not in clean and not found[s["name"]]}
    if newly:
        with CLEAN.open("a+", encoding="utf-8") as handle:  # several workers may add at once
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.seek(0)
            known = set(handle.read().split())
            handle.seek(0)
            handle.truncate()
            handle.write("".join(f"{d}\n" for d in sorted(known | newly)))
    return {s["name"]: found.get(s["name"], []) for s in statements}
