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

from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.preflight import artifacts, collisions, decks, identity, pdfs, video
from rvault_tracking_db.preflight.authority import locate, read_with_root
from rvault_tracking_db.preflight.capture_review import check_capture
from rvault_tracking_db.preflight.findings import BLOCKING, Findings, TalkRef

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
    talks = _talks(database)
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


def check_talks(
    database: Mapping[str, Any],
    talks: list[tuple[TalkRef, Mapping[str, Any]]],
    vault_root: Path,
    findings: Findings,
    *,
    full: bool = True,
) -> None:
    """Every per-talk and cross-talk check over an already-read database.

    ``full=False`` is the light view ``status`` and the site show: the
    identity, collision and rejection checks and each deck binding's stored
    proof, without opening artifacts, probing PDFs or re-reading extractions.
    """
    config = database.get("config")
    config = config if isinstance(config, Mapping) else {}
    roots = SourceRoots.from_config(vault_root, config)
    probe = pdfs.pdf_prober() if full else None
    video_api = video.video_reader() if full else None
    for ref, talk in talks:
        identity.check_youtube_id(talk, ref, findings)
        identity.check_source_identity(talk, config, ref, findings)
        collisions.check_rejections(ref, talk, findings)
        if full:
            artifacts.check_artifacts(ref, talk, roots, findings, probe, video_api)
    collisions.check_duplicates(talks, findings)
    collisions.check_relations(talks, findings)
    decks.check_decks(database, talks, roots, findings, recheck=full)


def identity_by_talk(database: Mapping[str, Any], vault_root: Path) -> dict[int, dict[str, Any]]:
    """Each talk's identity findings (the light view), keyed by its index in ``talks``.

    ``{"blocking": n, "warnings": n, "findings": [...]}`` for every talk that
    has any; the deck binding's stored decision comes with it.
    """
    findings = Findings()
    check_talks(database, _talks(database), vault_root, findings, full=False)
    out: dict[int, dict[str, Any]] = {}
    for finding in findings.sorted():
        if finding.talk_index is None:
            continue
        entry = out.setdefault(finding.talk_index, {"blocking": 0, "warnings": 0, "findings": []})
        entry["blocking" if finding.severity == BLOCKING else "warnings"] += 1
        entry["findings"].append(finding.to_dict())
    return out


def _talks(database: Mapping[str, Any]) -> list[tuple[TalkRef, Mapping[str, Any]]]:
    items = database.get("talks")
    if not isinstance(items, list):
        return []
    out = []
    for index, talk in enumerate(items):
        if isinstance(talk, Mapping):
            filename = talk.get("filename")
            out.append((TalkRef(index, filename if isinstance(filename, str) else None), talk))
    return out
