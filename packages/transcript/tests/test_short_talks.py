"""Short talks are consistent between ``vtt-cleanup``, ``fetch`` and ``verify``.

A caption file below the 400-word floor used to import with ``ok: true`` and
no quality receipt, and ``fetch`` then refused the same text. Now the import
refuses with nothing written unless a trusted duration qualifies it
(``--media`` whose probe matches ``--duration-seconds``), and what it writes
``verify --media`` and ``fetch LABEL --audio`` accept as is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import av
import pytest


def media_duration(path: Path) -> float:
    with av.open(str(path)) as container:
        return container.duration / av.time_base


def short_vtt(lines: int) -> str:
    cues = [
        f"00:00:{i:02d}.000 --> 00:00:{i:02d}.800\nshort talk sentence {i} in seven words"
        for i in range(lines)
    ]
    return "WEBVTT\n\n" + "\n\n".join(cues) + "\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    (directory / "talk.en.vtt").write_text(short_vtt(25))  # 175 words
    return directory


def test_a_short_import_is_refused_with_nothing_written(
    vault: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    before = snapshot_tree(vault)
    result = cli("rvault-transcript", "vtt-cleanup", vault / "talk.en.vtt", vault / "talk.txt")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "transcript_quality_failed"
    assert result.json["reason"] == "too_few_words"
    hint = result.json["hint"]
    assert "--media RECORDING --duration-seconds N" in hint
    assert "175 words qualify a recording of up to 350 seconds" in hint
    assert snapshot_tree(vault) == before


def test_media_with_a_matching_duration_qualifies_the_import(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_file: Callable
) -> None:
    out = vault / "talk.txt"
    duration = media_duration(speech_wav)
    result = cli(
        "rvault-transcript", "vtt-cleanup", vault / "talk.en.vtt", out,
        "--media", speech_wav, "--duration-seconds", f"{duration:.2f}",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout
    assert result.json["quality_path"] == str(vault / "talk.quality.json")
    assert result.json["duration_seconds"] == duration
    quality = json.loads((vault / "talk.quality.json").read_text())
    assert quality["provenance"]["kind"] == "local_media_duration"
    assert quality["policy"]["min_words"] < 175
    # verify, bound to the recording, accepts both receipts ...
    verified = cli("rvault-transcript", "verify", out, "--media", speech_wav)
    assert verified.returncode == 0, verified.stdout
    assert verified.json["evidence"] == {"plain_quote": True, "timed_quote": True}
    # ... without the recording the duration-bound quality cannot be bound: fail closed.
    unbound = cli("rvault-transcript", "verify", out)
    assert unbound.returncode == 2 and unbound.json["error"]["code"] == "owner_context_missing"
    # fetch on the existing transcript keeps the receipt and the bytes.
    before = snapshot_file(out)
    fetched = cli(
        "rvault-transcript", "fetch", "talk", "--audio", speech_wav, "--out", out,
        "--existing-source", "unknown",
    )  # fmt: skip
    assert fetched.returncode == 0, fetched.stdout
    assert fetched.json["method"] == "existing"
    assert fetched.json["quality_status"]["code"] == "quality_reused"
    assert fetched.json["timed_path"] == str(vault / "talk.segments.json")
    assert snapshot_file(out) == before


def test_a_duration_the_probe_does_not_confirm_is_refused(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    before = snapshot_tree(vault)
    out = vault / "talk.txt"
    wrong = cli(
        "rvault-transcript", "vtt-cleanup", vault / "talk.en.vtt", out,
        "--media", speech_wav, "--duration-seconds", "300",
    )  # fmt: skip
    assert wrong.returncode == 2 and wrong.json["error"]["code"] == "duration_mismatch"
    assert f"{media_duration(speech_wav)}" in wrong.json["hint"]
    unbound = cli(
        "rvault-transcript", "vtt-cleanup", vault / "talk.en.vtt", out, "--duration-seconds", "60"
    )
    assert unbound.returncode == 2 and unbound.json["error"]["code"] == "duration_unbound"
    assert snapshot_tree(vault) == before


def test_an_existing_short_transcript_names_the_way_to_qualify_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot_tree: Callable
) -> None:
    from rvault_transcript.cli import main

    directory = tmp_path / "transcripts"
    directory.mkdir()
    out = directory / "RhEtOr1c_01.txt"
    out.write_text("a short but real transcript of a lightning talk\n")
    before = snapshot_tree(directory)
    code = main(["fetch", "RhEtOr1c_01", "--out", str(out), "--existing-source", "manual"])
    document = json.loads(capsys.readouterr().out)
    assert code == 2 and document["error"]["code"] == "existing_transcript_invalid"
    assert document["reason"] == "too_few_words"
    assert "--duration-seconds N" in document["hint"] and "yt-dlp probe" in document["hint"]
    assert "the existing text is kept" in document["hint"]
    assert snapshot_tree(directory) == before


def test_the_import_rules_hold_without_the_cli(vault: Path, speech_wav: Path) -> None:
    from rvault_contracts.cli import Refusal
    from rvault_transcript.vtt_import import VttImportRequest, import_vtt

    request = VttImportRequest(vault / "talk.en.vtt", vault / "talk.txt")
    with pytest.raises(Refusal) as raised:
        import_vtt(request)
    assert raised.value.context["reason"] == "too_few_words"
    qualified = VttImportRequest(
        vault / "talk.en.vtt",
        vault / "talk.txt",
        media=speech_wav,
        duration_seconds=media_duration(speech_wav),
    )
    document = import_vtt(qualified)
    assert document["ok"] is True and document["word_count"] == 175
    assert document["min_words"] == -(-int(media_duration(speech_wav) * 1000) * 30 // 60000)
