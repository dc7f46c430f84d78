"""Validate a batch of worker returns against the database, catalog and vault.

One report, field by field: per return ``ok``, its errors (JSON path, stable
code, message) and its scoring generation, plus batch-level errors. This is
the validate command's flow, and the first half of persist's gate
(:mod:`.persist_gate`): walk the batch (:mod:`.batch_document`), bind each
return to its talk and claim (:mod:`.claim_resolution`), run its version's
rules (:mod:`.checks.protocol`), then the rules of the batch as a whole
(:mod:`.batch_rules`). A return that cannot be tied to its talk and claim is
not checked further (those deeper findings would be noise).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Collector, Issue, render
from rvault_tracking_db import api as tracking

from rvault_returns_persistence import scoring_generation
from rvault_returns_persistence.batch_document import BatchItem, iter_batch, member_returns
from rvault_returns_persistence.batch_rules import batch_issues
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.checks.deck_audit import Recomputations, carries_audit, deck_file
from rvault_returns_persistence.checks.protocol import check_return
from rvault_returns_persistence.claim_resolution import claim_of, return_version, talk_of
from rvault_returns_persistence.context import return_context
from rvault_returns_persistence.database import Database

REPORT_VERSION = 1


@dataclass(frozen=True)
class Result:
    path: str
    filename: str | None
    version: int | None
    status: str | None
    issues: list[Issue]
    generation: dict[str, Any]

    @property
    def ok(self) -> bool:
        return not self.issues

    def to_dict(self) -> dict[str, Any]:
        return {
            "errors": render(self.issues),
            "filename": self.filename,
            "ok": self.ok,
            "path": self.path,
            "pattern_scoring_generation": self.generation,
            "return_schema_version": self.version,
            "status": self.status,
        }


def validate_return(
    path: str,
    ret: Any,
    *,
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    seen: set[str],
    recomputations: Recomputations | None = None,
) -> Result:
    """One return's result: tied to its talk and active claim, then its version's rules.

    A return that cannot be tied to its talk and claim is checked no further
    (the deeper findings would be noise).
    """
    issues = Collector()
    if not isinstance(ret, dict):
        issues.add("return_not_object", path, "a return is a JSON object")
        generation = scoring_generation.generation(ret, None, None, False)
        return Result(path, None, None, None, issues.items, generation)
    filename = ret.get("filename") if isinstance(ret.get("filename"), str) else None
    status = ret.get("status") if isinstance(ret.get("status"), str) else None
    version = return_version(ret, issues, path)
    talk = talk_of(path, ret, db, seen, issues)
    claim = claim_of(path, ret, talk, version, issues) if talk is not None else None
    if talk is not None and claim is not None and version is not None:
        ctx = return_context(
            path, ret, version=version, status=status, talk=talk, claim=claim, db=db,
            catalog=catalog, vault_root=vault_root, issues=issues, recomputations=recomputations,
        )  # fmt: skip
        check_return(ctx, db.root.get("config"))
    ordered = issues.ordered()
    generation = scoring_generation.generation(ret, version, status, not ordered, catalog)
    return Result(path, filename, version, status, ordered, generation)


MEMBER_WARNING_CODES = frozenset({"batch_membership_mismatch"})


def validate_batch(
    document: Any,
    *,
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    catalog_label: str,
    member: str | None = None,
) -> dict[str, Any]:
    """The validation report; with ``member``, one batch member's return checked on its own
    (the batch-membership rule becomes a warning: persist still demands the whole batch)."""
    seen: set[str] = set()
    results: list[Result] = []
    items = list(iter_batch(document) if member is None else member_returns(document, member))
    recomputations = _start_recomputations(items, db, vault_root)
    try:
        for path, key, ret in items:
            results.append(_checked(path, key, ret, db, catalog, vault_root, seen, recomputations))
    finally:
        recomputations.close()
    return _report(results, db, catalog, catalog_label, member)


def _start_recomputations(items: list[BatchItem], db: Database, vault_root: Path) -> Recomputations:
    """Start the deck re-extraction of every return that carries a native deck audit."""
    roots = tracking.SourceRoots.from_config(vault_root, db.root.get("config"))
    decks = []
    for _, _, ret in items:
        talk = db.talk(ret.get("filename")) if carries_audit(ret) else None
        deck = deck_file(db.talk_deck(talk), roots.pptx_source_dir, vault_root) if talk else None
        if deck is not None:
            decks.append(deck)
    recomputations = Recomputations(min(len(decks), os.cpu_count() or 1, 4))
    for deck in decks:
        recomputations.start(deck)
    return recomputations


def _checked(
    path: str,
    key: str | None,
    ret: Any,
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    seen: set[str],
    recomputations: Recomputations,
) -> Result:
    """One return's result, with the object-batch key rule applied."""
    result = validate_return(
        path,
        ret,
        db=db,
        catalog=catalog,
        vault_root=vault_root,
        seen=seen,
        recomputations=recomputations,
    )
    if result.filename is not None and key is not None and key != result.filename:
        issues = [
            *result.issues,
            Issue("batch_key_mismatch", path, "an object batch is keyed by each return's filename"),
        ]
        generation = scoring_generation.generation(
            ret, result.version, result.status, False, catalog
        )
        result = Result(path, result.filename, result.version, result.status, issues, generation)
    return result


def _report(
    results: list[Result], db: Database, catalog: Catalog, catalog_label: str, member: str | None
) -> dict[str, Any]:
    """The returns-validation-report of the checked returns plus the batch rules."""
    batch_errors = batch_issues(db, [r.filename for r in results])
    batch_warnings: list[Issue] = []
    if member is not None:
        batch_warnings = [i for i in batch_errors if i.code in MEMBER_WARNING_CODES]
        batch_errors = [i for i in batch_errors if i.code not in MEMBER_WARNING_CODES]
    ok = bool(results) and not batch_errors and all(r.ok for r in results)
    if not results:
        batch_errors.append(Issue("batch_empty", "$", "the batch holds no returns"))
    report: dict[str, Any] = {
        "batch_errors": render(sorted(batch_errors, key=Issue.sort_key)),
        "batch_warnings": render(sorted(batch_warnings, key=Issue.sort_key)),
        "catalog": {**catalog.summary(), "source": catalog_label},
        "ok": ok,
        "pattern_scoring_generations": [
            {"filename": r.filename, "path": r.path, **r.generation} for r in results
        ],
        "return_count": len(results),
        "returns": [r.to_dict() for r in results],
        "schema_version": REPORT_VERSION,
        "valid_count": sum(r.ok for r in results),
    }
    if member is not None:
        report["member"] = member
    if not ok:
        report["hint"] = (
            "fix each error at its path (codes: the package README), then validate again; "
            "`rvault-returns catalog show ID` prints an entry's gates"
        )
        report["error"] = {
            "code": "returns_invalid",
            "message": f"{len(results) - report['valid_count']} "
            f"of {len(results)} returns are invalid"
            + (f"; {len(batch_errors)} batch errors" if batch_errors else ""),
            "path": None,
        }
    return report
