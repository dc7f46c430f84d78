"""``rvault_tracking_db.api``: the light public reader returns-persistence will use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_tracking_db import api
from rvault_tracking_db.queue.baseline import build_baseline
from rvault_tracking_db.queue.claims import build_claim

NOW = "2026-07-31T18:00:00+00:00"


def test_api_imports_no_heavy_library() -> None:
    heavy = [
        "cv2",
        "faster_whisper",
        "ctranslate2",
        "pptx",
        "av",
        "yt_dlp",
        "youtube_transcript_api",
        "yaml",
    ]
    code = (
        "import sys, rvault_tracking_db.api\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_claim_readers(tmp_path: Path) -> None:
    baseline = build_baseline(
        [], batch_filenames=["a.md"], as_of=NOW, catalog_fingerprint=qb.FP
    ).baseline
    claim = build_claim(
        run_id="r",
        batch_id="b",
        claimed_at=NOW,
        previous_status="pending",
        reprocess_generation=1,
        baseline=baseline,
    )
    talk = qb.pending_talk("a.md", status="reprocessing-inflight", _queue_claim=claim)
    database = qb.database([talk, qb.pending_talk("z.md")])
    assert api.active_claim(talk) == claim
    assert api.active_claim(qb.pending_talk("z.md")) is None
    assert api.batch_members(database, "r", "b") == ["a.md"]
    assert api.claim_issues(claim, filename="a.md") == []
    assert api.authorized_return_versions(claim) == (5,)
    assert api.authorized_return_versions({"state": "claimed"}) == (1, 2)
    assert api.authorized_return_versions(dict(claim, schema_version=4)) == (4,)
    assert api.authorized_return_versions(dict(claim, schema_version=9)) == ()
    assert api.is_supported(claim) and not api.is_supported(dict(claim, schema_version=9))
    assert list(api.epochs(database)) == [("r", "b", NOW)]


def test_resolver_and_terminal_rules_through_the_api(tmp_path: Path) -> None:
    qb.write_transcript(tmp_path, "transcripts/dQw4w9WgXcQ.txt")
    talk = qb.remote_talk("a.md", "dQw4w9WgXcQ")
    caps = api.source_capabilities(talk, api.SourceRoots(tmp_path))
    assert [c["capability"] for c in caps] == ["local_transcript", "remote_video"]
    issues = api.check_terminal_status("skipped_download_failed", talk, vault_root=tmp_path)
    assert [i["code"] for i in issues] == ["verified_local_artifact_remains"]
    (tmp_path / "transcripts" / "dQw4w9WgXcQ.txt").unlink()
    assert api.check_terminal_status("skipped_download_failed", talk, vault_root=tmp_path) == []
    assert api.check_terminal_status("skipped_no_sources", {}, vault_root=tmp_path) == []
    assert api.youtube_id("https://youtu.be/dQw4w9WgXcQ") == "dQw4w9WgXcQ"


def test_owner_read_through_the_api(tmp_path: Path) -> None:
    document = qb.database([qb.pending_talk("a.md")])
    path = qb.write_db(tmp_path, document)
    result = api.read_database(path)
    assert isinstance(result, api.ReadResult)
    assert result.database == document and result.sha256 is not None
    path.write_text('{"talks": [], "talks": []}', encoding="utf-8")
    with pytest.raises(api.DatabaseRefusal) as malformed:
        api.read_database(path)
    assert malformed.value.code == "duplicate_key"
    qb.write_db(tmp_path, dict(document, schema_version=2))
    with pytest.raises(api.DatabaseRefusal) as future:
        api.read_database(path)
    assert (future.value.code, future.value.path) == (
        "unsupported_schema_version",
        '$["schema_version"]',
    )
