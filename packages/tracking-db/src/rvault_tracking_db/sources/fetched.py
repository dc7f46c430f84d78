"""``register-transcript --fetch-result``: a transcript registered from what the fetch printed.

``rvault-transcript fetch ... > fetch.json`` (or ``vtt-cleanup``) prints a
``transcript-fetch-result`` v1 document naming the transcript and its
receipts. Registering it from that document spares a person retyping the
path and the provenance, but the document is only a claim, so here it is

1. judged by its owner's public reader
   (``rvault_transcript.api.read_fetch_result`` against this vault's root):
   anything it refuses is ``invalid_fetch_result`` with the reader's
   findings as ``issues``;
2. bound to the talk: a YouTube fetch for another video than the talk's
   ``youtube_id`` is ``fetch_result_owner_mismatch``;
3. checked against the evidence on disk, read by the same owner's receipt
   readers with the database's owner context (the talk's YouTube id and
   recorded duration; the fetch's media digest for local media, which the
   database does not record): the quality receipt it names must be current
   (and the timing receipt when it names one),
   ``fetch_result_receipt_not_current``, and must count the words it says,
   ``fetch_result_stale`` (a later fetch or edit replaced the bundle).

The transcript file itself is then checked by the ``register_transcript``
lane exactly as for a typed PATH. The reader is optional (the
``rvault-tracking-db[status]`` extra, like ``status``): the database owner does
not depend on the transcript package, and without it this is
``reader_unavailable``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.issues import render
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_tracking_db import owner_readers
from rvault_tracking_db.talk_media import talk_video_id, transcript_owner

TRANSCRIPT_API = "rvault_transcript.api"
INVALID_FETCH_RESULT = "invalid_fetch_result"
FLAG = "--fetch-result"
REFETCH_HINT = (
    "run the fetch again (rvault-transcript fetch without --force revalidates the transcript "
    "and rewrites a stale quality receipt) and register the result it prints"
)


def transcript_reader() -> Any:
    """``rvault_transcript.api``, or ``reader_unavailable`` when it is not installed."""
    api = owner_readers.transcript_api()
    if api is None:
        raise Refusal(
            "reader_unavailable",
            f"{FLAG} reads the fetch result through {TRANSCRIPT_API}, which is not installed",
            FLAG,
            hint="install rvault-tracking-db[status] (it brings rvault-transcript's light "
            "readers), or register the transcript by its PATH",
        )
    return api


def read_claim(api: Any, data: bytes, vault_root: Path) -> Any:
    """The fetch result's claims (``api.FetchResult``), or ``invalid_fetch_result``."""
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise Refusal(
            INVALID_FETCH_RESULT,
            f"the fetch result is not strict JSON: {exc.message}",
            exc.path,
            issues=[{"code": exc.code, "message": exc.message, "path": exc.path}],
            hint="pass the JSON that rvault-transcript fetch or vtt-cleanup printed on stdout",
        ) from None
    try:
        return api.read_fetch_result(document, vault_root=vault_root)
    except api.FetchResultError as error:
        raise Refusal(
            INVALID_FETCH_RESULT,
            error.message,
            error.path,
            issues=render(error.issues[:20]),
            hint="pass the JSON that a successful rvault-transcript fetch or vtt-cleanup printed "
            "for a transcript in this vault's transcripts/ (run from the vault root, or with an "
            "absolute --out)",
        ) from None


def verify_claim(api: Any, claim: Any, talk: Mapping[str, Any] | None, vault_root: Path) -> None:
    """The receipts on disk support what the fetch result says, for this talk."""
    video = talk_video_id(talk)
    if claim.video_id is not None and video is not None and claim.video_id != video:
        raise Refusal(
            "fetch_result_owner_mismatch",
            f"the fetch result is for YouTube video {claim.video_id}, the talk is {video}",
            '$["source"]["video_id"]',
            hint="register the fetch result of this talk's own video",
        )
    facts = transcript_owner(talk)
    media = facts.media_sha256
    if claim.media_sha256 is not None and media is not None and claim.media_sha256 != media:
        raise Refusal(
            "fetch_result_media_mismatch",
            f"the fetch result transcribed media {claim.media_sha256}, the talk's attached "
            f"recording is {media}",
            '$["source"]["media_sha256"]',
            hint="fetch the transcript from the talk's attached recording (its local_media path)"
            ", or attach the recording that was transcribed: rvault-db attach-media",
        )
    owner = api.OwnerContext(
        video_id=video or claim.video_id,
        media_sha256=media or claim.media_sha256,
        duration_seconds=facts.duration_seconds,
    )
    evidence = api.read_evidence(vault_root / claim.vault_path, owner=owner)
    if evidence.transcript_status != "valid":
        return  # the register_transcript lane refuses the file with its own code
    lanes = [("quality", evidence.quality, '$["quality_path"]', claim.quality_path)]
    if claim.timed_path is not None:
        lanes.append(("timing", evidence.timing, '$["timed_path"]', claim.timed_path))
    for name, reading, where, path in lanes:
        if not reading.usable:
            raise Refusal(
                "fetch_result_receipt_not_current",
                f"the fetch result names the {name} receipt {str(path)!r}, which is not "
                f"current on disk ({reading.code}: {reading.message})",
                where,
                receipt={"code": reading.code, "message": reading.message, "path": where},
                hint=REFETCH_HINT,
            )
    if evidence.word_count != claim.word_count:
        raise Refusal(
            "fetch_result_stale",
            f"the transcript on disk has {evidence.word_count} words, the fetch result says "
            f"{claim.word_count}: it describes bytes that were replaced since",
            '$["word_count"]',
            hint=REFETCH_HINT,
        )


def transcript_source(claim: Any, given: str | None) -> str | None:
    """The provenance to record: the fetch's when it knows one, else ``--source`` (or none).

    ``existing`` and ``vtt`` results carry none (the spec: never backfill a
    guess), so ``--source`` may say what the caller knows; it may not
    contradict what the fetch itself did.
    """
    if claim.transcript_source is None:
        return given
    if given is not None and given != claim.transcript_source:
        raise Refusal(
            "transcript_source_conflict",
            f"--source {given} contradicts the fetch result's transcript_source "
            f"{claim.transcript_source} (method {claim.method})",
            "--source",
            hint="omit --source: a captions or whisper fetch says how the transcript was made",
        )
    return claim.transcript_source
