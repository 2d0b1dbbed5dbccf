from pathlib import Path

import pytest

from kgqa.config import load_config
from kgqa.errors import ConfigError


def test_defaults_without_file_or_env(tmp_path: Path) -> None:
    config = load_config(env={"KGQA_HOME": str(tmp_path / "h")}, cwd=tmp_path)
    assert config.home == tmp_path / "h"
    assert config.store_dir == tmp_path / "h" / "falkordb"
    assert config.top_k == 20 and config.embedder == "onnx-int8:minilm"


def test_precedence_file_then_env_then_flags(tmp_path: Path) -> None:
    (tmp_path / "kgqa.toml").write_text('top_k = 5\nembedder = "from-file"\nef_runtime = 50\n')
    env = {"KGQA_HOME": str(tmp_path / "h"), "KGQA_TOP_K": "7", "KGQA_EMBEDDER": "from-env"}
    config = load_config({"top_k": 9, "embedder": None}, env=env, cwd=tmp_path)
    assert config.top_k == 9  # flag beats env and file
    assert config.embedder == "from-env"  # env beats file; a flag that was not given changes nothing
    assert config.ef_runtime == 50  # file beats default


def test_home_config_file_is_used_when_no_local_file(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("top_k = 3\n")
    assert load_config(env={"KGQA_HOME": str(home)}, cwd=tmp_path).top_k == 3


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("tpo_k = 3\n", "unknown setting 'tpo_k'"),
        ('top_k = "many"\n', "'top_k' must be int"),
        ("top_k = 0\n", "'top_k' must be >= 1"),
        ("top_k = \n", "kgqa.toml"),
        ('store = "mongodb"\n', "'store' must be one of falkordb, neo4j, got 'mongodb'"),
    ],
)
def test_bad_file_names_the_problem(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "kgqa.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message):
        load_config(env={}, cwd=tmp_path)


def test_unknown_env_var_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="environment: unknown setting 'colour'"):
        load_config(env={"KGQA_COLOUR": "red"}, cwd=tmp_path)


@pytest.mark.parametrize("under", [False, True], ids=["home-is-a-file", "home-under-a-file"])
def test_a_home_that_is_no_directory_is_a_config_error(tmp_path: Path, under: bool) -> None:
    """Not a NotADirectoryError when the first command writes there (an internal error, exit 70)."""
    file = tmp_path / "file"
    file.write_text("not a folder")
    home = file / "sub" if under else file
    with pytest.raises(ConfigError) as exc:
        load_config(env={"KGQA_HOME": str(home)}, cwd=tmp_path)
    where = f"lies under {file}, which is a file" if under else "is a file"
    assert str(exc.value) == (
        f"'home' (--home, KGQA_HOME or home in the config file) must be a directory, but {home} {where}"
    )


def test_a_home_that_does_not_exist_yet_is_fine(tmp_path: Path) -> None:
    assert load_config(env={"KGQA_HOME": str(tmp_path / "a" / "b")}, cwd=tmp_path).home == tmp_path / "a" / "b"
