"""Everything one return is checked against: version, talk, claim, catalog, artifacts.

Validation builds it (:func:`return_context`) and persistence rebuilds the same one
under its session to canonicalize a member's evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Collector
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.artifacts import TalkArtifacts, owner_readings, resolve
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.database import Database
from rvault_returns_persistence.quote_locator import NormalizedText
from rvault_returns_persistence.video_manifest import ManifestVerdict, assess


@dataclass(eq=False)
class ReturnContext:
    path: str
    ret: dict[str, Any]
    version: int
    status: str | None
    talk: dict[str, Any]
    claim: dict[str, Any] | None
    catalog: Catalog
    artifacts: TalkArtifacts
    manifest: ManifestVerdict | None
    issues: Collector
    vault_root: Path = field(default=Path())
    pptx_record: dict[str, Any] | None = None  # the talk's pptx_catalog record (tracking-db)
    pptx_root: Path | None = None  # the configured pptx_source_dir (None: decks live in the vault)
    recomputations: Any = None  # checks.deck_audit.Recomputations started by the batch

    def add(self, code: str, path: str, message: str) -> None:
        self.issues.add(code, path, message)

    @property
    def non_english(self) -> bool:
        """Preclaim metadata or the return itself names a non-English delivery."""
        languages = [self.talk.get("delivery_language")]
        structured = self.ret.get("structured_data")
        if isinstance(structured, dict):
            languages.append(structured.get("delivery_language"))
        return any(
            isinstance(lang, str) and lang.strip() and not lang.strip().lower().startswith("en")
            for lang in languages
        )

    @cached_property
    def timing_usable(self) -> bool:
        """A current, owner-bound timing receipt v2 stands beside the transcript.

        Read through ``rvault_transcript.api`` (the receipt owner) only when a return cites
        timed_transcript; without it timed evidence is unavailable, never downgraded.
        """
        data = self.artifacts.transcript_bytes
        if self.artifacts.transcript_path is None or data is None:
            return False
        path = self.vault_root / self.artifacts.transcript_path
        timing, _ = owner_readings(path, data, self.talk)
        return bool(timing.usable)

    @cached_property
    def transcript_text(self) -> NormalizedText | None:
        """The transcript as quotes are located in it (None: absent or not UTF-8)."""
        data = self.artifacts.transcript_bytes
        if data is None:
            return None
        try:
            return NormalizedText(data.decode("utf-8"))
        except UnicodeDecodeError:
            return None

    @property
    def untrusted_video(self) -> bool:
        """A video-extracted return whose manifest cannot back authored-slide evidence."""
        return self.ret.get("slide_source") == "video_extracted" and not (
            self.manifest is not None and self.manifest.trusted
        )


def return_context(
    path: str,
    ret: dict[str, Any],
    *,
    version: int,
    status: str | None,
    talk: dict[str, Any],
    claim: dict[str, Any],
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    issues: Collector,
    recomputations: Any = None,
) -> ReturnContext:
    """What one return is checked against (validation builds it, persistence rebuilds it)."""
    manifest = None
    structured = ret.get("structured_data")
    if (
        ret.get("slide_source") == "video_extracted"
        and isinstance(structured, dict)
        and "video_extraction" in structured
    ):
        manifest = assess(structured["video_extraction"], vault_root=vault_root)
    found = resolve(
        vault_root,
        talk,
        deck_slides=db.deck_slides(talk),
        return_pdf=ret.get("slides_local_path"),
    )
    roots = tracking.SourceRoots.from_config(vault_root, db.root.get("config"))
    return ReturnContext(
        path,
        ret,
        version,
        status,
        talk,
        claim,
        catalog,
        found,
        manifest,
        issues,
        vault_root,
        pptx_record=db.talk_deck(talk),
        pptx_root=roots.pptx_source_dir,
        recomputations=recomputations,
    )
