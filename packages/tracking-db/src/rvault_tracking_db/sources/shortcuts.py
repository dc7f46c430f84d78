"""Source plans for the common cases, built from what the database holds now.

Each shortcut turns a few command-line values into the same
``db-source-plan`` v1 document a person could write by hand: every
``expect`` is the value the owner read sees, so the dry run shows the exact
change and ``--apply --expected-sha256`` binds it to those bytes.

- ``register-transcript``: a non-YouTube talk's transcript (the worker
  instructions: register its vault-relative ``transcript_path`` before the
  talk is claimed), typed as PATH or taken from the fetch result that
  ``rvault-transcript fetch`` / ``vtt-cleanup`` printed (``--fetch-result``,
  :mod:`rvault_tracking_db.sources.fetched`).
- ``register-slides``: the ``slides/{id}.pdf`` that ``rvault-video promote``
  installed, as ``slides_local_path``, with its bytes' identity (the lane
  derives ``slides_local_identity``; ``--pdf-sha256`` binds it to the digest
  promote printed).
- ``attach-media``: the talk's own recording inside the vault, measured
  (SHA-256, size, ffprobe duration and streams) into ``local_media``, so
  every reader can bind a local-media transcript receipt to it and knows
  whether it is a video at all.
- ``record-deck``: a ``pptx_catalog`` v2 receipt built from a pptx-extraction
  v4 document in the vault (and optionally the talk's ``pptx_path``); nobody
  hand-writes the receipt.
- ``add-talk``: a talk that is not on the shownotes site, with its sources.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.issues import render
from rvault_contracts.schemas import SCHEMA_ISSUE_KEYS, schema_issues
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_tracking_db.apply_protocol import Session
from rvault_tracking_db.assessment.talks import CURRENT_TALK_VERSION
from rvault_tracking_db.capabilities import (
    LOCAL_PPTX,
    ROOT_PPTX,
    SourceRoots,
    check_local,
    open_under_root,
)
from rvault_tracking_db.media_probe import MediaError, measure_recording
from rvault_tracking_db.slides_identity import measure_pdf
from rvault_tracking_db.sources import fetched
from rvault_tracking_db.sources.deck_proof import binding_change
from rvault_tracking_db.sources.lanes import MEDIA_HINT
from rvault_tracking_db.sources.plan import (
    ADD_TALK,
    ATTACH_MEDIA,
    MISSING_MARKER,
    RECORD_PPTX,
    REGISTER_PPTX,
    REGISTER_SLIDES_PDF,
    REGISTER_TRANSCRIPT,
    SET_SLIDES_URL,
    SET_VIDEO_URL,
)

EXTRACTION_ARTIFACT = "pptx-extraction"
EXTRACTION_VERSION = 5  # pptx-extraction v5 (rvault_pptx_evidence.versions.SCHEMA_VERSION)
MAX_EXTRACTION_BYTES = 256 * 1024 * 1024


def _plan(*mutations: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": 1, "mutations": list(mutations)}


def _talk(session: Session, filename: str) -> Mapping[str, Any] | None:
    database = session.result.database or {}
    for talk in database.get("talks") or []:
        if isinstance(talk, Mapping) and talk.get("filename") == filename:
            return talk
    return None


def _expect(talk: Mapping[str, Any] | None, name: str) -> Any:
    return talk[name] if talk is not None and name in talk else MISSING_MARKER


def lane(
    session: Session, kind: str, filename: str, name: str, value: Any, **extra: Any
) -> dict[str, Any]:
    """One lane change against the value the database holds now."""
    change = {
        "kind": kind,
        "filename": filename,
        "expect": _expect(_talk(session, filename), name),
        "value": value,
    }
    change.update(extra)
    return change


def vault_relative(argument: str, root: Path, flag: str) -> str:
    """A command-line path as the vault-relative value the database stores.

    One path rule for every tool: a path typed on the command line is relative
    to the working directory (an absolute one is taken as it is); only the
    locators stored in artifacts are vault-relative. The typed path must lie
    lexically inside the vault root (symlinked components are refused later by
    the lane's no-follow open, as before) and is rewritten relative to it. The
    root is compared both as typed and resolved, so a vault reached through a
    symlinked parent still accepts a path typed from its real working directory.
    """
    absolute = os.path.normpath(os.path.abspath(argument))  # noqa: PTH100 - lexical on purpose
    for base in _root_spellings(root):
        if os.path.commonpath([absolute, base]) == base and absolute != base:
            return os.path.relpath(absolute, base).replace(os.sep, "/")
    base = os.path.normpath(os.path.abspath(root))  # noqa: PTH100
    typed = "" if Path(argument).is_absolute() else " (relative to the working directory)"
    inside = os.path.relpath(os.path.join(base, argument))  # noqa: PTH118
    hint = "pass the path as seen from the working directory, inside the vault"
    if not Path(argument).is_absolute() and os.path.lexists(os.path.join(base, argument)):  # noqa: PTH118
        hint = f"paths are relative to the working directory: did you mean {inside}?"
    raise Refusal(
        "path_escapes_root",
        f"{argument}{typed} is not inside the vault root {base}",
        flag,
        hint=hint,
    )


def _root_spellings(root: Path) -> list[str]:
    lexical = os.path.normpath(os.path.abspath(root))  # noqa: PTH100
    resolved = os.path.realpath(root)
    return [lexical] if resolved == lexical else [lexical, resolved]


# --- the shortcuts -----------------------------------------------------------------


@dataclass(frozen=True)
class TranscriptRequest:
    talk: str
    path: str
    transcript_source: str | None = None

    def build(self, session: Session) -> dict[str, Any]:
        value = vault_relative(self.path, session.vault_root, "PATH")
        extra = (
            {} if self.transcript_source is None else {"transcript_source": self.transcript_source}
        )
        return _plan(
            lane(session, REGISTER_TRANSCRIPT, self.talk, "transcript_path", value, **extra)
        )


@dataclass(frozen=True)
class FetchedTranscriptRequest:
    """``register-transcript --fetch-result``: the path and provenance from the fetch result."""

    talk: str
    data: bytes
    transcript_source: str | None = None

    def build(self, session: Session) -> dict[str, Any]:
        api = fetched.transcript_reader()
        claim = fetched.read_claim(api, self.data, session.vault_root)
        fetched.verify_claim(api, claim, _talk(session, self.talk), session.vault_root)
        source = fetched.transcript_source(claim, self.transcript_source)
        extra = {} if source is None else {"transcript_source": source}
        change = lane(
            session, REGISTER_TRANSCRIPT, self.talk, "transcript_path", claim.vault_path, **extra
        )
        return _plan(change)


@dataclass(frozen=True)
class SlidesRequest:
    """``register-slides``; ``pdf_sha256``: the ``source_sha256`` promote printed, if given."""

    talk: str
    path: str
    pdf_sha256: str | None = None

    def build(self, session: Session) -> dict[str, Any]:
        value = vault_relative(self.path, session.vault_root, "PATH")
        if self.pdf_sha256 is not None:
            measured = measure_pdf(session.vault_root, value)
            if measured is not None and measured["sha256"] != self.pdf_sha256.lower():
                raise Refusal(
                    "slides_digest_mismatch",
                    f"{value} has SHA-256 {measured['sha256']}, not the {self.pdf_sha256} "
                    "rvault-video promote printed: the PDF was replaced since",
                    "--pdf-sha256",
                    hint="promote the trusted manifest again (rvault-video promote), then "
                    "register the PDF it prints",
                )
        return _plan(lane(session, REGISTER_SLIDES_PDF, self.talk, "slides_local_path", value))


def media_record(argument: str, root: Path, flag: str) -> dict[str, Any]:
    """The ``local_media`` v2 value for a recording named on the command line."""
    relative = vault_relative(argument, root, flag)
    try:
        return measure_recording(root, relative).record()
    except MediaError as exc:
        raise Refusal(exc.code, exc.message, flag, reason=exc.reason, hint=MEDIA_HINT) from None


@dataclass(frozen=True)
class MediaRequest:
    """``attach-media``: the talk's recording, measured now, as its ``local_media``."""

    talk: str
    path: str

    def build(self, session: Session) -> dict[str, Any]:
        record = media_record(self.path, session.vault_root, "PATH")
        return _plan(lane(session, ATTACH_MEDIA, self.talk, "local_media", record))


@dataclass(frozen=True)
class DeckRequest:
    extraction: str
    talk: str | None = None

    def build(self, session: Session) -> dict[str, Any]:
        relative = vault_relative(self.extraction, session.vault_root, "EXTRACTION")
        data = _read_in_vault(session.vault_root, relative)
        document = _extraction(data)
        database = session.result.database or {}
        roots = SourceRoots.from_config(session.vault_root, database.get("config"))
        _check_deck(roots, document)
        record = {
            "schema_version": 2,
            "pptx_path": document["pptx_path"],
            "talk_filename": self.talk,
            "matched": self.talk is not None,
            "slide_count": document["slide_count"],
            "visual_extracted": True,
            "visual_evidence": {
                "outcome": "succeeded",
                "extractor_schema_version": document["schema_version"],
                "pipeline_version": document["pipeline_version"],
                "source_fingerprint": document["input_fingerprint"],
                "artifact": {"path": relative, "sha256": sha256_bytes(data)},
            },
        }
        stored = next(
            (
                r
                for r in database.get("pptx_catalog") or []
                if isinstance(r, Mapping) and r.get("pptx_path") == document["pptx_path"]
            ),
            None,
        )
        changes = [
            {
                "kind": RECORD_PPTX,
                "expect": MISSING_MARKER if stored is None else stored,
                "record": record,
            }
        ]
        if self.talk is not None:
            others = [
                t
                for t in database.get("talks") or []
                if isinstance(t, Mapping) and t.get("filename") != self.talk
            ]
            proof = binding_change(
                _talk(session, self.talk), others, self.talk, document, sha256_bytes(data)
            )
            changes.insert(
                0, lane(session, REGISTER_PPTX, self.talk, "pptx_path", document["pptx_path"])
            )
            changes.extend([proof] if proof is not None else [])
        return _plan(*changes)


@dataclass(frozen=True)
class TalkRequest:
    title: str
    conference: str
    date: str
    filename: str | None = None
    delivery_language: str | None = None
    video_url: str | None = None
    slides_url: str | None = None
    transcript: str | None = None
    transcript_source: str | None = None
    pptx: str | None = None
    slides_pdf: str | None = None
    media: str | None = None

    def talk_filename(self) -> str:
        return self.filename or f"{self.date}-{slug(self.title)}.md"

    def build(self, session: Session) -> dict[str, Any]:
        filename = self.talk_filename()
        record: dict[str, Any] = {
            "schema_version": CURRENT_TALK_VERSION,
            "filename": filename,
            "title": self.title,
            "conference": self.conference,
            "date": self.date,
            "status": "pending",
        }
        if self.delivery_language is not None:
            record["delivery_language"] = self.delivery_language
        changes: list[dict[str, Any]] = [
            {"kind": ADD_TALK, "expect": MISSING_MARKER, "record": record}
        ]

        def new_lane(kind: str, value: str, **extra: Any) -> dict[str, Any]:
            change = {"kind": kind, "filename": filename, "expect": MISSING_MARKER, "value": value}
            change.update(extra)
            return change

        if self.video_url is not None:
            changes.append(new_lane(SET_VIDEO_URL, self.video_url))
        if self.slides_url is not None:
            changes.append(new_lane(SET_SLIDES_URL, self.slides_url))
        if self.transcript is not None:
            value = vault_relative(self.transcript, session.vault_root, "--transcript")
            extra = (
                {}
                if self.transcript_source is None
                else {"transcript_source": self.transcript_source}
            )
            changes.append(new_lane(REGISTER_TRANSCRIPT, value, **extra))
        if self.pptx is not None:
            changes.append(new_lane(REGISTER_PPTX, self.pptx))
        if self.slides_pdf is not None:
            value = vault_relative(self.slides_pdf, session.vault_root, "--slides-pdf")
            changes.append(new_lane(REGISTER_SLIDES_PDF, value))
        if self.media is not None:
            record = media_record(self.media, session.vault_root, "--media")
            changes.append(new_lane(ATTACH_MEDIA, record))
        return _plan(*changes)


def slug(title: str) -> str:
    """A filename slug: ASCII letters and digits joined by single hyphens."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    if not words:
        raise Refusal(
            "invalid_argument",
            "the title has no letters or digits to name the talk file",
            "--title",
            hint="pass --filename YYYY-MM-DD-slug.md",
        )
    return "-".join(words)[:80].strip("-")


# --- reading an extraction ---------------------------------------------------------


def _read_in_vault(root: Path, relative: str) -> bytes:
    fd, code = open_under_root(root, relative)
    if fd is None:
        raise Refusal(
            "artifact_missing" if code == "missing" else "extraction_unreadable",
            f"the extraction {relative!r} cannot be read under the vault ({code})",
            "EXTRACTION",
            reason=code,
            hint="write the extraction into the vault (rvault-pptx extract DECK --out DIR)",
        )
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_EXTRACTION_BYTES + 1)
    if len(data) > MAX_EXTRACTION_BYTES:
        raise Refusal("extraction_too_large", "the extraction is larger than 256 MiB", "EXTRACTION")
    return data


def _extraction(data: bytes) -> dict[str, Any]:
    """A current pptx-extraction document, read through its contract schema."""
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise Refusal(exc.code, f"extraction: {exc.message}", exc.path) from None
    version = document.get("schema_version") if isinstance(document, dict) else None
    if version != EXTRACTION_VERSION or type(version) is not int:
        raise Refusal(
            "extraction_not_current",
            f"the extraction is schema {version!r}, not the current v{EXTRACTION_VERSION}",
            '$["schema_version"]',
            hint="re-extract the deck with the installed rvault-pptx",
        )
    issues = schema_issues(EXTRACTION_ARTIFACT, EXTRACTION_VERSION, document)
    if issues:
        raise Refusal(
            "extraction_invalid",
            f"the extraction is not a valid pptx-extraction v{EXTRACTION_VERSION} document: "
            f"{issues[0].message}",
            issues[0].path,
            issues=render(issues[:20], SCHEMA_ISSUE_KEYS),
            hint="re-extract the deck with the installed rvault-pptx",
        )
    return document


def _check_deck(roots: SourceRoots, document: Mapping[str, Any]) -> None:
    """The deck the extraction names is under the deck root, with the same bytes."""
    pptx_path = document["pptx_path"]
    code = check_local(roots, LOCAL_PPTX, ROOT_PPTX, pptx_path)
    root = roots.root_for(ROOT_PPTX)
    if code is not None:
        raise Refusal(
            "deck_not_found" if code == "missing" else "deck_unreadable",
            f"the extraction's pptx_path {pptx_path!r} is not a readable deck under {root}"
            f" ({code})",
            '$["pptx_path"]',
            reason=code,
            hint=(
                "extract with --source-root set to config.pptx_source_dir (or the vault root), "
                "so pptx_path names the deck relative to it"
            ),
        )
    fd, _ = open_under_root(root, pptx_path)
    assert fd is not None
    with os.fdopen(fd, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    expected = document["input_fingerprint"]["digest"]
    if digest != expected:
        raise Refusal(
            "deck_fingerprint_mismatch",
            f"{pptx_path} has SHA-256 {digest}, the extraction was made from {expected}",
            '$["input_fingerprint"]["digest"]',
            hint="the deck changed since it was extracted: extract it again",
        )
