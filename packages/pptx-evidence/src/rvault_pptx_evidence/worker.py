"""Run one operation (extract, PDF probe, directory scan) in a supervised worker.

A hostile deck, PDF or folder (a zip bomb past the directory bounds,
pathological XML, an image that makes the OCR engine balloon, a parser bug)
must not take down or exhaust the caller. The supervisor forks a child
before python-pptx is imported; the child joins its own process group,
lowers its address-space, CPU-time, file-size and descriptor limits with
``setrlimit``, sends its stderr to the supervisor and returns exactly one
canonical JSON payload over a pipe. The request binds the operation, the
schema and pipeline versions, the named limit profile with every value, the
operation's parameters, a fresh nonce and the exact file generation (device,
inode, size, times) the supervisor saw; the worker refuses a file replaced in
between, and the supervisor refuses a response that does not echo the
request. While waiting, the supervisor enforces the wall deadline, the
output bound and the sampled aggregate RSS of the worker's whole process
tree (psutil, fail-closed); on any breach the process group and every
sampled descendant are killed. A failure is reported as a closed
``pptx-worker-failure`` receipt: raw worker diagnostics are discarded after
a bounded count/hash/truncation summary, never shown. Forking (rather than
exec'ing a new interpreter) keeps the 1-slide case fast; the child never
returns into the caller's stack: it always leaves through ``os._exit``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import secrets
import selectors
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import canonical_bytes, sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.limits import DEFAULT_LIMITS, Limits
from rvault_pptx_evidence.source import file_generation
from rvault_pptx_evidence.versions import (
    PIPELINE_VERSION,
    SCHEMA_VERSION,
    WORKER_FAILURE_SCHEMA_VERSION,
)

_CHILD_CRASH = 70
REQUIRED_PSUTIL = "7.2.2"
OPERATIONS = ("extract", "probe_pdf", "scan_directory")
# Closed supervisor_reason_code vocabulary of the failure receipt.
REASON_WALL = "wall_time_limit"
REASON_RSS = "rss_limit"
REASON_OUTPUT = "output_limit"
REASON_SIGNAL = "terminated_by_signal"
REASON_NO_RESULT = "no_result"
REASON_MALFORMED = "malformed_result"
REASON_PROTOCOL = "protocol_mismatch"
REASON_MONITOR = "monitor_unavailable"


@dataclass(frozen=True)
class WorkerRun:
    document: dict[str, Any]
    worker_peak_rss_kib: int
    supervisor_peak_rss_kib: int
    sampled_peak_rss_bytes: int = 0


@dataclass
class _Watch:
    """What the supervisor observed while the worker ran."""

    peak_rss: int = 0
    inherited_rss: int = 0
    """The worker's RSS at fork, before it ran: pages it shares with the caller, which
    its RSS keeps counting, so the limit bounds what the worker adds, not the caller's
    own size (an in-process caller such as a test runner or a batch worker is large)."""
    diagnostics: bytearray = field(default_factory=bytearray)
    diagnostic_bytes: int = 0
    descendants: set[int] = field(default_factory=set)


def _apply_limits(limits: Limits) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a stray write fails with EFBIG instead
    resource.setrlimit(
        resource.RLIMIT_AS, (limits.worker_address_space_bytes, limits.worker_address_space_bytes)
    )
    resource.setrlimit(
        resource.RLIMIT_CPU, (limits.worker_cpu_seconds, limits.worker_cpu_seconds + 5)
    )
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, soft), hard))


def _generation(path: Path | None) -> list[int] | None:
    if path is None:
        return None
    try:
        return list(file_generation(os.lstat(path)))
    except OSError:
        return None  # the worker refuses with the precise code


def _request(
    operation: str, path: Path, params: dict[str, Any], limits: Limits, extra: Path | None
) -> dict[str, Any]:
    """What the worker is asked to do, bound to the file versions checked here."""
    return {
        "operation": operation,
        "extraction_schema_version": SCHEMA_VERSION,
        "extraction_pipeline_version": PIPELINE_VERSION,
        "limit_profile": dataclasses.asdict(limits),
        "file_generation": _generation(path),
        "companion_generation": _generation(extra),
        "params": params,
        "platform": _platform(),
        "nonce": secrets.token_hex(16),
    }


def _platform() -> dict[str, bool]:
    """Availability flags the containment depends on, bound with the generation."""
    return {
        "o_nofollow": hasattr(os, "O_NOFOLLOW"),
        "o_directory": hasattr(os, "O_DIRECTORY"),
        "dir_fd_open": os.open in os.supports_dir_fd,
        "process_groups": hasattr(os, "killpg") and hasattr(os, "setpgid"),
        "rlimit_as": hasattr(resource, "RLIMIT_AS"),
    }


def _refused(code: str, message: str, path: str | None) -> dict[str, Any]:
    return {"ok": False, "refusal": {"code": code, "message": message, "path": path}}


def _perform(path: Path, request: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The operation itself; heavy imports happen only here, in the child."""
    params = request["params"]
    expected = request["file_generation"]
    generation = tuple(expected) if expected is not None else None
    operation = request["operation"]
    if operation == "extract":
        from rvault_pptx_evidence.extract import extract_path

        document = extract_path(
            path,
            params["pptx_path"],
            ocr_mode=params["ocr_mode"],
            limits=limits,
            expected_generation=generation,
        )
        if params.get("rendered_pdf") is not None:
            from rvault_pptx_evidence.rendered_inspection import attach_inspection

            companion = request["companion_generation"]
            attach_inspection(
                document,
                Path(params["rendered_pdf"]),
                params["inspected_pages"],
                limits=limits,
                expected_generation=tuple(companion) if companion is not None else None,
            )
        return document
    if operation == "probe_pdf":
        from rvault_pptx_evidence.pdf_probe import probe_pdf

        return probe_pdf(path, limits=limits, expected_generation=generation).to_dict()
    if operation == "scan_directory":
        from rvault_pptx_evidence.discovery import scan_directory

        return scan_directory(path, params)
    raise ValueError(f"unknown worker operation {operation!r}")


def _out_of_memory(exc: BaseException) -> bool:
    """dlopen under a tight RLIMIT_AS fails as ImportError, mmap as ENOMEM."""
    import errno

    if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
        return True
    text = str(exc).lower()
    return "failed to map segment" in text or "cannot allocate memory" in text


def _child_payload(path: Path, request: dict[str, Any], limits: Limits) -> bytes:
    try:
        _apply_limits(limits)
        payload: dict[str, Any] = {"ok": True, "document": _perform(path, request, limits)}
    except Refusal as refusal:
        payload = _refused(refusal.code, refusal.message, refusal.path)
    except MemoryError:
        payload = _refused(
            refusals.WORKER_RESOURCE_LIMIT, "the worker exceeded its memory limit", str(path)
        )
    except (ImportError, OSError) as exc:
        if not _out_of_memory(exc):
            payload = {"ok": False, "internal": f"{type(exc).__name__}: {exc}"}
        else:
            payload = _refused(
                refusals.WORKER_RESOURCE_LIMIT,
                "the worker exceeded its memory limit (a library could not be mapped)",
                str(path),
            )
    except RecursionError:
        payload = _refused(
            refusals.WORKER_RESOURCE_LIMIT,
            "the input nests deeper than the worker's recursion limit",
            str(path),
        )
    except Exception as exc:  # noqa: BLE001 - reported to the supervisor as an internal failure
        payload = {"ok": False, "internal": f"{type(exc).__name__}: {exc}"}
    payload["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    payload["request"] = request
    return canonical_bytes(payload)


def _run_child(
    write_fd: int, diag_fd: int, path: Path, request: dict[str, Any], limits: Limits
) -> None:
    code = _CHILD_CRASH
    try:
        os.setpgid(0, 0)
        os.dup2(diag_fd, 2)  # diagnostics go to the supervisor, which only counts them
        os.close(diag_fd)
        data = _child_payload(path, request, limits)
        view = memoryview(data)
        while view:
            written = os.write(write_fd, view)
            view = view[written:]
        code = 0
    except BaseException:  # noqa: BLE001 - the child must never unwind into the caller
        code = _CHILD_CRASH
    finally:
        os._exit(code)


def _monitor() -> Any:
    """psutil at the exact pinned version, or a refusal: RSS monitoring fails closed."""
    try:
        import psutil
    except ImportError:
        psutil = None  # type: ignore[assignment]
    if psutil is None or psutil.__version__ != REQUIRED_PSUTIL:
        found = getattr(psutil, "__version__", "none")
        raise Refusal(
            refusals.WORKER_MONITOR_UNAVAILABLE,
            f"worker RSS monitoring needs psutil=={REQUIRED_PSUTIL} (found {found});"
            " install it with the package's constraints",
        )
    return psutil


def _sample_rss(psutil: Any, process: Any, watch: _Watch) -> int | None:
    """Sum of RSS over the worker and its descendants; None once the worker is gone."""
    try:
        total = process.memory_info().rss
        children = process.children(recursive=True)
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.AccessDenied:
        raise _Breach(REASON_MONITOR, "the worker's memory cannot be sampled") from None
    for descendant in children:
        watch.descendants.add(descendant.pid)
        with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            total += descendant.memory_info().rss
    watch.peak_rss = max(watch.peak_rss, total)
    return total


class _Breach(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _keep_diagnostics(watch: _Watch, chunk: bytes, limits: Limits) -> None:
    watch.diagnostic_bytes += len(chunk)
    room = limits.max_diagnostic_bytes - len(watch.diagnostics)
    if room > 0:
        watch.diagnostics.extend(chunk[:room])


def _supervise(
    pid: int, read_fd: int, diag_fd: int, limits: Limits, psutil: Any, watch: _Watch
) -> bytes:
    """The worker's whole payload; raising :class:`_Breach` leaves killing to the caller."""
    start = time.monotonic()
    deadline = start + limits.worker_wall_seconds
    process = psutil.Process(pid)
    chunks: list[bytes] = []
    total = 0
    open_fds = {read_fd, diag_fd}
    with selectors.DefaultSelector() as selector:
        for fd in open_fds:
            selector.register(fd, selectors.EVENT_READ)
        while read_fd in open_fds:
            now = time.monotonic()
            if now >= deadline:
                raise _Breach(
                    REASON_WALL,
                    f"the worker exceeded {limits.worker_wall_seconds:g} s and was killed",
                )
            rss = _sample_rss(psutil, process, watch)
            if rss is not None and rss - watch.inherited_rss > limits.max_rss_bytes:
                raise _Breach(
                    REASON_RSS,
                    f"the worker's process tree reached {rss // (1024 * 1024)} MiB RSS"
                    f" (limit {limits.max_rss_bytes // (1024 * 1024)} MiB) and was killed",
                )
            timeout = min(deadline - now, limits.rss_sample_seconds)
            for key, _ in selector.select(timeout=max(timeout, 0.0)):
                chunk = os.read(key.fd, 1 << 20)
                if not chunk:
                    selector.unregister(key.fd)
                    open_fds.discard(key.fd)
                    continue
                if key.fd == diag_fd:
                    _keep_diagnostics(watch, chunk, limits)
                    continue
                total += len(chunk)
                if total > limits.max_worker_output_bytes:
                    raise _Breach(REASON_OUTPUT, "the worker's output exceeded its limit")
                chunks.append(chunk)
        # The payload is complete; drain what diagnostics remain without waiting long.
        while diag_fd in open_fds and selector.select(timeout=0.2):
            chunk = os.read(diag_fd, 1 << 20)
            if not chunk:
                break
            _keep_diagnostics(watch, chunk, limits)
    return b"".join(chunks)


def _kill(pid: int, watch: _Watch) -> None:
    targets = [lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)]
    targets += [lambda d=d: os.kill(d, signal.SIGKILL) for d in sorted(watch.descendants)]
    for target in targets:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target()
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def failure_receipt(
    request: dict[str, Any], reason: str, watch: _Watch, limits: Limits
) -> dict[str, Any]:
    """The closed ``pptx-worker-failure`` v1 record (raw diagnostics never leave here)."""
    kept = bytes(watch.diagnostics)
    return {
        "schema_version": WORKER_FAILURE_SCHEMA_VERSION,
        "operation": request["operation"],
        "limit_profile": limits.name,
        "supervisor_reason_code": reason,
        "observed_peak_rss_bytes": watch.peak_rss,
        "diagnostics": {
            "line_count": kept.count(b"\n") + (1 if kept and not kept.endswith(b"\n") else 0),
            "byte_count": watch.diagnostic_bytes,
            "sha256": sha256_bytes(kept) if kept else None,
            "truncated": watch.diagnostic_bytes > len(kept),
        },
    }


@dataclass
class _Job:
    """One supervised run: what every failure receipt of it binds."""

    path: Path
    request: dict[str, Any]
    limits: Limits
    watch: _Watch = field(default_factory=_Watch)

    def fail(self, code: str, message: str, reason: str) -> Refusal:
        """The refusal naming the input, with this run's closed failure receipt."""
        receipt = failure_receipt(self.request, reason, self.watch, self.limits)
        return Refusal(code, message, str(self.path), worker_failure=receipt)


_BREACH_CODES = {
    REASON_WALL: refusals.WORKER_TIMEOUT,
    REASON_RSS: refusals.WORKER_RESOURCE_LIMIT,
    REASON_OUTPUT: refusals.WORKER_RESOURCE_LIMIT,
    REASON_MONITOR: refusals.WORKER_MONITOR_UNAVAILABLE,
}


def _containment() -> Any:
    """psutil, once the platform offers every primitive the containment needs."""
    psutil = _monitor()
    if not all(_platform().values()):
        raise Refusal(
            refusals.WORKER_MONITOR_UNAVAILABLE,
            "this platform lacks a containment primitive the worker needs: "
            + ", ".join(k for k, v in _platform().items() if not v),
        )
    return psutil


def _spawn(job: _Job, psutil: Any) -> tuple[int, int, int]:
    """Fork the worker; the supervisor keeps the read ends of its payload and stderr pipes.

    The child waits on a start pipe until its RSS at fork is taken (what it shares
    with the caller, :attr:`_Watch.inherited_rss`), so the limit judges only what
    it adds, whatever the caller's own size.
    """
    read_fd, write_fd = os.pipe()
    diag_read, diag_write = os.pipe()
    start_read, start_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
        os.close(read_fd)
        os.close(diag_read)
        os.close(start_write)
        if os.read(start_read, 1) != b"\0":
            os._exit(1)  # EOF: the supervisor was interrupted before it started us
        os.close(start_read)
        _run_child(write_fd, diag_write, job.path, job.request, job.limits)
    os.close(start_read)
    os.close(write_fd)
    os.close(diag_write)
    try:
        with contextlib.suppress(psutil.Error):
            job.watch.inherited_rss = psutil.Process(pid).memory_info().rss
        os.write(start_write, b"\0")
    finally:
        os.close(start_write)
    return pid, read_fd, diag_read


def _collect(job: _Job, pid: int, read_fd: int, diag_read: int, psutil: Any) -> bytes:
    """The worker's payload under supervision; a breach or an interruption kills it."""
    try:
        # The child does this itself; repeating it closes the race before its first step.
        with contextlib.suppress(PermissionError, ProcessLookupError):
            os.setpgid(pid, pid)
        return _supervise(pid, read_fd, diag_read, job.limits, psutil, job.watch)
    except _Breach as breach:
        _kill(pid, job.watch)
        raise job.fail(_BREACH_CODES[breach.reason], breach.message, breach.reason) from None
    except BaseException:
        _kill(pid, job.watch)  # interrupted: never leave a worker running behind the caller
        raise
    finally:
        os.close(read_fd)
        os.close(diag_read)


def _reap(job: _Job, pid: int) -> int:
    """The finished worker's exit status, its descendants ended and its peak RSS checked."""
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        status, usage = 0, None
    # Descendants (an OCR engine) must not outlive their worker either.
    _kill_leftovers(pid, job.watch)
    # Sampling can miss a short peak, or a worker that finished before the first
    # sample; the kernel's own high-water mark of the worker cannot, so a limit
    # passed between samples still fails closed.
    limits = job.limits
    if (
        usage is not None
        and usage.ru_maxrss * 1024 - job.watch.inherited_rss > limits.max_rss_bytes
    ):
        job.watch.peak_rss = max(job.watch.peak_rss, usage.ru_maxrss * 1024)
        raise job.fail(
            _BREACH_CODES[REASON_RSS],
            f"the worker reached {usage.ru_maxrss // 1024} MiB RSS"
            f" (limit {limits.max_rss_bytes // (1024 * 1024)} MiB)",
            REASON_RSS,
        )
    return status


def run_operation(
    operation: str,
    path: Path,
    params: dict[str, Any],
    *,
    limits: Limits = DEFAULT_LIMITS,
    companion: Path | None = None,
    generation: list[int] | None = None,
) -> WorkerRun:
    """Run ``operation`` on ``path`` in a supervised child; refusals come back as :class:`Refusal`.

    ``companion`` is a second input the operation reads (the rendered PDF of
    an extraction); its generation is bound in the request as well.
    ``generation`` is the version of ``path`` a directory scan saw; when given
    it is bound instead of a fresh ``lstat`` here.
    """
    if operation not in OPERATIONS:
        raise ValueError(f"unknown worker operation {operation!r}")
    psutil = _containment()
    request = _request(operation, path, params, limits, companion)
    if generation is not None:
        request["file_generation"] = list(generation)
    job = _Job(path, request, limits)
    pid, read_fd, diag_read = _spawn(job, psutil)
    raw = _collect(job, pid, read_fd, diag_read, psutil)
    status = _reap(job, pid)
    worker_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    supervisor_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return _decode(raw, status, job, worker_rss, supervisor_rss)


def _kill_leftovers(pid: int, watch: _Watch) -> None:
    """A sampled descendant still in the finished worker's process group is ended."""
    for descendant in sorted(watch.descendants):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(descendant) == pid:
                os.kill(descendant, signal.SIGKILL)


def _check_exit(raw: bytes, status: int, job: _Job) -> None:
    """A worker killed by a signal, or one that wrote nothing, has no answer to read."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        raise job.fail(
            refusals.WORKER_RESOURCE_LIMIT,
            f"the worker was terminated by signal {signal.Signals(signum).name}",
            REASON_SIGNAL,
        )
    if not raw:
        raise job.fail(
            refusals.WORKER_FAILED, "the worker exited without a result", REASON_NO_RESULT
        )


def _payload(raw: bytes, job: _Job) -> dict[str, Any]:
    """The worker's strict-JSON response, refused unless it echoes this run's request."""
    try:
        payload = loads_strict(raw)
    except StrictJSONError as exc:
        raise job.fail(
            refusals.WORKER_FAILED,
            f"the worker's result is not strict JSON ({exc.code})",
            REASON_MALFORMED,
        ) from None
    if not isinstance(payload, dict) or payload.get("request") != job.request:
        raise job.fail(
            refusals.WORKER_PROTOCOL,
            "the worker's response does not echo the request it was given",
            REASON_PROTOCOL,
        )
    return payload


def _document(payload: dict[str, Any], job: _Job) -> dict[str, Any] | None:
    """The answered document (an extraction at this schema and pipeline), or None."""
    document = payload.get("document")
    if payload.get("ok") is not True or not isinstance(document, dict):
        return None
    versions = (document.get("schema_version"), document.get("pipeline_version"))
    if job.request["operation"] == "extract" and versions != (SCHEMA_VERSION, PIPELINE_VERSION):
        raise job.fail(
            refusals.WORKER_PROTOCOL,
            "the worker answered with another schema or pipeline version",
            REASON_PROTOCOL,
        )
    return document


def _decode(raw: bytes, status: int, job: _Job, worker_rss: int, supervisor_rss: int) -> WorkerRun:
    """The worker's answer: its document, its refusal re-raised here, or an internal failure."""
    _check_exit(raw, status, job)
    payload = _payload(raw, job)
    document = _document(payload, job)
    if document is not None:
        return WorkerRun(document, worker_rss, supervisor_rss, job.watch.peak_rss)
    refusal = payload.get("refusal")
    if isinstance(refusal, dict):
        # Package-level refusals (not_a_zip, truncated_archive ...) carry no member
        # path; they are about the input itself, so name it.
        where = refusal.get("path")
        raise Refusal(
            str(refusal.get("code")),
            str(refusal.get("message")),
            str(job.path) if where is None else where,
        )
    raise RuntimeError(f"worker failed: {payload.get('internal', 'unknown failure')}")


def run_isolated(
    path: Path,
    pptx_path: str,
    *,
    ocr_mode: str,
    limits: Limits = DEFAULT_LIMITS,
    rendered_pdf: Path | None = None,
    inspected_pages: str | None = None,
    generation: list[int] | None = None,
) -> WorkerRun:
    """Extract ``path`` in a supervised child (optionally binding a rendered PDF)."""
    params: dict[str, Any] = {"pptx_path": pptx_path, "ocr_mode": ocr_mode}
    if rendered_pdf is not None:
        params["rendered_pdf"] = str(rendered_pdf)
        params["inspected_pages"] = inspected_pages
    return run_operation(
        "extract", path, params, limits=limits, companion=rendered_pdf, generation=generation
    )
