"""The decode plan (which GOPs are skipped, keyframe-only or decoded) and recall on H.264.

Unit tests feed hand-made packet lists to ``plan_decoding``; the H.264 test
encodes a small talk with FFmpeg libx264 (B-frames, b-pyramid, x264's default
250-frame GOP) so the keyframe-only path runs on real packets, and checks that
every slide (A B A return, text-only change, builds) still gets its page while
fewer frames are decoded than the video has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rvault_video_extraction import decode_plan
from rvault_video_extraction.decode_plan import (
    FULL,
    KEY,
    SETTLED,
    SKIP,
    Packet,
    plan_decoding,
    spikes,
)
from rvault_video_extraction.extract import ExtractRequest, extract
from rvault_video_extraction.sampling import sample_video
from rvault_video_extraction.synthetic import (
    Segment,
    Slide,
    TalkSpec,
    distinct_slides,
    expected_sequence,
    label_at,
    write_h264,
)


def gop_packets(
    frames: int, fps: float, gop: int, spike_at: set[int] = frozenset()
) -> list[Packet]:
    """Constant-size P-frames (no B-frames), a keyframe every ``gop`` frames."""
    return [
        Packet(
            time=index / fps,
            size=20000 if index % gop == 0 else (3000 if index in spike_at else 500),
            keyframe=index % gop == 0,
        )
        for index in range(frames)
    ]


def test_spikes_are_packets_well_above_their_running_median() -> None:
    packets = gop_packets(300, 30.0, 300, spike_at={100, 101})
    assert list(spikes(packets).nonzero()[0]) == [100, 101]


def test_short_gops_are_skipped_keyframe_only_or_decoded_to_their_sub_sample() -> None:
    packets = gop_packets(300, 30.0, 12, spike_at={26})  # 25 GOPs of 0.4 s, one spike
    targets = [0.0, 1.0, 2.0, 3.0]  # one sub-sample a second
    plan = plan_decoding(packets, targets, 0.5 / 30)
    treatments = [gop.treatment for gop in plan.gops]
    assert treatments.count(SKIP) == 21 and treatments.count(KEY) == 3
    second = plan.gops[2]  # frames 24..35 hold t=1.0 (frame 30) and the spike
    assert second.treatment == FULL and second.feed_end == 31  # keyframe 24 through frame 30
    assert plan.gops[5].treatment == KEY and plan.gops[5].feed_end == 61  # frame 60: t=2.0
    assert sum(plan.fed()) == sum(gop.feed_end - gop.start for gop in plan.gops)


def test_quiet_long_gops_decode_only_their_keyframe_except_motion_probes() -> None:
    packets = gop_packets(30 * 80, 30.0, 240)  # ten 8-s GOPs, no spike anywhere
    targets = [k * 1.0 for k in range(80)]
    plan = plan_decoding(packets, targets, 0.5 / 30)
    treatments = [gop.treatment for gop in plan.gops]
    probes = [i for i, t in enumerate(treatments) if t == FULL]
    # the first and every PROBE_EVERY-th quiet GOP is decoded for the motion statistics
    assert probes == [0, 4, 8]
    assert treatments.count(KEY) == 7
    assert all(gop.feed_end == gop.start + 1 for gop in plan.gops if gop.treatment == KEY)
    assert decode_plan.PROBE_EVERY == 4


def test_a_spike_inside_a_long_gop_decodes_that_gop() -> None:
    packets = gop_packets(30 * 32, 30.0, 240, spike_at={300, 301, 302})
    plan = plan_decoding(packets, [k * 1.0 for k in range(32)], 0.5 / 30)
    assert [gop.treatment for gop in plan.gops] == [FULL, SETTLED, KEY, KEY]
    # the spike ends at 10.07 s: decoded through the sub-samples at 11 s and 12 s, not to 15 s
    assert plan.gops[1].feed_end == 12 * 30 + 1


def _h264_talk() -> TalkSpec:
    a, b, c = distinct_slides(3)
    text = [
        Slide(f"T{i}", "Same layout", (f"claim {i}", f"evidence {i * 7}"), background=2)
        for i in range(2)
    ]
    builds = [
        Slide(f"B{i}", "Building", tuple(f"step {j}" for j in range(i + 1)), background=4)
        for i in range(2)
    ]
    return TalkSpec(
        width=320,
        height=180,
        fps=30.0,
        layout="side_by_side",
        fade_seconds=0.5,
        segments=[
            Segment(a, 26.0),  # two quiet 250-frame GOPs: a motion probe and a keyframe-only one
            Segment(b, 3.0),
            Segment(a, 3.0),  # A B A inside one GOP
            *(Segment(slide, 3.5) for slide in text),
            *(Segment(slide, 3.5) for slide in builds),
            Segment(c, 12.0),
        ],
    )


def test_h264_long_gop_with_b_frames_keeps_every_slide(tmp_path: Path) -> None:
    spec = _h264_talk()
    root = tmp_path / "vault"
    outdir = root / "slides-rebuild" / "H264Talk"
    outdir.mkdir(parents=True)
    video = write_h264(spec, outdir / "H264Talk.mp4")
    frames_dir = tmp_path / "frames"
    frames_dir.mkdir()
    sampled = sample_video(video, 0.5, frames_dir)
    assert sampled.packets_total == spec.frame_count()
    assert sampled.gop_treatments[KEY] >= 1
    assert sampled.frames_decoded < 0.75 * sampled.packets_total
    # x264 lets only B-frames refer to its pyramid B-frames: all B-frames are skipped,
    # and what is decoded is still exactly what a full decode gives
    assert sampled.skip_frame == "BIDIR"
    assert_samples_are_full_decode_frames(video, sampled, 0.5)
    manifest = extract(ExtractRequest(video, outdir, "H264Talk", fps=0.5))
    labels = [label_at(spec, f["timestamp_seconds"])[0] for f in manifest["retained_frames"]]
    assert labels == expected_sequence(spec)


def assert_samples_are_full_decode_frames(video: Path, sampled: Any, fps: float) -> None:
    """Every sub-sample is bit-exactly the full decode's frame it names, at most 3 frames early
    (or, for a keyframe standing for a quiet GOP, the keyframe itself)."""
    import av
    from rvault_video_extraction.sampling import sub_sample_frame, thumbnail, to_bgr

    full: dict[int, Any] = {}
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        origin = stream.start_time or 0
        for frame in container.decode(stream):
            number = round(float((frame.pts - origin) * stream.time_base) * sampled.video_fps)
            full[number] = thumbnail(to_bgr(frame))
    for index, (thumb, source) in enumerate(
        zip(sampled.sequence(), sampled.sequence_sources(), strict=True)
    ):
        assert source <= sub_sample_frame(index, sampled.video_fps, fps)
        assert (thumb == full[source]).all()


def test_partial_decode_of_a_foreign_h264_file_matches_a_full_decode(tmp_path: Path) -> None:
    from rvault_video_extraction.sampling import sub_sample_frame

    video = Path(__file__).parent / "fixtures" / "carphone_distorted.mp4"
    sampled = sample_video(video, 2.0, tmp_path)
    assert sampled.packets_total == 120 and sampled.frames_decoded < 120
    assert_samples_are_full_decode_frames(video, sampled, 2.0)
    for index, source in enumerate(sampled.sequence_sources()):
        assert source >= sub_sample_frame(index, sampled.video_fps, 2.0) - 3
