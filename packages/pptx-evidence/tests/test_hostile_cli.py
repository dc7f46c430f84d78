"""Regressions from an adversarial review of ``rvault-pptx extract``: stable
codes that name the deck, refusals before the worker, nothing changed on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"just a text file\n", "not_a_zip"), (b"PK\x03\x04broken", "truncated_archive")],
)
def test_package_refusals_name_the_deck(
    tmp_path: Path, cli: Any, snapshot_tree: Any, content: bytes, code: str
) -> None:
    """These refusals used to carry ``path: null``."""
    deck = tmp_path / "talk.pptx"
    deck.write_bytes(content)
    before = snapshot_tree(tmp_path)
    result = cli("rvault-pptx", "extract", deck, "--no-ocr", "--out", tmp_path / "x.json")
    assert result.returncode == 2, result.stderr
    assert result.json["error"]["code"] == code
    assert result.json["error"]["path"] == str(deck)
    assert snapshot_tree(tmp_path) == before


@pytest.mark.parametrize("where", ["missing", "under_a_file"])
def test_out_into_a_missing_directory_is_refused_before_extracting(
    rich_deck: Path, tmp_path: Path, cli: Any, snapshot_tree: Any, where: str
) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory\n")
    parent = tmp_path / "nodir" if where == "missing" else blocker
    before = snapshot_tree(tmp_path)
    result = cli("rvault-pptx", "extract", rich_deck, "--no-ocr", "--out", parent / "x.json")
    assert result.returncode == 2, result.stderr
    assert result.json["error"] == {
        "code": "output_directory_missing",
        "message": "--out must name a file in an existing directory",
        "path": str(parent),
    }
    assert "worker peak_rss_kib" not in result.stderr  # no extraction was run
    assert snapshot_tree(tmp_path) == before
