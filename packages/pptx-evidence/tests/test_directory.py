"""--directory: bounded, honest completeness, never outside its root."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from rvault_pptx_evidence import api
from rvault_pptx_evidence.batch import BatchFailure, BatchRequest, run_batch
from rvault_pptx_evidence.discovery import DirectoryLimits
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_testkit.plugin import run_cli


@pytest.fixture
def folder(tmp_path: Path, picture_deck: Path) -> Path:
    root = tmp_path / "Presentations"
    deck = picture_deck.read_bytes()
    for rel in ("2025/Keynote.pptx", "2025/Deep/Talk.PPTX", "Node_Modules/pkg/x.pptx"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(deck)
    (root / "2025" / "~$Keynote.pptx").write_bytes(b"lock")
    (root / "2025" / "notes.txt").write_text("not a deck")
    (root / "broken.pptx").write_bytes(b"not a zip")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.pptx").write_bytes(deck)
    (root / "escape").symlink_to(outside)  # a directory symlink: never followed
    return root


def _batch(root: Path, *args: str) -> Any:
    return run_cli("rvault-pptx", "extract", "--directory", root, "--no-ocr", *args)


def test_envelope_is_partial_and_honest(folder: Path, snapshot_tree: Any) -> None:
    before = snapshot_tree(folder)
    result = _batch(folder, "--exclude", "node_modules")
    assert result.returncode == 0, result.stderr
    envelope = result.json
    assert api.batch_issues(envelope) == []
    assert [r["path"] for r in envelope["results"]] == ["2025/Deep/Talk.PPTX", "2025/Keynote.pptx"]
    assert all(api.classify(r["extraction"]).status == api.CURRENT for r in envelope["results"])
    assert envelope["results"][1]["extraction"]["pptx_path"] == "2025/Keynote.pptx"
    assert envelope["skipped"] == [
        {"path": "2025/~$Keynote.pptx", "reason": "pptx_batch_lock_file"},
        {"path": "Node_Modules", "reason": "pptx_batch_directory_excluded"},
        {"error_code": "not_a_zip", "path": "broken.pptx", "reason": "pptx_batch_deck_refused"},
        {"path": "escape", "reason": "pptx_batch_symlink_refused"},
    ]
    assert envelope["incomplete_reason_codes"] == [
        "pptx_batch_deck_refused",
        "pptx_batch_symlink_refused",
    ]
    assert envelope["complete"] is False
    assert "secret" not in result.stdout
    assert "[2/3] 2025/Keynote.pptx: 2 slides" in result.stderr  # progress on stderr
    assert snapshot_tree(folder) == before


def test_clean_folder_is_complete(tmp_path: Path, picture_deck: Path) -> None:
    root = tmp_path / "clean"
    (root / "a").mkdir(parents=True)
    (root / "a" / "one.pptx").write_bytes(picture_deck.read_bytes())
    (root / ".venv").mkdir()
    (root / ".venv" / "x.pptx").write_bytes(b"junk")
    envelope = _batch(root, "--exclude", ".venv").json
    assert envelope["complete"] is True and envelope["incomplete_reason_codes"] == []
    assert envelope["skipped"] == [{"path": ".venv", "reason": "pptx_batch_directory_excluded"}]


def test_symlink_rejection_runs_before_exclusion(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (tmp_path / "target").mkdir()
    (root / "cache").symlink_to(tmp_path / "target")
    envelope = _batch(root, "--exclude", "cache").json
    assert envelope["skipped"] == [{"path": "cache", "reason": "pptx_batch_symlink_refused"}]
    assert envelope["complete"] is False


def _run(root: Path, **limits: int) -> dict[str, Any]:
    return run_batch(BatchRequest(root, ["cache"], OCR_DISABLED, limits=DirectoryLimits(**limits)))


def test_file_limit(folder: Path) -> None:
    envelope = _run(folder, max_decks=1)
    assert {"path": ".", "reason": "pptx_batch_file_limit"} in envelope["skipped"]
    assert len(envelope["results"]) == 1
    assert "pptx_batch_file_limit" in envelope["incomplete_reason_codes"]


def test_excluded_directories_do_not_starve_authored_siblings(
    tmp_path: Path, picture_deck: Path
) -> None:
    root = tmp_path / "r"
    for index in range(5):
        (root / f"c{index}" / "cache").mkdir(parents=True)
    (root / "talk.pptx").write_bytes(picture_deck.read_bytes())
    # 5 c* directories + 1 deck are eligible; the 5 excluded dirents are policy-charged.
    envelope = _run(root, max_entries=6)
    assert envelope["complete"] is True
    assert (
        len([s for s in envelope["skipped"] if s["reason"] == "pptx_batch_directory_excluded"]) == 5
    )
    envelope = _run(root, max_entries=6, max_policy_entries=2)
    assert "pptx_batch_entry_limit" in envelope["incomplete_reason_codes"]
    envelope = _run(root, max_entries=3)
    assert envelope["incomplete_reason_codes"] == ["pptx_batch_entry_limit"]


def test_depth_limit(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "a" / "b" / "c").mkdir(parents=True)
    envelope = _run(root, max_depth=2)
    assert envelope["skipped"] == [{"path": "a/b/c", "reason": "pptx_batch_depth_limit"}]


def test_unreadable_directory_is_recorded(tmp_path: Path, monkeypatch: Any) -> None:
    """In-process scan (the worker's code) with the open of one directory denied:
    permission bits cannot deny root, which runs this suite in CI."""
    import errno

    from rvault_pptx_evidence import discovery

    root = tmp_path / "r"
    (root / "locked").mkdir(parents=True)
    (root / "open").mkdir()
    real_open = os.open

    def deny(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == "locked":
            raise PermissionError(errno.EACCES, "denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(discovery.os, "open", deny)
    manifest = discovery.scan_directory(
        root,
        {
            "exclusions": [],
            "limits": {
                "max_entries": 10,
                "max_decks": 10,
                "max_policy_entries": 10,
                "max_depth": 4,
            },
        },
    )
    assert manifest["skipped"] == [{"path": "locked", "reason": "pptx_batch_directory_unreadable"}]
    assert manifest["complete"] is False


@pytest.mark.parametrize("kind", ["missing", "file", "symlink"])
def test_whole_root_failure(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "root"
    if kind == "file":
        root.write_text("x")
    elif kind == "symlink":
        (tmp_path / "real").mkdir()
        root.symlink_to(tmp_path / "real")
    result = _batch(root)
    assert result.returncode == 2
    envelope = result.json
    assert api.batch_issues(envelope) == []
    assert envelope["error"]["code"] == "pptx_batch_root_invalid"
    assert envelope["results"] == [] and envelope["complete"] is False
    assert envelope["skipped"] == [{"path": ".", "reason": "pptx_batch_root_invalid"}]


def test_scan_worker_breach_is_a_whole_root_failure(folder: Path, monkeypatch: Any) -> None:
    from rvault_pptx_evidence import batch, limits

    monkeypatch.setattr(
        batch, "DIRECTORY_SCAN", limits.with_overrides(limits.DIRECTORY_SCAN, max_rss_bytes=1)
    )
    with pytest.raises(BatchFailure) as failed:
        run_batch(BatchRequest(folder, [], OCR_DISABLED))
    envelope = failed.value.envelope
    assert api.batch_issues(envelope) == []
    assert envelope["error"]["code"] == "pptx_batch_worker_failed"
    assert envelope["details"] == {"supervisor_reason_code": "rss_limit"}


@pytest.mark.parametrize("name", ["a/b", "..", ".", "", "x\\y"])
def test_invalid_exclusions_are_refused(folder: Path, name: str) -> None:
    result = _batch(folder, "--exclude", name)
    assert (result.returncode, result.json["error"]["code"]) == (2, "exclusion_invalid")


def test_forged_envelopes_are_rejected(folder: Path) -> None:
    envelope = _run(folder)
    forged = dict(envelope, complete=True, incomplete_reason_codes=[])
    assert {i.code for i in api.batch_issues(forged)} == {
        "batch_reason_codes_mismatch",
        "batch_complete_mismatch",
    }
    nested = dict(
        envelope,
        skipped=[*envelope["skipped"], {"path": "escape/x", "reason": "pptx_batch_special_file"}],
    )
    assert any(
        i.code == "batch_skip_nested" and "nested" in i.message and i.path.startswith("$.skipped[")
        for i in api.batch_issues(nested)
    )
    fake = dict(
        envelope,
        skipped=[*envelope["skipped"], {"path": "2025", "reason": "pptx_batch_directory_excluded"}],
    )
    assert any(
        i.code == "batch_evidence_below_exclusion" and "excluded" in i.message
        for i in api.batch_issues(fake)
    )


def test_exclusions_from_a_file_the_caller_writes(folder: Path, tmp_path: Path) -> None:
    """The caller passes the exclusions (for a vault, its database config's list):
    this owner reads no tracking database and depends on no other owner."""
    exclusions = tmp_path / "exclusions.json"
    exclusions.write_text('{"other_config": 1, "pptx_directory_exclusions": ["node_modules"]}')
    result = _batch(folder, "--exclusions-file", exclusions)
    assert result.returncode == 0, result.stdout
    envelope = result.json
    assert {"path": "Node_Modules", "reason": "pptx_batch_directory_excluded"} in envelope[
        "skipped"
    ]
    # --exclude replaces the file's list.
    envelope = _batch(folder, "--exclusions-file", exclusions, "--exclude", "other").json
    assert not any(s["reason"] == "pptx_batch_directory_excluded" for s in envelope["skipped"])


@pytest.mark.parametrize(
    "text",
    [
        '["node_modules"]',
        "{}",
        '{"pptx_directory_exclusions": ["ok", 1]}',
        '{"pptx_directory_exclusions": ["a/b"]}',
        "{",
    ],
)
def test_an_exclusions_file_without_an_array_of_names_is_refused(
    folder: Path, tmp_path: Path, text: str
) -> None:
    exclusions = tmp_path / "exclusions.json"
    exclusions.write_text(text)
    result = _batch(folder, "--exclusions-file", exclusions)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "exclusion_invalid"


def test_shared_deadline_leaves_honest_receipts(folder: Path, monkeypatch: Any) -> None:
    """Discovery and extraction share one deadline: once it has passed, the
    remaining decks are pptx_batch_deadline receipts, not silently dropped."""
    import time as real_time
    from types import SimpleNamespace

    from rvault_pptx_evidence import batch

    offset = {"seconds": 0.0}
    clock = SimpleNamespace(monotonic=lambda: real_time.monotonic() + offset["seconds"])
    monkeypatch.setattr(batch, "time", clock)
    scan = batch._scan

    def scan_then_expire(request: Any, deadline: float) -> Any:
        manifest = scan(request, deadline)
        offset["seconds"] = request.deadline_seconds + 1
        return manifest

    monkeypatch.setattr(batch, "_scan", scan_then_expire)
    envelope = run_batch(BatchRequest(folder, ["node_modules"], OCR_DISABLED, deadline_seconds=60))
    assert envelope["results"] == []
    deadline = [s["path"] for s in envelope["skipped"] if s["reason"] == "pptx_batch_deadline"]
    assert deadline == ["2025/Deep/Talk.PPTX", "2025/Keynote.pptx", "broken.pptx"]
    assert "pptx_batch_deadline" in envelope["incomplete_reason_codes"]
    assert api.batch_issues(envelope) == []


@pytest.mark.parametrize(
    "args",
    [
        ["extract"],  # neither DECK nor --directory
        ["extract", "deck.pptx", "--directory", "."],
        ["extract", "--directory", ".", "--out", "x.json"],
        ["extract", "--directory", ".", "--rendered-pdf", "x.pdf"],
        ["extract", "deck.pptx", "--exclude", "cache"],
    ],
)
def test_flags_that_do_not_go_together(tmp_path: Path, args: list[str]) -> None:
    result = run_cli("rvault-pptx", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "usage_error"
    assert list(tmp_path.iterdir()) == []  # nothing written
