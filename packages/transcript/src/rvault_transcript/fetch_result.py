"""Reading a ``transcript-fetch-result`` v1 document: what a consumer may take from it.

``rvault-transcript fetch`` and ``vtt-cleanup`` print this document on
success; a consumer (``rvault-db register-transcript --fetch-result``) takes
the transcript path and its provenance from it instead of having a person
retype them. The document is a *claim* about files on disk: this reader
decides whether it is a well-formed claim, and the consumer still reads the
receipts themselves (:func:`rvault_transcript.api.read_evidence`).

The schema says the field set and the method/source pairing. What it cannot
say, and the writer guarantees on every success, is checked here with one
stable code each:

- a refusal redirected into the file instead (``cli-failure``, ``ok: false``):
  ``fetch_result_is_failure``;
- ``quality_path`` names the sibling ``{id}.quality.json`` of the transcript
  (never null on success), ``timed_path`` the sibling ``{id}.segments.json``
  or null: ``quality_path_mismatch`` / ``timed_path_mismatch``;
- the statuses agree with the paths: quality is available, timing is
  available exactly when ``timed_path`` is set: ``quality_status_mismatch`` /
  ``timing_status_mismatch``;
- the transcript is a ``.txt`` file, and a YouTube transcript is
  ``{video_id}.txt`` (readers find it there): ``transcript_path_not_txt`` /
  ``transcript_name_mismatch``;
- ``min_words`` is at least the floor the policy derives from
  ``duration_seconds``, and ``word_count`` reached it:
  ``min_words_below_floor`` / ``word_count_below_floor``;
- given the vault root, the transcript lies directly in
  ``{vault_root}/transcripts/`` (a relative path is read as vault-relative):
  ``transcript_outside_vault``.

Findings are :class:`rvault_contracts.issues.Issue` values (schema findings
keep contracts' ``schema_violation``); :func:`read_fetch_result` raises one
:class:`FetchResultError` with code ``invalid_fetch_result`` carrying them all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from rvault_contracts.errors import Refusal
from rvault_contracts.issues import Collector, Issue
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import json_path

from rvault_transcript import policy
from rvault_transcript.sidecars import quality_path_for, timing_path_for

FETCH_RESULT_ARTIFACT = "transcript-fetch-result"
FETCH_RESULT_VERSION = 1
INVALID_FETCH_RESULT = "invalid_fetch_result"
TRANSCRIPTS_DIR = "transcripts"


class FetchResultError(Refusal):
    """A fetch result a consumer must not act on: a stable code and every finding."""

    def __init__(self, code: str, message: str, path: str, issues: tuple[Issue, ...]) -> None:
        super().__init__(code, message, path)
        self.issues = issues

    def __str__(self) -> str:
        return f"{self.code} at {self.path}: {self.message}"


@dataclass(frozen=True)
class FetchResult:
    """What a valid fetch result claims (paths as the producer printed them)."""

    document: Mapping[str, Any]
    method: str
    language: str | None
    transcript_source: str | None
    transcript_path: Path
    quality_path: Path
    timed_path: Path | None
    word_count: int
    min_words: int
    duration_seconds: float | None
    video_id: str | None
    media_sha256: str | None
    vault_path: str | None = None
    """``transcripts/{name}.txt`` when read against a vault root, else None."""


def _sibling(
    document: Mapping[str, Any], key: str, code: str, expected: Path, out: Collector
) -> None:
    value = document[key]
    if value is None or Path(value) != expected:
        out.add(
            code,
            json_path("$", key),
            f"{key} is {value!r}, not {str(expected)!r}, the receipt beside the transcript",
        )


def vault_transcript_path(transcript_path: str, vault_root: str | os.PathLike[str]) -> str | None:
    """``transcripts/{name}.txt`` when ``transcript_path`` lies directly there, else None.

    Lexical, like the writer's own output check: an absolute path must lie
    inside the vault root; a relative one is read as vault-relative (what
    the producer prints when it runs at the vault root).
    """
    if Path(transcript_path).is_absolute():
        base = os.path.normpath(os.path.abspath(vault_root))  # noqa: PTH100 - lexical on purpose
        target = os.path.normpath(transcript_path)
        if os.path.commonpath([target, base]) != base:
            return None
        relative = os.path.relpath(target, base)
    else:
        relative = os.path.normpath(transcript_path)
    parts = PurePosixPath(relative.replace(os.sep, "/")).parts
    if len(parts) != 2 or parts[0] != TRANSCRIPTS_DIR:
        return None
    return f"{TRANSCRIPTS_DIR}/{parts[1]}"


def fetch_result_issues(
    document: Any, *, vault_root: str | os.PathLike[str] | None = None
) -> list[Issue]:
    """Every reason ``document`` is not a fetch result to act on (empty when it is)."""
    if (
        isinstance(document, Mapping)
        and document.get("ok") is False
        and isinstance(document.get("error"), Mapping)
    ):
        error = document["error"]
        return [
            Issue(
                "fetch_result_is_failure",
                json_path("$", "error"),
                f"this is a refusal ({error.get('code')!r}: {error.get('message')!r}), "
                "not a fetch result: the fetch wrote nothing to register",
            )
        ]
    issues = schema_issues(FETCH_RESULT_ARTIFACT, FETCH_RESULT_VERSION, document)
    if issues:
        return issues
    out = Collector()
    transcript = Path(document["transcript_path"])
    _sibling(document, "quality_path", "quality_path_mismatch", quality_path_for(transcript), out)
    if document["timed_path"] is not None:
        _sibling(document, "timed_path", "timed_path_mismatch", timing_path_for(transcript), out)
    if document["quality_status"]["available"] is not True:
        out.add(
            "quality_status_mismatch",
            json_path("$", "quality_status", "available"),
            "a successful fetch always has a current quality receipt",
        )
    if document["timing_status"]["available"] != (document["timed_path"] is not None):
        out.add(
            "timing_status_mismatch",
            json_path("$", "timing_status", "available"),
            "timing is available exactly when timed_path names the timing receipt",
        )
    if transcript.suffix != ".txt":
        out.add(
            "transcript_path_not_txt",
            json_path("$", "transcript_path"),
            f"{transcript.name!r} is not a .txt transcript",
        )
    source = document["source"]
    if source["kind"] == "youtube" and transcript.name != f"{source['video_id']}.txt":
        out.add(
            "transcript_name_mismatch",
            json_path("$", "transcript_path"),
            f"a transcript of YouTube video {source['video_id']} is "
            f"transcripts/{source['video_id']}.txt, not {transcript.name!r}",
        )
    floor = policy.derived_floor(document["duration_seconds"])
    if document["min_words"] < floor:
        out.add(
            "min_words_below_floor",
            json_path("$", "min_words"),
            f"min_words {document['min_words']} is below the policy floor {floor} for "
            f"duration {document['duration_seconds']!r}",
        )
    if document["word_count"] < document["min_words"]:
        out.add(
            "word_count_below_floor",
            json_path("$", "word_count"),
            f"word_count {document['word_count']} never passed min_words {document['min_words']}",
        )
    if vault_root is not None and vault_transcript_path(str(transcript), vault_root) is None:
        out.add(
            "transcript_outside_vault",
            json_path("$", "transcript_path"),
            f"{str(transcript)!r} is not directly in {Path(vault_root) / TRANSCRIPTS_DIR}"
            " (a relative path is read as vault-relative)",
        )
    return out.ordered()


def read_fetch_result(
    document: Any, *, vault_root: str | os.PathLike[str] | None = None
) -> FetchResult:
    """The claims of a valid fetch result, or :class:`FetchResultError` naming every problem."""
    issues = fetch_result_issues(document, vault_root=vault_root)
    if issues:
        first = issues[0]
        raise FetchResultError(
            INVALID_FETCH_RESULT,
            f"not a usable transcript-fetch-result v1 ({first.code}): {first.message}",
            first.path,
            tuple(issues),
        )
    source = document["source"]
    transcript = Path(document["transcript_path"])
    timed = document["timed_path"]
    duration = document["duration_seconds"]
    return FetchResult(
        document=document,
        method=document["method"],
        language=document["language"],
        transcript_source=document["transcript_source"],
        transcript_path=transcript,
        quality_path=Path(document["quality_path"]),
        timed_path=None if timed is None else Path(timed),
        word_count=document["word_count"],
        min_words=document["min_words"],
        duration_seconds=None if duration is None else float(duration),
        video_id=source.get("video_id"),
        media_sha256=source.get("media_sha256"),
        vault_path=(
            None if vault_root is None else vault_transcript_path(str(transcript), vault_root)
        ),
    )
