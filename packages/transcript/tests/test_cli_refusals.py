"""Argument refusals of ``fetch`` and ``vtt-cleanup``, in process and before any I/O.

Each refusal is exit 2 with one ``cli-failure`` document carrying its stable
code and the path the contract names (the output, its directory, the id, or
none for a bare option), and leaves every byte and inode in the transcript
directory as it was. No test here may reach the network or a media library:
the provider boundaries are replaced by functions that fail the test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_transcript import captions, probe
from rvault_transcript.cli import main

VIDEO_ID = "RhEtOr1c_01"
VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhello there\n"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A transcript directory with a bystander transcript bundle and a caption file."""

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a refused command must not reach a provider")

    monkeypatch.setattr(captions, "http_client_factory", unreachable)
    monkeypatch.setattr(probe, "youtube_dl_factory", unreachable)
    directory = tmp_path / "transcripts"
    directory.mkdir()
    (directory / "other.txt").write_text("an existing transcript\n")
    (directory / "other.quality.json").write_text("{}\n")
    (directory / "talk.vtt").write_text(VTT)
    return directory


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict[str, Any]]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)  # exactly one JSON document on stdout


def assert_refused(
    result: tuple[int, dict[str, Any]], code: str, path: str | Path | None
) -> dict[str, Any]:
    status, document = result
    assert status == 2, document
    assert document["ok"] is False
    assert document["error"]["code"] == code
    assert document["error"]["path"] == (None if path is None else str(path))
    return document


# --------------------------------------------------------------------------- fetch


# (name, ID, --out and the error path relative to the transcript directory, options, code);
# an invalid_video_id refusal names the id itself.
FETCH_REFUSALS = [
    ("out-md", VIDEO_ID, "t.md", [], "output_not_txt", "t.md"),
    ("out-no-suffix", VIDEO_ID, "t", [], "output_not_txt", "t"),
    ("dir-missing", VIDEO_ID, f"missing/{VIDEO_ID}.txt", [], "output_directory_missing", "missing"),
    ("dir-is-file", VIDEO_ID, f"o.txt/{VIDEO_ID}.txt", [], "output_directory_missing", "o.txt"),
    ("min-words-0", VIDEO_ID, f"{VIDEO_ID}.txt", ["--min-words", "0"], "invalid_min_words", None),
    ("min-words-negative", VIDEO_ID, "t.txt", ["--min-words=-3"], "invalid_min_words", None),
    ("id-short", "RhEtOr1c_0", "t.txt", [], "invalid_video_id", None),
    ("id-long", "RhEtOr1c_012", "t.txt", [], "invalid_video_id", None),
    ("id-bad-char", "RhEtOr1c_0!", "t.txt", [], "invalid_video_id", None),
    ("id-url", f"https://youtu.be/{VIDEO_ID}", "t.txt", [], "invalid_video_id", None),
    # A YouTube transcript is found at transcripts/{ID}.txt only.
    ("out-other-name", VIDEO_ID, "other-name.txt", [], "output_name_mismatch", "other-name.txt"),
]


@pytest.mark.parametrize(
    ("name", "video_id", "out", "extra", "code", "path"),
    FETCH_REFUSALS,
    ids=[case[0] for case in FETCH_REFUSALS],
)
def test_fetch_argument_refusals(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Callable,
    name: str,
    video_id: str,
    out: str,
    extra: list[str],
    code: str,
    path: str | None,
) -> None:
    expected = video_id if code == "invalid_video_id" else path and vault / path
    before = snapshot_tree(vault.parent)
    result = run(
        capsys, "fetch", video_id, "--out", vault / out, "--existing-source", "youtube_auto",
        "--force", *extra,
    )  # fmt: skip
    assert_refused(result, code, expected)
    assert snapshot_tree(vault.parent) == before


def test_fetch_refusals_come_in_a_fixed_order(
    vault: Path, capsys: pytest.CaptureFixture[str], snapshot_tree: Callable
) -> None:
    """The output is judged first, then the options, then the id."""
    before = snapshot_tree(vault.parent)
    bad = ["fetch", "bad-id", "--existing-source", "none", "--min-words", "0"]
    assert_refused(run(capsys, *bad, "--out", vault / "t.md"), "output_not_txt", vault / "t.md")
    assert_refused(
        run(capsys, *bad, "--out", vault / "no" / "t.txt"), "output_directory_missing", vault / "no"
    )
    assert_refused(run(capsys, *bad, "--out", vault / "t.txt"), "invalid_min_words", None)
    assert snapshot_tree(vault.parent) == before


# --------------------------------------------------------------------------- vtt-cleanup


@pytest.mark.parametrize(
    ("vtt", "out", "code", "path"),
    [
        ("talk.vtt", "talk.md", "output_not_txt", "talk.md"),
        ("talk.vtt", "talk.TXT", "output_not_txt", "talk.TXT"),
        ("talk.vtt", "missing/talk.txt", "output_directory_missing", "missing"),
        ("absent.vtt", "talk.txt", "vtt_missing", "absent.vtt"),
        ("sub/absent.vtt", "talk.txt", "vtt_missing", "sub/absent.vtt"),
    ],
)
def test_vtt_cleanup_argument_refusals(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Callable,
    vtt: str,
    out: str,
    code: str,
    path: str,
) -> None:
    before = snapshot_tree(vault.parent)
    result = run(capsys, "vtt-cleanup", vault / vtt, vault / out)
    assert_refused(result, code, vault / path)
    assert snapshot_tree(vault.parent) == before
