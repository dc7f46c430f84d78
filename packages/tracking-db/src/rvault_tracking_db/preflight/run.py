"""One preflight: locate, read through the owner, run every check, one report.

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

from rvault_tracking_db.preflight.authority import locate, read_with_root
from rvault_tracking_db.preflight.capture_review import check_capture
from rvault_tracking_db.preflight.findings import Findings
from rvault_tracking_db.preflight.talk_checks import check_talks, talks_of

REPORT_VERSION = 1


@dataclass(frozen=True)
class PreflightRequest:
    """What ``rvault-db preflight VAULT_OR_DB`` asked for."""

    target: str
    capture: str | None = None  # a capture-identity file to compare with the talks


def run_preflight(request: PreflightRequest) -> dict[str, Any]:
    located = locate(request.target)
    findings = Findings()
    result = read_with_root(located, findings)
    database: Mapping[str, Any] = (result.database if result is not None else None) or {}
    talks = talks_of(database)
    check_talks(database, talks, Path(located.vault_root), findings)
    if request.capture is not None and result is not None:
        # Imported here: the capture reader brings the source-lane plan and
        # apply protocol, which status (identity_by_talk) never needs.
        from rvault_tracking_db.sources.identity_shortcut import read_capture

        config = database.get("config")
        check_capture(
            read_capture(request.capture),
            result.sha256,
            talks,
            config if isinstance(config, Mapping) else {},
            findings,
        )
    blocking, warnings, by_code = findings.counts()
    return {
        "blocking_count": blocking,
        "database": located.database,
        "findings": [f.to_dict() for f in findings.sorted()],
        "input_sha256": None if result is None else result.sha256,
        "ok": blocking == 0,
        "schema_version": REPORT_VERSION,
        "summary": {"by_code": by_code},
        "talk_count": len(talks),
        "vault_root": located.vault_root,
        "warning_count": warnings,
    }
