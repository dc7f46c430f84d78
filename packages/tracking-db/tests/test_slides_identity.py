"""``register-slides`` binds the promoted PDF to its bytes; status reports a replaced PDF.

The lane derives ``slides_local_identity`` (SHA-256, size) from the file it
checked; ``--pdf-sha256`` binds it to the digest ``rvault-video promote``
printed. Status compares size first, then SHA-256.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from _sources_cli import apply as _apply
from _sources_cli import refused as _refused
from _sources_cli import run as _run

PENDING = "2024-06-01-meetup.md"
DONE = "2023-01-01-done.md"
PDF = "slides/dQw4w9WgXcQ.pdf"


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    qb.write_pdf(vault / PDF)
    talks = [
        qb.pending_talk(PENDING),
        qb.processed_talk(DONE, 5, transcript_path="transcripts/done.txt"),
    ]
    qb.write_transcript(vault, "transcripts/done.txt")
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(talks))


def _talk(db: Path, name: str) -> dict[str, Any]:
    return next(t for t in qb.read_db(db)["talks"] if t["filename"] == name)


def _slides_row(db: Path, name: str) -> dict[str, Any]:
    code, report = _run("status", db, "--format", "json")
    assert code == 0 and schema_issues("db-status-report", 1, report) == [], report
    return next(r for r in report["talks"] if r["filename"] == name)


def test_register_slides_records_the_pdf_bytes(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    data = (db.parent / PDF).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    report = _apply("register-slides", db, "--talk", PENDING, PDF, "--pdf-sha256", digest)
    talk = _talk(db, PENDING)
    assert talk["slides_local_identity"] == {"sha256": digest, "size_bytes": len(data)}
    assert report["changes"][0]["derived"]["slides_local_identity"]["sha256"] == digest
    assert api.check_slides(db.parent, talk) is None
    row = _slides_row(db, PENDING)
    assert row["slides"] == {"path": PDF, "state": "current"}


def test_a_digest_other_than_promotes_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    args = ("register-slides", db, "--talk", PENDING, PDF, "--pdf-sha256", "0" * 64)
    assert "promote" in _refused(_run(*args), "slides_digest_mismatch")["hint"]
    _refused(_run(*args, "--apply", "--expected-sha256", qb.sha(db.read_bytes())),
             "slides_digest_mismatch")  # fmt: skip
    assert snapshot_file(db) == before


def test_status_reports_a_replaced_pdf_as_stale(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    _apply("register-slides", db, "--talk", PENDING, PDF)
    pdf = db.parent / PDF
    data = bytearray(pdf.read_bytes())
    data[20] ^= 0x01  # same size: only the digest tells
    pdf.write_bytes(bytes(data))
    row = _slides_row(db, PENDING)
    assert row["slides"]["state"] == "slides_stale"
    assert row["next_action"]["code"] == "register_slides"
    pdf.write_bytes(bytes(data) + b"\n%%EOF\n")  # another size: no byte hashed to tell
    assert _slides_row(db, PENDING)["slides"]["state"] == "slides_stale"
    pdf.unlink()
    assert _slides_row(db, PENDING)["slides"]["state"] == "slides_missing"


def test_registering_the_replaced_pdf_again_requeues_the_analysed_talk(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    _apply("register-slides", db, "--talk", DONE, PDF)
    database = qb.read_db(db)
    done = next(t for t in database["talks"] if t["filename"] == DONE)
    done["status"] = "processed"  # the analysis was made from these slides
    qb.write_db(db.parent, database)
    (db.parent / PDF).write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\n2 0 obj<<>>endobj\n%%EOF\n")
    assert _slides_row(db, DONE)["next_action"]["code"] == "register_slides"
    report = _apply("register-slides", db, "--talk", DONE, PDF)
    assert report["changed"] is True
    talk = _talk(db, DONE)
    assert (talk["status"], talk["reprocess_reason"]) == (
        "needs-reprocessing",
        "source_lane_changed",
    )
    assert api.check_slides(db.parent, talk) is None


def test_a_pdf_registered_before_identities_is_unbound_and_a_malformed_one_warns(
    tmp_path: Path,
) -> None:
    db = _vault(tmp_path)
    database = qb.read_db(db)
    database["talks"][0]["slides_local_path"] = PDF  # written before this field existed
    qb.write_db(db.parent, database)
    assert _slides_row(db, PENDING)["slides"]["state"] == "unbound"
    database["talks"][0]["slides_local_identity"] = {"sha256": "x", "size_bytes": -1}
    qb.write_db(db.parent, database)
    result = api.read_database(db)
    assert result.assessment is not None
    assert [(w.code, w.path) for w in result.assessment.warnings] == [
        ("slides_identity_invalid", '$["talks"][0]["slides_local_identity"]')
    ]
    assert _slides_row(db, PENDING)["slides"]["state"] == "unbound"
