"""``write``: authorize a persisted batch, render it, replace it as one transaction.

Three steps, each its own module: :mod:`authorize` (receipts and scoring
generations), :mod:`talk_view` + :mod:`markdown` (rendering), and
:mod:`replacement` (preflight and the batch commit). Every refusal happens
before the first byte is written; the report is the ``analysis-write-report``
v1 contract.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import BundleReport, FaultHook, WriterError, read_snapshot
from rvault_returns_persistence.api import ReturnsFileWording, read_returns_file

from rvault_analysis_writer import markdown, replacement
from rvault_analysis_writer.authorize import Authorization, AuthorizedTalk, authorize
from rvault_analysis_writer.evidence_bytes import EvidenceCheck
from rvault_analysis_writer.placement import check_output_directory
from rvault_analysis_writer.talk_view import TalkView, build_view

REPORT_VERSION = 1
MAX_RETURNS_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class WriteRequest:
    returns_path: Path
    output_directory: Path
    database_path: Path
    catalog_dir: Path | None = None
    fault: FaultHook | None = None
    outside_vault: bool = False


_RETURNS_WORDING = ReturnsFileWording(
    not_regular="{path} is not a regular file",
    not_regular_hint="pass the RETURNS.json file that `rvault-returns persist` accepted",
    unreadable="cannot read {path}: {reason}",
    unreadable_hint="pass the RETURNS.json that `rvault-returns persist` accepted",
    too_large="{path} is larger than {limit} bytes",
    too_large_hint="render one batch at a time",
    invalid="{path}: {detail}",
    invalid_hint="the returns file must be the exact strict JSON that was persisted",
)


def read_returns(path: Path) -> Any:
    """The batch file, decoded strictly (duplicate keys, NaN, bad UTF-8 refused)."""
    return read_returns_file(
        path, max_bytes=MAX_RETURNS_BYTES, wording=_RETURNS_WORDING, follow_symlinks=True
    )


def view_of(member: AuthorizedTalk) -> TalkView:
    feedback = member.ret.get("catalog_feedback")
    return build_view(
        member.talk,
        claim=member.claim,
        return_version=member.return_version,
        catalog_feedback=feedback if isinstance(feedback, dict) else None,
    )


def render_batch(
    members: tuple[AuthorizedTalk, ...], progress: Callable[[str], None] | None = None
) -> dict[str, bytes]:
    bodies: dict[str, bytes] = {}
    for index, member in enumerate(m for m in members if m.rendered):
        bodies[member.filename] = markdown.render(view_of(member))
        if progress is not None and (index + 1) % 25 == 0:
            progress(f"rendered {index + 1} analyses")
    return bodies


def _check_database_unchanged(path: Path, read_sha256: str) -> None:
    """The analyses must match the database as it is when they are installed.

    A persist or claim that landed while the batch was rendered would make
    them describe a state that no longer exists, so the bytes are read again
    right before the commit.
    """
    try:
        now = read_snapshot(path).sha256
    except WriterError as exc:
        now = f"unreadable ({exc.code})"
    if now != read_sha256:
        raise Refusal(
            "database_changed",
            f"{path} changed while the batch was rendered",
            str(path),
            hint="render again once the other writer has finished",
            expected_sha256=read_sha256,
        )


def _written(
    auth: Authorization,
    bodies: dict[str, bytes],
    plan: replacement.Plan,
    report: BundleReport | None,
    directory: Path,
) -> list[dict[str, Any]]:
    """One row per rendered talk: its bytes, what they replaced, and how durably."""
    written = []
    for member in auth.talks:
        if not member.rendered:
            continue
        name = member.filename
        prior = plan.expected[name]
        file_report = report.files[name] if report is not None else None
        written.append(
            {
                "bytes": len(bodies[name]),
                "durability_state": file_report.durability_state if file_report else "unchanged",
                "filename": name,
                "path": str(directory / name),
                "pattern_scoring_generation_status": member.talk.get(
                    "pattern_scoring_generation_status"
                ),
                "previous_kind": prior.kind,
                "previous_sha256": sha256_bytes(prior.data) if prior.data is not None else None,
                "result_payload_sha256": member.receipt,
                "sha256": sha256_bytes(bodies[name]),
                "warnings": list(file_report.warnings) if file_report else [],
            }
        )
    return written


def _skipped(auth: Authorization) -> list[dict[str, Any]]:
    """The batch members whose result renders no analysis."""
    return [
        {
            "filename": m.filename,
            "reason": "skipped_result_not_rendered",
            "result_payload_sha256": m.receipt,
            "result_status": m.ret["status"],
        }
        for m in auth.talks
        if not m.rendered
    ]


def write_analyses(
    request: WriteRequest, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Render and install a completed batch; return the report (or raise a Refusal)."""
    check_output_directory(
        request.output_directory,
        request.database_path.parent,
        outside_vault=request.outside_vault,
    )
    document = read_returns(request.returns_path)
    auth = authorize(document, database_path=request.database_path, catalog_dir=request.catalog_dir)
    bodies = render_batch(auth.talks, progress)
    check = EvidenceCheck.of_database(request.database_path.parent, auth.database)
    stale = [s for m in auth.talks if m.rendered for s in check.stale(m.talk)]
    names = sorted(bodies)
    plan = replacement.preflight(request.output_directory, names)
    _check_database_unchanged(request.database_path, auth.database_sha256)
    if progress is not None:
        progress(f"replacing {len(names)} analyses in {request.output_directory}")
    report = replacement.commit(plan, bodies, request.fault) if names else None
    written = _written(auth, bodies, plan, report, request.output_directory)
    return {
        "batch": {
            "batch_id": auth.batch_id,
            "member_count": len(auth.talks),
            "run_id": auth.run_id,
        },
        "bytes_written": sum(w["bytes"] for w in written if w["durability_state"] != "unchanged"),
        "catalog": {"fingerprint": auth.catalog_fingerprint, "source": auth.catalog_source},
        "database": {"path": str(request.database_path), "sha256": auth.database_sha256},
        "durability_state": report.durability_state if report is not None else "unchanged",
        "files_written": bool(report is not None and report.database_written),
        "ok": True,
        "output_directory": str(request.output_directory),
        "output_directory_created": plan.create and report is not None,
        "rendering_contract": markdown.RENDERING_CONTRACT,
        "schema_version": REPORT_VERSION,
        "skipped": _skipped(auth),
        "stale_evidence": [s.to_dict() for s in stale],
        "warnings": [
            *(report.warnings if report is not None else []),
            *(s.message() for s in stale),
        ],
        "written": written,
    }
