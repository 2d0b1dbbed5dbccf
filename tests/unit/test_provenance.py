"""kgqa.provenance on a throw-away git repository, the docs tables' commit and stale marks, and the rule that every
results file under benchmarks/results/ names a commit of this repository. No server, no socket, no model."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from kgqa.config import Config
from kgqa.lab import evaluate
from kgqa.lab.evaluate import Record, commits, eval_settings, results, run_eval, settings_path
from kgqa.lab.qa import Question
from kgqa.provenance import (
    BENCHMARK_CODE,
    code_dirty,
    config_settings,
    origin,
    provenance,
    replace_block,
    require_committed,
    stale,
)

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results"
PRE_PROVENANCE: dict[str, str] = {}
"""Results files allowed to name no commit: they were made before provenance was recorded and are not re-run."""
PENDING_RERUN: dict[str, str] = {}
"""Files made before provenance that are to be re-run: expected to fail the check until then (strict xfail, so a
re-run file that passes must be taken off this list)."""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for path, text in {
        "kgqa/a.py": "x = 1\n",
        "docs/results.md": "# r\n",
        "benchmarks/results/r.json": "{}\n",
        "tests/test_a.py": "\n",
        "README.md": "r\n",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root.parent, "init", "-q", str(root))
    git(root, "config", "user.email", "t@example.org")
    git(root, "config", "user.name", "t")
    git(root, "config", "commit.gpgsign", "false")
    commit_all(root, "first")
    return root


def test_provenance_names_head_and_ignores_what_benchmarks_write(repo: Path) -> None:
    prov = provenance(repo)
    assert prov["commit"] == git(repo, "rev-parse", "HEAD") and len(prov["commit"]) == 40
    assert prov["dirty"] is False and prov["dirty_paths"] == []
    assert {"kgqa_version", "python", "platform", "cpus", "date", "argv"} <= set(prov)
    (repo / "docs" / "results.md").write_text("# regenerated table\n")
    (repo / "benchmarks" / "results" / "r.json").write_text('{"new": 1}\n')
    (repo / "kgqa" / "untracked.py").write_text("y = 2\n")
    assert provenance(repo)["dirty"] is False  # outputs and untracked files are no code change
    (repo / "kgqa" / "a.py").write_text("x = 2\n")
    (repo / "tests" / "test_a.py").write_text("# edited\n")
    prov = provenance(repo)
    assert prov["dirty"] is True and prov["dirty_paths"] == ["kgqa/a.py", "tests/test_a.py"]
    assert code_dirty(prov) and not code_dirty(prov, ("cypher",))  # only kgqa/ matters to a kgqa table
    git(repo, "mv", "README.md", "README.txt")  # a staged rename names the new path only
    assert "README.txt" in provenance(repo)["dirty_paths"] and "README.md" not in provenance(repo)["dirty_paths"]


def test_provenance_without_git_or_repository_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prov = provenance(tmp_path)
    assert prov["commit"] is None and prov["dirty"] is None and "not a git repository" in prov["reason"]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    prov = provenance(tmp_path)
    assert prov["commit"] is None and prov["reason"] == "git is not installed"
    assert stale("0" * 40, tmp_path) is None


def test_stale_follows_code_changes_only(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    (repo / "docs" / "results.md").write_text("# new table\n")
    docs_only = commit_all(repo, "docs")
    assert stale(first, repo) is False and stale(docs_only, repo) is False
    (repo / "kgqa" / "a.py").write_text("x = 3\n")
    code = commit_all(repo, "code")
    assert stale(first, repo) is True and stale(docs_only, repo) is True and stale(code, repo) is False
    assert stale(first, repo, paths=("loaders",)) is False  # only the given paths count
    assert stale(first[:7], repo) is True  # a short sha works as well
    assert stale(None, repo) is None and stale("", repo) is None
    assert stale("1" * 40, repo) is None  # a commit this repository does not have: unknown


def test_origin_labels_mark_stale_rows(repo: Path) -> None:
    made = git(repo, "rev-parse", "HEAD")
    result = repo / "benchmarks" / "results" / "r.json"
    clean = {"provenance": {"commit": made, "dirty": False, "dirty_paths": []}}
    assert origin(clean, result, repo).label() == made[:7] and not origin(clean, result, repo).stale
    dirty = {"provenance": {"commit": made, "dirty": True, "dirty_paths": ["kgqa/a.py"]}}
    assert origin(dirty, result, repo).label() == f"{made[:7]} (with uncommitted code changes), stale"
    tests_only = {"provenance": {"commit": made, "dirty": True, "dirty_paths": ["tests/test_a.py"]}}
    assert not origin(tests_only, result, repo).stale
    old = origin({"params": {}}, result, repo)  # a file written before provenance
    assert old.stale and old.label() == f"commit unknown (file predates provenance; committed in {made[:7]}), stale"
    (repo / "kgqa" / "a.py").write_text("x = 4\n")
    later = commit_all(repo, "code")
    assert origin(clean, result, repo).label() == f"{made[:7]}, stale"
    assert origin({"provenance": {"commit": later}}, result, repo).label() == later[:7]
    # an eval resumed across commits, and one holding records written before commits were kept
    assert origin({"commits": {later: 3, made: 1}, "dirty_records": 0}, result, repo).label() == (
        f"{later[:7]} + {made[:7]} (resumed across commits), stale"
    )
    assert origin({"commits": {later: 3, "unknown": 1}}, result, repo).label() == (
        f"{later[:7]} (and records without a commit), stale"
    )
    assert origin({"commits": {later: 2}, "dirty_records": 1}, result, repo).stale
    (repo / "benchmarks" / "results" / "r.json").write_text('{"changed": 1}\n')
    last = commit_all(repo, "results")
    assert origin({}, result, repo).label() == (
        f"commit unknown (file predates provenance; committed in {made[:7]}, last changed in {last[:7]}), stale"
    )
    missing = origin({"provenance": {"commit": "1" * 40}}, result, repo)
    assert missing.stale and "not in this repository" in missing.label()


def test_replace_block_keeps_the_rest() -> None:
    text = "# T\n\nintro\n<!-- x:start -->\nold\n<!-- x:end -->\nafter\n"
    replaced = replace_block(text, "x", "new\nrows\n")
    assert replaced == "# T\n\nintro\n<!-- x:start -->\nnew\nrows\n<!-- x:end -->\nafter\n"
    added = replace_block("# T\n", "y", "table", "## Y")
    assert added == "# T\n\n## Y\n\n<!-- y:start -->\ntable\n<!-- y:end -->\n"


def test_config_settings_has_every_field_and_no_secret(tmp_path: Path) -> None:
    config = Config(home=tmp_path, openai_api_key="sk-secret", neo4j_password="pw")
    settings = config_settings(config)
    assert set(settings) == set(Config.__dataclass_fields__)
    assert settings["home"] == str(tmp_path) and settings["openai_api_key"] == "<redacted>"
    assert settings["neo4j_password"] == "<redacted>" and "sk-secret" not in json.dumps(settings)
    assert config_settings(Config(home=tmp_path))["openai_api_key"] is None  # unset stays visibly unset


def test_old_records_load_and_count_as_unknown() -> None:
    old = {"row": "r", "id": "1", "ranked": [], "metrics": {}, "seconds": 0.1, "steps": [], "usage": {}}
    records = [Record(**old), Record(**{**old, "id": "2", "commit": "abc", "dirty": False}), Record(**old)]
    assert commits(records) == {"unknown": 2, "abc": 1}


class _Answer:
    def __init__(self, ids: list[str]) -> None:
        self.answers = [SimpleNamespace(id=i) for i in ids]

    def to_json(self) -> dict[str, Any]:
        return {
            "trace": {
                "steps": [{"step": 7, "name": "vector strand", "status": "ran", "seconds": 0.01}],
                "usage": {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0},
            }
        }


class _Kgqa:
    """Just what run_eval and eval_settings use of kgqa.runtime.app.Kgqa: no store, no model."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def embedder_name(self) -> str:
        return "st:tiny"

    def meta(self, skb: str) -> None:
        return None

    def ask(self, question: str, skb: str, *, steps: str | None = None) -> _Answer:
        return _Answer(["a"])


def test_eval_records_commits_and_results_carry_provenance_and_full_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = [Question("1", "q one?", ("a",)), Question("2", "q two?", ("b",))]
    out, rows = tmp_path / "r.json", [("hybrid", "hybrid")]
    kg = _Kgqa(Config(home=tmp_path, openai_api_key="sk-secret"))
    settings = eval_settings(kg, "prime", "qa.csv", "test", rows)  # type: ignore[arg-type]
    assert settings["config"]["openai_api_key"] == "<redacted>" and settings["config"]["home"] == str(tmp_path)
    first, second = "1" * 40, "2" * 40
    monkeypatch.setattr(evaluate, "provenance", lambda: {"commit": first, "dirty": True, "dirty_paths": ["tests/x"]})
    run_eval(kg, "prime", questions[:1], rows, out, settings=settings)  # type: ignore[arg-type]
    assert "config" not in json.loads(settings_path(out).read_text())  # recorded in results, not compared
    later = eval_settings(_Kgqa(Config(home=tmp_path / "other", llm_timeout=5.0)), "prime", "qa.csv", "test", rows)
    monkeypatch.setattr(evaluate, "provenance", lambda: {"commit": second, "dirty": True, "dirty_paths": ["kgqa/x"]})
    records = run_eval(kg, "prime", questions, rows, out, settings=later)  # type: ignore[arg-type]
    assert [(r.id, r.commit, r.dirty) for r in records] == [("1", first, False), ("2", second, True)]
    doc = results(records, rows, later)
    assert doc["provenance"]["commit"] == second and doc["settings"]["config"]["llm_timeout"] == 5.0
    assert doc["commits"] == {first: 1, second: 1} and doc["dirty_records"] == 1
    ablation = results(records, [("vector strand", "vss"), ("hybrid", "hybrid")], later)
    assert ablation["ablation_sections"]["hybrid"]["commits"] == {first: 1, second: 1}


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _eval_doc(rows: list[str]) -> dict[str, Any]:
    metrics = {"hit@1": 0.5, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 0.75, "n": 2}
    section = {"metrics": metrics, "seconds_per_question": {"median_s": 1.0}, "llm": {"calls_per_question": 0.0}}
    return {
        "settings": {
            "qa": "q.csv",
            "skb": "hpo",
            "llm": "none",
            "top_k": 20,
            "rerank_budget_tokens": 3000,
            "embedder_model": "m",
        },
        "metrics": metrics,
        "questions": [{"id": "1"}, {"id": "2"}],
        "ablation": dict.fromkeys(rows, metrics),
        "ablation_sections": dict.fromkeys(rows, section),
    }


def test_ablation_table_names_each_rows_commit_and_marks_stale(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _load("ablation_table")
    monkeypatch.setattr(table, "ROOT", repo)
    before = git(repo, "rev-parse", "HEAD")
    (repo / "kgqa" / "a.py").write_text("x = 5\n")
    now = commit_all(repo, "code")
    results = repo / "benchmarks" / "results"
    record = {
        "ranked": [],
        "metrics": {"hit@1": 1.0, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 1.0},
        "seconds": 1.0,
        "steps": [],
        "usage": {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0},
    }
    new, old = results / "ablation_new.json", results / "ablation_old.json"
    new.with_name(new.name + ".jsonl").write_text(
        "".join(
            json.dumps({**record, "row": row, "id": i, "commit": commit, "dirty": False}) + "\n"
            for row, commit in (("fresh", now), ("measured before", before))
            for i in ("1", "2")
        )
    )
    old.with_name(old.name + ".jsonl").write_text(
        "".join(json.dumps({**record, "row": "vector strand", "id": i}) + "\n" for i in ("1", "2"))
    )
    old.write_text("{}\n")
    commit_all(repo, "old results")
    added = git(repo, "rev-parse", "--short=7", "HEAD")
    text = table.render(
        [
            (new, {**_eval_doc(["fresh", "measured before"]), "provenance": {"commit": now}}),
            (old, _eval_doc(["vector strand"])),
        ]
    )
    rows = {
        line.split(" | ")[0].strip("| "): line.rsplit(" | ", 1)[1].rstrip(" |")
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("| row")
    }
    assert rows == {"fresh": now[:7], "measured before": f"{before[:7]}, stale", "vector strand": "unknown, stale"}
    assert f"Commit {now[:7]} + {before[:7]} (resumed across commits), stale." in text
    assert f"Commit unknown (file predates provenance; committed in {added}), stale." in text


def test_pipeline_table_marks_stale_modes(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _load("pipeline_hpo")
    monkeypatch.setattr(bench, "ROOT", repo)
    before = git(repo, "rev-parse", "HEAD")
    (repo / "kgqa" / "a.py").write_text("x = 6\n")
    now = commit_all(repo, "code")
    metrics = {"hit@1": 0.5, "hit@5": 1.0, "hit@20": 1.0, "recall@20": 1.0, "mrr": 0.75, "n": 2}
    llm = {
        "calls_per_question": 2.0,
        "cached_calls_per_question": 1.0,
        "prompt_tokens_per_question": 400.0,
        "completion_tokens_per_question": 60.0,
    }
    steps = {
        "2 cypher": {"ran": 2, "degraded": 1, "skipped": 0, "median_s": 1.5},
        "8 rerank": {"ran": 0, "degraded": 0, "skipped": 2},
    }

    def mode(commit: str, name: str) -> dict[str, Any]:
        return {
            "file": f"pipeline_hpo_{name}.json",
            "provenance": {"commit": commit, "date": "2026-11-23T00:00:00", "cpus": 2},
            "settings": {"llm": "llama:q.gguf", "top_k": 20, "rerank_budget_tokens": 1500},
            "commits": {commit: 2},
            "dirty_records": 0,
            "metrics": metrics,
            "seconds_per_question": {"median_s": 3.0},
            "steps": steps,
            "llm": llm,
        }

    doc = {
        "provenance": {"commit": now},
        "questions": "benchmarks/results/pipeline_hpo_questions.csv",
        "modes": {"vss": mode(now, "vss"), "hybrid": mode(before, "hybrid")},
    }
    text = bench.table(doc)
    assert f"| vss | 0.500 | 1.000 | 1.000 | 0.750 | 2 | 1.0 | 400.0 + 60.0 | 3.0 | {now[:7]} |" in text
    assert f"| hybrid | 0.500 | 1.000 | 1.000 | 0.750 | 2 | 1.0 | 400.0 + 60.0 | 3.0 | {before[:7]}, stale |" in text
    assert "Not measured: none, full." in text
    assert "| vss | - | 1.5 | - | - | - | - | - | - |" in text and "- hybrid: {'2 cypher': 1}" in text


def _results_files() -> list[Any]:
    files = sorted(p for p in RESULTS.glob("*.json") if not p.name.endswith(".settings.json"))
    return [
        pytest.param(p, id=p.name, marks=pytest.mark.xfail(strict=True, reason=f"re-run: {PENDING_RERUN[p.name]}"))
        if p.name in PENDING_RERUN
        else pytest.param(p, id=p.name)
        for p in files
    ]


@pytest.mark.parametrize("path", _results_files())
def test_every_results_file_names_a_commit_of_this_repository(path: Path) -> None:
    if path.name in PRE_PROVENANCE:
        pytest.skip(PRE_PROVENANCE[path.name])
    doc = json.loads(path.read_text())
    commit = (doc.get("provenance") or {}).get("commit")
    assert commit, f"{path.name} records no provenance.commit"
    # an eval's answers were made at its records' commits (pipeline_hpo.json gathers one eval per mode)
    made_at = [commit, *doc.get("commits", {})]
    made_at += [c for section in doc.get("modes", {}).values() for c in section.get("commits", {})]
    assert "unknown" not in made_at, f"{path.name} holds records without a commit: delete its .jsonl and re-run"
    for sha in made_at:
        found = subprocess.run(
            ["git", "-C", str(REPO), "cat-file", "-e", f"{sha}^{{commit}}"], capture_output=True, check=False
        )
        assert found.returncode == 0, f"{path.name}: commit {sha} is not in this repository"


def test_a_benchmark_refuses_uncommitted_code_unless_allowed(repo: Path) -> None:
    (repo / "docs" / "results.md").write_text("# edited\n")  # docs, tests and the README are no code
    (repo / "README.md").write_text("edited\n")
    require_committed(False, repo)
    (repo / "kgqa" / "a.py").write_text("x = 2\n")
    with pytest.raises(SystemExit, match=r"uncommitted code changes \(kgqa/a\.py\): commit them before measuring"):
        require_committed(False, repo)
    require_committed(True, repo)  # --allow-dirty: the results file's provenance then lists kgqa/a.py
    assert code_dirty(provenance(repo), BENCHMARK_CODE)


@pytest.mark.parametrize("path", _results_files())
def test_no_results_file_rests_on_uncommitted_code(path: Path) -> None:
    """A result is evidence only of the code it ran: a file measured with --allow-dirty stays out of the results
    the docs cite (re-measure it from committed code instead)."""
    prov = json.loads(path.read_text()).get("provenance") or {}
    assert not code_dirty(prov, BENCHMARK_CODE), f"{path.name} was recorded with {prov.get('dirty_paths')}"


def test_the_default_root_is_this_repository() -> None:
    """Without a root, provenance reads the repository kgqa runs from (benchmarks and trained models name its
    commit): the folder holding pyproject.toml beside the kgqa package."""
    from kgqa import provenance as module

    assert (module.ROOT / "pyproject.toml").is_file() and (module.ROOT / "kgqa" / "provenance.py").is_file()
    record = module.provenance()
    if (module.ROOT / ".git").exists():
        assert record["commit"] is not None, record.get("reason")
