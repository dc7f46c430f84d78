"""Identities that collide: duplicate uploads, borrowed recordings, rejected sources.

Two talks naming one recording are a fault unless all but one of them say
why with ``source_relation`` (``duplicate`` or ``borrowed_recording``)
pointing at another talk of the same recording; the one left is canonical.
A relation must name another existing talk with the same recording. An
active ``video_url`` or ``slides_url`` that the talk's own
``source_rejections`` rejects (same URL or same provider ID) is blocking:
the ledger exists so a rejected source never comes back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rvault_tracking_db.identity.recording import catalog_video_id
from rvault_tracking_db.ids import provider_id
from rvault_tracking_db.preflight.findings import Findings, TalkRef
from rvault_tracking_db.rejections import match_rejection

DUPLICATE_RECORDING = "duplicate_recording"
RELATION_INVALID = "source_relation_invalid"
REJECTED_SOURCE_ACTIVE = "rejected_source_active"


@dataclass(frozen=True)
class RecordingClaim:
    """All the cross-talk checks read of one talk: the recording it names and its relation.

    Derived here, by the rules the checks apply, so a caller that sees each
    talk once (status, streaming a large vault) keeps only these, not the talks.
    """

    ref: TalkRef
    video: str | None  # the catalog's recording (``catalog_video_id``)
    target: str | None  # the filename its ``source_relation`` names

    @classmethod
    def of(cls, ref: TalkRef, talk: Mapping[str, Any]) -> RecordingClaim:
        return cls(ref, catalog_video_id(talk), _relation_target(talk))


def recording_claims(talks: Sequence[tuple[TalkRef, Mapping[str, Any]]]) -> list[RecordingClaim]:
    return [RecordingClaim.of(ref, talk) for ref, talk in talks]


def check_duplicates(claims: Sequence[RecordingClaim], findings: Findings) -> None:
    groups: dict[str, list[RecordingClaim]] = {}
    for claim in claims:
        if claim.video is not None:
            groups.setdefault(claim.video, []).append(claim)
    for video, members in sorted(groups.items()):
        if len(members) < 2:
            continue
        names = {claim.ref.filename for claim in members}
        canonical = [claim.ref for claim in members if not _points_within(claim, names)]
        for ref in canonical[1:]:
            findings.block(
                DUPLICATE_RECORDING,
                ref.path("video_url"),
                f"{canonical[0].filename} already names recording {video}; mark this talk "
                "with source_relation (duplicate or borrowed_recording) or correct its video",
                ref,
                expected={"source_relation": {"target_filename": canonical[0].filename}},
                actual=video,
            )


def _points_within(claim: RecordingClaim, names: set[str | None]) -> bool:
    """Whether the talk's relation names another member of its recording's group."""
    target = claim.target
    return target is not None and target != claim.ref.filename and target in names


def _relation_target(talk: Mapping[str, Any]) -> str | None:
    relation = talk.get("source_relation")
    if isinstance(relation, Mapping) and isinstance(relation.get("target_filename"), str):
        return relation["target_filename"]
    return None


def check_relations(claims: Sequence[RecordingClaim], findings: Findings) -> None:
    by_name = {claim.ref.filename: claim for claim in claims if claim.ref.filename is not None}
    for claim in claims:
        ref, target = claim.ref, claim.target
        if target is None:
            continue
        path = ref.path("source_relation", "target_filename")
        other = by_name.get(target)
        if target == ref.filename or other is None:
            problem = "names the talk itself" if target == ref.filename else "names no talk"
            findings.block(
                RELATION_INVALID,
                path,
                f"source_relation {problem}",
                ref,
                expected="another talk's filename",
                actual=target,
            )
        elif other.video != claim.video:
            findings.block(
                RELATION_INVALID,
                path,
                "source_relation points at a talk with another recording",
                ref,
                expected=claim.video,
                actual=other.video,
            )


@lru_cache(maxsize=65536)
def _provider_id(source_type: str, url: str) -> str | None:
    return provider_id(source_type, url)


def _may_reject(source_type: str, url: str, record: Any) -> bool:
    """A cached pre-check of :func:`match_rejection`'s rule (same URL or provider ID)."""
    if not isinstance(record, Mapping) or record.get("source_type") != source_type:
        return False
    stored = record.get("url")
    if not isinstance(stored, str):
        return False
    if stored == url:
        return True
    candidate = _provider_id(source_type, url)
    return candidate is not None and candidate == _provider_id(source_type, stored)


def check_rejections(ref: TalkRef, talk: Mapping[str, Any], findings: Findings) -> None:
    rejections = talk.get("source_rejections")
    if not isinstance(rejections, list):
        return
    for name, source_type in (("video_url", "video"), ("slides_url", "slides")):
        url = talk.get(name)
        if not isinstance(url, str):
            continue
        if not any(_may_reject(source_type, url, r) for r in rejections):
            continue  # the common case, decided without parsing a URL twice
        matched = match_rejection(source_type, url, rejections)
        if matched is not None:
            findings.block(
                REJECTED_SOURCE_ACTIVE,
                ref.path(name),
                f"{name} is a source this talk's source_rejections rejected ({matched.method})",
                ref,
                expected="a source not in source_rejections",
                actual={"url": url, "reason": matched.record.get("reason")},
            )
