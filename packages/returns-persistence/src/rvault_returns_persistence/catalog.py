"""The pattern catalog as a contract: loading, validation and fingerprint.

A catalog is a directory of JSON files, one entry per file named
``<id>.json`` (nothing else may live there). Every file is decoded with the
strict decoder and checked against ``pattern-catalog-entry`` v1; the loader
then checks what a per-file schema cannot: unique ids, the file name, the
dimension order and comparison groups that fit the base gate.

Fingerprint rule (recorded on every scored talk and in baselines, so it must
be reproducible by any reader): take the catalog files sorted by file name
compared as UTF-8 bytes; for each, feed SHA-256 with the file name in UTF-8,
one NUL byte, the file size in decimal ASCII, one NUL byte, then the file's
exact bytes. The hex digest of that stream is the fingerprint. Any byte
change, rename, addition or removal of a file changes it; reformatting is a
change too, because the exact files are what a reviewer approved.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from rvault_contracts.cli import printable
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_returns_persistence.refusals import HintedRefusal
from rvault_returns_persistence.vocabulary import DIMENSIONS

CATALOG_ENTRY_ARTIFACT = "pattern-catalog-entry"
MAX_ENTRY_BYTES = 1024 * 1024  # one entry is a few KiB; bounds memory on a hostile directory
Gate = tuple[frozenset[str], ...]


class CatalogError(HintedRefusal):
    """The catalog cannot be used; nothing is validated against a broken catalog.

    A ``cli-failure`` refusal (code, message, path): the commands let it reach the CLI.
    """

    HINT = (
        "fix the catalog directory (one valid pattern-catalog-entry v1 file <id>.json per "
        "entry, nothing else) or drop --catalog to use the shipped catalog"
    )


def _gate(raw: Any) -> Gate:
    return tuple(frozenset([alt]) if isinstance(alt, str) else frozenset(alt) for alt in raw)


@dataclass(frozen=True)
class CatalogEntry:
    """One validated entry with its effective gates resolved (defaults applied)."""

    id: str
    type: str
    observable: bool
    dimensions: tuple[str, ...]
    evidence_channels: frozenset[str]
    evaluable_from: Gate | None
    strong_evaluable_from: Gate | None
    absence_evaluable_from: Gate | None  # None: positive-only (explicit null) or no base gate
    positive_only: bool
    conditions: tuple[str, ...]
    applicability_evaluable_from: Gate | None
    metadata_fields: frozenset[str]
    comparison_groups: tuple[frozenset[str], ...]
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @property
    def pending_owner_review(self) -> bool:
        return self.observable and self.evaluable_from is None

    @property
    def conditional(self) -> bool:
        return bool(self.conditions)

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> CatalogEntry:
        base = _gate(raw["evaluable_from"]) if "evaluable_from" in raw else None
        strong = _gate(raw["strong_evaluable_from"]) if "strong_evaluable_from" in raw else base
        positive_only = "absence_evaluable_from" in raw and raw["absence_evaluable_from"] is None
        if positive_only:
            absence = None
        elif "absence_evaluable_from" in raw:
            absence = _gate(raw["absence_evaluable_from"])
        else:
            absence = base
        conditions = tuple(c["condition_id"] for c in raw.get("not_applicable_when", ()))
        app = raw.get("applicability_evaluable_from")
        return cls(
            id=raw["id"],
            type=raw["type"],
            observable=raw["observable"],
            dimensions=tuple(raw["dimensions"]),
            evidence_channels=frozenset(raw.get("evidence_channels", ())),
            evaluable_from=base,
            strong_evaluable_from=strong,
            absence_evaluable_from=absence,
            positive_only=positive_only,
            conditions=conditions,
            applicability_evaluable_from=_gate(app) if app is not None else None,
            metadata_fields=frozenset(raw.get("evidence_metadata_fields", ())),
            comparison_groups=tuple(frozenset(g) for g in raw.get("source_comparison_groups", ())),
            raw=raw,
        )


@dataclass(frozen=True)
class Catalog:
    entries: Mapping[str, CatalogEntry]
    fingerprint: str
    files: tuple[str, ...]

    def __contains__(self, pattern_id: object) -> bool:
        return isinstance(pattern_id, str) and pattern_id in self.entries

    def get(self, pattern_id: object) -> CatalogEntry | None:
        return self.entries.get(pattern_id) if isinstance(pattern_id, str) else None

    def observable(self) -> Iterable[CatalogEntry]:
        return (e for e in self.entries.values() if e.observable)

    def summary(self) -> dict[str, Any]:
        return {"entry_count": len(self.entries), "fingerprint": self.fingerprint}


def default_catalog_dir() -> Path:
    """The shipped catalog (package data)."""
    return Path(str(resources.files("rvault_returns_persistence") / "default_catalog"))


def fingerprint_files(files: Iterable[tuple[str, bytes]]) -> str:
    """The catalog fingerprint over ``(file name, exact bytes)`` pairs (see module docstring)."""
    digest = hashlib.sha256()
    for name, data in sorted(files, key=lambda item: item[0].encode("utf-8")):
        digest.update(name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return digest.hexdigest()


def _read_files(directory: Path) -> list[tuple[str, bytes]]:
    try:
        st = os.lstat(directory)
    except OSError as exc:
        raise CatalogError(
            "catalog_unreadable", f"cannot read catalog directory: {exc.strerror}", str(directory)
        ) from None
    if not stat.S_ISDIR(st.st_mode):
        raise CatalogError(
            "catalog_not_directory", "the catalog must be a directory", str(directory)
        )
    files: list[tuple[str, bytes]] = []
    try:
        listing = list(os.scandir(directory))
    except OSError as exc:
        raise CatalogError(
            "catalog_unreadable", f"cannot read catalog directory: {exc.strerror}", str(directory)
        ) from None
    # surrogateescape: an undecodable name must sort (and then be refused), not crash.
    for entry in sorted(listing, key=lambda e: e.name.encode("utf-8", "surrogateescape")):
        if entry.name == "__pycache__":
            continue
        shown = printable(entry.name)
        if (
            shown != entry.name
            or entry.is_symlink()
            or not entry.is_file(follow_symlinks=False)
            or not entry.name.endswith(".json")
        ):
            raise CatalogError(
                "catalog_unexpected_entry",
                "a catalog directory holds only regular *.json entry files with UTF-8 names",
                shown,
            )
        try:
            with open(entry.path, "rb") as handle:
                data = handle.read(MAX_ENTRY_BYTES + 1)
        except OSError as exc:
            raise CatalogError(
                "catalog_unreadable", f"cannot read a catalog entry: {exc.strerror}", entry.name
            ) from None
        if len(data) > MAX_ENTRY_BYTES:
            raise CatalogError(
                "catalog_entry_too_large",
                f"a catalog entry file exceeds {MAX_ENTRY_BYTES} bytes",
                entry.name,
            )
        files.append((entry.name, data))
    if not files:
        raise CatalogError("catalog_empty", "the catalog has no entries", str(directory))
    return files


def _check_entry(name: str, raw: Any) -> CatalogEntry:
    issues = schema_issues(CATALOG_ENTRY_ARTIFACT, 1, raw)
    if issues:
        first = issues[0]
        raise CatalogError("catalog_entry_invalid", f"{first.path}: {first.message}", name)
    if name != f"{raw['id']}.json":
        raise CatalogError(
            "catalog_file_name_mismatch",
            f"entry {raw['id']!r} must be stored as {raw['id']}.json",
            name,
        )
    order = [DIMENSIONS.index(d) for d in raw["dimensions"]]
    if order != sorted(order):
        raise CatalogError("catalog_dimension_order", "dimensions must follow catalog order", name)
    entry = CatalogEntry.from_raw(raw)
    for group in entry.comparison_groups:
        if entry.evaluable_from is not None and not any(
            alt <= group for alt in entry.evaluable_from
        ):
            raise CatalogError(
                "catalog_comparison_group_ungated",
                f"comparison group {sorted(group)} satisfies no alternative of evaluable_from",
                name,
            )
    return entry


def load_catalog(directory: Path | None = None) -> Catalog:
    """Load, validate and fingerprint a catalog directory (the shipped one by default)."""
    directory = default_catalog_dir() if directory is None else directory
    files = _read_files(directory)
    entries: dict[str, CatalogEntry] = {}
    for name, data in files:
        try:
            raw = loads_strict(data)
        except StrictJSONError as exc:
            raise CatalogError(
                "catalog_entry_not_strict_json", f"{exc.code}: {exc.message}", name
            ) from None
        entry = _check_entry(name, raw)  # file name == id, so ids are unique
        entries[entry.id] = entry
    return Catalog(
        entries=entries, fingerprint=fingerprint_files(files), files=tuple(n for n, _ in files)
    )
