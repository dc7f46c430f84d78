"""The exact artifacts one talk's evidence is bound to, read once and hashed.

Validation proves a return is well formed against the bounds the vault
shows; persistence must additionally bind every citation and inspection row
to the exact bytes it was checked against. Each artifact is read here once,
without following a symlink at any path component, hashed, and re-checked
against what its owner recorded (transcript receipts through
``rvault_transcript.api``, the deck's extraction digest in the tracking-db
``pptx_catalog``). Anything missing, symlinked, relocated or changed since its
owner bound it fails closed with a stable code: evidence that cannot be
re-verified later must not be persisted as current.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.strict_json import StrictJSONError, is_number, loads_strict
from rvault_contracts.writer import WriterError, read_snapshot

from rvault_returns_persistence.artifacts import TalkArtifacts, _regular_file, owner_readings
from rvault_returns_persistence.codes import HINTS
from rvault_returns_persistence.delivery_video import missing_video
from rvault_returns_persistence.quote_locator import NormalizedText
from rvault_returns_persistence.refusals import HintedRefusal

VAULT = "vault"
PPTX_ROOT = "pptx_source_dir"  # tracking-db's root name for the configured deck source


class EvidenceRefusal(HintedRefusal):
    """An artifact cannot be bound: the whole batch is refused, nothing is written."""

    HINT = (
        "restore the exact artifact its owner produced (re-run the owner tool), or correct "
        "the citation at path, then persist the whole batch again"
    )


@dataclass(frozen=True)
class Identity:
    root: str
    path: str
    sha256: str

    def fields(self) -> dict[str, str]:
        return {
            "artifact_path": self.path,
            "artifact_root": self.root,
            "artifact_sha256": self.sha256,
        }


@dataclass(frozen=True)
class TranscriptEvidence:
    identity: Identity
    text: NormalizedText
    line_count: int
    quality: Identity
    timing: Identity | None
    segments: tuple[tuple[str, float, float], ...]
    timing_duration: float | None


@dataclass(frozen=True)
class BoundedArtifact:
    identity: Identity
    bound: float | int  # slide/page count or duration in seconds


def _read(root: Path, relative: str, code: str, what: str, path: str) -> bytes:
    found = _regular_file(root, relative)
    if found is None:
        raise EvidenceRefusal(
            code,
            f"{what} {relative!r} is missing, a symlink, or not a regular file below its root",
            path,
            hint="restore the artifact its owner produced (re-run the owner tool), then persist",
        )
    try:
        snapshot = read_snapshot(found)
    except WriterError as exc:
        raise EvidenceRefusal(code, f"{what} {relative!r}: {exc.message}", path) from None
    if snapshot.data is None:
        raise EvidenceRefusal(code, f"{what} {relative!r} disappeared while reading", path)
    return snapshot.data


class VerifiedArtifacts:
    """Lazily bound artifacts of one talk; ``path`` is the return's JSON path for refusals."""

    def __init__(
        self,
        *,
        vault_root: Path,
        pptx_root: Path | None,
        talk: dict[str, Any],
        found: TalkArtifacts,
        pptx_record: dict[str, Any] | None,
        path: str,
    ) -> None:
        self.vault_root = vault_root
        self.pptx_root = pptx_root
        self.talk = talk
        self.found = found
        self.pptx_record = pptx_record
        self.path = path

    # ------------------------------------------------------------------ transcript

    @cached_property
    def transcript(self) -> TranscriptEvidence:
        """The transcript bytes, bound to the owner's quality receipt and, when current,
        its timing receipt (whose segments place a timed quote)."""
        relative = self.found.transcript_path
        if relative is None:
            raise EvidenceRefusal(
                "transcript_artifact_missing",
                "the talk has no readable transcript in the vault",
                self.path,
                hint="register the transcript (rvault-transcript fetch) before persisting",
            )
        data = _read(
            self.vault_root, relative, "transcript_artifact_missing", "transcript", self.path
        )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise EvidenceRefusal(
                "transcript_not_utf8", f"{relative} is not UTF-8", self.path
            ) from None
        timing, quality = owner_readings(self.vault_root / relative, data, self.talk)
        quality_identity = self._quality(relative, quality)
        timing_identity, segments, duration = self._timing(relative, timing)
        from rvault_returns_persistence.artifacts import count_lines

        return TranscriptEvidence(
            identity=Identity(VAULT, relative, sha256_bytes(data)),
            text=NormalizedText(text),
            line_count=count_lines(data),
            quality=quality_identity,
            timing=timing_identity,
            segments=segments,
            timing_duration=duration,
        )

    def _quality(self, relative: str, quality: Any) -> Identity:
        """The hash-current quality receipt beside the transcript (current evidence needs it)."""
        if not quality.usable:
            raise EvidenceRefusal(
                "transcript_quality_receipt_unusable",
                f"current transcript evidence needs a hash-current quality receipt beside "
                f"{relative}: {quality.code}: {quality.message}",
                self.path,
                owner_code=quality.code,
                hint="re-run rvault-transcript fetch (or vtt-cleanup) so the quality receipt "
                "matches the transcript bytes",
            )
        quality_rel = str(Path(relative).with_name(Path(relative).stem + ".quality.json"))
        quality_bytes = _read(
            self.vault_root,
            quality_rel,
            "transcript_quality_receipt_unusable",
            "quality receipt",
            self.path,
        )
        return Identity(VAULT, quality_rel, sha256_bytes(quality_bytes))

    def _timing(
        self, relative: str, timing: Any
    ) -> tuple[Identity | None, tuple[tuple[str, float, float], ...], float | None]:
        """The current timing receipt's identity, segments and duration (none when unusable)."""
        if not timing.usable or timing.receipt is None:
            return None, (), None
        timing_rel = str(Path(relative).with_name(Path(relative).stem + ".segments.json"))
        timing_bytes = _read(
            self.vault_root, timing_rel, "timing_receipt_unusable", "timing receipt", self.path
        )
        segments = tuple((s.text, s.start_seconds, s.end_seconds) for s in timing.segments)
        value = timing.receipt.provenance.get("duration_seconds")
        duration = float(value) if is_number(value) and value > 0 else None
        return Identity(VAULT, timing_rel, sha256_bytes(timing_bytes)), segments, duration

    # ------------------------------------------------------------------ slides

    @cached_property
    def static_slides(self) -> BoundedArtifact:
        relative, pages = self.found.pdf_path, self.found.pdf_pages
        if relative is None or pages is None:
            raise EvidenceRefusal(
                "slide_artifact_unverified",
                "static_slides evidence needs a readable slide PDF in the vault with a known "
                "page count",
                self.path,
                hint="promote the slide PDF to slides/ (rvault-video promote or the deck export)",
            )
        data = _read(self.vault_root, relative, "slide_artifact_unverified", "PDF", self.path)
        return BoundedArtifact(Identity(VAULT, relative, sha256_bytes(data)), pages)

    @cached_property
    def native_deck(self) -> BoundedArtifact:
        count = self.found.deck_slides
        record = self.pptx_record
        if count is None or record is None:
            raise EvidenceRefusal(
                "native_deck_artifact_unverified",
                "native_deck evidence needs the talk's pptx_catalog record with a slide count",
                self.path,
                hint="extract the deck (rvault-pptx extract) and record it with rvault-db",
            )
        evidence = record.get("visual_evidence")
        artifact = evidence.get("artifact") if isinstance(evidence, dict) else None
        if isinstance(artifact, dict) and isinstance(artifact.get("path"), str):
            relative = artifact["path"]
            data = _read(
                self.vault_root,
                relative,
                "native_deck_artifact_unverified",
                "deck extraction",
                self.path,
            )
            digest = sha256_bytes(data)
            if digest != artifact.get("sha256"):
                raise EvidenceRefusal(
                    "native_deck_artifact_changed",
                    f"{relative} no longer has the digest its pptx_catalog record bound",
                    self.path,
                    hint="re-extract the deck and record the new extraction",
                )
            self._check_deck_audit(data, evidence, count, record.get("pptx_path"))
            return BoundedArtifact(Identity(VAULT, relative, digest), count)
        relative = record.get("pptx_path")
        root_name = PPTX_ROOT if self.pptx_root is not None else VAULT
        root = self.pptx_root if self.pptx_root is not None else self.vault_root
        if not isinstance(relative, str):
            raise EvidenceRefusal(
                "native_deck_artifact_unverified", "the pptx_catalog record has no path", self.path
            )
        data = _read(root, relative, "native_deck_artifact_unverified", "deck", self.path)
        return BoundedArtifact(Identity(root_name, relative, sha256_bytes(data)), count)

    def _check_deck_audit(
        self, data: bytes, evidence: dict[str, Any], count: int, pptx_path: object
    ) -> None:
        """The extraction's native_deck_audit binds the deck's digest, size and slide count.

        The audit must agree with the catalog record (slide count, source fingerprint), and
        when the deck itself is reachable under its root its bytes must still be the ones
        that were extracted: a deck edited after extraction is stale evidence.
        """
        refuse = "native_deck_audit_mismatch"
        hint = "re-extract the deck (rvault-pptx extract) and record the new extraction"
        try:
            extraction = loads_strict(data)
        except StrictJSONError:
            raise EvidenceRefusal(refuse, "the deck extraction is not strict JSON", self.path,
                                  hint=hint) from None  # fmt: skip
        audit = extraction.get("native_deck_audit") if isinstance(extraction, dict) else None
        fingerprint = evidence.get("source_fingerprint")
        digest = fingerprint.get("digest") if isinstance(fingerprint, dict) else None
        size = fingerprint.get("size_bytes") if isinstance(fingerprint, dict) else None
        if not isinstance(audit, dict):
            raise EvidenceRefusal(
                "native_deck_audit_missing",
                "the deck extraction carries no native_deck_audit",
                self.path,
                hint=hint,
            )
        agrees = (
            audit.get("slide_count") == count
            and audit.get("source_pptx_sha256") == digest
            and audit.get("source_pptx_size_bytes") == size
        )
        if not agrees:
            raise EvidenceRefusal(
                refuse,
                "the extraction's native_deck_audit does not match the pptx_catalog record "
                "(slide count, deck digest or size)",
                self.path,
                hint=hint,
            )
        root = self.pptx_root if self.pptx_root is not None else self.vault_root
        deck = _regular_file(root, pptx_path) if isinstance(pptx_path, str) else None
        if deck is not None:
            current = read_snapshot(deck).data
            if current is not None and sha256_bytes(current) != digest:
                raise EvidenceRefusal(
                    "native_deck_artifact_changed",
                    f"{pptx_path} changed after it was extracted",
                    self.path,
                    hint=hint,
                )

    def slides(self, source: str) -> BoundedArtifact:
        return self.static_slides if source == "static_slides" else self.native_deck

    # ------------------------------------------------------------------ video

    @cached_property
    def delivery_video(self) -> BoundedArtifact:
        """The identity-bound video artifact and its verified duration.

        The downloaded delivery video (``slides-rebuild/{id}/{id}.mp4``) with the duration
        its transcript owner verified, else the current timing receipt itself (a timed
        artifact whose owner-bound provenance carries the duration). A URL or an unbound
        ``source_identity`` duration cannot verify a timestamp, and a timing receipt stands
        in only for a video that exists: a talk with none (an audio-only recording, nothing
        named) is ``delivery_video_unavailable`` (:mod:`.delivery_video`).
        """
        missing = missing_video(self.vault_root, self.talk, self.found)
        if missing is not None:
            raise EvidenceRefusal(
                "delivery_video_unavailable",
                f"no delivery_video to bind: {missing}",
                self.path,
                hint=HINTS["delivery_video_unavailable"],
            )
        duration = self.found.video_duration
        relative = self.found.video_path
        if relative is not None and duration is not None and self._receipt_duration():
            data = _read(self.vault_root, relative, "video_artifact_unverified", "video", self.path)
            return BoundedArtifact(Identity(VAULT, relative, sha256_bytes(data)), duration)
        if self.found.transcript_path is not None:
            transcript = self.transcript
            if transcript.timing is not None and transcript.timing_duration is not None:
                return BoundedArtifact(transcript.timing, transcript.timing_duration)
        raise EvidenceRefusal(
            "video_artifact_unverified",
            "delivery_video evidence needs an identity-bound video artifact with a verified "
            "duration (the downloaded video plus a current transcript receipt, or a current "
            "timing receipt)",
            self.path,
            hint="fetch the transcript with timing (rvault-transcript fetch) so the video "
            "duration is owner-verified",
        )

    def _receipt_duration(self) -> bool:
        from rvault_returns_persistence.artifacts import _receipt_duration

        transcript = self.found.transcript_path
        if transcript is None or not transcript.endswith(".txt"):
            return False
        return _receipt_duration(self.vault_root, self.talk, transcript) is not None

    def bounded(self, source: str) -> BoundedArtifact:
        if source == "transcript":
            t = self.transcript
            return BoundedArtifact(t.identity, t.line_count)
        if source == "delivery_video":
            return self.delivery_video
        return self.slides(source)
