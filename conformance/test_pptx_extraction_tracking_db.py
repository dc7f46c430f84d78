"""pptx-extraction v4 -> tracking-db (``pptx_catalog``).

The catalog needs the deck identity (fingerprint), slide count and template
layouts, and must refuse stale generations instead of guessing. This runs the
real console script on a generated deck and reads the output back through
``rvault_pptx_evidence.api`` and the v4 schema.
"""

from __future__ import annotations

from pathlib import Path

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.schemas import is_valid
from rvault_pptx_evidence import api
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

COVERS = [("pptx-extraction", "pptx-evidence", "tracking-db")]


def test_catalog_fields_read_back(tmp_path: Path) -> None:
    source_root = tmp_path / "decks"
    deck = source_root / "Conf" / "2026" / "Talk.pptx"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(sample_decks.rich_deck())
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", source_root)
    assert result.returncode == 0, result.stderr
    document = result.json
    assert is_valid("pptx-extraction", 5, document)
    reading = api.classify(document)
    assert reading.status == api.CURRENT
    assert document["pptx_path"] == "Conf/2026/Talk.pptx"
    assert document["input_fingerprint"]["digest"] == sha256_bytes(deck.read_bytes())
    assert document["slide_count"] == 8
    assert [layout["name"] for layout in document["template_layouts"]][:2] == [
        "Title Slide",
        "Title and Content",
    ]


def test_stale_generations_are_not_catalogued() -> None:
    assert api.classify({"slide_count": 3}).status == api.TIMING_UNKNOWN
    assert api.classify({"schema_version": 3}).status == api.NEEDS_REEXTRACTION
    assert api.classify({"schema_version": 99}).status == api.UNUSABLE_FUTURE


def test_record_deck_builds_the_catalog_receipt_from_a_real_extraction(tmp_path: Path) -> None:
    """``rvault-db record-deck`` turns a stored v4 extraction into the pptx_catalog v2
    receipt (nobody hand-writes it), bound to the deck bytes and the artifact digest."""
    import json
    import os

    from _support import write_current_database

    vault = tmp_path / "vault"
    decks = tmp_path / "decks"
    deck = decks / "Conf" / "2024" / "Talk.pptx"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(sample_decks.rich_deck())
    extracted = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", decks)
    assert extracted.returncode == 0, extracted.stderr
    out = vault / "pptx" / "talk.extraction.json"
    out.parent.mkdir(parents=True)
    out.write_text(extracted.stdout, encoding="utf-8")
    db = write_current_database(
        vault, [{"schema_version": 5, "filename": "t.md", "status": "pending"}]
    )
    document = json.loads(db.read_bytes())
    document["config"]["pptx_source_dir"] = str(decks)
    db.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    args = ("record-deck", db, out, "--talk", "t.md")  # typed paths: from the working directory
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout
    assert [c["kind"] for c in dry.json["plan"]["mutations"]] == [
        "register_pptx",
        "record_pptx",
        "set_deck_binding",  # the binding proof (issue 29): plausible, the talk has no title
    ]
    applied = run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert applied.returncode == 0, applied.stdout
    database = run_cli("rvault-db", "read", db).json["database"]
    record = database["pptx_catalog"][0]
    assert is_valid("db-pptx-catalog", 2, record)
    assert record["pptx_path"] == "Conf/2024/Talk.pptx" and record["visual_extracted"] is True
    evidence = record["visual_evidence"]
    assert evidence["artifact"] == {
        "path": "pptx/talk.extraction.json",
        "sha256": sha256_bytes(out.read_bytes()),
    }
    assert evidence["source_fingerprint"]["digest"] == sha256_bytes(deck.read_bytes())
    assert evidence["pipeline_version"] == extracted.json["pipeline_version"]
    assert database["talks"][0]["pptx_path"] == "Conf/2024/Talk.pptx"

    before = db.read_bytes(), db.stat().st_ino
    deck.write_bytes(deck.read_bytes() + b"\0")  # the deck changed after extraction
    changed = run_cli("rvault-db", "record-deck", db, out)
    assert changed.returncode == 2 and changed.json["error"]["code"] == "deck_fingerprint_mismatch"
    os.truncate(deck, deck.stat().st_size - 1)
    stale = dict(extracted.json, schema_version=3)
    out.write_text(json.dumps(stale), encoding="utf-8")
    refused = run_cli("rvault-db", "record-deck", db, out)
    assert refused.returncode == 2 and refused.json["error"]["code"] == "extraction_not_current"
    assert (db.read_bytes(), db.stat().st_ino) == before
