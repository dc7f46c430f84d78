"""WebVTT parsing with the quirks real caption files have."""

from __future__ import annotations

import pytest
from rvault_transcript.receipts import build_timing_receipt
from rvault_transcript.segments import transcript_bytes
from rvault_transcript.vtt import VttError, parse_cues, vtt_to_segments

YOUTUBE_ROLLING = """WEBVTT
Kind: captions
Language: en

00:00:00.000 --> 00:00:02.350 align:start position:0%
|
so<00:00:00.359><c> today</c><00:00:00.720><c> we</c><00:00:01.020><c> talk</c>

00:00:02.350 --> 00:00:02.360 align:start position:0%
so today we talk
|

00:00:02.360 --> 00:00:04.990 align:start position:0%
so today we talk
about<00:00:02.800><c> rhetoric</c><00:00:03.100><c> and</c><00:00:03.500><c> style</c>

00:00:04.990 --> 00:00:05.000 align:start position:0%
about rhetoric and style
|

00:00:05.000 --> 00:00:07.500 align:start position:0%
about rhetoric and style
[Music]
""".replace("\n|\n", "\n \n")  # YouTube writes a line of one space

STYLED = (
    "\ufeffWEBVTT - a styled file\r\n"
    "X-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:0\r\n"
    "\r\n"
    "STYLE\r\n"
    "::cue(.yellow) { color: yellow; }\r\n"
    "\r\n"
    "REGION\r\n"
    "id:fred width:40% lines:3\r\n"
    "\r\n"
    "NOTE written by a\r\n"
    "conference captioner\r\n"
    "\r\n"
    "intro-1\r\n"
    "00:01.000 --> 00:03.500 region:fred line:0 position:10%,line-left size:35%\r\n"
    "<v Ada Lovelace>Welcome&nbsp;to the <i>show</i>,</v>\r\n"
    "<c.yellow>everyone</c> &amp; friends.\r\n"
    "\r\n"
    "2\r\n"
    "00:00:03.000 --> 00:00:06.000\r\n"
    "<b>Let&#39;s</b> <u>begin</u> &lt;now&gt;.\r\n"
    "\r\n"
    "3\r\n"
    "01:00:00.000 --> 01:00:01.250\r\n"
    "<ruby>漢<rt>kan</rt></ruby> the end\r\n"
)


def test_youtube_rolling_captions_are_deduplicated() -> None:
    segments = vtt_to_segments(YOUTUBE_ROLLING)
    assert [s.text for s in segments] == ["so today we talk", "about rhetoric and style", "[Music]"]
    assert [(s.start_seconds, s.end_seconds) for s in segments] == [
        (0.0, 2.35),
        (2.36, 4.99),
        (5.0, 7.5),
    ]


def test_styling_positions_notes_regions_entities_and_crlf() -> None:
    segments = vtt_to_segments(STYLED)
    assert [s.text for s in segments] == [
        "Welcome to the show, everyone & friends.",
        "Let's begin <now>.",
        "漢kan the end",
    ]
    # Overlapping cues are clamped so segments never overlap.
    assert segments[0].end_seconds == 3.0 and segments[1].start_seconds == 3.0
    assert segments[2].start_seconds == 3600.0 and segments[2].end_seconds == 3601.25


def test_segments_satisfy_the_timing_receipt() -> None:
    segments = vtt_to_segments(STYLED)
    data = transcript_bytes(segments)
    provenance = {
        "kind": "vtt_artifact",
        "artifact_path": "talk.en.vtt",
        "artifact_sha256": "0" * 64,
        "cue_extent_seconds": segments[-1].end_seconds,
    }
    receipt = build_timing_receipt(data, "vtt", provenance, segments)
    assert receipt["segments"][0]["text"] == "Welcome to the show, everyone & friends."


def test_a_line_that_grows_is_spoken_again_never_cut_to_a_suffix() -> None:
    text = (
        "WEBVTT\n\n00:00.000 --> 00:01.000\nNo.\n\n"
        "00:01.000 --> 00:02.000\nNo. Not yet.\n\n00:02.000 --> 00:03.000\nNo. Not yet.\n"
    )
    segments = vtt_to_segments(text)
    # The exact repeat of the previous cue's line is dropped; the grown line is kept whole.
    assert [s.text for s in segments] == ["No.", "No. Not yet."]
    assert transcript_bytes(segments) == b"No.\nNo. Not yet.\n"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("1\n00:00.000 --> 00:01.000\nhello\n", "not_webvtt"),
        ("WEBVTT\n\nNOTE only a note\n", "no_cues"),
        ("WEBVTT\n\n00:00.000 --> 00:01.000\n<c> </c>\n", "no_cues"),
    ],
)
def test_unusable_files_are_refused(text: str, code: str) -> None:
    with pytest.raises(VttError) as raised:
        vtt_to_segments(text)
    assert raised.value.code == code


def test_header_is_not_a_cue() -> None:
    assert parse_cues("WEBVTT\nKind: captions\n\n00:00.500 --> 00:01.000\nhi\n")[0].start_ms == 500
