"""Run a command as if on slower CPU cores: every process it starts gets a CPU cgroup of its own, capped at
1/``factor`` of one core, and all of them together at 2/``factor`` (issue 71: the suite on a machine without
AVX-512).

Why per process: a cap on the whole command would let a lone busy process (mypy, one pytest worker's tail) run at full
speed, where a slower core slows it too. A poller moves each new process out of its parent's group into one of its own
within ``POLL`` seconds (until then it shares its parent's cap). Threads share their process's cap: a process with two
busy threads is slowed more than on two slow cores, which errs on the slow side. Waiting (sleeps, timeouts, a child
process) costs no CPU and is not slowed, as on a slower machine.

Needs root and a writable cgroup CPU controller (v1 ``cpu.cfs_quota_us`` or v2 ``cpu.max``).

    python benchmarks/slow_cpu.py 2.0 -- python -c "sum(range(10**8))"
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

PERIOD_US = 10_000
"""A short period: throttling comes in slices of at most 10 ms, not the default 100 ms's stalls."""
POLL = 0.02
MAX_FACTOR = 10
"""A cap below 1 ms of each 10 ms period is not kept by the kernel."""


def cpu_controller() -> tuple[Path, bool]:
    """The CPU controller's root and whether it is cgroup v2; SystemExit naming what is missing."""
    v1 = Path("/sys/fs/cgroup/cpu")
    if (v1 / "cpu.cfs_quota_us").exists() or (v1 / "tasks").exists():
        return v1, False
    for v2 in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and "cpu" in controllers.read_text().split():
            return v2, True
    raise SystemExit("no cgroup CPU controller found under /sys/fs/cgroup: cannot emulate a slower CPU here")


class SlowCPU:
    """A cgroup tree for one command: ``start(argv)`` runs it capped; the poller gives each new process its own cap.
    ``error``: why the poller stopped moving processes, if it did (the run was then capped less than promised)."""

    def __init__(self, factor: float, *, cores: int = 2) -> None:
        if not 1 <= factor <= MAX_FACTOR:
            raise SystemExit(f"a slowdown factor must be between 1 and {MAX_FACTOR}, not {factor}")
        self.factor, self.cores = factor, cores
        base, self.v2 = cpu_controller()
        self.root = base / f"kgqa-slow-{os.getpid()}"
        self.owners: dict[Path, int] = {}
        self.groups: list[Path] = []
        """the capped groups that exist now"""
        self.made = 0
        """capped groups made in all"""
        self.error: str | None = None
        self.process: subprocess.Popen[str] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _cap(self, group: Path, cores: float) -> None:
        quota = int(PERIOD_US * cores)
        if self.v2:
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))

    def _group(self) -> Path:
        self.made += 1
        group = self.root / f"p{self.made}"
        group.mkdir()
        self.groups.append(group)
        self._cap(group, 1 / self.factor)
        return group

    def __enter__(self) -> SlowCPU:
        try:
            self.root.mkdir()
            if self.v2:
                (self.root.parent / "cgroup.subtree_control").write_text("+cpu")
                (self.root / "cgroup.subtree_control").write_text("+cpu")
            self._cap(self.root, self.cores / self.factor)
            self.first = self._group()
        except OSError as exc:
            self._remove_tree()
            raise SystemExit(f"cannot make a capped CPU cgroup at {self.root}: {exc}") from exc
        return self

    def start(self, argv: list[str], **popen: object) -> subprocess.Popen[str]:
        """``argv`` started inside the first capped group (it joins before it executes anything); the poller starts
        after the fork, so no other thread runs while the child's ``preexec_fn`` does."""
        procs = self.first / "cgroup.procs"

        def join() -> None:
            procs.write_text(str(os.getpid()))

        process: subprocess.Popen[str] = subprocess.Popen(  # type: ignore[call-overload]
            argv, preexec_fn=join, text=True, start_new_session=True, **popen
        )
        self.process = process
        self.owners[self.first] = process.pid
        self._thread.start()
        return process

    def _members(self, group: Path) -> list[int]:
        try:
            return [int(line) for line in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def _poll(self) -> None:
        try:
            while not self._stop.wait(POLL):
                for group, owner in list(self.owners.items()):
                    members = self._members(group)
                    if not members:
                        self._remove(group)
                        continue
                    if owner not in members:
                        owner = self.owners[group] = members[0]
                    for pid in members:
                        if pid != owner:
                            self._move(pid)
        except OSError as exc:  # reported by __exit__ and recorded with the run
            self.error = f"the poller stopped moving processes: {exc}"

    def _move(self, pid: int) -> None:
        group = self._group()
        try:
            (group / "cgroup.procs").write_text(str(pid))
        except ProcessLookupError:  # it ended meanwhile
            group.rmdir()
            self.groups.remove(group)
            return
        self.owners[group] = pid

    def _remove(self, group: Path) -> None:
        try:
            group.rmdir()
        except OSError:
            return  # a process joined meanwhile; the next poll sees it
        del self.owners[group]
        self.groups.remove(group)

    def _remove_tree(self) -> list[Path]:
        """Move what is left in the groups (processes the command left running) out, uncapped, and remove the
        groups and the root; the groups that would not go within a few seconds."""
        parent = self.root.parent / "cgroup.procs"
        deadline = time.monotonic() + 5
        while self.groups and time.monotonic() < deadline:
            for group in list(self.groups):
                for pid in self._members(group):
                    with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                        parent.write_text(str(pid))
                try:
                    group.rmdir()
                except OSError:
                    continue  # a process forked meanwhile: the next round moves it
                self.groups.remove(group)
        with contextlib.suppress(OSError):  # groups left in it: returned below
            self.root.rmdir()
        return list(self.groups) + ([self.root] if self.root.exists() else [])

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is not None and self.process is not None:
            end_session(self.process)  # stopped (Ctrl-C, SIGTERM): the command goes too
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        left = self._remove_tree()
        if left:
            print(f"note: could not remove {', '.join(map(str, left))}", flush=True)
        if self.error:
            print(f"warning: {self.error}", flush=True)


def end_session(process: subprocess.Popen[str]) -> None:
    """Kill the session ``process`` leads (it was started with ``start_new_session``): the command and what it
    started, not what left the session (a daemon)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def stop_on_sigterm() -> None:
    """SIGTERM as SystemExit, so ``with`` blocks run: the command's session is killed and the groups removed."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def main() -> None:
    stop_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("factor", type=float, help="how many times slower each core is")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not argv:
        parser.error("no command given")
    with SlowCPU(args.factor) as slow:
        start = time.perf_counter()
        rc = slow.start(argv).wait()
        print(f"{time.perf_counter() - start:.2f} s, exit {rc}, {slow.made} capped groups", flush=True)
    raise SystemExit(rc)


if __name__ == "__main__":
    main()
