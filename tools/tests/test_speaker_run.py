"""Issue 24's acceptance run: a speaker's own talks on real inputs reach ``processed``.

``tools/speaker_run.py`` drives the owners' console scripts on third-party
files (python-pptx's test decks, webvtt-py's captions, pocketsphinx's LibriVox
clips, a recording filmed from the deck; see tools/fixtures/speaker-run/).
The run itself checks every command's JSON and applies only what each dry run
printed as ``next_command``; these tests check what it left on disk through
the owners' own readers.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# One worker runs this module (make test: --dist loadgroup): the run is built once.
pytestmark = pytest.mark.xdist_group("speaker_run")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "speaker_run.py"
BIN = Path(sys.executable).parent
CAPTIONED = "2024-03-12-las-chicas-del-cable.md"
RECORDED = "2024-06-01-sense-and-sensibility-read-aloud.md"
FILMED = "2024-09-20-font-properties-on-stage.md"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    home = tmp_path_factory.mktemp("speaker") / "run"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--home", str(home)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    return home, done.stdout


def status(home: Path) -> dict[str, dict[str, Any]]:
    done = subprocess.run(
        [str(BIN / "rvault-db"), "status", "vault/tracking-database.json", "--format", "json"],
        capture_output=True, text=True, check=False, cwd=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return {talk["filename"]: talk for talk in json.loads(done.stdout)["talks"]}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_talk_is_processed_with_a_closed_claim(home: tuple[Path, str]) -> None:
    vault = home[0] / "vault"
    database = json.loads((vault / "tracking-database.json").read_text())
    talks = {talk["filename"]: talk for talk in database["talks"]}
    assert set(talks) == {CAPTIONED, RECORDED, FILMED}
    for filename, talk in talks.items():
        assert talk["status"] == "processed", filename
        claim = talk["_queue_claim"]
        assert claim["state"] == "completed" and len(claim["result_payload_sha256"]) == 64
        analysis = (vault / "analyses" / filename).read_text()
        assert "## " in analysis, filename
    assert (vault / "report" / "index.html").is_file()


def test_status_shows_every_talks_evidence_current(home: tuple[Path, str]) -> None:
    rows = status(home[0])
    for filename, row in rows.items():
        assert row["status"] == "processed", filename
        assert row["next_action"]["code"] == "none", (filename, row["next_action"])
        assert row["evidence_issues"] == [], filename
        transcript = row["transcript"]
        assert (transcript["state"], transcript["quality"]) == ("valid", "quality_current")
        assert transcript["timing"] == "timing_current", filename
    assert rows[CAPTIONED]["deck"]["state"] == rows[RECORDED]["deck"]["state"] == "extracted"
    assert rows[RECORDED]["media"]["state"] == rows[FILMED]["media"]["state"] == "current"
    assert rows[FILMED]["slides"] == {"path": "slides/font-props-stage.pdf", "state": "current"}


def test_the_recordings_are_bound_to_their_bytes(home: tuple[Path, str]) -> None:
    vault = home[0] / "vault"
    database = json.loads((vault / "tracking-database.json").read_text())
    talks = {talk["filename"]: talk for talk in database["talks"]}
    for filename, media in ((RECORDED, "media/sense-reading.wav"),
                            (FILMED, "media/font-props-stage.mp4")):  # fmt: skip
        record = talks[filename]["local_media"]
        assert record["path"] == media
        assert record["sha256"] == sha256(vault / media)
    manifest_path = vault / "slides-rebuild" / "font-props-stage"
    manifest = json.loads((manifest_path / "font-props-stage.video-extraction.json").read_text())
    assert manifest["schema_version"] == 4
    receipt = manifest["source_receipt"]
    assert receipt["vault_path"] == "media/font-props-stage.mp4"  # read in place, never copied
    assert receipt["sha256"] == sha256(vault / "media" / "font-props-stage.mp4")
    assert receipt["decode_complete"] is True
    assert manifest["slide_region_verified"] is True and manifest["review_required"] is False
    assert manifest["unique_frame_count"] == 5  # the deck's five slides, one page each
    identity = talks[FILMED]["slides_local_identity"]
    assert identity["sha256"] == sha256(vault / "slides" / "font-props-stage.pdf")


def test_the_transcripts_are_the_real_speech(home: tuple[Path, str]) -> None:
    """Whisper heard the LibriVox reader (pocketsphinx's own reference text names these words)."""
    transcripts = home[0] / "vault" / "transcripts"
    reading = transcripts.joinpath("sense-reading.txt").read_text().lower()
    assert "dashwood" in reading and "disposed young man" in reading
    stage = transcripts.joinpath("font-props-stage.txt").read_text().lower()
    assert "amiable" in stage and "selfish" in stage
    captions = transcripts.joinpath("Chicas00001.txt").read_text()
    assert captions.startswith("[Alba] En 1928,")


def test_every_apply_is_the_command_its_dry_run_printed(home: tuple[Path, str]) -> None:
    stdout = home[1]
    applies = re.findall(r"^  \$ (.+ --apply --expected-sha256 [0-9a-f]{64})$", stdout, re.M)
    # init has no database to hash yet (missing); every other writer is dry run + next_command
    assert len(applies) == 13
    for line in applies:
        dry = line.split(" --apply --expected-sha256 ")[0]
        assert f"  $ {dry}\n" in stdout, line
    assert re.search(r"^\d+ commands in [0-9.]+s$", stdout, re.M)


def run_json(home: Path, script: str, *args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [str(BIN / script), *args], capture_output=True, text=True, check=False, cwd=home
    )
    return done.returncode, json.loads(done.stdout)


def test_replaced_recording_and_pdf_are_reported_stale(home: tuple[Path, str]) -> None:
    """On the real run: other bytes in place of the filmed recording or its promoted PDF."""
    vault = home[0] / "vault"
    recording, pdf = (
        vault / "media" / "font-props-stage.mp4",
        vault / "slides" / "font-props-stage.pdf",
    )
    manifest = "vault/slides-rebuild/font-props-stage/font-props-stage.video-extraction.json"
    original = {path: path.read_bytes() for path in (recording, pdf)}
    try:
        recording.write_bytes(original[recording][: len(original[recording]) // 2])
        assert status(home[0])[FILMED]["media"]["state"] == "media_stale"
        code, verdict = run_json(home[0], "rvault-video", "validate", manifest, "--vault-root",
                                 "vault", "--video-id", "font-props-stage")  # fmt: skip
        assert (code, verdict["error"]["code"]) == (2, "manifest_stale")
        recording.write_bytes(original[recording])
        pdf.write_bytes((vault / "slides-rebuild" / "font-props-stage" /
                         "font-props-stage.context.pdf").read_bytes())  # fmt: skip
        row = status(home[0])[FILMED]
        assert row["slides"]["state"] == "slides_stale"
        assert row["next_action"]["code"] == "register_slides"
    finally:
        for path, data in original.items():
            path.write_bytes(data)
    row = status(home[0])[FILMED]
    assert (row["media"]["state"], row["slides"]["state"]) == ("current", "current")


def test_slides_recovered_from_the_attached_recording_count_as_video_extracted(
    home: tuple[Path, str],
) -> None:
    database = json.loads((home[0] / "vault" / "tracking-database.json").read_text())
    talks = {talk["filename"]: talk for talk in database["talks"]}
    assert talks[FILMED]["slide_source"] == "video_extracted"


def test_status_reads_the_manifest_of_the_attached_recording(home: tuple[Path, str]) -> None:
    video = status(home[0])[FILMED]["video"]
    assert video["manifest"] is not None and video["trusted"] is True


def test_analysis_write_reports_a_replaced_cited_pdf(home: tuple[Path, str]) -> None:
    vault = home[0] / "vault"
    pdf = vault / "slides" / "font-props-stage.pdf"
    original = pdf.read_bytes()
    try:
        pdf.write_bytes((vault / "slides-rebuild" / "font-props-stage" /
                         "font-props-stage.context.pdf").read_bytes())  # fmt: skip
        args = ("worker/returns.json", "vault/analyses", "--db", "vault/tracking-database.json")
        code, report = run_json(home[0], "rvault-analysis", "write", *args)
        assert code == 0
        [stale] = report["stale_evidence"]
        assert (
            stale["path"] == "slides/font-props-stage.pdf" and stale["code"] == "evidence_changed"
        )
        assert any("slides/font-props-stage.pdf" in w for w in report["warnings"])
    finally:
        pdf.write_bytes(original)
