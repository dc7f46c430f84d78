"""Run one extraction in a forked, resource-limited child process.

A hostile deck (zip bomb that slipped past the directory bounds, pathological
XML, a parser bug) must not take down or exhaust the caller. The supervisor
forks a child before python-pptx is imported, the child lowers its own
address-space, CPU-time, file-size and descriptor limits with
``setrlimit`` and returns exactly one canonical JSON payload over a pipe.
The request binds the operation, the schema and pipeline versions, the fixed
limit profile and the exact file generation (device, inode, size, times) the
supervisor saw; the worker refuses a deck replaced in between, and the
supervisor refuses a response that does not echo the request. The supervisor
enforces a wall-clock deadline, kills the child's process
group when it is exceeded, bounds the payload size and decodes it with the
strict JSON decoder. Forking (rather than exec'ing a new interpreter) keeps
the 1-slide case fast; the child never returns into the caller's stack: it
always leaves through ``os._exit``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import selectors
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import canonical_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.limits import DEFAULT_LIMITS, Limits
from rvault_pptx_evidence.source import file_generation
from rvault_pptx_evidence.versions import PIPELINE_VERSION, SCHEMA_VERSION

_CHILD_CRASH = 70


@dataclass(frozen=True)
class WorkerRun:
    document: dict[str, Any]
    worker_peak_rss_kib: int
    supervisor_peak_rss_kib: int


def _apply_limits(limits: Limits) -> None:
    signal.signal(
        signal.SIGXFSZ, signal.SIG_IGN
    )  # a stray file write fails with EFBIG instead of killing
    resource.setrlimit(
        resource.RLIMIT_AS, (limits.worker_address_space_bytes, limits.worker_address_space_bytes)
    )
    resource.setrlimit(
        resource.RLIMIT_CPU, (limits.worker_cpu_seconds, limits.worker_cpu_seconds + 5)
    )
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, soft), hard))


def _request(path: Path, ocr_mode: str, limits: Limits) -> dict[str, Any]:
    """What the worker is asked to do, bound to the file version checked here."""
    try:
        generation: list[int] | None = list(file_generation(os.lstat(path)))
    except OSError:
        generation = None  # the worker refuses with the precise code
    return {
        "operation": "extract",
        "extraction_schema_version": SCHEMA_VERSION,
        "extraction_pipeline_version": PIPELINE_VERSION,
        "ocr_mode": ocr_mode,
        "limit_profile": dataclasses.asdict(limits),
        "file_generation": generation,
    }


def _refused(code: str, message: str, path: str | None) -> dict[str, Any]:
    return {"ok": False, "refusal": {"code": code, "message": message, "path": path}}


def _child_payload(
    path: Path, pptx_path: str, ocr_mode: str, limits: Limits, request: dict[str, Any]
) -> bytes:
    try:
        _apply_limits(limits)
        from rvault_pptx_evidence.extract import extract_path  # heavy imports happen only here

        generation = request["file_generation"]
        document = extract_path(
            path,
            pptx_path,
            ocr_mode=ocr_mode,
            limits=limits,
            expected_generation=tuple(generation) if generation is not None else None,
        )
        payload: dict[str, Any] = {"ok": True, "document": document}
    except Refusal as refusal:
        payload = _refused(refusal.code, refusal.message, refusal.path)
    except MemoryError:
        payload = _refused(
            refusals.WORKER_RESOURCE_LIMIT,
            "the extraction exceeded the worker memory limit",
            str(path),
        )
    except RecursionError:
        payload = _refused(
            refusals.WORKER_RESOURCE_LIMIT,
            "the package nests deeper than the extractor's recursion limit",
            str(path),
        )
    except Exception as exc:  # noqa: BLE001 - reported to the supervisor as an internal failure
        payload = {"ok": False, "internal": f"{type(exc).__name__}: {exc}"}
    payload["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    payload["request"] = request
    return canonical_bytes(payload)


def _run_child(
    write_fd: int,
    path: Path,
    pptx_path: str,
    ocr_mode: str,
    limits: Limits,
    request: dict[str, Any],
) -> None:
    code = _CHILD_CRASH
    try:
        os.setpgid(0, 0)
        data = _child_payload(path, pptx_path, ocr_mode, limits, request)
        view = memoryview(data)
        while view:
            written = os.write(write_fd, view)
            view = view[written:]
        code = 0
    except BaseException:  # noqa: BLE001 - the child must never unwind into the caller
        code = _CHILD_CRASH
    finally:
        os._exit(code)


def _read_with_deadline(read_fd: int, limits: Limits) -> bytes:
    """The worker's whole payload; raising leaves killing the worker to the caller."""
    deadline = time.monotonic() + limits.worker_wall_seconds
    chunks: list[bytes] = []
    total = 0
    with selectors.DefaultSelector() as selector:
        selector.register(read_fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Refusal(
                    refusals.WORKER_TIMEOUT,
                    f"the extraction worker exceeded {limits.worker_wall_seconds:.0f}"
                    " s and was killed",
                )
            if not selector.select(timeout=remaining):
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > limits.max_worker_output_bytes:
                raise Refusal(
                    refusals.WORKER_RESOURCE_LIMIT,
                    "the extraction worker's output exceeded its limit",
                )
            chunks.append(chunk)


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            continue
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def run_isolated(
    path: Path, pptx_path: str, *, ocr_mode: str, limits: Limits = DEFAULT_LIMITS
) -> WorkerRun:
    """Extract ``path`` in a limited child; refusals come back as :class:`Refusal`."""
    request = _request(path, ocr_mode, limits)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
        os.close(read_fd)
        _run_child(write_fd, path, pptx_path, ocr_mode, limits, request)
    os.close(write_fd)
    try:
        # The child does this itself; repeating it closes the race before its first step.
        with contextlib.suppress(PermissionError, ProcessLookupError):
            os.setpgid(pid, pid)
        raw = _read_with_deadline(read_fd, limits)
    except BaseException:
        _kill(pid)  # interrupted or refused: never leave a worker running behind the caller
        raise
    finally:
        os.close(read_fd)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = 0
    worker_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    supervisor_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        raise Refusal(
            refusals.WORKER_RESOURCE_LIMIT,
            f"the extraction worker was terminated by signal {signal.Signals(signum).name}",
            str(path),
        )
    if not raw:
        raise Refusal(
            refusals.WORKER_FAILED, "the extraction worker exited without a result", str(path)
        )
    try:
        payload = loads_strict(raw)
    except StrictJSONError as exc:
        raise Refusal(
            refusals.WORKER_FAILED, f"the worker's result is not strict JSON ({exc})", str(path)
        ) from None
    if payload.get("request") != request:
        raise Refusal(
            refusals.WORKER_PROTOCOL,
            "the worker's response does not echo the request it was given",
            str(path),
        )
    document = payload.get("document")
    if payload.get("ok") is True and isinstance(document, dict):
        if (document.get("schema_version"), document.get("pipeline_version")) != (
            SCHEMA_VERSION,
            PIPELINE_VERSION,
        ):
            raise Refusal(
                refusals.WORKER_PROTOCOL,
                "the worker answered with another schema or pipeline version",
                str(path),
            )
        return WorkerRun(document, worker_rss, supervisor_rss)
    refusal = payload.get("refusal")
    if isinstance(refusal, dict):
        # Package-level refusals (not_a_zip, truncated_archive ...) carry no member
        # path; they are about the deck itself, so name it.
        where = refusal.get("path")
        raise Refusal(
            str(refusal.get("code")),
            str(refusal.get("message")),
            str(path) if where is None else where,
        )
    raise RuntimeError(f"extraction worker failed: {payload.get('internal', 'unknown failure')}")
