"""Is the evidence an analysis cites still the evidence it was made from?

Persist binds every inspected source to exact bytes: each
``pattern_observations.source_inspection`` row names its vault artifact and
the SHA-256 it had (a transcript also its quality receipt). A transcript
re-fetched or a slide PDF replaced afterwards leaves a rendered analysis
describing bytes that are gone, so ``write`` and ``site`` re-check every
recorded digest and report each mismatch per talk (they still render: the
analysis is the persisted truth, the report says it is stale and what to
do). Files are read once per run, an lstat first (a link is never
followed) and ``canonical.file_sha256`` after: the same artifact cited by many talks is hashed once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from rvault_contracts.canonical import file_sha256, is_sha256_hex

CHANGED = "evidence_changed"
MISSING = "evidence_missing"
_PAIRS = (
    ("artifact_path", "artifact_sha256"),
    ("quality_artifact_path", "quality_artifact_sha256"),
)


@dataclass(frozen=True)
class StaleEvidence:
    filename: str
    source: str
    path: str
    recorded_sha256: str
    actual_sha256: str | None
    code: str

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
        now = "is gone or unreadable" if self.actual_sha256 is None else "has other bytes now"
        return (
            f"{self.filename}: the {self.source} evidence {self.path} {now} than the persisted "
            "analysis cites; re-run the talk (rvault-db queue normalize, claim, persist) or "
            "restore the file"
        )


@dataclass
class EvidenceCheck:
    """One run's memo of artifact digests (path -> (stat key, digest or None))."""

    vault_root: Path
    _seen: dict[str, tuple[tuple[int, ...] | None, str | None]] = field(default_factory=dict)

    def stale(self, talk: Mapping[str, Any]) -> list[StaleEvidence]:
        observations = talk.get("pattern_observations")
        rows = observations.get("source_inspection") if isinstance(observations, Mapping) else None
        out: list[StaleEvidence] = []
        for row in rows if isinstance(rows, list) else ():
            if not isinstance(row, Mapping) or row.get("artifact_root", "vault") != "vault":
                continue
            for path_key, digest_key in _PAIRS:
                path, recorded = row.get(path_key), row.get(digest_key)
                if not isinstance(path, str) or not _inside(path) or not is_sha256_hex(recorded):
                    continue
                actual = self.digest(path)
                if actual != recorded:
                    out.append(
                        StaleEvidence(
                            str(talk.get("filename")),
                            str(row.get("source")),
                            path,
                            recorded,
                            actual,
                            MISSING if actual is None else CHANGED,
                        )
                    )
        return out

    def digest(self, relative: str) -> str | None:
        full = self.vault_root / relative
        key = _stat_key(full)
        memo = self._seen.get(relative)
        if memo is not None and memo[0] == key:
            return memo[1]
        value = _sha256(full) if key is not None else None  # lstat said: a regular file
        self._seen[relative] = (key, value)
        return value


def _inside(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(path) and not pure.is_absolute() and ".." not in pure.parts


def _stat_key(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _sha256(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None
