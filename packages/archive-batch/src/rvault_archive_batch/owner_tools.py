"""Running an owner's console script as a child process, and what it cost.

The owners' public ``api`` modules are readers; acquisition (Whisper, deck
extraction, slide extraction) and the database's plan builders exist only as
console scripts. A task therefore runs the owner's script next to this
interpreter, reads its one JSON document from stdout, and keeps the exit
status: 0 done, 2 a refusal (permanent, the input must change), anything else
a failure worth retrying.

Each child is tied to its parent with ``PR_SET_PDEATHSIG``: when a Dask
worker is killed mid-task its owner process dies with it, so a retried task
never races a stale writer of the same artifact. The child's own peak RSS
and CPU time come from ``wait4``, which is why the process is reaped here
rather than by ``subprocess``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.strict_json import StrictJSONError, loads_strict

EXIT_REFUSED = 2
_PR_SET_PDEATHSIG = 1

try:  # Linux: the child dies with the worker thread's process
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # pragma: no cover - other platforms
    _prctl = None


def _die_with_parent() -> None:
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def script(name: str) -> str:
    """The console script installed beside this interpreter (a pipx venv), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.is_file():
        return str(beside)
    return shutil.which(name) or name


@dataclass(frozen=True)
class ToolRun:
    """One owner command: its exit status, stdout document and resource use."""

    command: tuple[str, ...]
    returncode: int
    document: dict[str, Any] | None
    stderr: str
    seconds: float
    cpu_seconds: float
    peak_rss_bytes: int

    @property
    def refused(self) -> bool:
        return self.returncode == EXIT_REFUSED

    @property
    def hint(self) -> str | None:
        """The owner's next-action hint (a ``cli-failure`` document's top-level ``hint``)."""
        hint = (self.document or {}).get("hint")
        return hint if isinstance(hint, str) else None

    @property
    def error(self) -> dict[str, Any]:
        """The ``cli-failure`` error object, or a synthesized one when stdout had none."""
        error = (self.document or {}).get("error")
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            return error
        if self.returncode < 0:
            name = signal.Signals(-self.returncode).name
            return {"code": "owner_killed", "message": f"{self.command[0]} got {name}"}
        tail = self.stderr.strip().splitlines()[-1:] or [""]
        return {"code": "owner_failed", "message": f"exit {self.returncode}: {tail[0]}"}


def _drain(stream: Any, sink: list[bytes]) -> None:
    sink.append(stream.read())


def run_tool(
    name: str, *args: str | os.PathLike[str], stdin: bytes | None = None, cwd: Path | None = None
) -> ToolRun:
    """Run ``name`` with ``args``; never raises for the child's own failure."""
    command = (script(name), *(os.fspath(a) for a in args))
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        preexec_fn=_die_with_parent,  # only a prctl call runs in the child
    )
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [
        threading.Thread(target=_drain, args=(process.stdout, out), daemon=True),
        threading.Thread(target=_drain, args=(process.stderr, err), daemon=True),
    ]
    for reader in readers:
        reader.start()
    if stdin is not None and process.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            process.stdin.write(stdin)
        process.stdin.close()
    for reader in readers:
        reader.join()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return ToolRun(
        command=(name, *command[1:]),
        returncode=process.returncode,
        document=_document(out[0] if out else b""),
        stderr=(err[0] if err else b"").decode("utf-8", "replace"),
        seconds=time.perf_counter() - started,
        cpu_seconds=usage.ru_utime + usage.ru_stime,
        peak_rss_bytes=usage.ru_maxrss * 1024,
    )


def _document(data: bytes) -> dict[str, Any] | None:
    try:
        value = loads_strict(data)
    except StrictJSONError:
        return None
    return value if isinstance(value, dict) else None
