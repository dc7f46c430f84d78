"""Is the evidence an analysis cites still the evidence it was made from?

Persist binds every inspected source to exact bytes: each
``pattern_observations.source_inspection`` row names its vault artifact and
the SHA-256 it had (a transcript also its quality and timing receipts). A
transcript re-fetched or a slide PDF replaced afterwards leaves a rendered
analysis describing bytes that are gone, so ``write`` and ``site`` report
each mismatch per talk (they still render: the analysis is the persisted
truth, the report says it is stale and what to do).

The judging is tracking-db's (``rvault_tracking_db.api.IdentityCheck``), the
same check ``rvault-db status`` shows as ``evidence_identity_stale`` and
``queue normalize`` requeues on, so the report, the site and the status
table name the same talks: owner records first (a recording's size and
measured generation), then one no-follow hash per file per run. This module
only reshapes its answer into the reports' ``stale_evidence`` items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_tracking_db.api import (
    IdentityCheck,
    SourceRoots,
    deck_catalog,
    deck_record,
    owner_receipts,
)

VAULT = "vault"
CHANGED = "evidence_changed"
MISSING = "evidence_missing"


@dataclass(frozen=True)
class StaleEvidence:
    filename: str
    source: str
    path: str
    recorded_sha256: str
    actual_sha256: str | None
    code: str
    made_from: str | None = None
    """The deck the cited extraction was made from, when the deck was edited after it
    (the extraction's own bytes still match): said in the warning, not a report field."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "actual_sha256": self.actual_sha256,
            "code": self.code,
            "filename": self.filename,
            "path": self.path,
            "recorded_sha256": self.recorded_sha256,
            "source": self.source,
        }

    def message(self) -> str:
        if self.made_from is not None:
            now = (
                f"is unchanged, but it was made from {self.made_from}, which has other bytes "
                "now, so it no longer describes the deck"
            )
        elif self.code == MISSING:
            now = "is gone or unreadable"
        else:
            now = "has other bytes now"
        return (
            f"{self.filename}: the {self.source} evidence {self.path} the persisted analysis "
            f"cites {now}; re-run the talk (rvault-db queue normalize, claim, persist) or "
            "restore the file"
        )


@dataclass
class EvidenceCheck:
    """One run's check (each file read at most once); ``roots``: the database's source roots
    (a deck cited under ``pptx_source_dir``; without them only vault evidence is reported,
    a deck folder elsewhere cannot be judged); ``decks``: the
    ``pptx_catalog`` by ``pptx_path`` (``api.deck_catalog``), so a deck edited after its
    extraction makes the cited extraction stale as status says (without it, only the
    extraction's own bytes are judged)."""

    vault_root: Path
    roots: SourceRoots | None = None
    decks: Mapping[str, Mapping[str, Any]] | None = None
    _check: IdentityCheck = field(init=False)

    def __post_init__(self) -> None:
        self._check = IdentityCheck(self.roots or SourceRoots(self.vault_root))

    @classmethod
    def of_database(cls, vault_root: Path, database: Mapping[str, Any]) -> EvidenceCheck:
        """The check ``write`` and ``site`` both run: the database's source roots and its
        deck catalog, as ``rvault-db status`` reads them, so the three name the same talks."""
        roots = SourceRoots.from_config(vault_root, database.get("config"))
        return cls(vault_root, roots, deck_catalog(database))

    def stale(self, talk: Mapping[str, Any]) -> list[StaleEvidence]:
        record = deck_record(self.decks, talk) if self.decks is not None else None
        found = self._check.stale(talk, receipts=owner_receipts(talk, record))
        return [
            StaleEvidence(
                str(talk.get("filename")),
                s.identity.source,
                s.identity.path,
                s.identity.sha256,
                s.actual_sha256,
                s.code,
                s.made_from,
            )
            for s in found
            if self.roots is not None or s.identity.root == VAULT
        ]
