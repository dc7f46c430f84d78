"""Deriving ``source_capabilities`` and normalizing legacy no-source statuses.

Every talk's capability list is recomputed with the one shared resolver and
stored as ``source_capabilities`` when it differs. A legacy no-video /
no-transcript status becomes ``skipped_no_sources`` only when that list is
empty; with a capability it is left for review. Talks under a live claim are
not touched: their sources are part of the generation a worker is using.

A talk whose analysis is no usable prior state keeps no usable analysis:
its evidence ledger breaks its contract (the read's warning,
:mod:`rvault_tracking_db.assessment.trouble`), or a persisted evidence
identity no longer matches its file (the transcript re-fetched, the slide
PDF, deck extraction or recording replaced after the analysis:
:func:`identity_trouble`). An analysed one moves to ``needs-reprocessing``
(``reprocess_reason: evidence_ledger_invalid`` or
``evidence_identity_stale``, ``reprocess_generation + 1``), so the next
claim reprocesses it while every other talk is left alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment.trouble import requeue_reason
from rvault_tracking_db.capabilities import SourceRoots, resolve
from rvault_tracking_db.evidence import deck_catalog, deck_record
from rvault_tracking_db.evidence_identity import IdentityCheck, is_analysed, owner_receipts
from rvault_tracking_db.mutations.reprocess import invalidate_analysis
from rvault_tracking_db.queue.batches import live_claim, talks_of
from rvault_tracking_db.queue.issues import jp

SKIPPED_NO_SOURCES = "skipped_no_sources"
LEGACY_NO_SOURCE_STATUSES = frozenset(
    {
        "skipped_no_video",
        "skipped_no_transcript",
        "skipped_no_video_or_transcript",
        "no_video",
        "no_transcript",
        "no-video",
        "no-transcript",
    }
)


@dataclass
class NormalizeOutcome:
    database: dict[str, Any] | None
    changes: list[dict[str, Any]] = field(default_factory=list)
    review: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)


def plan_normalize(
    database: Mapping[str, Any],
    roots: SourceRoots,
    trouble: Mapping[int, Sequence[Issue]] | None = None,
) -> NormalizeOutcome:
    """``trouble``: the read's warnings by talk index (``assessment.trouble.by_talk``)."""
    talks = talks_of(database)
    new_talks = list(talks)
    outcome = NormalizeOutcome(None)
    for position, talk in enumerate(talks):
        if not isinstance(talk, Mapping):
            continue
        filename = str(talk.get("filename"))
        path = jp("$", "talks", position)
        if live_claim(talk) is not None:
            outcome.skipped.append({"filename": filename, "reason": "live_claim"})
            continue
        resolution = resolve(talk, roots)
        capabilities = resolution.capabilities
        updated = dict(talk)
        if talk.get("source_capabilities") != capabilities:
            outcome.changes.append(
                {
                    "filename": filename,
                    "path": jp(path, "source_capabilities"),
                    "before_exists": "source_capabilities" in talk,
                    "before": talk.get("source_capabilities"),
                    "after": capabilities,
                }
            )
            updated["source_capabilities"] = capabilities
        status = talk.get("status")
        if status in LEGACY_NO_SOURCE_STATUSES:
            if not capabilities:
                outcome.changes.append(
                    {
                        "filename": filename,
                        "path": jp(path, "status"),
                        "before_exists": True,
                        "before": status,
                        "after": SKIPPED_NO_SOURCES,
                    }
                )
                updated["status"] = SKIPPED_NO_SOURCES
            else:
                outcome.review.append(
                    {
                        "filename": filename,
                        "path": jp(path, "status"),
                        "code": "legacy_status_has_sources",
                    }
                )
        elif status == SKIPPED_NO_SOURCES and capabilities:
            outcome.review.append(
                {
                    "filename": filename,
                    "path": jp(path, "status"),
                    "code": "skipped_no_sources_has_capabilities",
                }
            )
        for finding in resolution.findings:
            outcome.review.append(
                {"filename": filename, "path": jp(path, finding.field), "code": finding.code}
            )
        issues = (trouble or {}).get(position, ())
        reason = requeue_reason(issues)
        if reason is not None:
            _requeue(talk, updated, path, filename, (issues, reason), outcome)
        if updated != talk:
            new_talks[position] = updated
            outcome.changed.append(position)
    if outcome.changes:
        new_database = dict(database)
        new_database["talks"] = new_talks
        outcome.database = new_database
    return outcome


def _requeue(
    talk: Mapping[str, Any],
    updated: dict[str, Any],
    path: str,
    filename: str,
    trouble: tuple[Sequence[Issue], str],
    outcome: NormalizeOutcome,
) -> None:
    """An analysed talk whose analysis is unusable is reprocessed (``trouble``: the talk's
    issues and the reason they give); any talk is listed for review."""
    issues, reason = trouble
    for issue in issues:
        outcome.review.append({"filename": filename, "path": issue.path, "code": issue.code})
    transition = invalidate_analysis(updated, ["pattern_observations"], reason, path)
    if transition is None:
        return
    for name in ("status", "reprocess_reason", "reprocess_generation"):
        outcome.changes.append(
            {
                "filename": filename,
                "path": jp(path, name),
                "before_exists": name in talk,
                "before": talk.get(name),
                "after": updated[name],
            }
        )


def identity_trouble(database: Mapping[str, Any], roots: SourceRoots) -> dict[int, list[Issue]]:
    """``evidence_identity_stale`` warnings of every analysed talk without a live claim.

    Judged from the files and the database's own owner records (the attached
    recording, the promoted PDF, the deck receipt: size first, hash only when
    needed); no owner reader is needed, so normalize requeues the same talks
    ``rvault-db status`` shows as needing reprocessing.
    """
    check = IdentityCheck(roots)
    catalog = deck_catalog(database)
    trouble: dict[int, list[Issue]] = {}
    for position, talk in enumerate(talks_of(database)):
        if not isinstance(talk, Mapping) or not is_analysed(talk) or live_claim(talk) is not None:
            continue
        receipts = owner_receipts(talk, deck_record(catalog, talk))
        stale = check.stale(talk, receipts=receipts)
        if stale:
            trouble[position] = [s.issue(jp("$", "talks", position)) for s in stale]
    return trouble
