"""Real tracking-database output, produced through the installed ``rvault-db``.

Not a test module. The consumers (returns-persistence, analysis-writer) have
no tracking-database reader of their own yet; they will validate through
``rvault_contracts.schemas``, which is what the edge tests use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import (
    example_confirmed_intent,
    example_pptx,
    example_pptx_failed,
    example_qr,
    example_resource,
    example_thumbnail,
)

DB_NAME = "tracking-database.json"
MISSING = {"$missing": True}

# Which registered schema version each owned record array is read with.
RECORD_SCHEMAS = {
    "pptx_catalog": "db-pptx-catalog",
    "qr_codes": "db-qr-code",
    "resources": "db-resource",
    "thumbnails": "db-thumbnail",
    "confirmed_intents": "db-confirmed-intent",
    "improvement_goals": "db-improvement-goal",
    "talks": "db-talk",
}


def _mutate(db: Path, mutations: list[dict[str, Any]], *, creating: bool = False) -> dict[str, Any]:
    plan = db.parent / "plan.json"
    plan.write_bytes(artifact_bytes({"schema_version": 1, "mutations": mutations}))
    dry = run_cli("rvault-db", "mutate", db, plan)
    assert dry.returncode == 0, dry.stdout
    expected = "missing" if creating else dry.json["input_sha256"]
    applied = run_cli("rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", expected)
    assert applied.returncode == 0, applied.stdout
    return applied.json


def build_initialized(directory: Path) -> Path:
    """initialize_database + set_config + every record writer, all applied."""
    db = directory / DB_NAME
    _mutate(
        db,
        [{"kind": "initialize_database", "config": {"vault_root": str(directory)}}],
        creating=True,
    )
    _mutate(
        db,
        [
            {
                "kind": "set_config",
                "path": ["vault_storage_path"],
                "expect": MISSING,
                "value": str(directory),
            },
            {
                "kind": "set_config",
                "path": ["shownotes", "enabled"],
                "expect": MISSING,
                "value": False,
            },
            {"kind": "record_pptx", "record": example_pptx(), "expect": MISSING},
            {"kind": "record_pptx", "record": example_pptx_failed(), "expect": MISSING},
            {"kind": "record_qr", "record": example_qr(), "expect": MISSING},
            {"kind": "record_resource", "record": example_resource(), "expect": MISSING},
            {"kind": "record_thumbnail", "record": example_thumbnail(), "expect": MISSING},
            {
                "kind": "record_confirmed_intent",
                "record": example_confirmed_intent(),
                "expect": MISSING,
            },
        ],
    )
    return db


def build_migrated(directory: Path) -> Path:
    """A schema-0 corpus migrated by ``rvault-db migrate --apply``."""
    db = directory / DB_NAME
    legacy = {
        "config": {"vault_root": str(directory)},
        "talks": [
            {
                "filename": "2019-01-01-old.md",
                "transcript_source": "manual",
                "status": "processed",
                "source_rejections": [
                    {
                        "source_type": "slides",
                        "url": "https://example.com/old.pdf",
                        "reason": "unrelated_recording",
                        "evidence": "another talk's deck",
                        "verified_at": "2025-01-01T00:00:00Z",
                    }
                ],
            }
        ],
        "improvement_goals": [
            {
                "id": "g1",
                "issue": "pacing",
                "kind": "pacing",
                "antipattern_id": None,
                "status": "active",
            }
        ],
    }
    db.write_bytes(artifact_bytes(legacy))
    dry = run_cli("rvault-db", "migrate", db)
    assert dry.returncode == 0, dry.stdout
    applied = run_cli(
        "rvault-db", "migrate", db, "--apply", "--expected-sha256", dry.json["input_sha256"]
    )
    assert applied.returncode == 0, applied.stdout
    return db


def read_back(db: Path) -> dict[str, Any]:
    """The consumer's view: the owner read report's database."""
    result = run_cli("rvault-db", "read", db)
    assert result.returncode == 0, result.stdout
    assert result.json["database"] == json.loads(db.read_bytes())
    return result.json["database"]
