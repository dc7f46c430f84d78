"""``rvault-transcript vtt-cleanup IN.vtt OUT.txt [--force]``: import a WebVTT artifact.

Writes the clean transcript, a timing receipt v2 with ``vtt_artifact``
provenance (the caption file's safe path relative to the transcript
directory, its exact digest, the final cue extent) and a quality receipt, as
one bundle. The text must meet quality policy v1: 400 words, or 30 words per
minute of a trusted duration, which only ``--media RECORDING
--duration-seconds N`` gives (the duration must match a probe of the
recording; the receipt then binds the recording's SHA-256, so ``verify
--media`` and ``fetch LABEL --audio RECORDING`` accept it). A file below the
floor is refused with nothing written (``transcript_quality_failed``, reason
``too_few_words``, with that hint): the import never leaves a bundle that
``fetch`` and ``verify`` would refuse. The input must be a non-symlink
regular file inside the output's directory. An existing output is preserved
(exit 2, ``output_exists``) unless ``--force``. The language is what the
``Language:`` header and a ``*.xx.vtt`` name claim, checked against the
text (``language_mismatch`` when it reads otherwise; ``--language`` states it).

IN.vtt, OUT.txt, ``--media`` and ``--vault-root`` are relative to the working
directory. stdout: ``transcript-fetch-result`` v1 (method ``vtt``; its paths
are vault-relative locators when the vault root is known, else absolute) or
``cli-failure`` v1.
Exit codes: 0 written; 2 refused (nothing changed); 1 internal error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rvault_contracts.cli import EXIT_OK, emit

from rvault_transcript.bundle import settle_interrupted
from rvault_transcript.vault import result_locators
from rvault_transcript.vtt_import import MAX_VTT_BYTES, VttImportRequest, import_vtt

__all__ = ["MAX_VTT_BYTES", "register"]


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
    parser.add_argument(
        "--media", type=Path, help="the talk's recording, probed to trust --duration-seconds"
    )
    parser.add_argument(
        "--duration-seconds",
        type=float,
        help="the recording's runtime; with --media, lowers the floor to 30 words/minute",
    )
    parser.add_argument(
        "--vault-root", type=Path, help="the vault root (default: found from the tracking database)"
    )
    parser.add_argument(
        "--language",
        help="the captions' language, when the file's header or name claims another one",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    settle_interrupted(args.out)  # a bundle torn by a kill: judged whole, not input_changed
    request = VttImportRequest(
        vtt=args.vtt,
        out=args.out,
        force=args.force,
        media=args.media,
        duration_seconds=args.duration_seconds,
        vault_root=args.vault_root,
        fault=getattr(args, "bundle_fault", None),  # a test's parser default, never an option
        language=args.language,
    )
    emit(result_locators(import_vtt(request), args.out, args.vault_root))
    return EXIT_OK
