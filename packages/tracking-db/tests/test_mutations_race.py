"""A file-generation precondition that fails at install time installs nothing.

A non-cooperating editor rewrites the database after the owner read it
under the lock; the writer protocol's recheck refuses (``input_changed``),
the racer's bytes stay, and no staged candidate is left behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rvault_contracts import writer
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_testkit.tracking_db.samples import example_database
from rvault_tracking_db import apply_protocol
from rvault_tracking_db.migration import run_migration
from rvault_tracking_db.mutations import parse_plan, run_mutation


def _racing_install(racer_bytes: bytes):
    def install(target, new_bytes, **kwargs):
        kwargs.pop("fault", None)  # Session.install passes the caller's hook (None here)

        def fault(step: str) -> None:
            if step == "before_recheck":
                Path(target).write_bytes(racer_bytes)

        return writer.install(target, new_bytes, fault=fault, **kwargs)

    return install


def test_mutation_refuses_a_last_moment_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "tracking-database.json"
    db.write_bytes(artifact_bytes(example_database()))
    racer = artifact_bytes(dict(example_database(), _comment_racer="edited behind the lock"))
    monkeypatch.setattr(apply_protocol, "install", _racing_install(racer))
    plan = parse_plan(
        {
            "schema_version": 1,
            "mutations": [
                {
                    "kind": "set_config",
                    "path": ["python_path"],
                    "expect": "/path/to/python3",
                    "value": "/x",
                }
            ],
        }
    )
    with pytest.raises(Refusal) as refused:
        run_mutation(db, plan, apply=True, expected=sha256_bytes(db.read_bytes()))
    assert refused.value.code == "input_changed"
    assert refused.value.path == "$"
    assert db.read_bytes() == racer
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "tracking-database.json",
        "tracking-database.json.lock",
    ]


def test_migration_race_leaves_no_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "tracking-database.json"
    legacy = {"config": {}, "talks": []}
    db.write_bytes(artifact_bytes(legacy))
    racer = artifact_bytes({"config": {"vault_root": "raced"}, "talks": []})
    monkeypatch.setattr(apply_protocol, "install", _racing_install(racer))
    with pytest.raises(Refusal) as refused:
        run_migration(db, apply=True, expected=sha256_bytes(db.read_bytes()))
    assert refused.value.code == "input_changed"
    assert db.read_bytes() == racer
    backups = tmp_path / ".backups"
    assert not backups.exists() or list(backups.iterdir()) == []
