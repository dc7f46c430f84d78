"""A talk against its own recording: ``youtube_id`` and the recorded ``source_identity``.

The rules are the offline half of the spec's source-identity contract: the
identity block is optional (absent on a legacy talk is no finding); evidence
missing inside a block, or a comparison without the catalog fact to compare
with, is a warning; recorded evidence that is malformed or contradicts the
catalog is blocking. The uploader and the upload date are never read as the
speaker or the recorded date: an upload only bounds the delivery from above.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rvault_tracking_db.identity import matching
from rvault_tracking_db.identity.matching import AGREE, CONFLICT
from rvault_tracking_db.identity.recording import catalog_video_id, url_video_id
from rvault_tracking_db.preflight.findings import Findings, TalkRef

YOUTUBE_ID_MISMATCH = "youtube_id_mismatch"
VIDEO_MISMATCH = "source_identity_video_mismatch"
TITLE_MISMATCH = "source_identity_title_mismatch"
TITLE_UNCONFIRMED = "source_identity_title_unconfirmed"
SPEAKER_MISMATCH = "source_identity_speaker_mismatch"
RECORDED_YEAR_MISMATCH = "source_identity_recorded_date_mismatch"
RECORDED_DAY_DIFFERS = "source_identity_recorded_day_differs"
UPLOAD_PREDATES = "source_identity_upload_predates_catalog"
DURATION_MISMATCH = "source_identity_duration_mismatch"
IDENTITY_INVALID = "source_identity_invalid"
EVIDENCE_MISSING = "source_identity_evidence_missing"
NOT_COMPARABLE = "source_identity_not_comparable"
CATALOG_DURATION_FIELDS = ("duration_seconds", "video_duration_seconds", "talk_duration_seconds")


def check_youtube_id(talk: Mapping[str, Any], ref: TalkRef, findings: Findings) -> None:
    url = talk.get("video_url")
    parsed = url_video_id(url) if isinstance(url, str) else None
    stored = talk.get("youtube_id")
    if parsed is not None and stored is not None and stored != parsed:
        findings.block(
            YOUTUBE_ID_MISMATCH,
            ref.path("youtube_id"),
            "video_url and youtube_id name different recordings",
            ref,
            expected=parsed,
            actual=stored,
        )


def check_source_identity(
    talk: Mapping[str, Any], config: Mapping[str, Any], ref: TalkRef, findings: Findings
) -> None:
    identity = talk.get("source_identity")
    if not isinstance(identity, Mapping):
        return
    _video(talk, identity, ref, findings)
    _title(talk, identity, ref, findings)
    _speakers(talk, identity, config, ref, findings)
    _dates(talk, identity, ref, findings)
    _duration(talk, identity, ref, findings)


def _missing(ref: TalkRef, findings: Findings, name: str) -> None:
    findings.warn(
        EVIDENCE_MISSING,
        ref.path("source_identity", name),
        f"source_identity has no usable {name}: that comparison cannot be made",
        ref,
    )


def _video(
    talk: Mapping[str, Any], identity: Mapping[str, Any], ref: TalkRef, findings: Findings
) -> None:
    video = identity.get("video_id")
    if not isinstance(video, str) or not video:
        _missing(ref, findings, "video_id")
        return
    webpage = identity.get("webpage_video_id")
    if webpage is not None and webpage != video:
        findings.block(
            IDENTITY_INVALID,
            ref.path("source_identity", "webpage_video_id"),
            "the captured webpage names another video than source_identity.video_id",
            ref,
            expected=video,
            actual=webpage,
        )
    catalog = catalog_video_id(talk)
    if catalog is not None and video != catalog:
        findings.block(
            VIDEO_MISMATCH,
            ref.path("source_identity", "video_id"),
            "the recorded identity describes another recording than the talk's video",
            ref,
            expected=catalog,
            actual=video,
        )


def _title(
    talk: Mapping[str, Any], identity: Mapping[str, Any], ref: TalkRef, findings: Findings
) -> None:
    if not isinstance(identity.get("title"), str):
        _missing(ref, findings, "title")
        return
    verdict = matching.titles_agree(talk.get("title"), identity["title"])
    if verdict == AGREE:
        return
    path = ref.path("source_identity", "title")
    values = {"expected": talk.get("title"), "actual": identity["title"]}
    if verdict == CONFLICT:
        message = "the source title shares no distinctive word with the catalog title"
        findings.block(TITLE_MISMATCH, path, message, ref, **values)
    else:
        message = "the source title neither contains nor is contained in the catalog title"
        findings.warn(TITLE_UNCONFIRMED, path, message, ref, **values)


def _known_speakers(talk: Mapping[str, Any], config: Mapping[str, Any]) -> list[Any]:
    for value in (talk.get("speakers"), talk.get("speaker"), config.get("speaker_name")):
        if isinstance(value, list) and value:
            return value
        if isinstance(value, str) and value.strip():
            return [value]
    return []


def _speakers(
    talk: Mapping[str, Any],
    identity: Mapping[str, Any],
    config: Mapping[str, Any],
    ref: TalkRef,
    findings: Findings,
) -> None:
    recorded = identity.get("speakers")
    if not isinstance(recorded, list) or not recorded:
        _missing(ref, findings, "speakers")
        return
    known = _known_speakers(talk, config)
    verdict = matching.speakers_agree(recorded, known)
    path = ref.path("source_identity", "speakers")
    if verdict == CONFLICT:
        findings.block(
            SPEAKER_MISMATCH,
            path,
            "no recorded speaker is a speaker of this talk",
            ref,
            expected=known,
            actual=recorded,
        )
    elif verdict != AGREE:
        findings.warn(
            NOT_COMPARABLE,
            path,
            "no talk speakers or config.speaker_name to compare the speakers with",
            ref,
        )


def _dates(
    talk: Mapping[str, Any], identity: Mapping[str, Any], ref: TalkRef, findings: Findings
) -> None:
    catalog = talk.get("date")
    year = matching.catalog_year(catalog)
    present = [n for n in ("recorded_date", "upload_date") if identity.get(n) is not None]
    if not present:
        _missing(ref, findings, "recorded_date")
    for name in present:
        value = identity[name]
        path = ref.path("source_identity", name)
        parsed = matching.parse_date(value)
        if parsed is None:
            findings.block(
                IDENTITY_INVALID,
                path,
                f"{name} is not a YYYY-MM-DD date",
                ref,
                expected="YYYY-MM-DD",
                actual=value,
            )
            continue
        if year is None:
            findings.warn(NOT_COMPARABLE, path, "the talk has no catalog date to compare", ref)
            continue
        if name == "recorded_date":
            _recorded(catalog, year, value, path, ref, findings)
        else:
            _upload(catalog, year, parsed.isoformat(), path, ref, findings)


def _recorded(
    catalog: Any, year: int, value: str, path: str, ref: TalkRef, findings: Findings
) -> None:
    if int(value[:4]) != year:
        findings.block(
            RECORDED_YEAR_MISMATCH,
            path,
            "the recording was made in another year than the catalog date",
            ref,
            expected=catalog,
            actual=value,
        )
    elif matching.parse_date(catalog) is not None and value != catalog:
        findings.warn(
            RECORDED_DAY_DIFFERS,
            path,
            "the recorded day differs from the catalog date (same year)",
            ref,
            expected=catalog,
            actual=value,
        )


def _upload(
    catalog: Any, year: int, value: str, path: str, ref: TalkRef, findings: Findings
) -> None:
    full = matching.parse_date(catalog)
    early = value < full.isoformat() if full is not None else int(value[:4]) < year
    if early:
        findings.block(
            UPLOAD_PREDATES,
            path,
            "the recording was uploaded before the catalog says the talk was given",
            ref,
            expected=f">= {catalog}",
            actual=value,
        )


def _duration(
    talk: Mapping[str, Any], identity: Mapping[str, Any], ref: TalkRef, findings: Findings
) -> None:
    value = identity.get("duration_seconds")
    path = ref.path("source_identity", "duration_seconds")
    if value is None:
        _missing(ref, findings, "duration_seconds")
        return
    if not _positive(value):
        findings.block(
            IDENTITY_INVALID,
            path,
            "duration_seconds is not a positive number",
            ref,
            expected="> 0",
            actual=value,
        )
        return
    for name in CATALOG_DURATION_FIELDS:
        catalog = talk.get(name)
        if _positive(catalog) and not matching.durations_agree(float(catalog), float(value)):
            findings.block(
                DURATION_MISMATCH,
                path,
                f"the recording's duration differs from the talk's {name} by more "
                "than max(60 s, 5 %)",
                ref,
                expected=catalog,
                actual=value,
            )
            return


def _positive(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )
