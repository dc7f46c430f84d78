"""One evidence summary per talk: what ``rvault-db status`` and the vault site both render.

A talk's evidence is judged by its owners: the capability resolver (which
local paths are readable below the roots), the transcript owner (the
transcript and its quality/timing receipts), the video owner (the manifest
and whether its slide region is trusted), the pptx owner (the catalogued
deck's receipt against the live deck), and this package's byte checks of
the attached recording and the promoted slide PDF. Status and the site used
to ask them separately and had drifted apart (one asked the pptx owner, one
took any directory entry for a manifest, the transcript path was chosen by
two rules); :func:`talk_evidence` asks every owner once, so the two views
cannot disagree. For an analysed talk it also lists the persisted evidence
identities its files no longer have (:mod:`.evidence_identity`), reusing
the digests the owners' readers computed here so no file is read twice.

The owners' readers are optional extras of tracking-db (``[status]``): a
caller passes :class:`OwnerReaders` (``OwnerReaders.installed()`` imports
them by ordinary import statements in :mod:`.owner_readers`); an absent
reader makes its lane ``reader_unavailable`` (or leaves the pptx verdict
unknown) instead of a guess.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_tracking_db import owner_readers
from rvault_tracking_db.capabilities import (
    ROOT_PPTX,
    ROOT_VAULT,
    SourceRoots,
    open_under_root,
    resolve,
)
from rvault_tracking_db.evidence_identity import (
    IdentityCheck,
    StaleIdentity,
    is_analysed,
    owner_receipts,
)
from rvault_tracking_db.slides_identity import check_slides, measure_pdf, slides_identity
from rvault_tracking_db.talk_media import talk_local_media, talk_video_key, transcript_owner

READER_UNAVAILABLE = "reader_unavailable"
VIDEO_EXTRACTED = "video_extracted"


_LOADERS: dict[str, Callable[[], ModuleType | None]] = {
    "transcript": owner_readers.transcript_api,
    "video": owner_readers.video_api,
    "pptx": owner_readers.pptx_api,
}


class OwnerReaders:
    """The other owners' public ``api`` modules the summary asks (None: not installed).

    ``OwnerReaders(transcript, video, pptx)`` uses the modules given;
    :meth:`installed` imports each installed reader the first time a talk
    asks it, so a vault without transcripts, manifests or catalogued decks
    on disk never loads their readers (``rvault-db status`` is a small job:
    its imports are most of its time).
    """

    __slots__ = ("_loaded",)

    def __init__(
        self, transcript: ModuleType | None, video: ModuleType | None, pptx: ModuleType | None
    ) -> None:
        self._loaded: dict[str, ModuleType | None] = {
            "transcript": transcript,
            "video": video,
            "pptx": pptx,
        }

    @classmethod
    def installed(cls) -> OwnerReaders:
        """The installed readers, each imported on first use."""
        readers = cls(None, None, None)
        readers._loaded.clear()
        return readers

    def _reader(self, name: str) -> ModuleType | None:
        if name not in self._loaded:
            self._loaded[name] = _LOADERS[name]()
        return self._loaded[name]

    @property
    def transcript(self) -> ModuleType | None:
        return self._reader("transcript")

    @property
    def video(self) -> ModuleType | None:
        return self._reader("video")

    @property
    def pptx(self) -> ModuleType | None:
        return self._reader("pptx")

    def available(self, name: str) -> bool:
        """Whether reader ``name`` (``transcript``, ``video``, ``pptx``) is there, without
        importing one no talk has asked: its loaded value, else whether it is installed."""
        if name in self._loaded:
            return self._loaded[name] is not None
        return owner_readers.installed(name)


@dataclass(frozen=True)
class TranscriptEvidence:
    """``state``: ``missing``, ``reader_unavailable`` or the transcript owner's state."""

    path: str | None
    state: str
    quality: str | None
    timing: str | None
    report: Any = field(default=None, compare=False, repr=False)
    """The transcript owner's full evidence report (receipts, segments), when read."""


@dataclass(frozen=True)
class DeckEvidence:
    """The talk's ``pptx_path``, its readable local deck and what its catalog receipt says.

    ``state``: ``none`` (no ``pptx_path``), ``not_catalogued``,
    ``legacy_receipt``, ``not_extracted``, ``extracted`` or
    ``extraction_failed``; ``evidence_class``/``regenerate``: the pptx
    owner's verdict on the receipt against the live deck (None without it).
    """

    pptx_path: str | None
    readable_path: str | None
    state: str
    evidence_class: str | None
    regenerate: bool | None
    digests: Mapping[tuple[str, str], str | None] = field(default_factory=dict, compare=False)
    """What the pptx verdict read: (root, path) -> SHA-256 of the deck and its extraction."""


@dataclass(frozen=True)
class ManifestEvidence:
    """``status``: ``missing``, ``reader_unavailable`` or the video owner's status."""

    path: str | None
    status: str
    trusted: bool
    usable: bool = False
    codes: tuple[str, ...] = ()
    slide_region_path: str | None = None
    slide_region_sha256: str | None = None
    recording: tuple[str, str] | None = field(default=None, compare=False)
    """A current v4 manifest's recording (vault path, SHA-256): the video owner re-checked
    those bytes in this read (size, then SHA-256), so nothing else hashes them again."""


@dataclass(frozen=True)
class SlidesEvidence:
    """The promoted PDF (``slides_local_path``): its recorded identity and its trust.

    ``state``: ``current`` or :func:`.slides_identity.check_slides`'s code
    (``unbound``, ``slides_missing``, ``slides_stale``); ``readable``: the
    resolver found a regular PDF there; ``sha256``: the digest judged.
    """

    path: str
    state: str
    readable: bool
    trusted: bool
    reason: str
    sha256: str | None = None


@dataclass(frozen=True)
class MediaEvidence:
    """The attached recording: ``current``, ``invalid`` (a malformed record) or its check code."""

    path: str | None
    state: str


@dataclass(frozen=True)
class TalkEvidence:
    capabilities: list[dict[str, Any]]
    findings: tuple[dict[str, str], ...]
    transcript: TranscriptEvidence
    deck: DeckEvidence
    manifest: ManifestEvidence
    slides: SlidesEvidence | None
    media: MediaEvidence | None
    stale_identities: tuple[StaleIdentity, ...] = ()
    """An analysed talk's persisted evidence identities its files no longer have
    (:mod:`.evidence_identity`): the analysis describes bytes that are gone."""


def deck_catalog(database: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The ``pptx_catalog`` records by ``pptx_path`` (the key a talk names its deck by)."""
    return {
        r["pptx_path"]: r
        for r in database.get("pptx_catalog") or []
        if isinstance(r, Mapping) and isinstance(r.get("pptx_path"), str)
    }


def deck_record(
    catalog: Mapping[str, Mapping[str, Any]], talk: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """The catalog record of the talk's ``pptx_path`` (None when unset or not catalogued)."""
    path = talk.get("pptx_path")
    return catalog.get(path) if isinstance(path, str) and path else None


def _transcript(
    talk: Mapping[str, Any],
    capabilities: list[dict[str, Any]],
    vault_root: Path,
    readers: OwnerReaders,
) -> TranscriptEvidence:
    """The declared transcript when it is readable, else the first readable one."""
    paths = [c["path"] for c in capabilities if c["capability"] == "local_transcript"]
    declared = talk.get("transcript_path")
    path = declared if isinstance(declared, str) and declared in paths else None
    path = path or (paths[0] if paths else None)
    if path is None:
        return TranscriptEvidence(None, "missing", None, None)
    api = readers.transcript
    if api is None:
        return TranscriptEvidence(path, READER_UNAVAILABLE, None, None)
    owner = api.OwnerContext(**transcript_owner(talk).kwargs())
    report = api.read_evidence(vault_root / path, owner=owner)
    return TranscriptEvidence(path, report.state, report.quality.code, report.timing.code, report)


def _manifest(talk: Mapping[str, Any], vault_root: Path, readers: OwnerReaders) -> ManifestEvidence:
    """The video owner's verdict on whatever is at the manifest path; nothing there is missing."""
    video = talk_video_key(talk)
    if video is None:
        return ManifestEvidence(None, "missing", False)
    api = readers.video
    if api is None:
        return ManifestEvidence(None, READER_UNAVAILABLE, False)
    relative = api.manifest_path(video)
    if not os.path.lexists(vault_root / relative):
        return ManifestEvidence(None, "missing", False)
    report = api.read_manifest(
        vault_root / relative, vault_root=vault_root, expected_video_id=video
    )
    region = report.trusted_slide_region_path
    return ManifestEvidence(
        relative,
        report.status,
        bool(report.trusted),
        bool(report.usable),
        tuple(report.codes),
        region,
        report.pdf_sha256.get(region) if region is not None else None,
        _verified_recording(vault_root, relative) if report.status == "current" else None,
    )


def _verified_recording(vault_root: Path, relative: str) -> tuple[str, str] | None:
    """The ``source_receipt`` recording a current manifest binds (its owner just checked it).

    Only the receipt's path and digest are read, from the bytes at the
    manifest path (no link followed); the owner's reader decided the rest.
    """
    data = _file_bytes(vault_root, relative)
    try:
        document = loads_strict(data) if data is not None else None
    except StrictJSONError:
        return None
    receipt = document.get("source_receipt") if isinstance(document, Mapping) else None
    if not isinstance(receipt, Mapping):
        return None
    path, digest = receipt.get("vault_path"), receipt.get("sha256")
    return (path, digest) if isinstance(path, str) and is_sha256_hex(digest) else None


def _slides_trust(
    talk: Mapping[str, Any], manifest: ManifestEvidence, digest: str
) -> tuple[bool, str]:
    """Whether a readable promoted PDF may be shown as the talk's slides, and why."""
    if talk.get("slide_source") != VIDEO_EXTRACTED:
        return True, "authored PDF"
    if not manifest.trusted:
        return False, "video-extracted, but the manifest is not trusted"
    if digest != manifest.slide_region_sha256:
        return False, "video-extracted, but not the manifest's trusted slide region"
    return True, "trusted video-extracted slide region"


def _slides(
    talk: Mapping[str, Any],
    capabilities: list[dict[str, Any]],
    vault_root: Path,
    manifest: ManifestEvidence,
) -> SlidesEvidence | None:
    path = talk.get("slides_local_path")
    if not isinstance(path, str) or not path:
        return None
    code = check_slides(vault_root, talk)
    state = "current" if code is None else code
    readable = any(
        c["capability"] == "local_pdf" and c.get("path") == path and c.get("root") == "vault"
        for c in capabilities
    )
    digest = None
    if readable:
        identity = slides_identity(talk) if code is None else None
        measured = {"sha256": identity["sha256"]} if identity else measure_pdf(vault_root, path)
        digest = None if measured is None else measured["sha256"]
    if digest is None:
        return SlidesEvidence(
            path, state, False, False, "the promoted PDF is missing or unreadable"
        )
    trusted, reason = _slides_trust(talk, manifest, digest)
    return SlidesEvidence(path, state, True, trusted, reason, digest)


def _media(talk: Mapping[str, Any], vault_root: Path) -> MediaEvidence | None:
    """The attached recording and whether it still has the recorded bytes (size, then SHA-256)."""
    if "local_media" not in talk:
        return None
    media = talk_local_media(talk)
    if media is None:
        return MediaEvidence(None, "invalid")
    # Imported here: the recording's module carries the ffprobe measurement (subprocess),
    # which a vault without attached recordings never needs.
    from rvault_tracking_db.media_probe import check_recording

    code = check_recording(vault_root, media)
    return MediaEvidence(media.get("path"), "current" if code is None else code)


def _file_bytes(root: Path, relative: str) -> bytes | None:
    """The bytes of ``root/relative`` read without following a link, else None."""
    fd, _ = open_under_root(root, relative)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _evidence_class(
    record: Mapping[str, Any], roots: SourceRoots, api: Any
) -> tuple[Any, dict[tuple[str, str], str | None]]:
    """The pptx owner's verdict on a catalogued deck, from what is on disk now, and the
    digests of the deck and extraction it read ((root, path) -> SHA-256, None: gone)."""
    deck = _file_bytes(roots.root_for(ROOT_PPTX), record["pptx_path"])
    digests: dict[tuple[str, str], str | None] = {}
    fingerprint = None
    if deck is not None:
        digest = hashlib.sha256(deck).hexdigest()
        fingerprint = {"algorithm": "sha256", "digest": digest, "size_bytes": len(deck)}
    digests[(ROOT_PPTX, record["pptx_path"])] = None if deck is None else digest
    receipt = record.get("visual_evidence")
    artifact = receipt.get("artifact") if isinstance(receipt, Mapping) else None
    data = artifact_sha256 = None
    if isinstance(artifact, Mapping) and isinstance(artifact.get("path"), str):
        data = _file_bytes(roots.vault_root, artifact["path"])
        artifact_sha256 = None if data is None else hashlib.sha256(data).hexdigest()
        digests[(ROOT_VAULT, artifact["path"])] = artifact_sha256
    observed = api.LiveObservation(
        source_fingerprint=fingerprint,
        artifact_sha256=artifact_sha256,
        artifact_reading=None if data is None else api.read_extraction(data),
    )
    return api.classify_pptx_visual_evidence(dict(record), observed), digests


def receipt_state(record: Mapping[str, Any] | None) -> str:
    """What a deck's ``pptx_catalog`` record (``rvault-db record-deck``) says."""
    if record is None:
        return "not_catalogued"
    receipt = record.get("visual_evidence")
    if record.get("schema_version") != 2:
        return "legacy_receipt"
    if receipt is None:
        return "not_extracted"
    if isinstance(receipt, Mapping) and receipt.get("outcome") == "succeeded":
        return "extracted"
    return "extraction_failed"


def _deck(
    talk: Mapping[str, Any],
    capabilities: list[dict[str, Any]],
    record: Mapping[str, Any] | None,
    roots: SourceRoots,
    readers: OwnerReaders,
) -> DeckEvidence:
    decks = [c["path"] for c in capabilities if c["capability"] == "local_pptx"]
    readable = decks[0] if decks else None
    path = talk.get("pptx_path")
    if not isinstance(path, str) or not path:
        return DeckEvidence(None, readable, "none", None, None)
    verdict, digests = None, {}
    api = None if record is None else readers.pptx  # imported only for a catalogued deck
    if record is not None and api is not None:
        verdict, digests = _evidence_class(record, roots, api)
    return DeckEvidence(
        path,
        readable,
        receipt_state(record),
        None if verdict is None else verdict.klass,
        None if verdict is None else verdict.regenerate,
        digests,
    )


def talk_evidence(
    talk: Mapping[str, Any],
    roots: SourceRoots,
    record: Mapping[str, Any] | None,
    readers: OwnerReaders,
) -> TalkEvidence:
    """Ask every owner what this talk's evidence is worth now (a pure function of the bytes).

    ``record`` is the talk's deck receipt (:func:`deck_record` of
    :func:`deck_catalog`), looked up by the caller so a parallel caller
    passes one record per talk, not the whole catalog.
    """
    resolution = resolve(talk, roots)
    capabilities = resolution.capabilities
    vault_root = roots.vault_root
    manifest = _manifest(talk, vault_root, readers)
    summary = TalkEvidence(
        capabilities=capabilities,
        findings=tuple(f.to_dict() for f in resolution.findings),
        transcript=_transcript(talk, capabilities, vault_root, readers),
        deck=_deck(talk, capabilities, record, roots, readers),
        manifest=manifest,
        slides=_slides(talk, capabilities, vault_root, manifest),
        media=_media(talk, vault_root),
    )
    if not is_analysed(talk):
        return summary
    stale = IdentityCheck(roots).stale(
        talk, receipts=owner_receipts(talk, record), current=_current_digests(talk, summary)
    )
    return replace(summary, stale_identities=tuple(stale)) if stale else summary


def _current_digests(
    talk: Mapping[str, Any], summary: TalkEvidence
) -> dict[tuple[str, str], str | None]:
    """The digests the owners' readers computed for this summary, so the identity check
    reads no file twice: the transcript (its owner hashed it to judge the receipts), the
    promoted PDF, the deck and its extraction (the pptx verdict), a current recording."""
    digests = dict(summary.deck.digests)
    report = summary.transcript.report
    path = summary.transcript.path
    if path is not None and report is not None and report.transcript_sha256 is not None:
        digests[(ROOT_VAULT, path)] = report.transcript_sha256
    if summary.slides is not None and summary.slides.sha256 is not None:
        digests[(ROOT_VAULT, summary.slides.path)] = summary.slides.sha256
    if summary.manifest.recording is not None:
        path, digest = summary.manifest.recording
        digests[(ROOT_VAULT, path)] = digest
    media = talk_local_media(talk) if summary.media is not None else None
    if media is not None and summary.media is not None and summary.media.state == "current":
        digests[(ROOT_VAULT, str(media.get("path")))] = str(media["sha256"])
    return digests
