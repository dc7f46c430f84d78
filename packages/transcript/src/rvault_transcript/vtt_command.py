"""``rvault-transcript vtt-cleanup IN.vtt OUT.txt [--force]``: import a WebVTT artifact.

Writes the clean transcript, a timing receipt v2 with ``vtt_artifact``
provenance (the caption file's safe path relative to the transcript
directory, its exact digest, the final cue extent) and, when the text meets
the default policy-v1 floor, a quality receipt; otherwise a stale quality
receipt is removed in the same transaction. The input must be a non-symlink
regular file inside the output's directory. An existing output is preserved
(exit 2, ``output_exists``) unless ``--force``.

stdout: ``transcript-fetch-result`` v1 (method ``vtt``) or ``cli-failure`` v1.
Exit codes: 0 written; 2 refused (nothing changed); 1 internal error.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import EXIT_OK, Refusal, emit
from rvault_contracts.writer import FaultHook, read_snapshot

from rvault_transcript import policy
from rvault_transcript.bundle import BundlePaths, write_bundle
from rvault_transcript.receipts import (
    ReceiptError,
    build_quality_receipt,
    build_timing_receipt,
    is_safe_relative_path,
    receipt_bytes,
)
from rvault_transcript.segments import transcript_bytes
from rvault_transcript.text import TextRefusal, decode_utf8, judge_text
from rvault_transcript.text import word_count as count_words
from rvault_transcript.vtt import VttError, vtt_to_segments

bundle_fault: FaultHook | None = None
# A two-hour rolling caption file is about 0.6 MiB; parsing costs roughly nine
# times the file size in memory, so 32 MiB (~100 hours) bounds a hostile input.
MAX_VTT_BYTES = 32 * 1024 * 1024
_LANGUAGE_HEADER = re.compile(r"^Language:\s*([A-Za-z]{2,3}(?:-[A-Za-z0-9]+)*)\s*$", re.MULTILINE)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vtt-cleanup",
        help="WebVTT -> clean transcript + timing receipt v2 (vtt_artifact)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("vtt", type=Path, metavar="IN.vtt")
    parser.add_argument("out", type=Path, metavar="OUT.txt")
    parser.add_argument(
        "--force", action="store_true", help="replace an existing transcript bundle"
    )
    parser.set_defaults(handler=handle)


def artifact_relative_path(vtt: Path, out: Path) -> str:
    """The caption file's path relative to the transcript directory, refusing escapes and links."""
    directory = out.parent
    if not directory.is_dir():
        raise Refusal(
            "output_directory_missing", "the transcript directory does not exist", str(directory)
        )
    base = Path(os.path.normpath(directory.absolute()))
    target = Path(os.path.normpath(vtt.absolute()))
    try:
        relative = target.relative_to(base).as_posix()
    except ValueError:
        raise Refusal(
            "vtt_outside_transcript_dir",
            "the VTT file must lie inside the transcript directory",
            str(vtt),
        ) from None
    if not is_safe_relative_path(relative):
        raise Refusal("vtt_outside_transcript_dir", "unsafe VTT path", str(vtt))
    current = base
    for part in relative.split("/"):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            raise Refusal("vtt_missing", "the VTT file does not exist", str(vtt)) from None
        if stat.S_ISLNK(st.st_mode):
            raise Refusal("symlink_refused", "the VTT path passes through a symlink", str(vtt))
    if not stat.S_ISREG(os.lstat(current).st_mode):
        raise Refusal("not_regular_file", "the VTT path is not a regular file", str(vtt))
    return relative


def handle(args: argparse.Namespace) -> int:
    vtt: Path = args.vtt
    out: Path = args.out
    if out.suffix != ".txt":
        raise Refusal("output_not_txt", "OUT must name a .txt transcript", str(out))
    relative = artifact_relative_path(vtt, out)
    paths = BundlePaths.for_transcript(out)
    # ``relative`` is normalized against the transcript directory, so an absolute,
    # ``./`` or ``dir/..`` spelling of the same name cannot slip past a lexical check.
    if relative in {p.name for p in paths.all()}:
        raise Refusal(
            "output_collides_with_input", "the output bundle would overwrite the VTT file", str(vtt)
        )
    initial = read_snapshot(out)
    if initial.exists and not args.force:
        raise Refusal(
            "output_exists", "the transcript exists; pass --force to replace its bundle", str(out)
        )
    if os.lstat(vtt).st_size > MAX_VTT_BYTES:
        raise Refusal(
            "vtt_too_large", f"the VTT file is larger than {MAX_VTT_BYTES} bytes", str(vtt)
        )
    raw = read_snapshot(vtt).data
    if raw is None:
        raise Refusal("vtt_missing", "the VTT file does not exist", str(vtt))
    if len(raw) > MAX_VTT_BYTES:
        raise Refusal(
            "vtt_too_large", f"the VTT file is larger than {MAX_VTT_BYTES} bytes", str(vtt)
        )
    try:
        text = decode_utf8(raw)
        segments = vtt_to_segments(text)
    except TextRefusal as refusal:
        raise Refusal(refusal.code, refusal.message, str(vtt)) from None
    except VttError as error:
        raise Refusal(error.code, error.message, str(vtt)) from None
    data = transcript_bytes(segments)
    provenance = {
        "kind": "vtt_artifact",
        "artifact_path": relative,
        "artifact_sha256": sha256_bytes(raw),
        "cue_extent_seconds": segments[-1].end_seconds,
    }
    try:
        timing = build_timing_receipt(data, "vtt", provenance, segments)
    except ReceiptError as error:
        raise Refusal("timing_invalid", error.message, str(vtt), reason=error.code) from None
    min_words = policy.effective_min_words(None, None)
    quality_bytes: bytes | None
    try:
        word_count = judge_text(data.decode("utf-8"), min_words).word_count
        quality_bytes = receipt_bytes(
            build_quality_receipt(data, min_words, {"kind": "fixed_default"})
        )
        quality_status = {
            "available": True,
            "code": "quality_current",
            "message": "quality receipt v1 written",
        }
    except TextRefusal as refusal:
        if refusal.code not in {"too_few_words"}:
            raise Refusal(
                "transcript_quality_failed", refusal.message, str(vtt), reason=refusal.code
            ) from None
        word_count = count_words(data.decode("utf-8"))
        quality_bytes = None
        quality_status = {
            "available": False,
            "code": refusal.code,
            "message": refusal.message
            + "; run fetch with a trusted duration for a short-talk floor",
        }
    changes = {
        paths.transcript: data,
        paths.timing: receipt_bytes(timing),
        paths.quality: quality_bytes,
    }
    report = write_bundle(paths, changes, transcript_read_as=initial, fault=bundle_fault)
    language = _LANGUAGE_HEADER.search(text.split("\n\n", 1)[0])
    emit(
        {
            "ok": True,
            "method": "vtt",
            "language": language.group(1) if language else None,
            "transcript_path": str(out),
            "timed_path": str(paths.timing),
            "quality_path": str(paths.quality) if quality_bytes is not None else None,
            "word_count": word_count,
            "source": {
                "kind": "vtt",
                "artifact_path": relative,
                "artifact_sha256": provenance["artifact_sha256"],
            },
            "transcript_source": None,
            "duration_seconds": None,
            "min_words": min_words,
            "timing_status": {
                "available": True,
                "code": "timing_current",
                "message": "hash-bound timing receipt v2",
            },
            "quality_status": quality_status,
            "write": report.to_dict(),
        }
    )
    return EXIT_OK
