"""Issue 73: a data directory kgqa cannot use, or a settings file that is not text, is a one-line ConfigError (exit
1) at every door (the command line through the worker and in process, the Python API, MCP), never an internal
error, and nothing is written."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgqa.config import PROBE, ConfigError, load_config, open_home
from tests.helpers.cli import assert_one_line_error, run
from tests.helpers.environment import QUIET

SOURCES = "'home' (--home, KGQA_HOME or home in the config file)"


def cli_env(home: Path, *, worker: bool) -> dict[str, str]:
    """``kgqa`` against ``home``: through the worker's client (which checks the home before it starts a worker), or
    in process."""
    return {"KGQA_HOME": str(home), "KGQA_WORKER_IDLE_TIMEOUT": "600" if worker else "0", **QUIET}


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Path]:
    """A directory even root cannot write in (``chattr +i``), made mutable again afterwards."""
    folder = tmp_path / "immutable"
    folder.mkdir()
    made = shutil.which("chattr") and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0
    if not made:
        if os.geteuid() == 0:
            pytest.skip("chattr +i is not supported on this file system, and root writes through any mode bits")
        folder.chmod(0o500)
    yield folder
    if made:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    folder.chmod(0o700)


@pytest.mark.parametrize("worker", [True, False], ids=["through-the-worker-client", "in-process"])
def test_a_home_that_cannot_be_written_is_one_line(immutable: Path, worker: bool) -> None:
    result = run(cli_env(immutable, worker=worker), "ask", "--skb", "hpo", "what causes seizures?")
    assert result.exit_code == 1
    assert_one_line_error(result, f"{SOURCES} {immutable} cannot be written")


def test_a_symlink_loop_home_is_one_line(tmp_path: Path) -> None:
    """Refused when the settings are read (kgqa.config.check_home), so before either door opens anything."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for worker in (True, False):
        result = run(cli_env(loop, worker=worker), "ask", "--skb", "hpo", "what causes seizures?")
        assert result.exit_code == 1
        assert_one_line_error(result, f"{SOURCES} {loop} is a symlink loop: point it at a real directory")
    with pytest.raises(ConfigError, match="symlink loop"):
        load_config(env={"KGQA_HOME": str(loop / "below")}, cwd=tmp_path)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc on this system")
def test_a_home_where_no_folder_can_be_made_is_one_line() -> None:
    home = Path("/proc/kgqa-home")
    result = run(cli_env(home, worker=False), "ask", "--skb", "hpo", "what causes seizures?")
    assert result.exit_code == 1
    assert_one_line_error(result, f"{SOURCES} {home} cannot be made a directory here")


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (errno.EACCES, "cannot be written (permission denied)"),
        (errno.EPERM, "cannot be written (not permitted: immutable or append-only?)"),
        (errno.EROFS, "is on a read-only file system"),
        (errno.ENOSPC, "has no space left"),
        (errno.EDQUOT, "is over its disk quota"),
        (errno.EIO, "cannot be made a directory here"),
    ],
)
def test_each_reason_a_home_cannot_be_written_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, says: str
) -> None:
    """Every cause the system reports becomes its own one line (a full disk cannot be made here)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr("tempfile.NamedTemporaryFile", refuse)
    with pytest.raises(ConfigError) as exc:
        open_home(tmp_path / "home")
    assert str(exc.value).startswith(f"{SOURCES} {tmp_path / 'home'} {says}")
    assert "\n" not in str(exc.value)


def test_a_full_disk_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe writes a byte (an empty file needs no block), and a home with under MIN_FREE bytes free counts as
    full: nothing kgqa writes there is smaller."""
    import shutil

    from kgqa.config import MIN_FREE

    full = shutil.disk_usage(tmp_path)._replace(free=MIN_FREE - 1)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: full)
    with pytest.raises(ConfigError, match="has no space left: free some, or choose another"):
        open_home(tmp_path / "home")


def test_a_path_no_system_call_takes_is_one_line(tmp_path: Path) -> None:
    """A name too long for the file system, or a user's home that does not exist: settings' faults, named."""
    long = tmp_path / ("a" * 300)
    result = run(cli_env(long, worker=False), "schema", "--skb", "hpo")
    assert result.exit_code == 1
    assert_one_line_error(result, f"{SOURCES} {long} is a path too long for the file system")
    with pytest.raises(ConfigError, match="KGQA_HOME: '~nosuchuser-kgqa/x'"):
        load_config(env={"KGQA_HOME": "~nosuchuser-kgqa/x"}, cwd=tmp_path)
    with pytest.raises(ConfigError, match="command line: 'home': '~nosuchuser-kgqa'"):
        load_config({"home": "~nosuchuser-kgqa"}, env={}, cwd=tmp_path)


def test_opening_a_usable_home_leaves_nothing_behind(tmp_path: Path) -> None:
    open_home(tmp_path / "new" / "home")
    assert [p.name for p in (tmp_path / "new" / "home").iterdir()] == []
    assert PROBE.startswith(".")


def test_the_python_api_and_mcp_check_the_home_too(tmp_path: Path) -> None:
    import kgqa
    from kgqa.mcp.server import serve

    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(ConfigError, match="symlink loop"):
        kgqa.connect(home=loop)
    config = load_config({"home": tmp_path / "fine"}, env=QUIET, cwd=tmp_path)
    with pytest.raises(ConfigError, match="symlink loop"):
        serve(config.__class__(**{**config.__dict__, "home": loop}))


def test_a_home_with_a_nul_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="holds a NUL character"):
        load_config(env={"KGQA_HOME": f"{tmp_path}/a\x00b"}, cwd=tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"top_k = 5\n\xff\xfe = 1\n", "not UTF-8 text (byte 11, line 2)"),
        (b"top_k = 5\x00\n", "(at line 1, column 10)"),
        (b"a = " + b"[" * 100_000, "nested too deeply to read"),
    ],
    ids=["not-utf8", "nul", "nested-100000-deep"],
)
@pytest.mark.parametrize("where", ["cwd", "home"])
def test_a_settings_file_that_is_not_text_is_a_config_error_naming_it(
    tmp_path: Path, content: bytes, message: str, where: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = tmp_path / "kgqa.toml" if where == "cwd" else home / "config.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as exc:
        load_config(env={"KGQA_HOME": str(home)}, cwd=tmp_path)
    assert str(exc.value).startswith(f"{path}: ") and message in str(exc.value)
    result = run({"KGQA_HOME": str(home), **QUIET}, "schema", "--skb", "hpo") if where == "home" else None
    if result is not None:
        assert result.exit_code == 1
        assert_one_line_error(result, str(path))
