"""Hash binding and installation shared by ``mutate`` and ``migrate``.

A dry run prints the exact input SHA-256; an apply must quote it back
(``missing`` for a database that does not exist yet), is re-read under the
persistent writer lock and installs through the writer protocol bound to
that very snapshot. Writer refusals keep their stable codes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import Snapshot, WriteReport, WriterError, WriterLock, install

MISSING = "missing"


def check_expected_argument(*, apply: bool, expected: str | None, creating: bool) -> None:
    """Refuse an inconsistent ``--apply`` / ``--expected-sha256`` pair up front."""
    if apply and expected is None:
        raise Refusal(
            "expected_sha256_required",
            "--apply requires --expected-sha256 with the dry run's input_sha256",
            None,
        )
    if not apply and expected is not None:
        raise Refusal(
            "expected_sha256_without_apply", "--expected-sha256 is only for --apply", None
        )
    if expected is None:
        return
    if expected != MISSING and not is_sha256_hex(expected):
        raise Refusal(
            "invalid_expected_sha256",
            "--expected-sha256 is 64 lowercase hex characters or the literal 'missing'",
            None,
        )
    if creating and expected != MISSING:
        raise Refusal(
            "expected_sha256_mismatch",
            "initialize_database applies only with --expected-sha256 missing",
            "$",
        )
    if not creating and expected == MISSING:
        raise Refusal(
            "expected_sha256_mismatch",
            "only initialize_database applies to a missing database",
            "$",
        )


def check_expected_matches(expected: str, input_sha256: str | None) -> None:
    actual = MISSING if input_sha256 is None else input_sha256
    if expected != actual:
        raise Refusal(
            "expected_sha256_mismatch",
            f"the database is {actual}, not the expected {expected}; dry-run again",
            "$",
            input_sha256=input_sha256,
        )


def install_bound(
    target: Path,
    new_bytes: bytes,
    snapshot: Snapshot,
    lock: WriterLock,
    *,
    backup_dir: Path | None = None,
) -> WriteReport:
    try:
        return install(target, new_bytes, expected=snapshot, lock=lock, backup_dir=backup_dir)
    except WriterError as exc:
        context: dict[str, Any] = dict(exc.context)
        context["file"] = exc.path
        raise Refusal(exc.code, exc.message, "$", **context) from None


def write_fields(report: WriteReport | None) -> dict[str, Any]:
    """The report members every writing command carries."""
    if report is None:
        return {"database_written": False, "durability_state": None, "write": None}
    return {
        "database_written": report.database_written,
        "durability_state": report.durability_state,
        "write": report.to_dict(),
    }
