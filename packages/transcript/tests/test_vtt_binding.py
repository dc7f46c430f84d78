"""Read-side binding of ``vtt_artifact`` timing to its caption file.

A timing receipt imported from WebVTT names the caption file by a safe path
relative to the transcript directory. Readers walk that path without
following symlinks: a missing component is ``artifact_missing``, any symlink
on the way is ``artifact_symlink``, a final component that is not a regular
file is ``artifact_not_regular_file``. Each makes timing unavailable while a
plain quote stays available, and ``verify`` reports it without writing.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_transcript.api import read_evidence, read_timing
from rvault_transcript.cli import main


def stamp(ms: int) -> str:
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def caption_file(lines: int) -> str:
    cues = (
        f"{stamp(i * 3000)} --> {stamp(i * 3000 + 2500)}\nthis is caption line number {i} spoken\n"
        for i in range(lines)
    )
    return "WEBVTT\n\n" + "\n".join(cues)


@pytest.fixture
def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """transcripts/talk.txt imported from transcripts/captions/src.vtt (420 words, timed)."""
    vault = tmp_path / "transcripts"
    (vault / "captions").mkdir(parents=True)
    vtt = vault / "captions" / "src.vtt"
    vtt.write_text(caption_file(60))
    out = vault / "talk.txt"
    assert main(["vtt-cleanup", str(vtt), str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["source"]["artifact_path"] == "captions/src.vtt"
    assert read_evidence(out).timed_quote
    return out


def _remove_file(vault: Path, outside: Path) -> None:
    (vault / "captions" / "src.vtt").unlink()


def _remove_directory(vault: Path, outside: Path) -> None:
    shutil.rmtree(vault / "captions")


def _symlink_file(vault: Path, outside: Path) -> None:
    """The same bytes behind a link: only the no-follow walk can tell."""
    vtt = vault / "captions" / "src.vtt"
    shutil.copyfile(vtt, outside / "src.vtt")
    vtt.unlink()
    vtt.symlink_to(outside / "src.vtt")


def _symlink_directory(vault: Path, outside: Path) -> None:
    (vault / "captions").rename(outside / "captions")
    (vault / "captions").symlink_to(outside / "captions", target_is_directory=True)


def _directory(vault: Path, outside: Path) -> None:
    vtt = vault / "captions" / "src.vtt"
    vtt.unlink()
    vtt.mkdir()


def _fifo(vault: Path, outside: Path) -> None:
    vtt = vault / "captions" / "src.vtt"
    vtt.unlink()
    os.mkfifo(vtt)


CHANGES = [
    ("file-removed", _remove_file, "artifact_missing"),
    ("directory-removed", _remove_directory, "artifact_missing"),
    ("file-symlink", _symlink_file, "artifact_symlink"),
    ("directory-symlink", _symlink_directory, "artifact_symlink"),
    ("directory", _directory, "artifact_not_regular_file"),
    ("fifo", _fifo, "artifact_not_regular_file"),
]


@pytest.mark.parametrize(("name", "change", "code"), CHANGES, ids=[change[0] for change in CHANGES])
def test_timing_is_unavailable_when_the_caption_file_is_not_itself(
    imported: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Callable[[Path], dict[str, Any]],
    name: str,
    change: Callable[[Path, Path], None],
    code: str,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    change(imported.parent, outside)
    reading = read_timing(imported)
    assert (reading.status, reading.code) == ("invalid", code)
    assert reading.segments == ()
    report = read_evidence(imported)
    assert report.plain_quote and not report.timed_quote
    if name == "fifo":
        return  # a snapshot would open the FIFO; the reader itself never does
    before = snapshot_tree(tmp_path)
    status = main(["verify", str(imported)])
    document = json.loads(capsys.readouterr().out)
    assert status == 0, document
    assert document["timing"]["code"] == code
    assert document["evidence"] == {"plain_quote": True, "timed_quote": False}
    assert snapshot_tree(tmp_path) == before


def test_a_file_in_place_of_the_caption_directory_is_artifact_missing(imported: Path) -> None:
    captions = imported.parent / "captions"
    shutil.rmtree(captions)
    captions.write_text("no longer a directory\n")
    reading = read_timing(imported)
    assert (reading.status, reading.code) == ("invalid", "artifact_missing")


def test_a_caption_path_the_os_cannot_look_up_is_artifact_unreadable(imported: Path) -> None:
    from rvault_transcript.api import timing_path_for

    receipt_path = timing_path_for(imported)
    receipt = json.loads(receipt_path.read_bytes())
    receipt["provenance"]["artifact_path"] = "captions/" + "x" * 300 + ".vtt"  # ENAMETOOLONG
    receipt_path.write_text(json.dumps(receipt, indent=2, sort_keys=True) + "\n")
    reading = read_timing(imported)
    assert (reading.status, reading.code) == ("invalid", "artifact_unreadable")
