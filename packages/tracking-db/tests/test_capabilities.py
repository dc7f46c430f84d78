"""The one shared source-capability resolver and the terminal skip rules."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_tracking_db.capabilities import SourceRoots, resolve, source_capabilities
from rvault_tracking_db.terminal import terminal_skip_issues

VID = "dQw4w9WgXcQ"


def _kinds(talk: dict, roots: SourceRoots) -> list[str]:
    return [c["capability"] for c in source_capabilities(talk, roots)]


def test_every_local_kind_needs_a_readable_artifact(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    decks = tmp_path / "decks"
    qb.write_transcript(vault, f"transcripts/{VID}.txt")
    qb.write_pdf(vault / "slides" / "1AbCdEfGhIjK.pdf")
    qb.write_mp4(vault / "slides-rebuild" / VID / f"{VID}.mp4")
    qb.write_pptx(decks / "Conf" / "Talk.pptx")
    roots = SourceRoots.from_config(vault, {"pptx_source_dir": str(decks)})
    talk = {"youtube_id": VID, "google_drive_id": "1AbCdEfGhIjK", "pptx_path": "Conf/Talk.pptx"}
    caps = source_capabilities(talk, roots)
    assert caps == [
        {"capability": "local_pdf", "path": "slides/1AbCdEfGhIjK.pdf", "root": "vault"},
        {"capability": "local_pptx", "path": "Conf/Talk.pptx", "root": "pptx_source_dir"},
        {"capability": "local_transcript", "path": f"transcripts/{VID}.txt", "root": "vault"},
        {"capability": "local_video", "path": f"slides-rebuild/{VID}/{VID}.mp4", "root": "vault"},
    ]


def test_escaped_symlinked_missing_and_malformed_paths_are_not_capabilities(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    outside = qb.write_transcript(tmp_path, "outside.txt")
    qb.write_transcript(vault, "transcripts/real.txt")
    (vault / "transcripts" / "link.txt").symlink_to(outside)
    (vault / "linkdir").symlink_to(vault / "transcripts")
    (vault / "transcripts" / "empty.txt").write_text("   \n")
    (vault / "transcripts" / "latin1.txt").write_bytes(b"caf\xe9")
    (vault / "slides").mkdir()
    (vault / "slides" / "fake.pdf").write_bytes(b"not a pdf")
    (vault / "deck.pptx").write_bytes(b"PK not a zip")
    roots = SourceRoots(vault)
    cases = {
        "../outside.txt": "path_escapes_root",
        str(outside): "path_not_relative",
        "transcripts/link.txt": "symlink",
        "linkdir/real.txt": "symlink_or_not_directory",
        "transcripts/missing.txt": "missing",
        "transcripts/empty.txt": "empty",
        "transcripts/latin1.txt": "malformed",
        "transcripts\\real.txt": "path_not_portable",
        "transcripts/./real.txt": "path_not_canonical",
        "transcripts": "not_regular_file",
    }
    for path, code in cases.items():
        resolution = resolve({"transcript_path": path}, roots)
        assert resolution.capabilities == [], path
        assert [(f.field, f.code) for f in resolution.findings] == [("transcript_path", code)], path
    assert resolve({"slides_local_path": "slides/fake.pdf"}, roots).findings[0].code == "malformed"
    assert resolve({"pptx_path": "deck.pptx"}, roots).findings[0].code == "malformed"
    assert _kinds({"transcript_path": "transcripts/real.txt"}, roots) == ["local_transcript"]


def test_vault_root_itself_may_be_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    qb.write_transcript(real, "transcripts/t.txt")
    link = tmp_path / "vault-link"
    link.symlink_to(real)
    assert _kinds({"transcript_path": "transcripts/t.txt"}, SourceRoots(link)) == [
        "local_transcript"
    ]


def test_manual_transcript_source_proves_nothing(tmp_path: Path) -> None:
    talk = {"transcript_source": "manual", "transcript_path": "transcripts/none.txt"}
    assert source_capabilities(talk, SourceRoots(tmp_path)) == []


def test_active_remote_sources_are_separate_capabilities(tmp_path: Path) -> None:
    talk = {
        "video_url": f"https://youtu.be/{VID}",
        "slides_url": "https://drive.google.com/file/d/1AbCdEfGhIjK/view",
    }
    caps = source_capabilities(talk, SourceRoots(tmp_path))
    assert caps == [
        {"capability": "remote_slides", "provider_id": "1AbCdEfGhIjK", "url": talk["slides_url"]},
        {"capability": "remote_video", "provider_id": VID, "url": talk["video_url"]},
    ]


def test_rejected_remote_sources_are_inactive(tmp_path: Path) -> None:
    talk = {
        "video_url": f"https://youtu.be/{VID}",
        "source_rejections": [
            {
                "schema_version": 1,
                "source_type": "video",
                "url": f"https://www.youtube.com/watch?v={VID}",
                "reason": "wrong_delivery",
                "evidence": "checked",
                "verified_at": "2026-07-31T12:00:00Z",
            }
        ],
    }
    resolution = resolve(talk, SourceRoots(tmp_path))
    assert resolution.capabilities == []
    assert [(f.field, f.code) for f in resolution.findings] == [("video_url", "rejected_source")]
    assert _kinds({"video_url": "youtube.com/watch?v=x"}, SourceRoots(tmp_path)) == []


def test_pptx_root_defaults_to_the_vault(tmp_path: Path) -> None:
    qb.write_pptx(tmp_path / "decks" / "a.pptx")
    roots = SourceRoots.from_config(tmp_path, {"pptx_source_dir": None})
    assert _kinds({"pptx_path": "decks/a.pptx"}, roots) == ["local_pptx"]
    assert (
        SourceRoots.from_config(tmp_path, {"pptx_source_dir": "relative"}).pptx_source_dir is None
    )


def test_terminal_skip_rules() -> None:
    local = [{"capability": "local_transcript", "root": "vault", "path": "t.txt"}]
    remote = [{"capability": "remote_video", "url": "https://youtu.be/x", "provider_id": None}]
    assert terminal_skip_issues("skipped_no_sources", {}, []) == []
    assert terminal_skip_issues("skipped_no_sources", {}, remote)[0]["code"] == (
        "skip_contradicted_by_capabilities"
    )
    assert terminal_skip_issues("skipped_download_failed", {}, remote) == []
    codes = {i["code"] for i in terminal_skip_issues("skipped_download_failed", {}, local)}
    assert codes == {"no_remote_acquisition_path", "verified_local_artifact_remains"}
    dup = {"source_relation": {"type": "duplicate", "target_filename": "canonical.md"}}
    assert terminal_skip_issues("skipped_duplicate", dup, local) == []
    borrowed = {"source_relation": {"type": "borrowed_recording", "target_filename": "c.md"}}
    assert terminal_skip_issues("skipped_duplicate", borrowed, [])[0]["code"] == (
        "duplicate_relation_missing"
    )
    blank = {"source_relation": {"type": "duplicate", "target_filename": " "}}
    assert terminal_skip_issues("skipped_duplicate", blank, [])
    assert terminal_skip_issues("processed", {}, []) == []


def test_stale_local_declaration_does_not_block_download_failed(tmp_path: Path) -> None:
    talk = {"transcript_path": "transcripts/gone.txt", "video_url": f"https://youtu.be/{VID}"}
    caps = source_capabilities(talk, SourceRoots(tmp_path))
    assert terminal_skip_issues("skipped_download_failed", talk, caps) == []
    assert not (tmp_path / "transcripts" / "gone.txt").exists()


def test_transcript_check_streams_in_chunks(tmp_path: Path, monkeypatch) -> None:
    """The transcript checker used to read the whole file into memory; it now decodes in
    chunks, so a multi-byte character split across chunks and a late invalid byte behave
    exactly as a whole-file strict decode."""
    import rvault_tracking_db.capabilities as capabilities

    monkeypatch.setattr(capabilities, "TRANSCRIPT_CHUNK_BYTES", 3)
    vault = tmp_path / "vault"
    cases = {
        "split.txt": ("  \n\u00e9t\u00e9 \u2014 ok\n".encode(), "local_transcript"),
        "late-bad.txt": (b"hello world" + b"\xff", None),
        "truncated.txt": (b"hello \xe2\x80", None),
        "spaces.txt": (b" \n\t \n   ", None),
        "empty.txt": (b"", None),
    }
    for name, (data, expected) in cases.items():
        target = vault / "transcripts" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        kinds = _kinds({"transcript_path": f"transcripts/{name}"}, SourceRoots(vault, None))
        assert kinds == ([expected] if expected else []), name


def test_unusable_declarations_are_findings(tmp_path: Path) -> None:
    """``path_not_string`` is reachable only here (and through ``api``): the owner read
    refuses a non-string declared path first (``wrong_type``)."""
    qb.write_transcript(tmp_path, "transcripts/t.txt")
    roots = SourceRoots(tmp_path)
    cases = [
        ({"transcript_path": 5}, ("transcript_path", "path_not_string", "5")),
        ({"pptx_path": ["a.pptx"]}, ("pptx_path", "path_not_string", "['a.pptx']")),
        ({"slides_pdf_path": False}, ("slides_pdf_path", "path_not_string", "False")),
        ({"transcript_path": "   "}, ("transcript_path", "path_empty", "   ")),
        ({"pdf_path": "\t"}, ("pdf_path", "path_empty", "\t")),
        (
            {"video_url": "ftp://example.com/t.mp4"},
            ("video_url", "url_not_http", "ftp://example.com/t.mp4"),
        ),
        ({"video_url": f"youtu.be/{VID}"}, ("video_url", "url_not_http", f"youtu.be/{VID}")),
        ({"slides_url": 7}, ("slides_url", "url_not_http", "7")),
    ]
    for talk, finding in cases:
        resolution = resolve(talk, roots)
        assert resolution.capabilities == [], talk
        assert [(f.field, f.code, f.value) for f in resolution.findings] == [finding], talk
    # a finding never hides another declaration's capability
    mixed = resolve({"transcript_path": "transcripts/t.txt", "video_url": "file:///t.mp4"}, roots)
    assert [c["capability"] for c in mixed.capabilities] == ["local_transcript"]
    assert [f.to_dict() for f in mixed.findings] == [
        {"field": "video_url", "code": "url_not_http", "value": "file:///t.mp4"}
    ]


def test_the_owner_read_refuses_a_non_string_path_before_any_resolver(tmp_path: Path) -> None:
    from rvault_contracts.cli import Refusal
    from rvault_tracking_db.reader import read_database

    db = qb.write_db(tmp_path, qb.database([qb.pending_talk("a.md", transcript_path=5)]))
    with pytest.raises(Refusal) as refusal:
        read_database(db)
    assert (refusal.value.code, refusal.value.path) == (
        "wrong_type",
        '$["talks"][0]["transcript_path"]',
    )
