"""Public light reader of tracking-db for other owners (returns-persistence, analysis-writer).

Standard library plus ``rvault_contracts`` only: importing it never loads a
media library. It exposes the one shared source-capability resolver, the
state-bound terminal skip rules, the YouTube/Drive ID parsers, and the claim
readers (deep claim/baseline validation, live batch members, epochs), so a
consumer never reimplements the queue owner's decisions. A transcript
owner context is built from :func:`transcript_owner` (the talk's YouTube ID,
its attached recording's digest and duration), the same facts ``rvault-db
status`` uses: ``OwnerContext(**transcript_owner(talk).kwargs())``. A talk's
whole evidence summary, as ``rvault-db status`` renders it, is
:func:`talk_evidence` (transcript, deck, manifest, slides, recording, and an
analysed talk's persisted evidence identities its files no longer have);
:class:`IdentityCheck` judges those identities alone (``rvault-analysis
write`` and ``site`` report the same stale evidence through it). It also exposes the
owner read of ``tracking-database.json`` (:func:`read_database`: no-follow
snapshot, strict decode, full schema assessment), the only way another owner
reads the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rvault_contracts.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from rvault_tracking_db import apply_protocol as apply_protocol  # dry run / --apply: persist
    from rvault_tracking_db import persist_write as persist_write  # rvault-returns persist
    from rvault_tracking_db.evidence import (
        OwnerReaders,
        TalkEvidence,
        deck_catalog,
        deck_record,
        talk_evidence,
    )
    from rvault_tracking_db.evidence_identity import (
        EVIDENCE_IDENTITY_STALE,
        IdentityCheck,
        StaleIdentity,
        is_analysed,
        owner_receipts,
    )
from rvault_tracking_db.capabilities import (
    LOCAL_CAPABILITIES,
    REMOTE_CAPABILITIES,
    Resolution,
    SourceRoots,
    resolve,
    source_capabilities,
)
from rvault_tracking_db.ids import google_drive_id, youtube_id
from rvault_tracking_db.media_probe import check_recording, recording_shows_video
from rvault_tracking_db.queue.baseline import average, baseline_issues
from rvault_tracking_db.queue.batches import epoch_issues, epochs, live_claim, live_members
from rvault_tracking_db.queue.claims import (
    CLAIM_VERSIONS,
    RETURN_VERSION,
    claim_issues,
    claim_version,
    is_supported,
)
from rvault_tracking_db.reader import DatabaseRefusal, ReadResult, read_database
from rvault_tracking_db.rejections import match_rejection
from rvault_tracking_db.slides_identity import check_slides, slides_identity
from rvault_tracking_db.talk_media import (
    TranscriptOwner,
    talk_duration_seconds,
    talk_local_media,
    talk_video_id,
    talk_video_key,
    transcript_owner,
)
from rvault_tracking_db.terminal import TERMINAL_SKIP_STATUSES, terminal_skip_issues

__all__ = [
    "CLAIM_VERSIONS",
    "EVIDENCE_IDENTITY_STALE",
    "LOCAL_CAPABILITIES",
    "REMOTE_CAPABILITIES",
    "TERMINAL_SKIP_STATUSES",
    "DatabaseRefusal",
    "IdentityCheck",
    "OwnerReaders",
    "ReadResult",
    "Resolution",
    "SourceRoots",
    "StaleIdentity",
    "TalkEvidence",
    "TranscriptOwner",
    "active_claim",
    "authorized_return_versions",
    "average",
    "baseline_issues",
    "batch_members",
    "check_recording",
    "check_slides",
    "check_terminal_status",
    "claim_issues",
    "claim_version",
    "deck_catalog",
    "deck_record",
    "epoch_issues",
    "epochs",
    "google_drive_id",
    "identity_findings",
    "improvement_goals",
    "is_analysed",
    "is_supported",
    "match_rejection",
    "owner_receipts",
    "read_database",
    "recording_shows_video",
    "resolve",
    "slides_identity",
    "source_capabilities",
    "talk_duration_seconds",
    "talk_evidence",
    "talk_local_media",
    "talk_video_id",
    "talk_video_key",
    "terminal_skip_issues",
    "transcript_owner",
    "youtube_id",
]


#: The owner write modules, loaded on first use (PEP 562): a reader of this
#: api (``rvault-returns validate``, the site) never imports the writer
#: protocol; ``rvault-returns persist`` asks ``api.apply_protocol`` and
#: ``api.persist_write`` and gets the modules.
_WRITE_MODULES = frozenset({"apply_protocol", "persist_write"})
#: The evidence summary and identity names, and the module that defines each,
#: also loaded on first use: ``rvault-returns validate`` asks none of them.
_LAZY = {
    **dict.fromkeys(
        ("OwnerReaders", "TalkEvidence", "deck_catalog", "deck_record", "talk_evidence"),
        "evidence",
    ),
    **dict.fromkeys(
        ("EVIDENCE_IDENTITY_STALE", "IdentityCheck", "StaleIdentity", "is_analysed"),
        "evidence_identity",
    ),
    "owner_receipts": "evidence_identity",
}


__getattr__, __dir__ = lazy_exports("rvault_tracking_db", _LAZY, globals(), _WRITE_MODULES)


def active_claim(talk: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The talk's live claim (``_queue_claim`` in state ``claimed``), else ``None``."""
    return live_claim(talk)


def batch_members(database: Mapping[str, Any], run_id: str, batch_id: str) -> list[str]:
    """Sorted filenames of every live member of ``(run_id, batch_id)``."""
    return sorted(m.filename for m in live_members(database, run_id, batch_id))


def authorized_return_versions(claim: Mapping[str, Any]) -> tuple[int, ...]:
    """Which worker return versions a stored claim authorizes (empty when none)."""
    version = claim_version(claim)
    if version in (1, 2):
        return (1, 2)
    if version in RETURN_VERSION:
        return (RETURN_VERSION[version],)
    return ()


def check_terminal_status(
    status: str,
    talk: Mapping[str, Any],
    *,
    vault_root: Path,
    config: Mapping[str, Any] | None = None,
) -> list[dict[str, str]]:
    """Resolve the talk's capabilities now and apply the terminal skip rules."""
    roots = SourceRoots.from_config(vault_root, config)
    return terminal_skip_issues(status, talk, source_capabilities(talk, roots))


def improvement_goals(database: dict[str, Any]) -> list[dict[str, Any]]:
    """Every goal's verification assessment and trend, exactly as ``rvault-db goals`` reports
    them (``db-goals-report`` v1 ``goals``): for persist's report and the vault site. A
    reader's view: nothing is written, so unlike ``goals verify`` it takes no check time."""
    from rvault_tracking_db.goals.run import goal_rows

    return goal_rows(database)


def identity_findings(database: Mapping[str, Any], vault_root: Path) -> dict[str, dict[str, Any]]:
    """Each talk's source-identity findings, keyed by filename (``rvault-db status``'s view).

    ``{"blocking", "warnings", "findings"}`` for every talk with any: youtube id,
    ``source_identity`` comparisons, duplicate recordings, rejected sources still
    active, and the deck binding's stored proof. No artifact is opened; the full
    gate is ``rvault-db preflight``.
    """
    from rvault_tracking_db.preflight.talk_checks import identity_by_talk

    talks = database.get("talks") or []
    return {
        talks[index]["filename"]: entry
        for index, entry in identity_by_talk(database, vault_root).items()
        if isinstance(talks[index].get("filename"), str)
    }
