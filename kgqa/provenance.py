"""Which code made a results file: the git commit, uncommitted changes, the settings, and whether it is stale.

A benchmark figure is only worth keeping if it can be traced to the code that produced it. Every results file that a
benchmark or ``kgqa eval`` writes carries :func:`provenance` (``{"commit", "dirty", "dirty_paths", ...}``); the docs
tables name that commit and mark a row stale when :func:`stale` finds that the code that shapes answers and timings
(:data:`CODE_PATHS`, plus the benchmark script itself) changed between that commit and HEAD.

"Dirty" means tracked files with uncommitted changes, outside the paths the benchmarks write themselves
(:data:`OUTPUT_PATHS`: a second benchmark run after a first must not count the first one's results as a code
change). Untracked files are not counted: new code only takes effect through a change to a tracked file. Which of the
dirty paths matter for a table is decided by the reader (:func:`code_dirty`), since ``tests/`` edits do not change a
benchmark but ``kgqa/`` edits do. Nothing here raises when git or the repository is missing: the commit is then
``None`` with the reason.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
"""The repository this kgqa was imported from (an editable install); not a repository for a wheel install."""
CODE_PATHS = ("kgqa", "cypher", "loaders", "pyproject.toml")
"""Paths whose changes can alter answers or timings; a benchmark adds its own script."""
OUTPUT_PATHS = ("benchmarks/results/", "docs/")
"""Paths the benchmarks write: changes there do not make the tree dirty."""
SECRETS = ("openai_api_key", "neo4j_password", "mcp_token")
"""Configuration fields never written into a results file."""
MAX_DIRTY_PATHS = 100


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | str:
    """Run git in ``root``; the completed process, or why git could not run at all."""
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30, check=False)
    except FileNotFoundError:
        return "git is not installed"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"git failed: {exc}"


def _version() -> str | None:
    try:
        return metadata.version("kgqa")
    except metadata.PackageNotFoundError:
        return None


def _changed_paths(porcelain: str) -> list[str]:
    """Paths of ``git status --porcelain -z`` output (a rename's old path is skipped)."""
    fields = porcelain.split("\0")
    paths, i = [], 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC":
            i += 1  # the old path of a rename or copy follows
    return paths


def provenance(root: Path | None = None) -> dict[str, Any]:
    """The code and machine behind a results file: commit (full sha of HEAD), dirty, dirty_paths, kgqa version,
    python, platform, cpus, date (UTC) and the command line; ``commit`` is None, with ``reason``, when git cannot
    say."""
    root = ROOT if root is None else root
    out: dict[str, Any] = {
        "commit": None,
        "dirty": None,
        "dirty_paths": [],
        "kgqa_version": _version(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "argv": list(sys.argv),
    }
    head = _git(root, "rev-parse", "--verify", "HEAD")
    if isinstance(head, str) or head.returncode != 0:
        out["reason"] = head if isinstance(head, str) else (head.stderr.strip() or "git rev-parse HEAD failed")
        return out
    out["commit"] = head.stdout.strip()
    status = _git(root, "status", "--porcelain", "-z", "--untracked-files=no")
    if isinstance(status, str) or status.returncode != 0:
        out["reason"] = "git status failed: " + (status if isinstance(status, str) else status.stderr.strip())
        return out
    dirty = sorted(p for p in _changed_paths(status.stdout) if not p.startswith(OUTPUT_PATHS))
    out["dirty"] = bool(dirty)
    out["dirty_paths"] = dirty[:MAX_DIRTY_PATHS]
    return out


def _under(path: str, paths: Iterable[str]) -> bool:
    return any(path == p.rstrip("/") or path.startswith(p.rstrip("/") + "/") for p in paths)


BENCHMARK_CODE = (*CODE_PATHS, "benchmarks")
"""What a benchmark's results rest on: kgqa's code and the benchmark scripts (their results under
``benchmarks/results/`` are output, never code)."""


def allow_dirty_flag(parser: argparse.ArgumentParser) -> None:
    """Give a benchmark's command line ``--allow-dirty`` (see :func:`require_committed`)."""
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="run with uncommitted code changes: the results file records them and docs must not cite it",
    )


def require_committed(allow_dirty: bool, root: Path | None = None) -> None:
    """Refuse to measure while code a result rests on (:data:`BENCHMARK_CODE`) has uncommitted changes, unless
    ``allow_dirty``: a result is evidence only of the code it ran, and a figure in docs must name a commit that holds
    that code. With ``allow_dirty`` the results file's provenance lists the changed paths (``dirty_paths``), which
    marks it: :func:`origin` reads it as stale, and no table cites it as current."""
    prov = provenance(root)
    changed = [p for p in prov.get("dirty_paths") or () if _under(p, BENCHMARK_CODE)]
    if changed and not allow_dirty:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise SystemExit(
            f"uncommitted code changes ({shown}): commit them before measuring, or pass --allow-dirty (the results "
            "file then records the changes and must not be cited)"
        )


def code_dirty(prov: Mapping[str, Any], paths: Iterable[str] = CODE_PATHS) -> bool:
    """Whether a :func:`provenance` was taken with uncommitted changes under ``paths`` (the ones that matter)."""
    return any(_under(p, tuple(paths)) for p in prov.get("dirty_paths") or ())


def stale(commit: str | None, root: Path | None = None, paths: Iterable[str] = CODE_PATHS) -> bool | None:
    """Whether the code under ``paths`` changed between ``commit`` and HEAD; None when unknown (no commit, no git,
    or a commit this repository does not have)."""
    root = ROOT if root is None else root
    if not commit:
        return None
    known = _git(root, "cat-file", "-e", f"{commit}^{{commit}}")
    if isinstance(known, str) or known.returncode != 0:
        return None
    diff = _git(root, "diff", "--quiet", commit, "HEAD", "--", *paths)
    if isinstance(diff, str) or diff.returncode not in (0, 1):
        return None
    return diff.returncode == 1


def file_commits(path: Path, root: Path | None = None) -> tuple[str | None, str | None]:
    """Short shas of the commits that added ``path`` and that last changed it (None when git does not know)."""
    root = ROOT if root is None else root
    added = _git(root, "log", "--diff-filter=A", "--format=%h", "--", str(path))
    last = _git(root, "log", "-1", "--format=%h", "--", str(path))
    first = added.stdout.split()[-1] if not isinstance(added, str) and added.stdout.split() else None
    latest = last.stdout.strip() if not isinstance(last, str) and last.stdout.strip() else None
    return first, latest


def config_settings(config: Any) -> dict[str, Any]:
    """Every field of a configuration dataclass as JSON values (paths as strings), secrets redacted, so a results
    file says everything it was made with and nothing it must not."""
    out: dict[str, Any] = {}
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if field.name in SECRETS and value is not None:
            value = "<redacted>"
        elif isinstance(value, Path):
            value = str(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[field.name] = value
    return out


def short(commit: str) -> str:
    return commit[:7]


@dataclass(frozen=True)
class Origin:
    """Where a table row comes from, for the docs: the commits its results were made at and whether they are stale.

    ``commits`` is empty for a file written before provenance was recorded; ``added`` and ``last`` then name the
    commits that added and last changed the file, the best the repository can say."""

    commits: tuple[str, ...]
    stale: bool
    dirty: bool = False
    unknown: bool = False
    """Some of the results carry no commit (records written before provenance, or a commit git cannot find)."""
    missing: tuple[str, ...] = ()
    """Recorded commits this repository does not have."""
    added: str | None = None
    last: str | None = None

    def label(self) -> str:
        """The commit cell of a docs table: ``abc1234``, with the reasons it is stale."""
        if not self.commits:
            where = f"committed in {self.added or 'unknown'}"
            if self.last and self.last != self.added:
                where += f", last changed in {self.last}"
            return f"commit unknown (file predates provenance; {where}), stale"
        text = " + ".join(short(c) for c in self.commits)
        notes = []
        if len(self.commits) > 1:
            notes.append("resumed across commits")
        if self.unknown and not self.missing:
            notes.append("and records without a commit")
        if self.missing:
            notes.append(f"{', '.join(short(c) for c in self.missing)} not in this repository")
        if self.dirty:
            notes.append("with uncommitted code changes")
        if notes:
            text += f" ({'; '.join(notes)})"
        return text + (", stale" if self.stale else "")

    def sentence(self) -> str:
        """The label as a sentence under a table's heading: ``Commit abc1234.``, ``Commit unknown (...), stale.``"""
        return (f"Commit {self.label()}" if self.commits else "C" + self.label()[1:]) + "."

    def cell(self) -> str:
        """The label in a table column, where a pre-provenance file's history is too long: ``unknown, stale``."""
        return self.label() if self.commits else "unknown, stale"


def origin(
    doc: Mapping[str, Any],
    path: Path,
    root: Path | None = None,
    paths: Iterable[str] = CODE_PATHS,
    commits: Mapping[str, int] | None = None,
) -> Origin:
    """The :class:`Origin` of a results document (read from ``path``): its records' ``commits`` when it has them
    (``kgqa eval``), else its provenance commit. Stale when the code under ``paths`` changed since any of them, when
    one is unknown, or when the results were made with uncommitted changes under ``paths``."""
    paths = tuple(paths)
    prov = doc.get("provenance") or {}
    counts = dict(commits if commits is not None else doc.get("commits") or {})
    if not counts and prov.get("commit"):
        counts = {prov["commit"]: 1}
    known = tuple(c for c in counts if c and c != "unknown")
    if not known:
        added, last = file_commits(path, root)
        return Origin((), True, unknown=True, added=added, last=last)
    status = {c: stale(c, root, paths) for c in known}
    missing = tuple(c for c, s in status.items() if s is None)
    unknown = len(known) < len(counts) or bool(missing)
    # an eval counts the records made with uncommitted code changes; other results have one provenance
    dirty = bool(doc["dirty_records"]) if "dirty_records" in doc else code_dirty(prov, paths)
    return Origin(known, any(s is not False for s in status.values()) or unknown or dirty, dirty, unknown, missing)


def replace_block(text: str, name: str, body: str, heading: str = "") -> str:
    """``text`` with the generated block ``<!-- name:start -->`` ... ``<!-- name:end -->`` holding ``body``; a
    missing block is appended under ``heading``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        text = text.rstrip("\n") + "\n\n" + (f"{heading}\n\n" if heading else "") + f"{start}\n{end}\n"
    head, rest = text.split(start, 1)
    return head + start + "\n" + body.strip("\n") + "\n" + end + rest.split(end, 1)[1]
