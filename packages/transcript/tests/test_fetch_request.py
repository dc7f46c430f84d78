"""The fetch rules through :class:`FetchRequest` / :func:`fetch`, without the CLI.

Output naming and location: a YouTube transcript is ``transcripts/{ID}.txt``
exactly, and when the vault root is known (given, or the tracking database
found above the output) the output lies in the vault's real
``transcripts/`` directory, never behind a symlinked one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_contracts.cli import Refusal
from rvault_transcript.fetch import FetchRequest, check_request, fetch

VIDEO_ID = "RhEtOr1c_01"
SPEECH = (Path(__file__).resolve().parents[1] / "benchmarks" / "speech_text.txt").read_text()


def quiet(_message: str) -> None:
    pass


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "transcripts").mkdir(parents=True)
    (root / "tracking-database.json").write_text("{}")
    return root


def refused(request: FetchRequest) -> Refusal:
    with pytest.raises(Refusal) as raised:
        fetch(request, progress=quiet)
    return raised.value


def test_a_youtube_transcript_is_named_after_its_id(vault: Path) -> None:
    out = vault / "transcripts" / "other-name.txt"
    error = refused(FetchRequest(VIDEO_ID, out, "unknown"))
    assert error.code == "output_name_mismatch" and error.path == str(out)
    assert error.context["hint"] == f"pass --out {out.with_name(VIDEO_ID + '.txt')}"


def test_the_vault_root_is_found_from_the_tracking_database(vault: Path) -> None:
    request = FetchRequest(VIDEO_ID, vault / "transcripts" / f"{VIDEO_ID}.txt", "unknown")
    assert check_request(request) == vault


def test_a_symlinked_transcripts_directory_is_refused(
    vault: Path, tmp_path: Path, snapshot_tree: Callable
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (vault / "transcripts").rename(elsewhere)
    (vault / "transcripts").symlink_to(elsewhere, target_is_directory=True)
    out = vault / "transcripts" / f"{VIDEO_ID}.txt"
    out.write_text(SPEECH)
    before = snapshot_tree(tmp_path)
    error = refused(FetchRequest(VIDEO_ID, out, "unknown"))
    assert error.code == "symlink_refused" and error.path == str(vault / "transcripts")
    assert snapshot_tree(tmp_path) == before
    # Without a known vault root the same path is only the writer's business.
    (vault / "tracking-database.json").unlink()
    assert check_request(FetchRequest(VIDEO_ID, out, "unknown")) is None


def test_an_output_outside_the_given_vault_is_refused(vault: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "transcripts"
    other.mkdir(parents=True)
    error = refused(FetchRequest(VIDEO_ID, other / f"{VIDEO_ID}.txt", "unknown", vault_root=vault))
    assert error.code == "output_outside_vault"
    nested = vault / "transcripts" / "sub"
    nested.mkdir()
    error = refused(FetchRequest(VIDEO_ID, nested / f"{VIDEO_ID}.txt", "unknown"))
    assert error.code == "output_outside_transcripts"


def test_an_existing_transcript_is_validated_without_the_cli(vault: Path) -> None:
    out = vault / "transcripts" / f"{VIDEO_ID}.txt"
    out.write_text(SPEECH)
    document = fetch(FetchRequest(VIDEO_ID, out, "manual"), progress=quiet)
    assert document["method"] == "existing" and document["transcript_source"] is None
    assert document["word_count"] == len(SPEECH.split())
    assert document["quality_status"]["code"] == "quality_current"
    again = fetch(FetchRequest(VIDEO_ID, out, "manual"), progress=quiet)
    assert again["quality_status"]["code"] == "quality_reused" and again["write"] is None
    stricter = refused(FetchRequest(VIDEO_ID, out, "manual", min_words=5000))
    assert stricter.code == "existing_transcript_invalid"
    assert stricter.context["reason"] == "too_few_words"


def test_vtt_import_refuses_a_symlinked_transcripts_directory(
    vault: Path, tmp_path: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (vault / "transcripts").rename(elsewhere)
    (vault / "transcripts").symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "talk.vtt").write_text("WEBVTT\n\n00:01.000 --> 00:02.000\nhello\n")
    before = snapshot_tree(tmp_path)
    result = cli(
        "rvault-transcript", "vtt-cleanup",
        vault / "transcripts" / "talk.vtt", vault / "transcripts" / "talk.txt",
    )  # fmt: skip
    assert result.returncode == 2 and result.json["error"]["code"] == "symlink_refused"
    assert snapshot_tree(tmp_path) == before


def test_a_duration_bound_receipt_is_reused_only_after_a_matching_probe(
    vault: Path, recorded_ytdlp: Callable
) -> None:
    out = vault / "transcripts" / f"{VIDEO_ID}.txt"
    out.write_text(" ".join(SPEECH.split()[:60]) + "\n")
    recorded_ytdlp(100.0)
    first = fetch(FetchRequest(VIDEO_ID, out, "manual", duration_seconds=100.0), progress=quiet)
    assert first["quality_status"]["code"] == "quality_current" and first["min_words"] == 50
    # No --duration-seconds: the stored receipt is re-bound by a new probe and kept.
    again = fetch(FetchRequest(VIDEO_ID, out, "manual"), progress=quiet)
    assert again["quality_status"]["code"] == "quality_reused" and again["min_words"] == 50
    assert again["duration_seconds"] == 100.0 and again["write"] is None
    # The video's probed duration changed: the receipt drifted, the default floor applies.
    recorded_ytdlp(300.0)
    drifted = refused(FetchRequest(VIDEO_ID, out, "manual"))
    assert drifted.code == "existing_transcript_invalid"
    assert drifted.context["reason"] == "too_few_words"


def test_a_trusted_floor_that_is_still_missed_says_so(
    vault: Path, recorded_ytdlp: Callable, snapshot_tree: Callable
) -> None:
    out = vault / "transcripts" / f"{VIDEO_ID}.txt"
    out.write_text(" ".join(SPEECH.split()[:10]) + "\n")
    recorded_ytdlp(100.0)
    before = snapshot_tree(vault)
    error = refused(FetchRequest(VIDEO_ID, out, "manual", duration_seconds=100.0))
    assert error.code == "existing_transcript_invalid"
    assert "already the short-talk one" in error.context["hint"]
    assert "50 words" in error.context["hint"]
    assert snapshot_tree(vault) == before
