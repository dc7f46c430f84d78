"""Regressions from an adversarial review of the console script: each refusal
keeps its stable code and leaves every byte and inode as it was."""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_testkit.plugin import console_script, wait_until_open
from rvault_transcript.api import OwnerContext, read_evidence
from rvault_transcript.language import language_record
from rvault_transcript.receipts import build_quality_receipt, receipt_bytes
from rvault_transcript.text import _TRACEBACK_PATTERNS, looks_like_traceback
from rvault_transcript.vtt import clean_line

VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhello there\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


# --------------------------------------------------------------------------- vtt-cleanup


@pytest.mark.parametrize("spelling", ["absolute", "dotdot"])
def test_vtt_named_like_a_sidecar_is_never_overwritten(
    vault: Path, cli: Callable, snapshot_tree: Callable, spelling: str
) -> None:
    """A lexical parent check missed ``/abs/talk.txt`` vs ``talk.segments.json``."""
    (vault / "sub").mkdir()
    vtt = vault / "talk.segments.json"
    vtt.write_text(VTT)
    out = vault / "talk.txt" if spelling == "absolute" else vault / "sub" / ".." / "talk.txt"
    before = snapshot_tree(vault)
    result = cli("rvault-transcript", "vtt-cleanup", vtt.relative_to(vault), out, cwd=vault)
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "output_collides_with_input"
    assert snapshot_tree(vault) == before


@pytest.mark.parametrize("digits", [7, 400, 5000])
def test_absurd_cue_hours_are_refused_not_a_crash(
    vault: Path, cli: Callable, snapshot_tree: Callable, digits: int
) -> None:
    hours = "9" * digits
    vtt = vault / "big.vtt"
    vtt.write_text(f"WEBVTT\n\n{hours}:00:01.000 --> {hours}:00:02.000\nhello\n")
    before = snapshot_tree(vault)
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "big.txt")
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "timestamp_out_of_range"
    assert snapshot_tree(vault) == before


def test_unclosed_angle_brackets_are_linear(vault: Path, cli: Callable) -> None:
    """One line of a million ``<`` used to take minutes (a quadratic tag regex)."""
    vtt = vault / "angles.vtt"
    vtt.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nsay " + "<" * 1_000_000 + "\n")
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "angles.txt", timeout=60)
    # Parsed in time; one word is then below the floor (the run of ``<`` is no word).
    assert result.returncode == 2, result.stdout
    assert result.json["reason"] == "too_few_words"
    assert "has 1 words" in result.json["error"]["message"]


def test_tag_stripping_keeps_its_meaning() -> None:
    assert clean_line("<v Bob>Hi <i>there</i> <00:00:01.500><c>you</c>") == "Hi there you"
    assert clean_line("a < b and c > d") == "a d"
    assert clean_line("a << b") == "a << b"


# --------------------------------------------------------------------------- text rules

_OLD = (
    re.compile(r'^\s*File "[^"]+", line \d+', re.MULTILINE),
    re.compile(r"^\s*[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)(: .*)?$", re.MULTILINE),
)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list(' \t\n\r\x0b\x0c\u2028xE"File,line1rorValue:'))).map(
        lambda s: s.replace("Valu", "ValueError")
    )
)
def test_traceback_patterns_match_exactly_as_before(text: str) -> None:
    for old, new in zip(_OLD, _TRACEBACK_PATTERNS[1:], strict=True):
        assert bool(old.search(text)) == bool(new.search(text))


def test_blank_line_runs_are_linear() -> None:
    """300 000 blank lines took minutes with ``^\\s*`` (rescanned from every line)."""
    blank = "\n" * 300_000
    assert not looks_like_traceback(blank + "hello")
    assert looks_like_traceback(blank + '  File "x.py", line 3\n' + blank + "ValueError: no")


# --------------------------------------------------------------------------- verify


@pytest.fixture
def media_bound(vault: Path) -> tuple[Path, str]:
    data = b"the speaker opens with a question, answers it with a story and ends on a call\n"
    media_sha = "b" * 64
    out = vault / "talk.txt"
    out.write_bytes(data)
    provenance = {
        "kind": "local_media_duration",
        "media_sha256": media_sha,
        "duration_seconds": 10.0,
    }
    (vault / "talk.quality.json").write_bytes(
        receipt_bytes(build_quality_receipt(data, 5, provenance, language_record(None, [], None)))
    )
    return out, media_sha


def test_nan_owner_duration_fails_closed(media_bound: tuple[Path, str]) -> None:
    out, media_sha = media_bound
    assert read_evidence(
        out, owner=OwnerContext(media_sha256=media_sha, duration_seconds=10.0)
    ).plain_quote
    report = read_evidence(
        out, owner=OwnerContext(media_sha256=media_sha, duration_seconds=math.nan)
    )
    assert not report.plain_quote
    assert report.quality.code == "transcript_quality_context_drift"


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "0"])
def test_verify_refuses_a_meaningless_owner_duration(
    media_bound: tuple[Path, str], cli: Callable, snapshot_tree: Callable, value: str
) -> None:
    out, _ = media_bound
    before = snapshot_tree(out.parent)
    result = cli("rvault-transcript", "verify", out, f"--owner-duration-seconds={value}")
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "invalid_duration"
    assert "--owner-duration-seconds" in result.json["error"]["message"]
    assert snapshot_tree(out.parent) == before


# --------------------------------------------------------------------------- fetch


@pytest.mark.parametrize("name", ["talk.txt", "talk.segments.json", "talk.quality.json"])
def test_fetch_never_replaces_its_own_media(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_tree: Callable, name: str
) -> None:
    media = vault / name
    shutil.copyfile(speech_wav, media)
    before = snapshot_tree(vault)
    result = cli(
        "rvault-transcript", "fetch", "talk", "--audio", media, "--out", vault / "talk.txt",
        "--existing-source", "none", "--force",
    )  # fmt: skip
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "output_collides_with_input"
    assert snapshot_tree(vault) == before


def test_unloadable_model_is_a_refusal(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_tree: Callable, tmp_path: Path
) -> None:
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    before = snapshot_tree(vault)
    for model in (str(empty), "/no/such/model", "tiny.bogus"):
        result = cli(
            "rvault-transcript", "fetch", "talk", "--audio", speech_wav,
            "--out", vault / "talk.txt", "--existing-source", "none", "--model", model,
        )  # fmt: skip
        assert result.returncode == 2, result.stdout
        assert result.json["error"]["code"] == "model_unavailable"
        assert result.json["error"]["path"] == model
        assert snapshot_tree(vault) == before


@pytest.mark.parametrize("label", ["", "   "])
def test_empty_label_is_refused_before_an_invalid_result(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_tree: Callable, label: str
) -> None:
    """An empty LABEL used to print a transcript-fetch-result that broke its schema."""
    before = snapshot_tree(vault)
    result = cli(
        "rvault-transcript", "fetch", label, "--audio", speech_wav, "--out", vault / "t.txt",
        "--existing-source", "none",
    )  # fmt: skip
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "invalid_label"
    assert snapshot_tree(vault) == before


def test_oversized_vtt_is_refused_before_reading(
    vault: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    """Parsing costs about nine times the file in memory; a huge file is refused unread."""
    from rvault_transcript.commands.vtt_cleanup import MAX_VTT_BYTES

    vtt = vault / "huge.vtt"
    with vtt.open("wb") as handle:  # sparse: no disk or time spent on the test itself
        handle.write(VTT.encode())
        handle.truncate(MAX_VTT_BYTES + 1)
    before = snapshot_tree(vault)
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "huge.txt")
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "vtt_too_large"
    assert snapshot_tree(vault) == before


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"\xff\xfe not utf-8\n", "invalid_utf8"), (b"  \n", "existing_transcript_invalid")],
)
def test_existing_transcript_refusals_name_the_transcript(
    vault: Path,
    speech_wav: Path,
    cli: Callable,
    snapshot_tree: Callable,
    content: bytes,
    code: str,
) -> None:
    """These refusals used to carry ``path: null``."""
    out = vault / "talk.txt"
    out.write_bytes(content)
    before = snapshot_tree(vault)
    result = cli(
        "rvault-transcript", "fetch", "talk", "--audio", speech_wav, "--out", out,
        "--existing-source", "manual",
    )  # fmt: skip
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == code
    assert result.json["error"]["path"] == str(out)
    assert snapshot_tree(vault) == before


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_unwinds_like_ctrl_c(
    vault: Path, cli: Callable, snapshot_tree: Callable, signum: int
) -> None:
    """SIGTERM used to kill the run with an empty stdout (and no writer cleanup)."""
    vtt = vault / "talk.vtt"
    # Long enough for the 400-word floor, so the run reaches the writer lock.
    vtt.write_text(
        "WEBVTT\n\n"
        + "\n\n".join(
            f"00:00:{i:02d}.000 --> 00:00:{i:02d}.900\nline {i} of ten different words, said once"
            for i in range(50)
        )
    )
    lock = vault / "talk.txt.lock"
    with lock.open("a") as held:
        before = snapshot_tree(vault)
        fcntl.flock(held, fcntl.LOCK_EX)  # the run waits for the writer lock
        process = subprocess.Popen(
            [console_script("rvault-transcript"), "vtt-cleanup", vtt, vault / "talk.txt"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            wait_until_open(process.pid, lock)
            process.send_signal(signum)
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130, err  # EXIT_INTERRUPTED
    assert json.loads(out)["error"]["code"] == "interrupted"
    assert snapshot_tree(vault) == before


def test_non_utf8_arguments_are_refused_before_anything_runs(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    """They used to end in a traceback with an empty stdout (or ``internal_error``)."""
    vtt = vault / os.fsdecode(b"\xff.vtt")
    vtt.write_text(VTT)
    before = snapshot_tree(vault)
    runs = [
        ("verify", vault / os.fsdecode(b"\xfe.txt")),
        ("vtt-cleanup", vtt, vault / "talk.txt"),
        ("fetch", "talk", "--audio", speech_wav, "--out", vault / os.fsdecode(b"\xfe.txt"),
         "--existing-source", "none"),
    ]  # fmt: skip
    for args in runs:
        result = cli("rvault-transcript", *args)
        assert result.returncode == 2, result.stderr
        assert result.json["error"]["code"] == "argument_not_utf8"
        assert result.json["error"]["path"].endswith(("\\xff.vtt", "\\xfe.txt"))
        assert "Traceback" not in result.stderr
        assert snapshot_tree(vault) == before
