"""One preflight: locate, read through the owner, run every check, one report.

The talks are checked as the read streams them where it can
(:mod:`.streamed`), else over the whole decoded tree; the report is the same.

Read-only and offline: the owner read takes no lock and writes nothing, the
checks open local artifacts read-only below their roots, and nothing asks a
provider. The report is ``db-preflight-report`` v1; its findings are sorted
(blocking first, then by talk, code and path) so the same vault state always
gives the same document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_tracking_db.preflight.authority import Located, locate, read_with_root
from rvault_tracking_db.preflight.capture_review import check_capture
from rvault_tracking_db.preflight.findings import Findings
from rvault_tracking_db.preflight.streamed import Checked, streamed_checks
from rvault_tracking_db.preflight.talk_checks import check_talks, talks_of

REPORT_VERSION = 1


@dataclass(frozen=True)
class PreflightRequest:
    """What ``rvault-db preflight VAULT_OR_DB`` asked for."""

    target: str
    capture: str | None = None  # a capture-identity file to compare with the talks


def run_preflight(request: PreflightRequest) -> dict[str, Any]:
    located = locate(request.target)
    # The talks one at a time where the stream proves its read.
    checked = streamed_checks(located, request.capture)
    if checked is None:
        checked = _whole_checks(located, request.capture)
    findings = checked.findings
    blocking, warnings, by_code = findings.counts()
    return {
        "blocking_count": blocking,
        "database": located.database,
        "findings": [f.to_dict() for f in findings.sorted()],
        "input_sha256": checked.sha256,
        "ok": blocking == 0,
        "schema_version": REPORT_VERSION,
        "summary": {"by_code": by_code},
        "talk_count": checked.talk_count,
        "vault_root": located.vault_root,
        "warning_count": warnings,
    }


def _whole_checks(located: Located, capture: str | None) -> Checked:
    """Every check over the decoded tree (what :func:`streamed_checks` cannot answer)."""
    findings = Findings()
    result = read_with_root(located, findings)
    database: Mapping[str, Any] = (result.database if result is not None else None) or {}
    talks = talks_of(database)
    check_talks(database, talks, Path(located.vault_root), findings)
    if capture is not None and result is not None:
        # Imported here: the capture reader brings the source-lane plan and
        # apply protocol, which status (identity_by_talk) never needs.
        from rvault_tracking_db.sources.identity_shortcut import read_capture

        config = database.get("config")
        check_capture(
            read_capture(capture),
            result.sha256,
            talks,
            config if isinstance(config, Mapping) else {},
            findings,
        )
    return Checked(findings, None if result is None else result.sha256, len(talks))
