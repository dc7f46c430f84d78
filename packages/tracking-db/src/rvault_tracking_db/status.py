"""``rvault-db status``: where every talk stands and what to do next.

One row per talk, built only from the owner read and the owners' public
readers: source capabilities from the shared resolver (re-derived live, not
trusted from the stored list), transcript receipts through
``rvault_transcript.api``, the video manifest and its trust through
``rvault_video_extraction.api``, the deck's catalog receipt from the
``pptx_catalog`` judged by ``rvault_pptx_evidence.api``'s
``classify_pptx_visual_evidence`` against the live deck and artifact bytes.
Those readers are optional extras (``rvault-tracking-db[status]``): the
database owner does not pull in media stacks, and without them a row says
``reader_unavailable`` (or no evidence class) rather than guessing.

The next action is the first thing that blocks the talk, in the order the
worker instructions demand (a source before a claim, the deck extracted
before it is claimed, capabilities normalized, then the claim; a claimed
talk waits for its batch to be persisted).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment.trouble import by_talk, requeue_reason
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.evidence import (
    OwnerReaders,
    TalkEvidence,
    deck_catalog,
    deck_record,
    talk_evidence,
)
from rvault_tracking_db.preflight.talk_checks import identity_by_talk
from rvault_tracking_db.queue.claims import CLAIMABLE_STATUSES, live_claim
from rvault_tracking_db.reader import ReadResult
from rvault_tracking_db.talk_media import talk_video_key

REPORT_VERSION = 1
ANALYSED = ("processed", "processed_partial")


def evidence_columns(evidence: TalkEvidence) -> dict[str, Any]:
    """The report's evidence columns of one talk: the shared summary (:mod:`.evidence`)
    in the ``db-status-report`` v1 shape."""
    transcript, deck, manifest = evidence.transcript, evidence.deck, evidence.manifest
    media, slides = evidence.media, evidence.slides
    return {
        "transcript": {
            "path": transcript.path,
            "state": transcript.state,
            "quality": transcript.quality,
            "timing": transcript.timing,
        },
        "deck": {
            "pptx_path": deck.pptx_path,
            "state": deck.state,
            "evidence_class": deck.evidence_class,
            "regenerate": deck.regenerate,
        },
        "video": {
            "manifest": manifest.path,
            "status": manifest.status,
            "trusted": manifest.trusted,
        },
        "media": None if media is None else {"path": media.path, "state": media.state},
        "slides": None if slides is None else {"path": slides.path, "state": slides.state},
    }


#: why normalize requeues an analysed talk, as the status table says it
_REQUEUE_TEXT = {
    "evidence_ledger_invalid": "reprocess: its evidence ledger breaks its contract",
    "evidence_identity_stale": "reprocess: evidence changed after its analysis",
}


def _evidence_action(
    row: dict[str, Any], talk: Mapping[str, Any], vault_root: Path
) -> dict[str, str] | None:
    """The first evidence problem of an unclaimed talk: a replaced slide PDF, a replaced
    recording of an analysed talk, an analysed talk whose ledger is broken or whose
    evidence changed after its analysis, a replaced or missing recording (claimable
    talks), or a local-media transcript whose recording was never attached."""
    status, filename = row["status"], row["filename"]
    slides = row["slides"]
    if slides is not None and slides["state"] in ("slides_stale", "slides_missing"):
        return {
            "code": "register_slides",
            "text": f"the slide PDF changed ({slides['state']})",
            "command": f"rvault-db register-slides DB --talk {filename} "
            f"{shlex.quote(str(vault_root / slides['path']))} "
            "(records the new bytes; an analysed talk is requeued)",
        }
    media = row["media"]
    if status in ANALYSED and media is not None and media["state"] != "current":
        return _replaced_recording(row, talk, vault_root)
    reason = requeue_reason(row["evidence_issues"]) if status in ANALYSED else None
    if reason is not None:
        return {
            "code": "normalize",
            "text": _REQUEUE_TEXT[reason],
            "command": "rvault-db queue DB normalize (requeues it), then claim it",
        }
    if status not in CLAIMABLE_STATUSES:
        return None
    if media is not None and media["state"] != "current":
        return {
            "code": "attach_media",
            "text": f"attach the recording again ({media['state']})",
            "command": f"rvault-db attach-media DB --talk {filename} PATH; then fetch its "
            "transcript again (rvault-transcript fetch LABEL --audio PATH)",
        }
    if media is None and row["transcript"]["quality"] == "owner_context_missing":
        return {
            "code": "attach_media",
            "text": "attach the recording the transcript was made from",
            "command": f"rvault-db attach-media DB --talk {filename} PATH (the file passed to "
            "rvault-transcript fetch --audio, inside the vault)",
        }
    return None


def _replaced_recording(
    row: dict[str, Any], talk: Mapping[str, Any], vault_root: Path
) -> dict[str, str]:
    """An analysed talk's attached recording no longer has the recorded bytes.

    Its transcript's receipt and any slides extracted from it describe the
    recording as it was. Restoring the file settles it; otherwise attaching
    the new recording records its bytes and requeues the talk (an
    analysis-invalidating source change), and its transcript (and slides
    recovered from it) are made again from it, replacing the old ones only
    with ``--force``, before the talk is claimed.
    """
    media = row["media"]
    relative = media["path"] or "recordings/NAME"
    recording = shlex.quote(str(vault_root / relative))
    stem = Path(relative).stem
    transcript = row["transcript"]["path"] or f"transcripts/{stem}.txt"
    steps = [
        f"rvault-db attach-media DB --talk {row['filename']} {recording} (requeues the talk)",
        f"rvault-transcript fetch {shlex.quote(stem)} --audio {recording} --out "
        f"{shlex.quote(str(vault_root / transcript))} --existing-source whisper --force",
    ]
    if row["video"]["manifest"] is not None and talk_video_key(talk) == stem:
        outdir = shlex.quote(str(vault_root / "slides-rebuild" / stem))
        steps.append(f"rvault-video extract {recording} {outdir} {shlex.quote(stem)} --force")
    return {
        "code": "attach_media",
        "text": f"the recording changed after its analysis ({media['state']}): attach it "
        "again and re-transcribe, or restore it",
        "command": "; ".join([*steps, "then claim it"]),
    }


def _recovery_action(row: dict[str, Any], vault_root: Path) -> dict[str, str] | None:
    """A transcript bundle torn by a kill awaits its journal's recovery: settle it first.

    Its receipts cannot be judged until then (the transcript owner's reader
    says ``recovery_pending``, not a hash mismatch), whatever else the talk needs.
    """
    transcript = row["transcript"]
    if transcript["state"] != "recovery_pending":
        return None
    return {
        "code": "recover_transcript",
        "text": "settle the interrupted transcript write",
        "command": shlex.join(
            ["rvault-transcript", "recover", str(vault_root / transcript["path"])]
        ),
    }


def _next_action(
    row: dict[str, Any], talk: Mapping[str, Any], stored: Any, vault_root: Path
) -> dict[str, str]:
    status = row["status"]
    filename = row["filename"]
    claim = row["active_claim"]
    recovery = _recovery_action(row, vault_root)
    if recovery is not None:
        return recovery
    if claim is not None:
        batch = f"{claim['run_id']}/{claim['batch_id']}"
        return {
            "code": "persist_batch",
            "text": f"persist batch {batch}",
            "command": f"rvault-returns persist (run {claim['run_id']}, batch {claim['batch_id']})",
        }
    evidence = _evidence_action(row, talk, vault_root)
    if evidence is not None:
        return evidence
    if status in ANALYSED:
        return {"code": "none", "text": "analysed", "command": ""}
    if status not in CLAIMABLE_STATUSES:
        return {"code": "none", "text": f"not claimable ({status})", "command": ""}
    names = {c["capability"] for c in row["capabilities"]}
    remote_youtube = any(
        c["capability"] == "remote_video" and c.get("provider_id") for c in row["capabilities"]
    )
    if "local_transcript" not in names and not remote_youtube:
        return {
            "code": "register_transcript",
            "text": "register a transcript",
            "command": f"rvault-db register-transcript DB --talk {filename} "
            + shlex.quote(str(vault_root / "transcripts" / "NAME.txt")),
        }
    deck = row["deck"]
    missing = deck["state"] in ("not_catalogued", "not_extracted", "legacy_receipt")
    # the pptx owner's verdict when its reader is installed, else the receipt's outcome
    unknown_failure = deck["regenerate"] is None and deck["state"] == "extraction_failed"
    if missing or deck["regenerate"] or unknown_failure:
        return {
            "code": "extract_deck",
            "text": "extract the deck",
            "command": "rvault-pptx extract DECK --out DIR; rvault-db record-deck DB EXTRACTION",
        }
    if stored != row["capabilities"]:
        return {
            "code": "normalize",
            "text": "normalize source capabilities",
            "command": "rvault-db queue DB normalize",
        }
    return {
        "code": "claim",
        "text": "claim",
        "command": f"rvault-db queue DB claim --talk {filename} --run-id R --batch-id B",
    }


def build_status(result: ReadResult) -> dict[str, Any]:
    """The ``db-status-report`` v1 document of a whole read (the decoded tree)."""
    database = result.database
    assert database is not None and result.assessment is not None
    rows = StatusRows(result.database_path, database)
    trouble = by_talk(result.assessment.warnings)
    identity = identity_by_talk(database, rows.vault_root)  # issue 29: identity findings per talk
    for position, talk in enumerate(database.get("talks") or []):
        rows.add(position, talk, trouble.get(position, []))
    return rows.report(identity, result.sha256, result.assessment.root_version)


class StatusRows:
    """The report built one talk at a time: each row as its talk comes, the report at the end.

    :func:`build_status` feeds it every talk of the decoded tree; a streamed
    status (:mod:`rvault_tracking_db.streamed_status`) each talk as the
    stream hands it over, so no tree is kept. ``database`` is read only for
    its ``config`` and ``pptx_catalog``.
    """

    def __init__(self, database_path: str, database: Mapping[str, Any]) -> None:
        self.database_path = database_path
        self.vault_root = Path(database_path).parent
        self.roots = SourceRoots.from_config(self.vault_root, database.get("config"))
        self.readers = OwnerReaders.installed()
        self.catalog = deck_catalog(database)
        self.positions: list[int] = []
        self.rows: list[dict[str, Any]] = []

    def add(self, position: int, talk: Any, trouble: list[Issue]) -> None:
        """The row of the talk at ``position``, given the read's warnings about it."""
        if not isinstance(talk, Mapping):
            return
        evidence = talk_evidence(talk, self.roots, deck_record(self.catalog, talk), self.readers)
        talk_path = f'$["talks"][{position}]'
        issues = trouble + [stale.issue(talk_path) for stale in evidence.stale_identities]
        claim = live_claim(talk)
        score = talk.get("pattern_score")
        row: dict[str, Any] = {
            "filename": talk.get("filename"),
            "title": talk.get("title"),
            "date": talk.get("date"),
            "status": talk.get("status"),
            "capabilities": evidence.capabilities,
            **evidence_columns(evidence),
            "evidence_issues": issues,
            "identity": None,  # the cross-talk checks need every talk: set by report()
            "active_claim": None
            if claim is None
            else {k: claim.get(k) for k in ("run_id", "batch_id", "claimed_at")},
            "processed_date": talk.get("processed_date"),
            "score": score if talk.get("status") in ANALYSED else None,
        }
        row["next_action"] = _next_action(
            row, talk, talk.get("source_capabilities"), self.vault_root
        )
        row["evidence_issues"] = [
            {"code": i.code, "path": i.path, "message": i.message} for i in row["evidence_issues"]
        ]
        self.positions.append(position)
        self.rows.append(row)

    def report(
        self, identity: Mapping[int, dict[str, Any]], sha256: str | None, root_version: int | None
    ) -> dict[str, Any]:
        """The document, each row given its talk's identity findings (``identity_by_talk``)."""
        rows = self.rows
        for position, row in zip(self.positions, rows, strict=True):
            row["identity"] = identity.get(position, {"blocking": 0, "warnings": 0, "findings": []})
        by_status: dict[str, int] = {}
        by_action: dict[str, int] = {}
        for row in rows:
            by_status[str(row["status"])] = by_status.get(str(row["status"]), 0) + 1
            code = row["next_action"]["code"]
            by_action[code] = by_action.get(code, 0) + 1
        readers = self.readers
        return {
            "schema_version": REPORT_VERSION,
            "ok": True,
            "database_path": self.database_path,
            "sha256": sha256,
            "root_schema_version": root_version,
            "readers": {
                "transcript": readers.available("transcript"),
                "video_manifest": readers.available("video"),
                "deck_evidence": readers.available("pptx"),
            },
            "totals": {
                "talks": len(rows),
                "by_status": dict(sorted(by_status.items())),
                "by_next_action": dict(sorted(by_action.items())),
                "claimed": sum(1 for r in rows if r["active_claim"] is not None),
                "pptx_catalog": len(self.catalog),
            },
            "talks": rows,
        }


# --- the terminal table -------------------------------------------------------------

_COLUMNS = (
    "talk", "status", "transcript", "media", "deck", "video", "claim", "processed", "score", "next",
)  # fmt: skip


def status_label(row: Mapping[str, Any]) -> str:
    """The status as a person reads it: a first-time claim is ``processing``.

    The database (and the JSON report) keep the spec's one in-flight status,
    ``reprocessing-inflight``, for every claimed talk; a talk never processed
    before (no ``processed_date``) is not being *re*-processed.
    """
    status = str(row["status"])
    if status == "reprocessing-inflight" and not row.get("processed_date"):
        return "processing"
    return status


def _cell(row: dict[str, Any], column: str) -> str:
    if column == "talk":
        return str(row["filename"])
    if column == "status":
        issues = row.get("evidence_issues") or []
        blocking = [f for f in row["identity"]["findings"] if f["severity"] == "blocking"]
        issues = issues or blocking
        return status_label(row) + (f" [{issues[0]['code']}]" if issues else "")
    if column == "transcript":
        t = row["transcript"]
        return "-" if t["path"] is None else f"{t['state']}"
    if column == "media":
        return "-" if row["media"] is None else row["media"]["state"]
    if column == "deck":
        return "-" if row["deck"]["pptx_path"] is None else row["deck"]["state"]
    if column == "video":
        v = row["video"]
        if v["manifest"] is None:
            return "-"
        return f"{v['status']}{', trusted' if v['trusted'] else ''}"
    if column == "claim":
        c = row["active_claim"]
        return "-" if c is None else f"{c['run_id']}/{c['batch_id']}"
    if column == "processed":
        return str(row["processed_date"] or "-")
    if column == "score":
        return "-" if row["score"] is None else str(row["score"])
    return row["next_action"]["text"]


def render_table(report: dict[str, Any]) -> str:
    """A plain-text table (one row per talk) and the vault totals."""
    rows = [[_cell(row, c) for c in _COLUMNS] for row in report["talks"]]
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(_COLUMNS)]
    lines = ["  ".join(c.upper().ljust(w) for c, w in zip(_COLUMNS, widths, strict=True)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    totals = report["totals"]
    labels: dict[str, int] = {}
    for row in report["talks"]:
        labels[status_label(row)] = labels.get(status_label(row), 0) + 1
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(labels.items())) or "none"
    actions = ", ".join(f"{k} {v}" for k, v in totals["by_next_action"].items()) or "none"
    lines += [
        "",
        f"{totals['talks']} talks ({statuses}); {totals['claimed']} claimed; "
        f"{totals['pptx_catalog']} decks catalogued",
        f"next actions: {actions}",
    ]
    return "\n".join(lines) + "\n"
