"""Real tracking-db queue output for the claim/baseline conformance tests (not a test module).

Builds a small vault (processed v5 talks with two opportunity identities
and pending talks with real transcript files), then drives the installed
``rvault-db`` console script: claim, recover, reclaim. The consumers read
what it wrote exactly as they will in production: through the registered
schemas and the public ``rvault_tracking_db.api`` readers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from _support import pending_talk, write_current_database
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import example_ledger

FP = "f" * 64


def _processed(name: str, score: int, identity: str, outcome: str) -> dict[str, Any]:
    return {
        "schema_version": 5,
        "filename": name,
        "status": "processed",
        "pattern_score": score,
        "pattern_scoring_generation_status": "current",
        "pattern_scoring_generation_reasons": [],
        "pattern_scoring_schema_version": 5,
        "pattern_catalog_fingerprint": FP,
        # A contract-valid ledger v2 (the owner read validates it) with this
        # talk's score, outcome and identity.
        "pattern_observations": {
            **example_ledger([{"pattern_id": "p", "outcome": outcome}]),
            "pattern_score": score,
            "opportunity_coverage_identity": identity,
        },
    }


def build_vault(root: Path, *, mixed: bool = False) -> Path:
    vault = root / "vault"
    (vault / "transcripts").mkdir(parents=True)
    talks = [_processed(f"2023-0{i}-01-done.md", i, "c" * 64, "detected") for i in range(1, 4)]
    if mixed:
        talks.append(_processed("2023-09-01-other.md", 5, "e" * 64, "undetected"))
    for name in ("2024-01-01-a.md", "2024-02-01-b.md"):
        talks.append(pending_talk(vault, name, "a real transcript line\n"))
    return write_current_database(vault, talks)


def _applied(db: Path) -> tuple[str, ...]:
    """``--apply`` bound to the database bytes on disk now (the owner's apply protocol)."""
    return ("--apply", "--expected-sha256", hashlib.sha256(db.read_bytes()).hexdigest())


def claim(db: Path, now: str, batch: str = "b1", extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """``rvault-db queue claim --apply`` of up to five talks; ``extra`` appends options."""
    result = run_cli(
        "rvault-db",
        "queue",
        db,
        "claim",
        "--run-id",
        "r1",
        "--batch-id",
        batch,
        "--now",
        now,
        "--limit",
        "5",
        *extra,
        *_applied(db),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.json


def recover(db: Path, now: str, batch: str = "b1") -> dict[str, Any]:
    result = run_cli(
        "rvault-db",
        "queue",
        db,
        "recover",
        "--run-id",
        "r1",
        "--batch-id",
        batch,
        "--now",
        now,
        *_applied(db),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.json


def stored_claims(db: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every claim the database now holds, current and history, as (filename, claim)."""
    database = json.loads(db.read_bytes())
    out = []
    for talk in database["talks"]:
        if isinstance(talk.get("_queue_claim"), dict):
            out.append((talk["filename"], talk["_queue_claim"]))
        for old in talk.get("_queue_claim_history", []):
            out.append((talk["filename"], old))
    return out
