"""``--expected-sha256`` given the dry run's output_sha256 says so (issue 25).

A dry run prints ``input_sha256`` (the database it read) and
``output_sha256`` (the database the write would produce). Passing the second
is a copy mistake; it used to be refused as "the database changed since the
dry run", which was false. Now it is ``expected_sha256_is_output``, whose
hint is the apply with the right digest; a database that really changed is
still ``expected_sha256_mismatch``. Nothing is written either way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import _queue_builders as qb
from _sources_cli import refused, run

NOW = "2026-07-31T18:00:00+00:00"


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, "transcripts/b.txt")
    talks = [
        qb.processed_talk("2023-01-01-done.md", 3),
        qb.pending_talk("2024-02-01-b.md", transcript_path="transcripts/b.txt"),
        qb.pending_talk("2024-03-01-c.md"),
    ]
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(talks))


def _command(db: Path, name: str) -> tuple[str | Path, ...]:
    claim = ("--run-id", "r", "--batch-id", "b", "--now", NOW, "--catalog-fingerprint", qb.FP)
    return {
        "register-transcript": (
            "register-transcript",
            db,
            "--talk",
            "2024-03-01-c.md",
            "transcripts/b.txt",
        ),
        "queue claim": ("queue", db, "claim", *claim, "--talk", "2024-02-01-b.md"),
    }[name]


@pytest.mark.parametrize("name", ["register-transcript", "queue claim"])
def test_the_output_digest_is_named_as_such(tmp_path: Path, snapshot_file, name: str) -> None:
    db = _vault(tmp_path)
    base = _command(db, name)
    code, dry = run(*base)
    assert code == 0 and dry["output_sha256"] != dry["input_sha256"], dry
    before = snapshot_file(db)
    document = refused(
        run(*base, "--apply", "--expected-sha256", dry["output_sha256"]),
        "expected_sha256_is_output",
    )
    assert document["error"]["path"] == "--expected-sha256"
    assert "has not changed" in document["error"]["message"]
    assert dry["input_sha256"] in document["hint"]
    assert snapshot_file(db) == before
    # any other digest is still a database that changed
    refused(run(*base, "--apply", "--expected-sha256", "0" * 64), "expected_sha256_mismatch")
    assert snapshot_file(db) == before
    code, applied = run(*base, "--apply", "--expected-sha256", dry["input_sha256"])
    assert code == 0 and applied["output_sha256"] == dry["output_sha256"], applied


def test_a_changed_database_comes_before_any_other_refusal(tmp_path: Path, snapshot_file) -> None:
    """The mismatch is held until the write, but a refusal on the way does not hide it."""
    db = _vault(tmp_path)
    args = ("register-transcript", db, "--talk", "2099-01-01-none.md", "transcripts/b.txt")
    before = snapshot_file(db)
    refused(run(*args, "--apply", "--expected-sha256", "0" * 64), "expected_sha256_mismatch")
    refused(run(*args), "talk_not_found")
    assert snapshot_file(db) == before
