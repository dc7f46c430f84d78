"""Quirks of real caption files, reproduced in generated fixtures.

Each fixture mirrors a structure seen in public caption libraries' test data
(webvtt-py 0.6.0 ``tests/samples``, pycaption 2.3.14 ``tests/fixtures``):
yt-dlp output whose cue runs into the next timing line, a timing line
repeated inside a cue, YouTube rolling captions with word tags, two speakers
starting at the same instant, overlapping and zero-length cues, Microsoft
Teams' unpadded timestamps, a YouTube header with a ``Style:`` block. The
texts and times are ours; only the shapes are taken from those files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_transcript.receipts import build_timing_receipt
from rvault_transcript.segments import transcript_bytes
from rvault_transcript.vtt import VttError, vtt_to_segments

YTDLP_NO_BLANK_LINE = (
    "WEBVTT\n"
    "Kind: captions\n"
    "Language: en\n"
    "Style:\n"
    "::cue(c.colorCCCCCC) { color: rgb(204,204,204);\n"
    " }\n"
    "##\n"
    "\n"
    "\n"
    "00:04:46.070 --> 00:04:46.470 align:start position:0%\n"
    "right\n"
    "\n"
    "\n"
    "00:04:46.470 --> 00:05:04.080 align:start position:0%\n"
    "right\n"
    "<c.colorCCCCCC>what</c>\n"
    "00:05:04.080 --> 00:05:05.069 align:start position:0%\n"
    "this<00:05:04.199><c> will</c><c.colorE5E5E5><00:05:04.379><c> happen</c></c>"
    "<c.colorCCCCCC><00:05:04.620><c> is</c><00:05:04.860><c> simple</c></c>\n"
    "\n"
    "00:05:05.069 --> 00:05:05.400 align:start position:0%\n"
    "this will<c.colorE5E5E5> happen</c><c.colorCCCCCC> is simple\n"
    " </c>\n"
)


def _timed(text: str) -> list[tuple[str, float, float]]:
    return [(s.text, s.start_seconds, s.end_seconds) for s in vtt_to_segments(text)]


def test_a_cue_running_into_the_next_timing_line_ends_there() -> None:
    assert _timed(YTDLP_NO_BLANK_LINE) == [
        ("right", 286.07, 286.47),
        ("what", 286.47, 304.08),
        ("this will happen is simple", 304.08, 305.069),
    ]


def test_a_timing_line_repeated_inside_a_cue_is_never_text() -> None:
    text = (
        "WEBVTT\n\n00:00:00.500 --> 00:00:07.000\nFirst line\n\n"
        "00:00:07.000 --> 00:00:10.890\n00:00:07.000 --> 00:00:10.890\nSecond line\n\n"
        "00:00:11.890 --> 00:00:16.320\nThird line\n"
    )
    segments = vtt_to_segments(text)
    assert [s.text for s in segments] == ["First line", "Second line", "Third line"]
    assert "-->" not in transcript_bytes(segments).decode()
    assert (segments[1].start_seconds, segments[1].end_seconds) == (7.0, 10.89)


def test_rolling_captions_drop_only_exact_repeats_of_the_previous_cue() -> None:
    text = (
        "WEBVTT\n\n"
        "00:00:00.000 --> 00:00:01.000 align:start position:0%\n \n"
        "No.<00:00:00.400><c></c>\n\n"
        "00:00:01.000 --> 00:00:01.010 align:start position:0%\nNo.\n \n\n"
        "00:00:01.010 --> 00:00:03.000 align:start position:0%\nNo.\n"
        "No.<00:00:01.500><c> Not</c><00:00:02.000><c> yet.</c>\n\n"
        "00:00:03.000 --> 00:00:03.010 align:start position:0%\nNo. Not yet.\n \n"
    )
    segments = vtt_to_segments(text)
    assert [s.text for s in segments] == ["No.", "No. Not yet."]
    assert transcript_bytes(segments).decode().split() == ["No.", "No.", "Not", "yet."]


def test_simultaneous_cues_of_two_speakers_make_one_segment() -> None:
    text = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Ana>Are you ready?\n\n"
        "00:00:01.000 --> 00:00:02.500\n<v Ben>Almost.\n\n"
        "00:00:03.000 --> 00:00:04.000\n<v Ana>Then go.\n"
    )
    segments = _timed(text)
    assert segments == [("Are you ready? Almost.", 1.0, 3.0), ("Then go.", 3.0, 4.0)]
    assert all(end > start for _, start, end in segments)


def test_overlapping_and_out_of_order_cues_are_cut_at_the_next_start() -> None:
    text = (
        "WEBVTT\n\n00:00:05.000 --> 00:00:09.000\nlater\n\n"
        "00:00:00.000 --> 00:00:10.000\nlong\n\n"
        "00:00:02.000 --> 00:00:04.000\ninside\n"
    )
    assert _timed(text) == [("long", 0.0, 2.0), ("inside", 2.0, 4.0), ("later", 5.0, 9.0)]


def test_zero_length_and_inverted_cues_never_give_zero_length_segments() -> None:
    text = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:01.000\ninstant\n\n"
        "00:00:02.000 --> 00:00:01.500\ninverted\n\n"
        "00:00:03.000 --> 00:00:04.000\nnormal\n\n"
        "00:00:05.000 --> 00:00:05.000\nlast instant\n"
    )
    assert _timed(text) == [
        ("instant", 1.0, 2.0),
        ("inverted", 2.0, 3.0),
        ("normal last instant", 3.0, 5.0),
    ]


def test_one_instant_only_is_refused() -> None:
    with pytest.raises(VttError) as raised:
        vtt_to_segments("WEBVTT\n\n00:00:01.000 --> 00:00:01.000\nonly\n")
    assert raised.value.code == "degenerate_timing"


def test_unpadded_timestamps_are_read_as_the_time_they_spell() -> None:
    text = (
        "WEBVTT\n\n6e2b1f0c-0d3a/12-0\n0:0:0.0 --> 0:0:3.540\n<v Jane>Good morning.</v>\n\n"
        "6e2b1f0c-0d3a/17-0\n0:0:3.540 --> 0:0:7.23\n<v John>Let us start.</v>\n\n"
        "0:1:5.2 --> 1:2:7.950\nThanks.\n"
    )
    assert _timed(text) == [
        ("Good morning.", 0.0, 3.54),
        ("Let us start.", 3.54, 7.23),
        ("Thanks.", 65.2, 3727.95),
    ]


def test_minutes_or_seconds_above_59_are_refused() -> None:
    with pytest.raises(VttError) as raised:
        vtt_to_segments("WEBVTT\n\n00:61.000 --> 00:62.000\nno\n")
    assert raised.value.code == "invalid_timestamp"


def test_notes_styles_regions_identifiers_bom_and_entities() -> None:
    text = (
        "\ufeffWEBVTT\r\n\r\nSTYLE\r\n::cue { color: lime }\r\n\r\n"
        "REGION\r\nid:r1 width:40%\r\n\r\nNOTE a note\r\nspanning lines\r\n\r\n"
        "cue-1\r\n00:01.000 --> 00:02.000 region:r1\r\nFish &amp; chips&nbsp;&lt;3\r\n\r\n"
        "NOTE\r\nanother note\r\n\r\n"
        "00:02.000 --> 00:03.000\r\n<i>NOTE</i> this is spoken\r\n"
    )
    assert [s.text for s in vtt_to_segments(text)] == ["Fish & chips <3", "NOTE this is spoken"]


def test_segments_of_every_quirk_make_a_valid_timing_receipt() -> None:
    segments = vtt_to_segments(YTDLP_NO_BLANK_LINE)
    data = transcript_bytes(segments)
    provenance = {
        "kind": "vtt_artifact",
        "artifact_path": "a.vtt",
        "artifact_sha256": "0" * 64,
        "cue_extent_seconds": segments[-1].end_seconds,
    }
    assert build_timing_receipt(data, "vtt", provenance, segments)["segments"][1] == {
        "text": "what",
        "start_seconds": 286.47,
        "end_seconds": 304.08,
    }


def _quirky_talk() -> tuple[str, list[str]]:
    """A 420-word caption file mixing every quirk, and the lines it must give."""
    blocks, expected = ["\ufeffWEBVTT\nKind: captions\nLanguage: en\n\nNOTE made by hand\n"], []
    for i in range(60):
        start = i * 3000
        line = f"this is caption line number {i} spoken"
        stamp_line = f"{_stamp(start)} --> {_stamp(start + 2990)} align:start position:0%"
        if i % 4 == 0:  # a cue that runs into the next timing line (no blank line)
            blocks.append(f"{stamp_line}\n{line}")
        elif i % 4 == 2:  # the timing line repeated inside the cue
            blocks.append(f"{stamp_line}\n{stamp_line}\n<c.colorE5E5E5>{line}</c>\n")
        elif i % 4 == 3:  # two speakers at the same instant
            first, second = line.rsplit(" ", 2)[0], " ".join(line.rsplit(" ", 2)[1:])
            blocks.append(f"{stamp_line}\n<v A>{first}\n")
            blocks.append(f"{_stamp(start)} --> {_stamp(start + 1000)}\n<v B>{second}\n")
        else:  # rolling: the previous cue's line repeated, word tags on the new one
            head, rest = line.split(" ", 1)
            tagged = f"{head}<{_stamp(start + 200)}><c> {rest}</c>"
            blocks.append(f"{stamp_line}\n{expected[-1]}\n{tagged}\n")
        expected.append(line)
    return "\n".join(blocks) + "\n", expected


def _stamp(ms: int) -> str:
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def test_the_installed_console_script_imports_every_quirk(tmp_path: Path, cli: Callable) -> None:
    text, expected = _quirky_talk()
    vtt = tmp_path / "talk.en.vtt"
    vtt.write_text(text, encoding="utf-8")
    out = tmp_path / "talk.txt"
    result = cli("rvault-transcript", "vtt-cleanup", vtt, out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert out.read_text(encoding="utf-8").splitlines() == expected
    assert result.json["word_count"] == 420 and result.json["quality_path"] is not None
    timing = json.loads(out.with_name("talk.segments.json").read_text())
    assert [(s["start_seconds"], s["end_seconds"]) for s in timing["segments"][:3]] == [
        (0.0, 2.99),
        (3.0, 5.99),
        (6.0, 8.99),
    ]
    assert cli("rvault-transcript", "verify", out).json["evidence"] == {
        "plain_quote": True,
        "timed_quote": True,
    }


def test_a_timing_line_right_after_the_signature_ends_the_header() -> None:
    # pycaption's fixture shape: no blank line between WEBVTT and the first cue.
    assert _timed("WEBVTT\n00:00:01.000 --> 00:00:03.000\nHello\n") == [("Hello", 1.0, 3.0)]


def test_the_timing_schema_states_the_segment_rule() -> None:
    from rvault_contracts.schemas import load_schema

    description = load_schema("transcript-timing", 2)["description"]
    for rule in (
        "end_seconds > start_seconds",
        "pieces starting at the same millisecond are one segment",
        "a segment ends no later than the next segment's start",
        "a zero-length or inverted cue",
        "a timing line always starts a new cue",
        "never cut to a suffix",
    ):
        assert rule in description, rule
