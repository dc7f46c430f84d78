"""Regressions from an adversarial review of ``rvault-pptx extract``: stable
codes that name the deck, refusals before the worker, nothing changed on disk."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.plugin import console_script, wait_until_open


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


def test_non_utf8_arguments_are_refused_before_anything_runs(
    rich_deck: Path, tmp_path: Path, cli: Any, snapshot_tree: Any
) -> None:
    """A non-UTF-8 ``--out`` was written and then the report crashed (``internal_error``)."""
    deck = tmp_path / os.fsdecode(b"\xff.pptx")
    shutil.copyfile(rich_deck, deck)
    before = snapshot_tree(tmp_path)
    for args in (
        (deck, "--no-ocr"),
        (rich_deck, "--no-ocr", "--out", tmp_path / os.fsdecode(b"\xfe.json")),
    ):
        result = cli("rvault-pptx", "extract", *args)
        assert result.returncode == 2, result.stderr
        assert result.json["error"]["code"] == "argument_not_utf8"
        assert result.json["error"]["path"].endswith(("\\xff.pptx", "\\xfe.json"))
        assert snapshot_tree(tmp_path) == before


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_unwinds_like_ctrl_c(
    rich_deck: Path, tmp_path: Path, snapshot_tree: Any, signum: int
) -> None:
    """SIGTERM used to kill the supervisor with an empty stdout."""
    out = tmp_path / "talk.json"
    lock = tmp_path / "talk.json.lock"
    with lock.open("a") as held:
        before = snapshot_tree(tmp_path)
        fcntl.flock(held, fcntl.LOCK_EX)  # the run extracts, then waits for the writer lock
        process = subprocess.Popen(
            [console_script("rvault-pptx"), "extract", rich_deck, "--no-ocr", "--out", out],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            wait_until_open(process.pid, lock)
            process.send_signal(signum)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 1, stderr
    assert json.loads(stdout)["error"]["code"] == "interrupted"
    assert snapshot_tree(tmp_path) == before
