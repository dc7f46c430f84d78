"""``rvault-transcript recover TRANSCRIPT``: settle a bundle a kill left half written.

A ``fetch`` or ``vtt-cleanup`` killed between the renames of its bundle
leaves the transcript, its timing sidecar and its quality receipt from two
generations, with the writer protocol's journal beside them; every reader
reports the transcript as ``recovery_pending`` (``bundle_recovery_pending``)
until the journal is settled. The next ``fetch`` / ``vtt-cleanup`` of the
transcript settles it on its own before reading; this command does only that,
under the transcript's writer lock: a bundle whose every name already holds
its new bytes is completed, otherwise every name is put back to its old
bytes (``rvault_contracts.writer.recover_bundle``). Files that match
neither generation are refused as ``bundle_recovery_conflict`` and left as
they are.

stdout: ``{"ok": true, "transcript_path", "settled"}`` where ``settled`` is
``{"action": "completed" | "rolled_back", "names": [...]}`` or null when
nothing was pending (exit 0); ``cli-failure`` v1 otherwise (exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rvault_contracts.cli import EXIT_OK, emit, progress

from rvault_transcript.bundle import settle_interrupted


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "recover",
        help="settle a transcript bundle a kill left between its renames",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("transcript", type=Path, metavar="TRANSCRIPT")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    settled = settle_interrupted(args.transcript)
    progress(
        "nothing to recover"
        if settled is None
        else f"{settled['action']}: {', '.join(settled['names']) or 'no file changed'}"
    )
    emit({"ok": True, "settled": settled, "transcript_path": str(args.transcript)})
    return EXIT_OK
