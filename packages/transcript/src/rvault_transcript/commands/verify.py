"""``rvault-transcript verify TRANSCRIPT``: re-hash and re-validate the receipts.

Reads the transcript and its ``.quality.json`` / ``.segments.json`` without
following symlinks, re-runs every receipt rule against the current bytes and
the owner context given here (``--video-id``, ``--media`` whose exact digest
and PyAV duration are computed now, or ``--owner-duration-seconds``) and says
which evidence is available: a plain quote needs current quality, a timed
quote needs current quality and current owner-bound v2 timing.

stdout: ``{"ok": true, ...report}`` when a plain quote is available (exit 0);
otherwise ``cli-failure`` v1 with the same report as context (exit 2).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from rvault_contracts.cli import EXIT_OK, Refusal, emit

from rvault_transcript.api import RECOVERY_PENDING, OwnerContext, read_evidence


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="re-hash and re-validate receipts; report plain/timed quote evidence",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("transcript", type=Path, metavar="TRANSCRIPT")
    parser.add_argument("--video-id", help="the owning talk's YouTube id")
    parser.add_argument("--media", type=Path, help="the owning local media file")
    parser.add_argument("--owner-duration-seconds", type=float, help="the owner's current duration")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    media_sha256 = None
    duration = args.owner_duration_seconds
    if duration is not None and not (math.isfinite(duration) and duration > 0):
        raise Refusal(
            "invalid_duration", "--owner-duration-seconds must be a positive finite number"
        )
    if args.media is not None:
        from rvault_transcript.probe import ProbeError, probe_local

        if args.media.is_symlink() or not args.media.is_file():
            raise Refusal(
                "media_not_regular_file",
                "--media must be a regular, non-symlink file",
                str(args.media),
            )
        with open(args.media, "rb") as handle_:
            try:
                probed = probe_local(handle_)
            except ProbeError as error:
                raise Refusal(error.code, error.message, str(args.media)) from None
        media_sha256 = probed.sha256
        duration = probed.duration_seconds if duration is None else duration
    owner = OwnerContext(
        video_id=args.video_id, media_sha256=media_sha256, duration_seconds=duration
    )
    report = read_evidence(args.transcript, owner=owner)
    document = report.to_dict()
    if not report.plain_quote:
        context = {"report": document}
        if report.quality.code == RECOVERY_PENDING:
            context["hint"] = f"run `rvault-transcript recover {args.transcript}`, then verify"
        raise Refusal(
            report.quality.code if report.transcript_status != "missing" else "transcript_missing",
            "no transcript evidence is available: " + report.quality.message,
            str(args.transcript),
            **context,
        )
    emit({"ok": True, **document})
    return EXIT_OK
