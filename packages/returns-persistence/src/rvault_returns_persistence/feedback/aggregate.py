"""Returns to the catalog-feedback-report: per-entry provenance, then counts per id and name.

Recurrence is evidence for a person deciding a catalog change, never a
change itself, so the report keeps every entry with where it came from (file,
return, talk, run, batch, the return's canonical digest and, with the
database, whether that digest is the receipt persist stored) and counts three
ways: occurrences, distinct talks and distinct returns, because one talk may
legitimately have several analysis revisions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_contracts.issues import WARNING, Issue, render
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.database import Database
from rvault_returns_persistence.feedback.entries import (
    UNSPECIFIED,
    CheckedEntry,
    check_entry,
)
from rvault_returns_persistence.feedback.inputs import (
    ACCEPTED,
    INVALID,
    REJECTED,
    InputFile,
    ReturnRef,
    concrete_files,
    read_input,
)
from rvault_returns_persistence.vocabulary import FEEDBACK_LANES

REPORT_VERSION = 1
CURRENT_RETURN_VERSION = 5
LEGACY_KEY = "feedback"  # a harvest of old returns names the lanes object this way
CONFLICT = "conflict"


@dataclass
class ReturnRecord:
    """One return's classification and its checked entries."""

    ref: ReturnRef
    filename: str | None
    version: int | None
    status: str
    code: str | None = None
    digest: str | None = None
    receipt: str | None = None
    run: tuple[str | None, str | None] = (None, None)
    entries: list[CheckedEntry] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "entry_count": len(self.entries),
            "filename": self.filename,
            "receipt": self.receipt,
            "return_index": self.ref.index,
            "return_schema_version": self.version,
            "return_sha256": self.digest,
            "source": self.ref.source,
            "status": self.status,
        }

    def provenance(self, entry: CheckedEntry, index: int) -> dict[str, Any]:
        return {
            "batch_id": self.run[1],
            "entry_index": index,
            "lane": entry.lane,
            "receipt": self.receipt,
            "return_index": self.ref.index,
            "return_schema_version": self.version,
            "return_sha256": self.digest,
            "run_id": self.run[0],
            "source": self.ref.source,
            "talk_filename": self.filename,
        }


def aggregate_feedback(
    paths: Sequence[Path],
    *,
    catalog: Catalog,
    catalog_label: str,
    db: Database | None = None,
    base: Path | None = None,
) -> dict[str, Any]:
    """The catalog-feedback-report over every return the named files and directories hold."""
    files, empty = concrete_files(paths, base)
    inputs = [read_input(path, base) for path in files]
    records = [_read_return(ref, catalog, db) for file in inputs for ref in file.returns]
    _classify_inputs(inputs, records)
    issues = [issue for record in records for issue in record.issues]
    issues += [issue for record in records for e in record.entries for issue in e.issues]
    suggestions, conflicts = _suggestions(records)
    issues += conflicts
    errors = sorted((i for i in issues if i.is_error), key=Issue.sort_key)
    warnings = sorted((i for i in issues if not i.is_error), key=Issue.sort_key)
    all_inputs = sorted([*inputs, *empty], key=lambda f: f.source)
    report: dict[str, Any] = {
        "catalog": {**catalog.summary(), "source": catalog_label},
        "entries": [
            {"accepted": e.accepted, "entry": e.raw, "provenance": r.provenance(e, i)}
            for r in records
            for i, e in _indexed(r.entries)
        ],
        "errors": render(errors),
        "exact_catalog_ids": _exact_ids(records, catalog),
        "inputs": [f.to_dict() for f in all_inputs],
        "ok": not errors,
        "read_only": True,
        "receipts_checked": db is not None,
        "returns": [r.to_dict() for r in records],
        "schema_version": REPORT_VERSION,
        "suggestions": suggestions,
        "summary": _summary(all_inputs, records, warnings),
        "warnings": render(warnings),
    }
    if errors:
        report["hint"] = (
            "each error names its file and JSON path: fix the entry in a current return and "
            "validate again; a historical return is review material, so note it rather than "
            "rewriting it"
        )
        report["error"] = {
            "code": "catalog_feedback_invalid",
            "message": f"{len(errors)} feedback findings need a person's triage",
            "path": None,
        }
    return report


def _indexed(entries: list[CheckedEntry]) -> Iterable[tuple[int, CheckedEntry]]:
    """Entries with their index inside their own lane, the index provenance names."""
    seen: Counter[str] = Counter()
    for entry in entries:
        yield seen[entry.lane], entry
        seen[entry.lane] += 1


def _read_return(ref: ReturnRef, catalog: Catalog, db: Database | None) -> ReturnRecord:
    path = f"{ref.source}#{child('$', ref.index)}"
    doc = ref.document
    if not isinstance(doc, dict) or not isinstance(doc.get("filename"), str) or not doc["filename"]:
        record = ReturnRecord(ref, None, None, INVALID, "return_shape_invalid")
        record.issues.append(
            Issue("return_shape_invalid", path, "a return is an object with its filename")
        )
        return record
    version = doc.get("return_schema_version", 1)
    version = version if isinstance(version, int) and not isinstance(version, bool) else None
    record = ReturnRecord(ref, doc["filename"], version, ACCEPTED, digest=payload_sha256(doc))
    claim = doc.get("queue_claim")
    if isinstance(claim, dict):
        record.run = (_text(claim.get("run_id")), _text(claim.get("batch_id")))
    if db is not None:
        record.receipt = _receipt(db, record.filename, record.digest)
    key = (
        "catalog_feedback"
        if "catalog_feedback" in doc
        else LEGACY_KEY
        if LEGACY_KEY in doc
        else None
    )
    if key is None:
        record.status, record.code = REJECTED, "return_without_feedback"
        return record
    current = version == CURRENT_RETURN_VERSION
    if key == LEGACY_KEY:
        record.issues.append(
            Issue(
                "feedback_legacy_key",
                child(path, key),
                "old harvest shape: the lanes are "
                "read from 'feedback' (today's returns name them catalog_feedback)",
                severity=WARNING,
            )
        )
    elif not current:
        record.issues.append(
            Issue(
                "feedback_before_contract",
                child(path, key),
                f"a return v{version} predates the "
                "v5 feedback contract; its entries are read as legacy",
                severity=WARNING,
            )
        )
    _read_lanes(record, doc[key], child(path, key), catalog, current)
    if any(not e.accepted for e in record.entries) or any(i.is_error for i in record.issues):
        record.status, record.code = INVALID, "feedback_invalid"
    return record


def _read_lanes(
    record: ReturnRecord, lanes: Any, path: str, catalog: Catalog, current: bool
) -> None:
    if not isinstance(lanes, dict):
        record.issues.append(Issue("wrong_type", path, "catalog_feedback is an object of lanes"))
        return
    for lane in sorted(set(lanes) - set(FEEDBACK_LANES)):
        record.issues.append(
            Issue("catalog_feedback_lanes", child(path, lane), f"{lane!r} is not a feedback lane")
        )
    for lane in FEEDBACK_LANES:
        if lane not in lanes:
            if current:
                record.issues.append(
                    Issue(
                        "catalog_feedback_lanes",
                        child(path, lane),
                        f"a v5 return carries the {lane} lane",
                    )
                )
            continue
        items = lanes[lane]
        if not isinstance(items, list):
            record.issues.append(Issue("wrong_type", child(path, lane), f"{lane} is an array"))
            continue
        for index, raw in enumerate(items):
            record.entries.append(
                check_entry(
                    lane, raw, child(child(path, lane), index), catalog=catalog, current=current
                )
            )


def _receipt(db: Database, filename: str | None, digest: str | None) -> str:
    """``current``: the digest is the receipt of the talk's completed claim; ``historical``:
    of a closed generation in its history; ``unbound``: no stored receipt names it."""
    talk = db.talk(filename)
    if talk is None:
        return "unbound"
    claim = talk.get("_queue_claim")
    if isinstance(claim, dict) and claim.get("result_payload_sha256") == digest:
        return "current"
    history = talk.get("_queue_claim_history")
    if isinstance(history, list) and any(
        isinstance(c, dict) and c.get("result_payload_sha256") == digest for c in history
    ):
        return "historical"
    return "unbound"


def _classify_inputs(inputs: list[InputFile], records: list[ReturnRecord]) -> None:
    by_source: dict[str, list[ReturnRecord]] = defaultdict(list)
    for record in records:
        by_source[record.ref.source].append(record)
    for file in inputs:
        if file.status != ACCEPTED:
            continue
        mine = by_source[file.source]
        if any(r.status == INVALID for r in mine):
            file.status, file.code = INVALID, "input_has_invalid_returns"
            file.message = (
                "valid entries are still counted; the invalid ones are listed under errors"
            )
        elif not any(r.status == ACCEPTED for r in mine):
            file.status, file.code = REJECTED, "no_feedback"
            file.message = "no return in the file carries catalog feedback"


def _counts(items: Iterable[str]) -> dict[str, int]:
    counts = Counter(items)
    return {key: counts.get(key, 0) for key in (ACCEPTED, REJECTED, INVALID)}


def _summary(
    inputs: list[InputFile], records: list[ReturnRecord], warnings: list[Issue]
) -> dict[str, Any]:
    entries = [e for r in records for e in r.entries]
    lanes = Counter(e.lane for e in entries if e.accepted)
    return {
        "entries": {
            "accepted": sum(e.accepted for e in entries),
            "invalid": sum(not e.accepted for e in entries),
            "warnings": len(warnings),
        },
        "inputs": _counts(f.status for f in inputs),
        "lanes": {lane: lanes.get(lane, 0) for lane in FEEDBACK_LANES},
        "returns": _counts(r.status for r in records),
    }


def _group_counts(provenance: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "occurrences": len(provenance),
        "return_count": len({(p["source"], p["return_index"]) for p in provenance}),
        "talk_count": len({p["talk_filename"] for p in provenance}),
    }


def _exact_ids(records: list[ReturnRecord], catalog: Catalog) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        for index, entry in _indexed(record.entries):
            if entry.accepted:
                for pid in entry.ids:
                    groups[pid].append(record.provenance(entry, index))
    rows = []
    for pid in sorted(groups):
        provenance = groups[pid]
        known = catalog.get(pid)
        rows.append(
            {
                "by_lane": dict(sorted(Counter(p["lane"] for p in provenance).items())),
                "pattern_id": pid,
                "polarity": known.type if known is not None else None,
                "provenance": provenance,
                **_group_counts(provenance),
            }
        )
    return rows


def _suggestions(records: list[ReturnRecord]) -> tuple[list[dict[str, Any]], list[Issue]]:
    groups: dict[str, list[tuple[dict[str, Any], str, str]]] = defaultdict(list)
    for record in records:
        for index, entry in _indexed(record.entries):
            if entry.accepted and entry.suggestion is not None:
                s = entry.suggestion
                groups[s.name].append((record.provenance(entry, index), s.variant, s.polarity))
    rows: list[dict[str, Any]] = []
    conflicts: list[Issue] = []
    for name in sorted(groups):
        members = groups[name]
        asserted = sorted({polarity for _, _, polarity in members} - {UNSPECIFIED})
        polarity = CONFLICT if len(asserted) > 1 else asserted[0] if asserted else UNSPECIFIED
        if polarity == CONFLICT:
            conflicts.append(
                Issue(
                    "suggestion_polarity_conflict",
                    child(child("$", "suggestions"), len(rows)),
                    f"{name!r} is proposed both as a pattern and as an antipattern",
                )
            )
        provenance = [p for p, _, _ in members]
        rows.append(
            {
                "name": name,
                "polarity": polarity,
                "provenance": provenance,
                "variants": sorted({variant for _, variant, _ in members}),
                **_group_counts(provenance),
            }
        )
    return rows, conflicts


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
