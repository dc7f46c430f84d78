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
from typing import Any, NamedTuple

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


class Change(NamedTuple):
    """One value normalize sets (its report entry, a tuple until the report is made: a
    10,000-talk normalize holds 40,000 of them while the talks stream)."""

    filename: str
    path: str
    before_exists: bool
    before: Any
    after: Any


class Review(NamedTuple):
    """One finding left for review (its report entry, a tuple like :class:`Change`)."""

    filename: str
    path: str
    code: str


@dataclass
class NormalizeOutcome:
    database: dict[str, Any] | None
    changes: list[Change] = field(default_factory=list)
    review: list[Review] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)

    def report_fields(self) -> dict[str, Any]:
        """The queue report's normalize members."""
        return {
            "change_count": len(self.changes),
            "changes": [change._asdict() for change in self.changes],
            "review": [review._asdict() for review in self.review],
            "skipped": self.skipped,
        }


@dataclass
class _Edit:
    """One talk being normalized: its stored record, the copy that changes, and the outcome
    every change and review item of it is reported to."""

    talk: Mapping[str, Any]
    updated: dict[str, Any]
    path: str
    filename: str
    outcome: NormalizeOutcome

    def change(self, name: str, after: Any) -> None:
        """Report ``name`` moving to ``after`` and set it on the copy."""
        change = Change(
            self.filename, jp(self.path, name), name in self.talk, self.talk.get(name), after
        )
        self.outcome.changes.append(change)
        self.updated[name] = after

    def review(self, path: str, code: str) -> None:
        self.outcome.review.append(Review(self.filename, path, code))


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
        updated = normalize_talk(outcome, position, talk, roots, (trouble or {}).get(position, ()))
        if updated is not None:
            new_talks[position] = updated
    if outcome.changes:
        new_database = dict(database)
        new_database["talks"] = new_talks
        outcome.database = new_database
    return outcome


def normalize_talk(
    outcome: NormalizeOutcome,
    position: int,
    talk: Any,
    roots: SourceRoots,
    issues: Sequence[Issue],
) -> dict[str, Any] | None:
    """Talk ``position`` normalized, its changes, review items and skip reported to
    ``outcome``: its new value when it changed (``position`` then added to
    ``outcome.changed``), else None.

    One talk needs nothing but itself and its ``issues`` (the read's warnings
    and :func:`talk_identity_trouble`'s), so a streamed read plans talk by talk
    with the function :func:`plan_normalize` loops over.
    """
    if not isinstance(talk, Mapping):
        return None
    filename = str(talk.get("filename"))
    if live_claim(talk) is not None:
        outcome.skipped.append({"filename": filename, "reason": "live_claim"})
        return None
    edit = _Edit(talk, dict(talk), jp("$", "talks", position), filename, outcome)
    _normalize_talk(edit, roots, issues)
    if edit.updated == talk:
        return None
    outcome.changed.append(position)
    return edit.updated


def _normalize_talk(edit: _Edit, roots: SourceRoots, issues: Sequence[Issue]) -> None:
    """Capabilities re-derived, the legacy status mapped, findings listed, then a requeue
    when the read's warnings make the analysis unusable."""
    resolution = resolve(edit.talk, roots)
    capabilities = resolution.capabilities
    if edit.talk.get("source_capabilities") != capabilities:
        edit.change("source_capabilities", capabilities)
    _normalize_status(edit, bool(capabilities))
    for finding in resolution.findings:
        edit.review(jp(edit.path, finding.field), finding.code)
    reason = requeue_reason(issues)
    if reason is not None:
        _requeue(edit, issues, reason)


def _normalize_status(edit: _Edit, has_sources: bool) -> None:
    """A legacy no-source status becomes ``skipped_no_sources`` unless sources exist now,
    which (like a skipped talk that has them) is for review."""
    status = edit.talk.get("status")
    where = jp(edit.path, "status")
    if status in LEGACY_NO_SOURCE_STATUSES:
        if not has_sources:
            edit.change("status", SKIPPED_NO_SOURCES)
        else:
            edit.review(where, "legacy_status_has_sources")
    elif status == SKIPPED_NO_SOURCES and has_sources:
        edit.review(where, "skipped_no_sources_has_capabilities")


def _requeue(edit: _Edit, issues: Sequence[Issue], reason: str) -> None:
    """An analysed talk whose analysis is unusable is reprocessed (``reason``: what the
    talk's issues give); any talk is listed for review."""
    for issue in issues:
        edit.review(issue.path, issue.code)
    transition = invalidate_analysis(edit.updated, ["pattern_observations"], reason, edit.path)
    if transition is None:
        return
    for name in ("status", "reprocess_reason", "reprocess_generation"):
        edit.change(name, edit.updated[name])


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
        stale = talk_identity_trouble(check, catalog, position, talk)
        if stale:
            trouble[position] = stale
    return trouble


def talk_identity_trouble(
    check: IdentityCheck,
    catalog: Mapping[str, Mapping[str, Any]],
    position: int,
    talk: Any,
) -> list[Issue]:
    """Talk ``position``'s part of :func:`identity_trouble` (``catalog``: the database's
    :func:`~rvault_tracking_db.evidence.deck_catalog`; ``check`` is shared by the run)."""
    if not isinstance(talk, Mapping) or not is_analysed(talk) or live_claim(talk) is not None:
        return []
    receipts = owner_receipts(talk, deck_record(catalog, talk))
    return [s.issue(jp("$", "talks", position)) for s in check.stale(talk, receipts=receipts)]
