"""``rvault-pptx extract --directory ROOT``: discovery, extraction, the envelope.

The owner (this process) never touches the folder tree itself: the scan runs
in the directory-scan worker, which returns a root-relative manifest bound
to the request (exclusions and limits echoed exactly). The owner rejects a
manifest whose policy differs or that breaks a structural rule
(``batch_contract.manifest_issues``), recomputes completeness from
``skipped[]``, then extracts each deck in its own supervised worker, bound to
the file generation the scan saw. A deck refusal is a per-deck
``pptx_batch_deck_refused`` receipt, never a whole-root error. Discovery and
extraction share one enclosing deadline; decks it leaves unextracted are
``pptx_batch_deadline`` receipts.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.batch_contract import incomplete_reason_codes, manifest_issues
from rvault_pptx_evidence.discovery import MANIFEST_SCHEMA_VERSION, DirectoryLimits
from rvault_pptx_evidence.limits import DIRECTORY_SCAN, PPTX_EXTRACT, with_overrides
from rvault_pptx_evidence.versions import DIRECTORY_BATCH_SCHEMA_VERSION
from rvault_pptx_evidence.worker import run_isolated, run_operation

BATCH_DEADLINE_SECONDS = 3600.0
EXCLUSION_INVALID = "exclusion_invalid"
_WORKER_CODES = (
    refusals.WORKER_TIMEOUT,
    refusals.WORKER_RESOURCE_LIMIT,
    refusals.WORKER_FAILED,
    refusals.WORKER_MONITOR_UNAVAILABLE,
)


@dataclass(frozen=True)
class BatchRequest:
    root: Path
    exclusions: list[str]
    ocr_mode: str
    limits: DirectoryLimits = field(default_factory=DirectoryLimits)
    deadline_seconds: float = BATCH_DEADLINE_SECONDS


class BatchFailure(Exception):
    """A whole-root or protocol failure: the envelope carries the error (exit 2)."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope["error"]["message"])
        self.envelope = envelope


def failure_envelope(
    code: str, message: str, path: str | None, supervisor_reason_code: str | None = None
) -> dict[str, Any]:
    details = (
        {} if supervisor_reason_code is None else {"supervisor_reason_code": supervisor_reason_code}
    )
    return {
        "schema_version": DIRECTORY_BATCH_SCHEMA_VERSION,
        "kind": "pptx_directory_batch",
        "ok": False,
        "error": {"code": code, "message": message, "path": path},
        "details": details,
        "complete": False,
        "incomplete_reason_codes": [code],
        "results": [],
        "skipped": [{"path": ".", "reason": code}],
    }


def _scan(request: BatchRequest, deadline: float) -> dict[str, Any]:
    params = {"exclusions": request.exclusions, "limits": dataclasses.asdict(request.limits)}
    budget = max(min(DIRECTORY_SCAN.worker_wall_seconds, deadline - time.monotonic()), 0.01)
    try:
        manifest = run_operation(
            "scan_directory",
            request.root,
            params,
            limits=with_overrides(DIRECTORY_SCAN, worker_wall_seconds=budget),
        ).document
    except Refusal as refusal:
        if refusal.code == "pptx_batch_root_invalid":
            raise BatchFailure(
                failure_envelope(refusal.code, refusal.message, refusal.path)
            ) from None
        receipt = refusal.context.get("worker_failure") or {}
        code = (
            "pptx_batch_protocol_mismatch"
            if refusal.code == refusals.WORKER_PROTOCOL
            else "pptx_batch_worker_failed"
        )
        raise BatchFailure(
            failure_envelope(code, refusal.message, None, receipt.get("supervisor_reason_code"))
        ) from None
    problems = _manifest_problems(manifest, params)
    if problems:
        raise BatchFailure(
            failure_envelope(
                "pptx_batch_protocol_mismatch",
                f"the directory-scan worker's manifest is not acceptable: {problems[0]}",
                None,
            )
        )
    return manifest


def _manifest_problems(manifest: dict[str, Any], params: dict[str, Any]) -> list[str]:
    if (manifest.get("schema_version"), manifest.get("kind")) != (
        MANIFEST_SCHEMA_VERSION,
        "pptx_directory_manifest",
    ):
        return ["unknown manifest version"]
    if (
        manifest.get("exclusions") != params["exclusions"]
        or manifest.get("limits") != params["limits"]
    ):
        return ["the echoed exclusion policy or limits differ from the request"]
    skipped, decks = manifest["skipped"], manifest["decks"]
    found = manifest_issues(skipped, [d["path"] for d in decks], params["exclusions"], "decks")
    problems = [issue.message for issue in found]
    codes = incomplete_reason_codes(skipped)
    if manifest.get("incomplete_reason_codes") != codes or manifest.get("complete") != (not codes):
        problems.append("the worker's completeness differs from its own skipped[]")
    return problems


def run_batch(
    request: BatchRequest, progress: Callable[[str], None] = lambda _message: None
) -> dict[str, Any]:
    """The schema-v2 envelope for ``request`` (raises :class:`BatchFailure`)."""
    deadline = time.monotonic() + request.deadline_seconds
    manifest = _scan(request, deadline)
    decks = manifest["decks"]
    skipped = list(manifest["skipped"])
    progress(
        f"rvault-pptx: {len(decks)} decks found, {len(skipped)} entries skipped;"
        " extracting each in its own worker"
    )
    # Load the extractor's code (python-pptx, lxml) once, before the per-deck
    # forks: each worker then inherits it instead of re-importing it, which was
    # half of a 50-deck batch's CPU time. No deck byte is read here; parsing
    # stays in the limited workers.
    import rvault_pptx_evidence.extract  # noqa: F401

    results = []
    for index, deck in enumerate(decks, start=1):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            skipped.append({"path": deck["path"], "reason": "pptx_batch_deadline"})
            continue
        limits = with_overrides(
            PPTX_EXTRACT, worker_wall_seconds=min(PPTX_EXTRACT.worker_wall_seconds, remaining)
        )
        try:
            run = run_isolated(
                request.root / deck["path"],
                deck["path"],
                ocr_mode=request.ocr_mode,
                limits=limits,
                generation=deck["generation"],
            )
        except Refusal as refusal:
            reason = "pptx_batch_deck_refused"
            if refusal.code == refusals.WORKER_TIMEOUT and deadline - time.monotonic() <= 0:
                reason = "pptx_batch_deadline"
            record = {"path": deck["path"], "reason": reason}
            if reason == "pptx_batch_deck_refused":
                record["error_code"] = refusal.code
            skipped.append(record)
            progress(f"rvault-pptx: [{index}/{len(decks)}] {deck['path']}: {refusal.code}")
            continue
        except RuntimeError:
            skipped.append(
                {
                    "path": deck["path"],
                    "reason": "pptx_batch_deck_refused",
                    "error_code": "internal_error",
                }
            )
            progress(f"rvault-pptx: [{index}/{len(decks)}] {deck['path']}: internal_error")
            continue
        results.append({"path": deck["path"], "extraction": run.document})
        progress(
            f"rvault-pptx: [{index}/{len(decks)}] {deck['path']}:"
            f" {run.document['slide_count']} slides"
        )
    skipped.sort(key=lambda s: (s["path"], s["reason"]))
    codes = incomplete_reason_codes(skipped)
    return {
        "schema_version": DIRECTORY_BATCH_SCHEMA_VERSION,
        "kind": "pptx_directory_batch",
        "complete": not codes,
        "incomplete_reason_codes": codes,
        "results": results,
        "skipped": skipped,
    }
