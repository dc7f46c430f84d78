"""Issue 29's done-when: preflight on a vault with a duplicate upload, a wrong catalog
date the captured identity exposes, a deck bound to the wrong talk and an invalid root
assertion reports each as blocking (code and JSON path) and exits 3; the scripted
repairs through the owner (set_config, apply_reviewed_metadata, source lanes,
record-deck: each a dry run, then its apply) bring it to exit 0; every refused repair
leaves the database's bytes and inode unchanged."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_testkit.plugin import CliResult, run_cli
from rvault_testkit.pptx_evidence.identity_decks import delivery_deck
from rvault_testkit.tracking_db.identity import info_document

YT = "dQw4w9WgXcQ"
DECK = "Devoxx/2023/Cost Myths.pptx"
COST = "2023-10-04-kubernetes-cost-myths.md"
REUPLOAD = "2023-10-20-cost-myths-reupload.md"
JAVA = "2024-02-06-java-records.md"


def _dry_then_apply(*args: str | Path) -> CliResult:
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout
    assert dry.json["mode"] == "dry-run"
    return run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])


def _plan(tmp_path: Path, name: str, *mutations: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"schema_version": 1, "mutations": list(mutations)}))
    return path


def _broken_vault(tmp_path: Path) -> tuple[Path, Path]:
    """Built through the owner where it can be (capture, set-identity, record-deck), then
    the two faults no owner command would write: a deck moved onto another talk by hand
    and an edited root assertion."""
    decks = tmp_path / "decks"
    (decks / DECK).parent.mkdir(parents=True)
    (decks / DECK).write_bytes(delivery_deck("Kubernetes Cost Myths", "Jane Doe", "Devoxx 2023"))
    vault = tmp_path / "vault"
    (vault / "pptx").mkdir(parents=True)
    extracted = run_cli(
        "rvault-pptx",
        "extract",
        decks / DECK,
        "--no-ocr",
        "--source-root",
        decks,
        "--out",
        vault / "pptx" / "cost-myths.json",
    )
    assert extracted.returncode == 0, extracted.stderr
    talks = [
        # The catalog says 2024; the recording (uploaded 2023-10-12) says otherwise.
        qb.remote_talk(
            COST, YT, title="Kubernetes Cost Myths", conference="Devoxx Belgium", date="2024-10-04"
        ),
        qb.remote_talk(REUPLOAD, YT, title="Kubernetes Cost Myths (re-upload)"),
        qb.pending_talk(
            JAVA, title="Java Records in Depth", conference="Jfokus", date="2024-02-06"
        ),
    ]
    db = qb.write_db(vault, qb.database(talks, pptx_source_dir=str(decks), speaker_name="Jane Doe"))
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    (recorded / f"{YT}.info.json").write_text(json.dumps(info_document(YT)))
    capture = tmp_path / "capture.json"
    assert (
        run_cli(
            "rvault-db", "capture-identity", db, "--out", capture, "--replay", recorded
        ).returncode
        == 0
    )
    stored = _dry_then_apply(
        "set-identity",
        db,
        "--talk",
        COST,
        "--capture",
        capture,
        "--speaker",
        "Jane Doe",
        "--recorded-date",
        "2023-10-04",
    )
    assert stored.returncode == 0, stored.stdout
    assert (
        _dry_then_apply("record-deck", db, db.parent / "pptx" / "cost-myths.json").returncode == 0
    )
    document = qb.read_db(db)
    document["talks"][2]["pptx_path"] = DECK
    document["pptx_catalog"][0]["talk_filename"] = JAVA
    document["config"]["vault_storage_path"] = "C:vault"
    db.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return db, capture


def _blocking(db: Path) -> tuple[int, set[tuple[str, str]]]:
    result = run_cli("rvault-db", "preflight", db.parent)
    found = {(f["code"], f["path"]) for f in result.json["findings"] if f["severity"] == "blocking"}
    return result.returncode, found


def test_each_fault_is_blocking_and_the_scripted_repairs_clear_them(
    tmp_path: Path, snapshot_file: Any
) -> None:
    db, capture = _broken_vault(tmp_path)
    reviewed = run_cli("rvault-db", "preflight", db, "--capture", capture)
    assert reviewed.returncode == 3
    in_capture = [f for f in reviewed.json["findings"] if f["path"].startswith('$["entries"]')]
    assert [
        (f["code"], f["path"], f["filename"]) for f in in_capture if f["severity"] == "blocking"
    ] == [
        (
            "source_identity_upload_predates_catalog",
            '$["entries"][0]["proposal"]["upload_date"]',
            COST,
        )
    ]  # the capture already shows the catalog date is wrong, before anything is stored
    code, found = _blocking(db)
    assert code == 3
    assert found == {
        ("vault_root_config_invalid", '$["config"]["vault_storage_path"]'),
        ("duplicate_recording", '$["talks"][1]["video_url"]'),
        (
            "source_identity_recorded_date_mismatch",
            '$["talks"][0]["source_identity"]["recorded_date"]',
        ),
        (
            "source_identity_upload_predates_catalog",
            '$["talks"][0]["source_identity"]["upload_date"]',
        ),
        ("deck_binding_contradicted", '$["talks"][2]["pptx_path"]'),
    }

    # 1. The root assertion: set_config dry run, apply, re-read, preflight.
    stale = _plan(
        tmp_path,
        "stale.json",
        {
            "kind": "set_config",
            "path": ["vault_storage_path"],
            "expect": "/somewhere/else",
            "delete": True,
        },
    )
    before = snapshot_file(db)
    refused = run_cli("rvault-db", "mutate", db, stale)
    assert refused.returncode == 2 and refused.json["error"]["code"] == "expectation_failed"
    assert snapshot_file(db) == before
    root = _plan(
        tmp_path,
        "root.json",
        {"kind": "set_config", "path": ["vault_storage_path"], "expect": "C:vault", "delete": True},
    )
    assert _dry_then_apply("mutate", db, root).returncode == 0
    reread = run_cli("rvault-db", "read", db)
    assert reread.returncode == 0 and "vault_storage_path" not in reread.json["database"]["config"]
    assert ("vault_root_config_invalid", '$["config"]["vault_storage_path"]') not in _blocking(db)[
        1
    ]

    # 2. The catalog date the recording contradicts (a publishing field, type-checked).
    before = snapshot_file(db)
    bad_date = _plan(
        tmp_path,
        "bad-date.json",
        {
            "kind": "apply_reviewed_metadata",
            "filename": COST,
            "fields": {"date": {"expect": "2024-10-04", "value": "04.10.2023"}},
        },
    )
    refused = run_cli("rvault-db", "mutate", db, bad_date)
    assert refused.returncode == 2 and refused.json["error"]["code"] == "invalid_value"
    assert refused.json["error"]["message"] == "date must be YYYY-MM-DD"
    assert snapshot_file(db) == before
    date = _plan(
        tmp_path,
        "date.json",
        {
            "kind": "apply_reviewed_metadata",
            "filename": COST,
            "fields": {"date": {"expect": "2024-10-04", "value": "2023-10-04"}},
        },
    )
    assert _dry_then_apply("mutate", db, date).returncode == 0

    # 3. The re-upload names its canonical talk; 4. the deck leaves the wrong talk and is
    # recorded for its own (record-deck proves that binding).
    repair = _plan(
        tmp_path,
        "sources.json",
        {
            "kind": "set_source_relation",
            "filename": REUPLOAD,
            "expect": {"$missing": True},
            "value": {"type": "duplicate", "target_filename": COST},
        },
        {"kind": "register_pptx", "filename": JAVA, "expect": DECK, "delete": True},
    )
    assert _dry_then_apply("sources", db, repair).returncode == 0
    before = snapshot_file(db)
    wrong = run_cli(
        "rvault-db", "record-deck", db, db.parent / "pptx" / "cost-myths.json", "--talk", JAVA
    )
    assert wrong.json["error"]["code"] == "deck_binding_contradicted"
    assert snapshot_file(db) == before
    assert (
        _dry_then_apply(
            "record-deck", db, db.parent / "pptx" / "cost-myths.json", "--talk", COST
        ).returncode
        == 0
    )

    code, found = _blocking(db)
    assert (code, found) == (0, set())
    assert qb.read_db(db)["talks"][0]["deck_binding"]["decision"] == "proven"
