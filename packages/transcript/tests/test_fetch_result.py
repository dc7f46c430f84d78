"""The public fetch-result reader: real producer output in, claims or coded findings out.

Each semantic rule is proven on a real ``vtt-cleanup`` or replayed
``fetch`` document changed in the one field the rule is about; the schema's
own findings keep contracts' ``schema_violation``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.issues import Issue
from rvault_transcript import api
from rvault_transcript.cli import main

VIDEO_ID = "RhEtOr1c_01"


def caption_file(cues: int) -> str:
    """``cues`` one-second cues of seven words each, with a ``Language`` header."""
    blocks = ["WEBVTT\nKind: captions\nLanguage: en"]
    for i in range(cues):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        blocks.append(f"{at}.000 --> {at}.900\nthis is caption line number {i} spoken")
    return "\n\n".join(blocks) + "\n"


def _json_out(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> dict[str, Any]:
    code = main([str(a) for a in argv])
    document = json.loads(capsys.readouterr().out)
    assert code == 0, document
    return document


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "transcripts").mkdir(parents=True)
    return root


@pytest.fixture
def imported(vault: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What ``vtt-cleanup`` prints for a transcript of ``vault`` (absolute paths)."""
    vtt = vault / "transcripts" / "talk.en.vtt"
    vtt.write_text(caption_file(60), encoding="utf-8")
    return _json_out(capsys, "vtt-cleanup", vtt, vault / "transcripts" / "talk.txt")


def _with(document: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(document)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return out


def test_a_real_result_reads_as_its_claims(imported: dict[str, Any], vault: Path) -> None:
    assert api.validate_fetch_result(imported) == []
    claim = api.read_fetch_result(imported, vault_root=vault)
    transcript = vault / "transcripts" / "talk.txt"
    assert claim.transcript_path == transcript
    assert claim.quality_path == api.quality_path_for(transcript)
    assert claim.timed_path == api.timing_path_for(transcript)
    assert (claim.method, claim.transcript_source, claim.language) == ("vtt", None, "en")
    assert (claim.word_count, claim.min_words, claim.duration_seconds) == (420, 400, None)
    assert claim.vault_path == "transcripts/talk.txt"
    assert claim.video_id is None and claim.media_sha256 is None
    # without a vault root the location is not judged, and not derived
    assert api.read_fetch_result(imported).vault_path is None


def test_a_relative_path_is_read_as_vault_relative(imported: dict[str, Any], vault: Path) -> None:
    relative = {
        **imported,
        "transcript_path": "transcripts/talk.txt",
        "timed_path": "transcripts/talk.segments.json",
        "quality_path": "transcripts/talk.quality.json",
    }
    assert api.read_fetch_result(relative, vault_root=vault).vault_path == "transcripts/talk.txt"
    elsewhere = {
        **relative,
        "transcript_path": "talk.txt",
        "timed_path": "talk.segments.json",
        "quality_path": "talk.quality.json",
    }
    assert api.validate_fetch_result(elsewhere) == []  # well formed; only the vault says no
    with pytest.raises(api.FetchResultError) as raised:
        api.read_fetch_result(elsewhere, vault_root=vault)
    assert [i.code for i in raised.value.issues] == ["transcript_outside_vault"]


SEMANTIC = [
    (("quality_path",), None, "quality_path_mismatch", '$["quality_path"]'),
    (("quality_path",), "/elsewhere/talk.quality.json", "quality_path_mismatch", None),
    (("timed_path",), "/elsewhere/talk.segments.json", "timed_path_mismatch", '$["timed_path"]'),
    (("timed_path",), None, "timing_status_mismatch", '$["timing_status"]["available"]'),
    (("quality_status", "available"), False, "quality_status_mismatch", None),
    (("min_words",), 50, "min_words_below_floor", '$["min_words"]'),
    (("word_count",), 399, "word_count_below_floor", '$["word_count"]'),
    (("word_count",), -5, "schema_violation", '$["word_count"]'),
    (("method",), "captions", "schema_violation", None),
]


@pytest.mark.parametrize(("path", "value", "code", "where"), SEMANTIC)
def test_each_rule_has_its_code(
    imported: dict[str, Any], vault: Path, path: tuple[str, ...], value: Any, code: str, where: Any
) -> None:
    changed = _with(imported, path, value)
    issues = api.validate_fetch_result(changed)
    assert issues and all(isinstance(i, Issue) for i in issues)
    assert code in {i.code for i in issues}
    if where is not None:
        assert where in {i.path for i in issues if i.code == code}
    with pytest.raises(api.FetchResultError) as raised:
        api.read_fetch_result(changed, vault_root=vault)
    error = raised.value
    assert error.code == api.INVALID_FETCH_RESULT == "invalid_fetch_result"
    assert list(error.issues) == issues
    assert error.path == issues[0].path and issues[0].code in error.message


def test_a_transcript_is_a_txt_file(imported: dict[str, Any]) -> None:
    # talk.md has the same sibling receipt names as talk.txt: only the suffix is wrong
    renamed = {**imported, "transcript_path": imported["transcript_path"][: -len(".txt")] + ".md"}
    assert [i.code for i in api.validate_fetch_result(renamed)] == ["transcript_path_not_txt"]


def test_a_transcript_outside_the_vault_transcripts_is_refused(
    imported: dict[str, Any], tmp_path: Path
) -> None:
    with pytest.raises(api.FetchResultError) as raised:
        api.read_fetch_result(imported, vault_root=tmp_path / "other-vault")
    assert [i.code for i in raised.value.issues] == ["transcript_outside_vault"]


def test_a_redirected_refusal_is_named_as_such(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["vtt-cleanup", str(vault / "nope.vtt"), str(vault / "transcripts" / "t.txt")])
    failure = json.loads(capsys.readouterr().out)
    assert code == 2 and failure["ok"] is False
    (issue,) = api.validate_fetch_result(failure)
    assert (issue.code, issue.path) == ("fetch_result_is_failure", '$["error"]')
    assert failure["error"]["code"] in issue.message


def test_a_youtube_transcript_is_named_for_its_video(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    youtube_replay("success")
    recorded_ytdlp(100.0)
    (tmp_path / "transcripts").mkdir()
    out = tmp_path / "transcripts" / f"{VIDEO_ID}.txt"
    document = _json_out(
        capsys, "fetch", VIDEO_ID, "--out", out, "--existing-source", "unknown",
        "--duration-seconds", "100",
    )  # fmt: skip
    claim = api.read_fetch_result(document, vault_root=tmp_path)
    assert (claim.video_id, claim.transcript_source) == (VIDEO_ID, "youtube_auto")
    assert (claim.min_words, claim.duration_seconds) == (50, 100.0)  # a trusted short floor
    renamed = {
        **document,
        "transcript_path": str(out.with_name("talk.txt")),
        "timed_path": str(out.with_name("talk.segments.json")),
        "quality_path": str(out.with_name("talk.quality.json")),
    }
    assert [i.code for i in api.validate_fetch_result(renamed)] == ["transcript_name_mismatch"]
    assert [i.code for i in api.validate_fetch_result({**document, "duration_seconds": None})] == [
        "min_words_below_floor"
    ]  # 50 words needs the trusted duration
