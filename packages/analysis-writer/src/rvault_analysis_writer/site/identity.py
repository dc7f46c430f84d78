"""Source-identity findings on a talk page: does this analysis describe the right sources?

The tracking-db owner decides (``rvault_tracking_db.api.identity_findings``:
the recorded identity against the talk, duplicate uploads, rejected sources
still active, the deck binding's stored proof); the site only words them.
A blocking finding means the analysis may rest on another delivery's
recording or deck, so the page says so above the score, with the code a
reader can look up and the command that checks the whole vault.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_tracking_db.api import identity_findings


@dataclass(frozen=True)
class IdentityNote:
    severity: str
    code: str
    message: str


def identity_notes(
    database: Mapping[str, Any], vault_root: Path
) -> dict[str, tuple[IdentityNote, ...]]:
    """Each talk's findings (filename -> notes, blocking first), for the talk pages."""
    return {
        filename: tuple(
            IdentityNote(f["severity"], f["code"], f["message"]) for f in entry["findings"]
        )
        for filename, entry in identity_findings(database, vault_root).items()
    }
