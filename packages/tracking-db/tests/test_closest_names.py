"""A mistyped talk filename or mutation kind names the closest valid ones (issue 25).

A refusal for a name typed on the command line (``--talk``) points at that
option, not at the JSON path of the plan a shortcut generated from it; the
plan path is kept as ``plan_path``. Matching stays exact: nothing is written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import _queue_builders as qb
from _sources_cli import refused, run

TALK = "2024-01-01-infoq.md"
TYPO = "2024-01-01-infoq.mdx"


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    talks = [
        qb.pending_talk(TALK, video_url="https://www.infoq.com/x/"),
        qb.processed_talk("2023-01-01-done.md", 5, transcript_path="transcripts/done.txt"),
    ]
    qb.write_transcript(vault, "transcripts/infoq.txt")
    qb.write_transcript(vault, "transcripts/done.txt")
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(talks))


def test_a_shortcut_names_the_option_typed_and_the_closest_talks(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    document = refused(
        run("register-transcript", db, "--talk", TYPO, "transcripts/infoq.txt"), "talk_not_found"
    )
    assert document["error"]["path"] == "--talk"
    assert document["plan_path"] == '$["mutations"][0]["filename"]'
    assert document["closest"][0] == TALK
    assert f"did you mean {TALK!r}" in document["error"]["message"]
    assert snapshot_file(db) == before


def test_queue_claim_talk_names_the_option_and_the_closest_talks(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    args = ("queue", db, "claim", "--run-id", "r", "--batch-id", "b", "--talk", TYPO)
    document = refused(run(*args), "talk_not_found")
    assert document["error"]["path"] == "--talk"
    assert document["closest"][0] == TALK


def test_a_plan_file_keeps_its_path_and_gets_the_closest_talks(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    plan = tmp_path / "plan.json"
    mutation = {
        "kind": "apply_reviewed_metadata",
        "filename": TYPO,
        "fields": {"title": {"expect": "x", "value": "y"}},
    }
    plan.write_text(json.dumps({"schema_version": 1, "mutations": [mutation]}))
    document = refused(run("mutate", db, plan), "talk_not_found")
    assert document["error"]["path"] == '$["mutations"][0]["filename"]'
    assert document["closest"][0] == TALK


def test_an_unknown_mutation_kind_lists_the_closest_kinds(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    plan = tmp_path / "plan.json"
    mutation = {
        "kind": "apply_reviewed_metadta",
        "filename": TALK,
        "fields": {"title": {"expect": "x", "value": "y"}},
    }
    plan.write_text(json.dumps({"schema_version": 1, "mutations": [mutation]}))
    document = refused(run("mutate", db, plan), "unknown_mutation_kind")
    assert document["closest"][0] == "apply_reviewed_metadata"
    assert "did you mean 'apply_reviewed_metadata'" in document["error"]["message"]
