"""The scaffold of a speaker's own recorded talk, built by the real pipeline (issue 25, 24).

A talk with trusted video-extracted slides, a transcript bound to its
recording and the recording itself (``recorded_talk.build_recorded_talk``:
espeak-ng speech under an OpenCV-filmed deck, attached with ``add-talk
--media``, captions imported with ``vtt-cleanup --media``, slides extracted in
place with a verified region, promoted and registered, then claimed). Its
scaffold must pre-fill only outcomes ``rvault-returns validate`` accepts: the
validator's refusals of the untouched scaffold are exactly the fields the
scaffold tells the worker to fill (the prose, and the applicability
assessments it lists), and once those are filled, nothing pre-filled is
touched and the return validates.

The same talk recorded as audio only (the WAV alone) offers no delivery_video
source: a recording without a video stream shows nothing of the delivery.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from recorded_talk import DB, RecordedTalk, build_recorded_talk
from rvault_contracts.canonical import artifact_bytes
from rvault_returns_persistence.artifacts import resolve
from rvault_testkit.plugin import CliResult, run_cli
from rvault_tracking_db.api import talk_local_media

# What a worker writes, standing in for a person: prose about these inputs and
# the applicability judgements the scaffold asks for, each citing the transcript.
PROSE = {
    "rhetoric_notes": (
        "The speaker announces the structure up front (three slides about one idea) and "
        "promises the reason it matters, so the audience knows what is coming and why."
    ),
    "areas_for_improvement": (
        "The promise of why the idea matters is made but the recording ends before it is "
        "kept; a closing line that names the payoff would complete the arc."
    ),
}
ASSESSMENTS = {  # pattern -> (result, condition_id, why)
    "coda": ("not_applicable", "no-closing-captured", "The recording stops before a closing."),
    "dead-demo": ("not_applicable", "no-demo-attempted", "Nothing is demonstrated live."),
    "dual-headed-monster": ("not_applicable", "single-presenter", "One voice speaks."),
    "live-demo-rehearsed": ("not_applicable", "no-demo-planned", "No demonstration is planned."),
}
QUOTE = "today I will show you three slides"  # the transcript's first line, verbatim


@pytest.fixture(scope="module")
def filmed(tmp_path_factory: pytest.TempPathFactory) -> RecordedTalk:
    return build_recorded_talk(tmp_path_factory.mktemp("filmed"), video=True)


@pytest.fixture(scope="module")
def audio_only(tmp_path_factory: pytest.TempPathFactory) -> RecordedTalk:
    return build_recorded_talk(tmp_path_factory.mktemp("audio"), video=False)


def scaffold(talk: RecordedTalk) -> CliResult:
    result = run_cli("rvault-returns", "scaffold", "--db", DB, "--talk", talk.filename,
                     "--vault-root", "vault", cwd=talk.home)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def validate(talk: RecordedTalk, document: Any) -> tuple[int, list[dict[str, Any]]]:
    path = talk.home / "worker" / "return.json"
    path.write_bytes(artifact_bytes(document))
    result = run_cli("rvault-returns", "validate", "worker/return.json", "--db", DB,
                     "--vault-root", "vault", "--member", talk.filename, cwd=talk.home)  # fmt: skip
    report = result.json
    return result.returncode, [e for r in report["returns"] for e in r["errors"]]


def assessments_asked(stderr: str) -> list[str]:
    marker = "applicability assessments still required for: "
    line = next(line for line in stderr.splitlines() if line.startswith(marker))
    return line[len(marker) :].split(", ")


def fill(skeleton: dict[str, Any], asked: list[str]) -> dict[str, Any]:
    """Only what the scaffold said a worker must write; every pre-filled field untouched."""
    filled = json.loads(json.dumps(skeleton))
    filled.update(PROSE)
    filled["pattern_observations"]["applicability_assessments"] = [
        {"pattern_id": pattern, "result": ASSESSMENTS[pattern][0],
         "condition_id": ASSESSMENTS[pattern][1], "evidence_source": "transcript",
         "evidence": ASSESSMENTS[pattern][2],
         "evidence_citations": [{"source": "transcript", "channel": "transcript",
                                 "quote": QUOTE}]}
        for pattern in asked
    ]  # fmt: skip
    return filled


def test_the_filmed_talks_scaffold_inspects_every_trusted_source(filmed: RecordedTalk) -> None:
    skeleton = scaffold(filmed).json
    observations = skeleton["pattern_observations"]
    transcript_lines = len((filmed.vault / "transcripts" / "my-stage-talk.txt").read_bytes()
                           .splitlines())  # fmt: skip
    media = talk_local_media(read_talk(filmed))
    assert media is not None
    ranges = {r["source"]: r for r in observations["source_inspection"]}
    assert ranges["transcript"]["line_ranges"] == [[1, transcript_lines]]
    assert ranges["static_slides"]["page_ranges"] == [[1, filmed.slide_pages]]
    [[start, end]] = ranges["delivery_video"]["time_ranges"]
    assert start == 0 and abs(end - media["duration_seconds"]) <= 1.0
    assert observations["evidence_sources"] == ["transcript", "static_slides", "delivery_video"]
    assert skeleton["slide_source"] == "video_extracted" and skeleton["status"] == "processed"
    assert skeleton["slides_local_path"] == "slides/my-stage-talk.pdf"
    assert skeleton["structured_data"]["video_extraction"]["source_receipt"]["vault_path"] == (
        filmed.media
    )


def test_the_validator_refuses_only_what_the_scaffold_says_to_fill(filmed: RecordedTalk) -> None:
    result = scaffold(filmed)
    skeleton, asked = result.json, assessments_asked(result.stderr)
    code, errors = validate(filmed, skeleton)
    assert code == 2
    refused = sorted((e["code"], e["path"], e["message"].split()[0]) for e in errors)
    applicability = '$["pattern_observations"]["applicability_assessments"]'
    assert refused == sorted(
        [("prose_not_substantive", f'$["{field}"]', field) for field in PROSE]
        + [("applicability_missing", applicability, pattern) for pattern in asked]
    )
    for field in PROSE:  # the field guide told the worker so
        assert f"{field}: Prose:" in result.stderr and "Must not be blank" in result.stderr

    code, errors = validate(filmed, fill(skeleton, asked))
    assert (code, errors) == (0, [])


def test_a_not_evaluable_row_beside_complete_coverage_names_the_unmet_gate(
    filmed: RecordedTalk,
) -> None:
    """unifying-visual-theme: the slides are inspected completely but video-extracted pages
    are positive-only (spec: nonexhaustive_video_extraction), so the absence stays
    not_evaluable; the guide says so, and a detection from those slides is accepted."""
    result = scaffold(filmed)
    skeleton = result.json
    rows = {r["pattern_id"]: r["reason_code"] for r in
            skeleton["pattern_observations"]["not_evaluable"]}  # fmt: skip
    assert rows["unifying-visual-theme"] == "missing_required_source_coverage"
    [line] = [line for line in result.stderr.splitlines()
              if line.strip().startswith("unifying-visual-theme:")]  # fmt: skip
    assert "static_slides inspected completely but positive-only" in line
    assert "(nonexhaustive_video_extraction)" in line and "delete this row" in line

    detected = fill(skeleton, assessments_asked(result.stderr))
    observations = detected["pattern_observations"]
    observations["not_evaluable"] = [
        r for r in observations["not_evaluable"] if r["pattern_id"] != "unifying-visual-theme"
    ]
    observations["patterns_detected"] = [{
        "pattern_id": "unifying-visual-theme", "confidence": "moderate",
        "evidence_source": "static_slides",
        "evidence": "Every recovered slide shares one layout: title, three points, a picture.",
        "evidence_citations": [{"source": "static_slides", "channel": "slide_sequence",
                                "slide_numbers": list(range(1, filmed.slide_pages + 1))}],
    }]  # fmt: skip
    observations["pattern_score"] = {"patterns_used": 1, "antipatterns_detected": 0, "score": 1}
    assert validate(filmed, detected) == (0, [])


def read_talk(talk: RecordedTalk) -> dict[str, Any]:
    database = json.loads((talk.vault / "tracking-database.json").read_text("utf-8"))
    [record] = [t for t in database["talks"] if t["filename"] == talk.filename]
    return record


def test_an_audio_only_recording_is_no_delivery_video(audio_only: RecordedTalk) -> None:
    record = read_talk(audio_only)
    assert record["local_media"]["path"] == audio_only.media
    assert record["local_media"]["streams"] == {"video": False, "audio": True}
    found = resolve(audio_only.vault, record, deck_slides=None)
    assert found.video_path is None and found.transcript_lines

    result = scaffold(audio_only)
    observations = result.json["pattern_observations"]
    assert observations["evidence_sources"] == ["transcript"]
    assert [r["source"] for r in observations["source_inspection"]] == ["transcript"]
    code, errors = validate(audio_only, fill(result.json, assessments_asked(result.stderr)))
    assert (code, errors) == (0, [])


def test_the_filmed_recording_is_recorded_with_its_video_stream(filmed: RecordedTalk) -> None:
    record = read_talk(filmed)
    assert record["local_media"]["schema_version"] == 2
    assert record["local_media"]["streams"] == {"video": True, "audio": True}
    assert resolve(filmed.vault, record, deck_slides=None).video_path == filmed.media


def test_a_replaced_recording_leaves_only_the_evidence_still_trusted(
    filmed: RecordedTalk, tmp_path: Path
) -> None:
    """The speaker re-exports the recording after the slides were extracted from it: the
    manifest is stale (its source receipt names other bytes) and the attached record no
    longer matches, so neither the video-extracted slides nor the recording are offered;
    the transcript, bound when it was registered, still is."""
    home = tmp_path / "copy"
    shutil.copytree(filmed.home, home, symlinks=True)
    talk = RecordedTalk(home, filmed.filename, filmed.media, filmed.slide_pages)
    with open(talk.vault / talk.media, "ab") as recording:
        recording.write(b"\0" * 64)
    result = scaffold(talk)
    skeleton = result.json
    observations = skeleton["pattern_observations"]
    assert [r["source"] for r in observations["source_inspection"]] == ["transcript"]
    assert (skeleton["slide_source"], skeleton["status"]) == ("none", "processed_partial")
    assert "slides_local_path" not in skeleton
    code, errors = validate(talk, fill(skeleton, assessments_asked(result.stderr)))
    assert (code, errors) == (0, [])
