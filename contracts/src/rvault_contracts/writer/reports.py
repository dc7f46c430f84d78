"""What a write reports: one installed (or no-op) file, a bundle, a removed file.

Apart from :mod:`.values` so a command that only reads (``rvault-db status``)
does not build the report classes it never returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WriteReport:
    """Outcome of one installed (or no-op) write; contract ``write-report`` v1."""

    path: str
    durability_state: str
    database_written: bool
    input_sha256: str | None
    output_sha256: str
    warnings: tuple[str, ...] = ()
    backup_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "backup_path": self.backup_path,
            "database_written": self.database_written,
            "durability_state": self.durability_state,
            "input_sha256": self.input_sha256,
            "output_sha256": self.output_sha256,
            "path": self.path,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class RemovedFile:
    """A file a bundle deleted (``None`` in ``changes``)."""

    name: str
    input_sha256: str


@dataclass(frozen=True)
class BundleReport:
    """Outcome of :func:`install_bundle`: one report per written name."""

    directory: str
    files: dict[str, WriteReport]
    removed: tuple[RemovedFile, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def database_written(self) -> bool:
        return bool(self.removed) or any(r.database_written for r in self.files.values())

    @property
    def durability_state(self) -> str:
        """The worst state of any file (verification beats fsync beats durable)."""
        states = {r.durability_state for r in self.files.values()}
        states.update(w.split(":", 1)[0] for w in self.warnings)
        for state in ("installed_verification_failed", "installed_directory_fsync_failed"):
            if state in states:
                return state
        return "durable" if self.database_written else "unchanged"

    def to_dict(self) -> dict[str, Any]:
        return {
            "database_written": self.database_written,
            "directory": self.directory,
            "durability_state": self.durability_state,
            "files": {name: report.to_dict() for name, report in self.files.items()},
            "removed": [{"input_sha256": r.input_sha256, "name": r.name} for r in self.removed],
            "warnings": list(self.warnings),
        }
