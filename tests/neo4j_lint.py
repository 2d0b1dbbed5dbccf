"""Neo4j's own parser and semantic analysis, run from Node.js (tools/neo4j-lint): the tests' stand-in for a Neo4j
server, which cannot run here. Install with `npm ci --prefix tools/neo4j-lint` (.ci/run does)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

Diagnostics = dict[str, list[dict[str, Any]]]
Linter = Callable[[list[dict[str, Any]]], Diagnostics]

LINTER = Path(__file__).resolve().parents[1] / "tools" / "neo4j-lint"


def missing() -> str | None:
    """Why the lint cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "Neo4j lint needs Node.js (`node` is not on PATH)"
    if not (LINTER / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        return "Neo4j lint not installed: run `npm ci --prefix tools/neo4j-lint` (CI does)"
    return None


def lint(statements: list[dict[str, Any]], schema: dict[str, list[str]]) -> Diagnostics:
    """Diagnostics per statement name; each statement is {name, query, parameters[, console]}."""
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
