"""The extract command end to end: stdout contract, --out through the writer, OCR modes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_pptx_evidence import api


def test_stdout_is_one_schema_valid_deterministic_document(
    rich_deck: Path, cli: Any, schema_valid: Any, snapshot_file: Any
) -> None:
    before = snapshot_file(rich_deck)
    first = cli(
        "rvault-pptx", "extract", rich_deck, "--no-ocr", "--source-root", rich_deck.parent.parent
    )
    second = cli(
        "rvault-pptx", "extract", rich_deck, "--no-ocr", "--source-root", rich_deck.parent.parent
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    document = first.json
    schema_valid(document)
    assert document["pptx_path"] == f"{rich_deck.parent.name}/rich.pptx"
    assert first.stdout.encode("utf-8") == artifact_bytes(document)
    assert "worker peak_rss_kib=" in first.stderr
    assert snapshot_file(rich_deck) == before


def test_without_no_ocr_receipts_say_engine_unavailable(
    rich_deck: Path, cli: Any, schema_valid: Any
) -> None:
    result = cli(
        "rvault-pptx",
        "extract",
        rich_deck,
        env={"RVAULT_PPTX_TESSERACT": "rvault-no-such-tesseract"},
    )
    assert result.returncode == 0, result.stderr
    assert "tesseract is not installed" in result.stderr
    document = result.json
    schema_valid(document)
    slide = document["per_slide_visual"][1]
    assert slide["text_extraction_method"] == "shapes+ocr_unavailable"
    ocr = next(c for c in slide["text_channels"] if c["channel"] == "picture_ocr")
    assert (ocr["attempted"], ocr["status"], ocr["reason"]) == (
        False,
        "unavailable",
        "ocr_engine_unavailable",
    )
    assert [r["result_status"] for r in ocr["ocr_receipts"]] == ["unavailable"]
    assert all(r["trustworthy_text"] is False for r in ocr["ocr_receipts"])
    # High-confidence slides never attempt OCR.
    assert document["per_slide_visual"][0]["text_extraction_method"] == "shapes"


def test_out_installs_through_writer_and_reads_back(
    rich_deck: Path, tmp_path: Path, cli: Any
) -> None:
    out = tmp_path / "extraction.json"
    result = cli("rvault-pptx", "extract", rich_deck, "--no-ocr", "--out", out)
    assert result.returncode == 0, result.stderr
    report = result.json
    assert report["ok"] is True and report["slide_count"] == 8
    assert report["write_report"]["durability_state"] == "durable"
    reading = api.read_extraction(out.read_bytes())
    assert reading.status == api.CURRENT and reading.usable_for_current_analysis
    assert report["write_report"]["output_sha256"] == sha256_bytes(out.read_bytes())
    assert out.read_bytes() == artifact_bytes(reading.document)
    again = cli("rvault-pptx", "extract", rich_deck, "--no-ocr", "--out", out)
    assert again.json["write_report"]["durability_state"] == "unchanged"


def test_out_refusals_leave_files_untouched(
    rich_deck: Path, tmp_path: Path, cli: Any, snapshot_file: Any
) -> None:
    before = snapshot_file(rich_deck)
    same = cli("rvault-pptx", "extract", rich_deck, "--no-ocr", "--out", rich_deck)
    assert same.returncode == 2 and same.json["error"]["code"] == "output_is_input"
    assert snapshot_file(rich_deck) == before
    target = tmp_path / "real.json"
    target.write_text("{}\n")
    target_before = snapshot_file(target)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    refused = cli("rvault-pptx", "extract", rich_deck, "--no-ocr", "--out", link)
    assert refused.returncode == 2 and refused.json["error"]["code"] == "symlink_refused"
    assert snapshot_file(target) == target_before and link.is_symlink()


def test_supervisor_never_imports_python_pptx(rich_deck: Path) -> None:
    code = (
        "import sys, io, contextlib\n"
        "from rvault_pptx_evidence.cli import main\n"
        "buffer = io.StringIO()\n"
        "with contextlib.redirect_stdout(buffer):\n"
        f"    rc = main(['extract', {str(rich_deck)!r}, '--no-ocr'])\n"
        "print(rc, 'pptx' in sys.modules, len(buffer.getvalue()) > 1000)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["0", "False", "True"]


def test_recorded_path_is_relative_and_normalized(tmp_path: Path) -> None:
    from rvault_pptx_evidence.commands.extract import display_path

    root = tmp_path / "decks"
    assert display_path(root / "conf" / ".." / "conf" / "talk.pptx", str(root)) == "conf/talk.pptx"
    assert display_path(tmp_path / "outside.pptx", str(root)) == "outside.pptx"
