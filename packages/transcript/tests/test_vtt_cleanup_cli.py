"""``rvault-transcript vtt-cleanup`` and ``verify`` through the installed console script."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_transcript.api import read_evidence, validate_fetch_result


def stamp(ms: int) -> str:
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def rolling_vtt(sentences: int) -> str:
    """A YouTube-style rolling caption file with ``sentences`` distinct 7-word lines."""
    blocks = ["WEBVTT\nKind: captions\nLanguage: en\n"]
    previous = ""
    for i in range(sentences):
        start, end = i * 3000, i * 3000 + 2990
        line = f"this is caption line number {i} spoken"
        first, rest = line.split(" ", 1)
        timed = f"{first}<{stamp(start + 100)}><c> {rest}</c>"
        blocks.append(
            f"{stamp(start)} --> {stamp(end)} align:start position:0%\n{previous or ' '}\n{timed}\n"
        )
        blocks.append(f"{stamp(end)} --> {stamp(end + 10)} align:start position:0%\n{line}\n \n")
        previous = line
    return "\n".join(blocks)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


def test_import_writes_transcript_timing_and_quality(vault: Path, cli: Callable) -> None:
    vtt = vault / "src.en.vtt"
    vtt.write_text(rolling_vtt(60))
    out = vault / "talk.txt"
    result = cli("rvault-transcript", "vtt-cleanup", vtt, out)
    assert result.returncode == 0, result.stdout + result.stderr
    document = result.json
    assert validate_fetch_result(document) == []
    assert document["method"] == "vtt" and document["language"] == "en"
    assert document["word_count"] == 420 and document["quality_path"] is not None
    lines = out.read_text().splitlines()
    assert len(lines) == 60 and lines[1] == "this is caption line number 1 spoken"
    timing = json.loads((vault / "talk.segments.json").read_text())
    assert timing["provenance"]["artifact_path"] == "src.en.vtt"
    assert timing["provenance"]["cue_extent_seconds"] == timing["segments"][-1]["end_seconds"]
    verified = cli("rvault-transcript", "verify", out)
    assert verified.returncode == 0
    assert verified.json["evidence"] == {"plain_quote": True, "timed_quote": True}


def test_existing_output_is_kept_unless_forced(
    vault: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    vtt = vault / "src.vtt"
    vtt.write_text(rolling_vtt(60))
    out = vault / "talk.txt"
    assert cli("rvault-transcript", "vtt-cleanup", vtt, out).returncode == 0
    before = snapshot_tree(vault)
    vtt.write_text(rolling_vtt(10))
    before["src.vtt"] = snapshot_tree(vault)["src.vtt"]
    kept = cli("rvault-transcript", "vtt-cleanup", vtt, out)
    assert kept.returncode == 2 and kept.json["error"]["code"] == "output_exists"
    assert snapshot_tree(vault) == before
    forced = cli("rvault-transcript", "vtt-cleanup", vtt, out, "--force")
    # 70 words are below the default floor: refused, and the old bundle stays whole.
    assert forced.returncode == 2
    assert forced.json["error"]["code"] == "transcript_quality_failed"
    assert forced.json["reason"] == "too_few_words"
    assert "--media RECORDING --duration-seconds N" in forced.json["hint"]
    assert snapshot_tree(vault) == before
    longer = cli("rvault-transcript", "vtt-cleanup", vault / "src.vtt", out, "--force")
    assert longer.returncode == 2
    vtt.write_text(rolling_vtt(61))
    replaced = cli("rvault-transcript", "vtt-cleanup", vtt, out, "--force")
    assert replaced.returncode == 0 and replaced.json["word_count"] == 427
    assert len(out.read_text().splitlines()) == 61


def test_input_outside_the_transcript_directory_is_refused(
    vault: Path, tmp_path: Path, cli: Callable
) -> None:
    vtt = tmp_path / "elsewhere.vtt"
    vtt.write_text(rolling_vtt(3))
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "talk.txt")
    assert result.returncode == 2 and result.json["error"]["code"] == "vtt_outside_transcript_dir"
    escaped = cli(
        "rvault-transcript", "vtt-cleanup", vault / ".." / "elsewhere.vtt", vault / "talk.txt"
    )
    assert escaped.returncode == 2 and escaped.json["error"]["code"] == "vtt_outside_transcript_dir"
    assert list(vault.iterdir()) == []


def test_symlinked_input_is_refused(vault: Path, tmp_path: Path, cli: Callable) -> None:
    real = vault / "real.vtt"
    real.write_text(rolling_vtt(3))
    (vault / "link.vtt").symlink_to(real)
    result = cli("rvault-transcript", "vtt-cleanup", vault / "link.vtt", vault / "talk.txt")
    assert result.returncode == 2 and result.json["error"]["code"] == "symlink_refused"
    sub = tmp_path / "captions"
    sub.mkdir()
    (sub / "c.vtt").write_text(rolling_vtt(3))
    (vault / "dir").symlink_to(sub)
    through = cli("rvault-transcript", "vtt-cleanup", vault / "dir" / "c.vtt", vault / "talk.txt")
    assert through.returncode == 2 and through.json["error"]["code"] == "symlink_refused"
    assert not (vault / "talk.txt").exists()


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"WEBVTT\n\n00:00.000 --> 00:01.000\ncaf\xe9\n", "invalid_utf8"), (b"hello\n", "not_webvtt")],
)
def test_bad_vtt_is_refused(vault: Path, cli: Callable, content: bytes, code: str) -> None:
    vtt = vault / "bad.vtt"
    vtt.write_bytes(content)
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "talk.txt")
    assert result.returncode == 2 and result.json["error"]["code"] == code
    assert sorted(p.name for p in vault.iterdir()) == ["bad.vtt"]


def test_verify_refuses_tampered_artifacts_and_crlf(vault: Path, cli: Callable) -> None:
    vtt = vault / "src.vtt"
    vtt.write_text(rolling_vtt(60))
    out = vault / "talk.txt"
    assert cli("rvault-transcript", "vtt-cleanup", vtt, out).returncode == 0
    # The caption artifact changes: timing is no longer bound, plain quotes still are.
    vtt.write_text(rolling_vtt(61))
    report = read_evidence(out)
    assert report.plain_quote and not report.timed_quote
    assert report.timing.code == "artifact_hash_mismatch"
    verified = cli("rvault-transcript", "verify", out)
    assert verified.returncode == 0 and verified.json["evidence"]["timed_quote"] is False
    # CRLF line endings: same words, different bytes -> both receipts are stale.
    out.write_bytes(out.read_bytes().replace(b"\n", b"\r\n"))
    stale = cli("rvault-transcript", "verify", out)
    assert stale.returncode == 2 and stale.json["error"]["code"] == "transcript_hash_mismatch"
    assert stale.json["report"]["timing"]["code"] in {
        "transcript_hash_mismatch",
        "artifact_hash_mismatch",
    }
    assert stale.json["report"]["evidence"] == {"plain_quote": False, "timed_quote": False}


def test_verify_reports_a_symlinked_transcript(vault: Path, tmp_path: Path, cli: Callable) -> None:
    target = tmp_path / "real.txt"
    target.write_text("words " * 500)
    (vault / "talk.txt").symlink_to(target)
    result = cli("rvault-transcript", "verify", vault / "talk.txt")
    assert result.returncode == 2 and result.json["error"]["code"] == "symlink_refused"


def test_symlinked_output_is_refused(
    vault: Path, tmp_path: Path, cli: Callable, snapshot_file: Callable
) -> None:
    vtt = vault / "src.vtt"
    vtt.write_text(rolling_vtt(60))
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    before = snapshot_file(target)
    (vault / "talk.txt").symlink_to(target)
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "talk.txt", "--force")
    assert result.returncode == 2 and result.json["error"]["code"] == "symlink_refused"
    assert snapshot_file(target) == before
    assert not (vault / "talk.segments.json").exists()
