"""Fixtures every package's tests share.

``run_cli`` runs an installed console script the way a user does and decodes
its single stdout JSON document; ``file_state`` captures what "nothing was
lost" means for a refused write: the exact bytes and the inode/generation.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        """The one JSON document on stdout (fails the test if there is more or less)."""
        return json.loads(self.stdout)


def console_script(name: str) -> str:
    """Path of a console script installed next to the running interpreter."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"console script {name} is not installed")
    return found


def run_cli(
    name: str,
    *args: str | os.PathLike[str],
    input_bytes: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 300,
) -> CliResult:
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    completed = subprocess.run(
        [console_script(name), *map(str, args)],
        input=input_bytes,
        capture_output=True,
        env=full_env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return CliResult(
        completed.returncode,
        completed.stdout.decode("utf-8"),
        completed.stderr.decode("utf-8", errors="replace"),
    )


def run_cli_applied(
    name: str,
    *args: str | os.PathLike[str],
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 300,
) -> CliResult:
    """A writer run the way the protocol asks: the dry run, then its ``next_command``.

    The dry run's refusal is returned as is (nothing was written). Otherwise
    the dry run must have written nothing and named its apply command, which
    runs verbatim (shell words, the program resolved like ``run_cli``) from
    the same working directory; its result is returned.
    """
    dry = run_cli(name, *args, env=env, cwd=cwd, timeout=timeout)
    if dry.returncode != 0:
        return dry
    report = dry.json
    assert report.get("database_written") is False, "a dry run never writes"
    command = report.get("next_command")
    assert isinstance(command, str), f"the dry run of {name} names no next_command"
    program, *words = shlex.split(command)
    assert program == name, command
    return run_cli(name, *words, env=env, cwd=cwd, timeout=timeout)


@dataclass(frozen=True)
class FileState:
    """Exact bytes plus the identity fields a silent replacement would change."""

    data: bytes
    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def file_state(path: str | os.PathLike[str]) -> FileState:
    st = os.lstat(path)
    with open(path, "rb") as handle:
        data = handle.read()
    return FileState(data, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def tree_state(root: str | os.PathLike[str]) -> dict[str, FileState | str]:
    """State of every entry below ``root`` (directories and links by kind)."""
    out: dict[str, FileState | str] = {}
    base = Path(root)
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base).as_posix()
        if path.is_symlink():
            out[rel] = "symlink:" + str(path.readlink())
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = file_state(path)
    return out


def pytest_configure(config: pytest.Config) -> None:
    """Run the suite with Python's own Ctrl-C handler, however it was launched; know the mark.

    A suite started in the background by a non-interactive shell (``make test &``,
    ``nohup``) inherits an ignored SIGINT, and so would every tool it spawns:
    the interrupt tests (a Ctrl-C reaching a console script, a deferred signal
    re-delivered after an install) would then test nothing and fail.
    """
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # pytest-xdist registers the mark this plugin adds; without xdist
    # (``-p no:xdist``) --strict-markers would refuse it.
    config.addinivalue_line("markers", "xdist_group(name): run these tests on one xdist worker")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Any:
    """Let pytest cache its assertion-rewritten test modules while it collects.

    pytest rewrites every test module's asserts on import (about 8 s of a
    worker's 11 s of collection here) and keeps the result in
    ``__pycache__/*-pytest-*.pyc``, but only writes it when
    ``sys.dont_write_bytecode`` is false, and our CI image (and this machine)
    set ``PYTHONDONTWRITEBYTECODE=1``. Collection allows the write, so the
    next run reads instead of rewriting; the tests themselves, and every
    process they spawn (the variable is inherited unchanged), run as before.
    """
    previous = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = previous


#: A test id longer than this spells a parameter's value (a generated document,
#: megabytes of bytes) instead of naming it; see ``pytest_collection_modifyitems``.
MAX_NODEID = 10_000


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse test ids that spell huge parameters; keep a module's shared fixture on one worker."""
    long = [item.nodeid[:160] for item in items if len(item.nodeid) > MAX_NODEID]
    if long:
        # pytest derives an id from each parameter's value; a 3 MiB bytes value
        # made node ids of 18 MB that every xdist worker escaped while collecting
        # (about 5 CPU s each) and shipped in every report of those tests.
        raise pytest.UsageError(
            f"{len(long)} test ids are over {MAX_NODEID} characters; give their "
            "parametrize ids= names: " + "; ".join(long[:5])
        )
    for item in items:
        if item.get_closest_marker("xdist_group") is None and _shares_a_built_fixture(item):
            item.add_marker(pytest.mark.xdist_group(_module_of(item)))


def _module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def _shares_a_built_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture built once for its module's tests.

    That is any module-scoped fixture, or a session-scoped one the test module
    itself defines. Under ``--dist loadgroup`` (make test) the tests of such a
    module form one xdist group, so one worker builds the fixture once; spread
    over both workers, each built it (in make test 2026-12-05: 19 modules built
    theirs twice or more, about 25 s of test time, a recorded talk's scaffold
    3.5 s, the site's browser 2.7 s, the claimed batch 2.5 s). A module that
    names its own group (tools/tests/test_demo.py) keeps it.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    module = _module_of(item)
    for definitions in info.name2fixturedefs.values():
        used = definitions[-1]
        if used.scope == "module" or (used.scope == "session" and used.baseid == module):
            return True
    return False


@pytest.fixture
def cli() -> Callable[..., CliResult]:
    return run_cli


@pytest.fixture
def snapshot_file() -> Callable[[str | os.PathLike[str]], FileState]:
    return file_state


@pytest.fixture
def snapshot_tree() -> Callable[[str | os.PathLike[str]], dict[str, FileState | str]]:
    return tree_state


def wait_until_open(pid: int, path: str | os.PathLike[str], deadline: float = 60.0) -> None:
    """Block until process ``pid`` holds ``path`` open.

    Signal tests use it to know the child got far enough (its handlers are
    installed, it is waiting on a lock) before they send the signal.
    """
    target = Path(path).resolve()
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if fd.readlink() == target:
                    return
        time.sleep(0.02)
    raise AssertionError(f"{path} was never opened by process {pid}")
