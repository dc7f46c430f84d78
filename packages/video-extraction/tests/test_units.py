"""Small units: sampling arithmetic and progress, the PDF writer, provenance without a region."""

from __future__ import annotations

import io
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from pypdf import PdfReader
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_mp4v,
)
from rvault_video_extraction import sampling
from rvault_video_extraction.analysis import decide_crop
from rvault_video_extraction.api import validate_manifest
from rvault_video_extraction.manifest import ManifestInputs, build_manifest
from rvault_video_extraction.pdf_writer import JpegPage, write_jpeg_pdf
from rvault_video_extraction.segment_decode import progress_line


def test_sub_samples_are_half_an_interval_apart() -> None:
    frames = [sampling.sub_sample_frame(index, 30.0, 0.5) for index in range(6)]
    assert frames == [0, 30, 60, 90, 120, 150]
    ntsc = [sampling.sub_sample_frame(index, 29.97, 0.5) for index in range(4)]
    assert ntsc == [0, 30, 60, 90]
    assert sampling.sub_sample_frame(3, 10.0, 2.0) == 8


def test_progress_reports_frames_samples_and_eta(tmp_path: Path) -> None:
    video = write_mp4v(TalkSpec(segments=timeline(distinct_slides(2), 7.0)), tmp_path / "talk.mp4")
    frames_dir = tmp_path / "frames"
    frames_dir.mkdir()
    lines: list[str] = []
    sampled = sampling.sample_video(video, 2.0, frames_dir, lines.append)
    assert sampled.packets_total == 140
    assert sampled.sample_count == 28 and len(sampled.halves) == 28
    # 12-frame GOPs: each is decoded only up to its last sub-sample, none wholly skipped.
    assert sampled.frames_decoded < 140 and sampled.gop_treatments["full"] == 12
    assert re.fullmatch(r"decoding 1[0-3]\d of 140 packets in 1 segment\(s\)", lines[0]), lines
    assert lines[-1].startswith(f"decoded {sampled.frames_decoded} of 140 frames"), lines
    assert progress_line(64, 130, 140, 2.0) == "decoded 64/130 planned packets of 140, ETA 0m02s"
    assert progress_line(0, 130, 140, 0.0).endswith("ETA 0m00s")
    (frames_dir / "keep.txt").write_text("not ours")
    sampling.remove_frames(frames_dir)
    assert sorted(p.name for p in frames_dir.iterdir()) == ["keep.txt"]


def _jpeg(width: int, height: int, value: int) -> JpegPage:
    ok, data = cv2.imencode(".jpg", np.full((height, width, 3), value, np.uint8))
    assert ok
    return JpegPage(data.tobytes(), width, height)


def test_pdf_writer_is_deterministic_and_readable() -> None:
    pages = [_jpeg(64, 36, 10), _jpeg(40, 30, 200)]
    first = write_jpeg_pdf(pages, title="t (x)", producer="pipeline 9", creator="pipeline 9")
    assert first == write_jpeg_pdf(
        pages, title="t (x)", producer="pipeline 9", creator="pipeline 9"
    )
    reader = PdfReader(io.BytesIO(first))
    assert [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages] == [
        (64, 36),
        (40, 30),
    ]
    assert reader.metadata.producer == "pipeline 9" and reader.metadata.title == "t (x)"
    assert pages[1].data in first
    with pytest.raises(ValueError):
        write_jpeg_pdf([], title="t", producer="p", creator="p")


def test_no_region_gives_a_context_only_manifest() -> None:
    crop = decide_crop(None, False, None, (180, 320))
    assert (crop.region, crop.detected, crop.applied, crop.method, crop.verified) == (
        None,
        False,
        False,
        "none",
        False,
    )
    manifest = build_manifest(
        ManifestInputs(
            video_id="AbCdEfGhI_1",
            video_path="/v/slides-rebuild/AbCdEfGhI_1/AbCdEfGhI_1.mp4",
            slide_region_pdf=None,
            context_pdf="/v/slides-rebuild/AbCdEfGhI_1/AbCdEfGhI_1.context.pdf",
            total_samples=10,
            retained=[0, 4],
            hash_threshold=8,
            fps=0.5,
            region=None,
            detected=False,
            applied=False,
            method="none",
            verified=False,
            source_receipt={
                "vault_path": "slides-rebuild/AbCdEfGhI_1/AbCdEfGhI_1.mp4",
                "sha256": "1" * 64,
                "size_bytes": 1000,
                "container_duration_seconds": 20.0,
                "duration_source": "video_stream",
                "video_stream": {
                    "codec": "h264",
                    "width": 320,
                    "height": 180,
                    "fps": 10.0,
                    "frame_count": 200,
                },
                "demuxed_end_seconds": 20.0,
                "decoded_span_seconds": {"first": 0.0, "last": 19.0},
                "decode_complete": True,
            },
            pdf_digests={"/v/slides-rebuild/AbCdEfGhI_1/AbCdEfGhI_1.context.pdf": ("0" * 64, 9)},
        )
    )
    assert [a["artifact_scope"] for a in manifest["artifacts"]] == ["full_frame_context"]
    assert (
        manifest["review_required"] is True
        and "never an authored deck" in manifest["review_reason"]
    )
    report = validate_manifest(manifest, vault_root=None)
    assert report.status == "current" and not report.trusted
