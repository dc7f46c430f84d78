"""The decode plan (which GOPs are skipped, keyframe-only or decoded) and recall on H.264.

Unit tests feed hand-made packet lists to ``plan_decoding``; the H.264 test
encodes a small talk with FFmpeg libx264 (B-frames, b-pyramid, x264's default
250-frame GOP) and checks that every slide (an A B A return and a text-only
change undone inside one GOP, builds) still gets its page while fewer than
half of the frames are decoded, each bit-exact with a full decode.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from rvault_testkit.video_extraction.synthetic import (
    Segment,
    Slide,
    TalkSpec,
    distinct_slides,
    expected_sequence,
    label_at,
    write_h264,
)
from rvault_video_extraction.decode_plan import FULL, SKIP, Packet, has_b_frames, plan_decoding
from rvault_video_extraction.extract import ExtractRequest, extract
from rvault_video_extraction.sampling import sample_video


def gop_packets(frames: int, fps: float, gop: int) -> list[Packet]:
    """Constant-size P-frames (no B-frames), a keyframe every ``gop`` frames."""
    return [
        Packet(time=index / fps, size=20000 if index % gop == 0 else 500, keyframe=index % gop == 0)
        for index in range(frames)
    ]


def test_short_gops_without_a_sub_sample_are_skipped_and_others_decoded_to_it() -> None:
    packets = gop_packets(300, 30.0, 12)  # 25 GOPs of 0.4 s
    targets = [0.0, 1.0, 2.0, 3.0]  # one sub-sample a second
    plan = plan_decoding(packets, targets, 0.5 / 30)
    treatments = [gop.treatment for gop in plan.gops]
    assert treatments.count(SKIP) == 21 and treatments.count(FULL) == 4
    second = plan.gops[2]  # frames 24..35 hold t=1.0 (frame 30)
    assert second.treatment == FULL and second.feed_end == 31  # keyframe 24 through frame 30
    assert sum(plan.fed()) == sum(gop.feed_end - gop.start for gop in plan.gops)


def test_long_gops_are_decoded_only_up_to_their_last_sub_sample() -> None:
    packets = gop_packets(30 * 20, 30.0, 250)  # GOPs 0..249, 250..499, 500..599
    plan = plan_decoding(packets, [k * 2.0 for k in range(9)], 0.5 / 30)  # 0 s .. 16 s
    assert [gop.treatment for gop in plan.gops] == [FULL, FULL, SKIP]
    assert plan.gops[0].feed_end == 241 and plan.gops[1].feed_end == 481  # through 8 s, 16 s


def test_b_frames_are_recognised_from_presentation_order() -> None:
    decode_order = [0, 3, 1, 2, 6, 4, 5]  # I P B B P B B
    packets = [Packet(t / 30, 100, t == 0) for t in decode_order]
    assert has_b_frames(packets)
    assert not has_b_frames(gop_packets(30, 30.0, 12))


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
            Segment(a, 26.0),
            Segment(b, 3.0),
            Segment(a, 3.0),  # A B A inside one GOP
            *(Segment(slide, 3.5) for slide in text),
            Segment(text[0], 3.5),  # a text-only change undone: T0 T1 T0
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
    assert sampled.frames_decoded < 0.5 * sampled.packets_total
    # x264 lets only B-frames refer to its pyramid B-frames: all B-frames are skipped,
    # and what is decoded is still exactly what a full decode gives
    assert sampled.skip_frame == "BIDIR"
    assert_samples_are_full_decode_frames(video, sampled, 0.5)
    manifest = extract(ExtractRequest(video, outdir, "H264Talk", fps=0.5))
    labels = [label_at(spec, f["timestamp_seconds"])[0] for f in manifest["retained_frames"]]
    assert labels == expected_sequence(spec)


def assert_samples_are_full_decode_frames(video: Path, sampled: Any, fps: float) -> None:
    """Every sub-sample is bit-exactly the full decode's frame it names, never a later one."""
    import av
    from rvault_video_extraction.frame_sink import frame_thumbnail
    from rvault_video_extraction.sampling import sub_sample_frame

    full: dict[int, Any] = {}
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        origin = stream.start_time or 0
        for frame in container.decode(stream):
            number = round(float((frame.pts - origin) * stream.time_base) * sampled.video_fps)
            full[number] = frame_thumbnail(frame)
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


def test_segments_cover_every_gop_in_order_with_similar_work() -> None:
    packets = gop_packets(30 * 120, 30.0, 12)  # 300 short GOPs, one sub-sample a second
    plan = plan_decoding(packets, [k * 1.0 for k in range(120)], 0.5 / 30)
    work = [gop.feed_end - gop.start for gop in plan.gops]
    assert plan.segments(1) == [(0, len(plan.gops))]
    for parts in (2, 3, 4):
        spans = plan.segments(parts)
        assert len(spans) == parts and spans[0][0] == 0 and spans[-1][1] == len(plan.gops)
        assert all(end == start for (_, end), (start, _) in itertools.pairwise(spans))
        sizes = [sum(work[first:end]) for first, end in spans]
        assert min(sizes) > 0 and max(sizes) - min(sizes) <= 2 * max(work)
    # never more segments than GOPs that decode anything, and none without work
    sparse = plan_decoding(gop_packets(300, 30.0, 12), [0.0, 5.0, 9.0], 0.5 / 30)
    spans = sparse.segments(4)
    assert 2 <= len(spans) <= 3
    assert all(any(g.feed_end > g.start for g in sparse.gops[a:b]) for a, b in spans)


def test_samples_do_not_depend_on_the_number_of_decoding_segments(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The GOP-local serving rule: one decoder or three give bit-identical sub-samples."""
    from rvault_video_extraction import segment_decode

    spec = _h264_talk()
    video = write_h264(spec, tmp_path / "talk.mp4")
    runs = []
    for parts in (1, 3):
        monkeypatch.setattr(segment_decode, "segment_count", lambda plan, n=parts: n)
        frames_dir = tmp_path / f"frames-{parts}"
        frames_dir.mkdir()
        lines: list[str] = []
        sampled = sample_video(video, 0.5, frames_dir, lines.append)
        assert f"in {parts} segment(s)" in lines[0]
        runs.append(sampled)
    one, three = runs
    assert one.sources == three.sources and one.frames_decoded == three.frames_decoded
    assert all((a == b).all() for a, b in zip(one.sequence(), three.sequence(), strict=True))
    pages = [path.read_bytes() for path in one.frame_paths]
    assert pages == [path.read_bytes() for path in three.frame_paths]


def test_gop_server_serves_the_same_frames_for_any_split_and_skips_leading_pictures() -> None:
    """Frames as a decoder of each segment would return them, including the leading
    pictures of an open GOP (shown just before its keyframe) that only a decoder which
    fed the previous GOP's packets would produce."""
    import math
    import threading

    from rvault_video_extraction.segment_decode import Timing, _GopServer, _Job

    fps = 30.0
    packets = gop_packets(30 * 12, fps, 60)  # six 2-s GOPs
    targets = [round(k * fps) for k in range(12)]  # a sub-sample each second
    plan = plan_decoding(packets, [t / fps for t in targets], 0.5 / fps)
    starts = [packets[g.start].time if n else -math.inf for n, g in enumerate(plan.gops)]
    limits = [max(packets[i].time for i in range(g.start, g.feed_end)) for g in plan.gops]
    job = _Job(
        Path("unused"), plan, starts, limits, targets, plan.fed(), Timing(fps, 1, 0),
        Path("unused"), "NONREF", False, [0], threading.Event(),
    )  # fmt: skip

    def frames_of(gop: Any, leading: bool) -> list[int]:
        numbers = list(range(gop.start, gop.feed_end))
        # an open GOP's leading pictures: shown before its keyframe, after the GOP before
        return ([gop.start - 2, gop.start - 1] if leading and gop.start else []) + numbers

    def serve(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        taken: list[tuple[int, int]] = []
        for first, end in spans:
            server = _GopServer(job, (first, end))
            for number, gop in enumerate(plan.gops[first:end]):
                for frame in frames_of(gop, leading=number > 0 or first > 0):
                    server.frame(frame, frame / fps, frame, lambda i, f, n: taken.append((i, n)))
            assert server.finish(lambda i, f, n: taken.append((i, n)))
        return taken

    whole = serve([(0, len(plan.gops))])
    assert [index for index, _ in whole] == list(range(len(targets)))
    assert whole == serve(plan.segments(2)) == serve(plan.segments(3))
    fed_frames = {i for g in plan.gops for i in range(g.start, g.feed_end)}
    assert all(number in fed_frames for _, number in whole)  # never a leading picture
    assert all(number <= targets[index] for index, number in whole)
