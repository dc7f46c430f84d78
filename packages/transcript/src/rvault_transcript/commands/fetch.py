"""``rvault-transcript fetch``: acquire, validate and atomically write a transcript.

Two modes: ``fetch YOUTUBE_ID`` (caption track through youtube-transcript-api
first, local Whisper on the downloaded audio as fallback; ``--out`` must name
``transcripts/{YOUTUBE_ID}.txt``) and ``fetch LABEL --audio MEDIA`` (local
Whisper on the exact media bytes, the spoken language detected first). An
existing valid transcript is never replaced without ``--force``: it is
validated and gets (or reuses) its exact quality receipt; only known
``youtube_auto`` provenance may gain caption timing, and only when the
captions equal its text modulo Unicode whitespace. When the vault root is
known (``--vault-root``, or the tracking database above ``--out``) the
output must lie in its real ``transcripts/`` directory.

Paths typed here (``--out``, ``--audio``, ``--vault-root``) are relative to
the working directory. stdout: one JSON object, ``transcript-fetch-result``
v1 on success (its paths are locators: ``transcripts/{name}`` relative to the
vault root when it is known, else absolute, so ``rvault-db
register-transcript DB fetch.json --fetch-result`` reads them from any
directory), the ``cli-failure`` v1 document otherwise. Exit codes: 0 written or validated;
2 refused (invalid arguments or input, no obtainable transcript, quality
floor not met, existing transcript invalid, invalid UTF-8, a writer refusal
or a rolled-back bundle; nothing changed); 1 internal error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rvault_contracts.cli import EXIT_OK, emit

from rvault_transcript.bundle import settle_interrupted
from rvault_transcript.fetch import EXISTING_SOURCES, FetchRequest, fetch
from rvault_transcript.vault import result_locators


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fetch",
        help="captions first, local Whisper fallback; validated, receipts, one atomic bundle",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "id", metavar="ID_OR_LABEL", help="YouTube id, or a talk label with --audio"
    )
    parser.add_argument("--out", required=True, type=Path, help="transcripts/{id}.txt")
    parser.add_argument(
        "--existing-source",
        required=True,
        choices=EXISTING_SOURCES,
        help="the talk's recorded transcript_source (unknown when absent)",
    )
    parser.add_argument("--audio", type=Path, help="transcribe this local audio or video file")
    parser.add_argument(
        "--duration-seconds",
        type=float,
        help="expected runtime; lowers the floor to 30 words/minute only if a probe matches",
    )
    parser.add_argument("--min-words", type=int, help="tighten the word floor (never lowers it)")
    parser.add_argument(
        "--force", action="store_true", help="replace an existing transcript bundle"
    )
    parser.add_argument(
        "--model", help="Whisper model name or CTranslate2 directory (env RVAULT_WHISPER_MODEL)"
    )
    parser.add_argument(
        "--language",
        action="append",
        dest="languages",
        help="preferred caption language (repeatable)",
    )
    parser.add_argument(
        "--vault-root", type=Path, help="the vault root (default: found from the tracking database)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    settle_interrupted(args.out)  # a bundle torn by a kill: judged whole, not input_changed
    request = FetchRequest(
        id=args.id,
        out=args.out,
        existing_source=args.existing_source,
        audio=args.audio,
        duration_seconds=args.duration_seconds,
        min_words=args.min_words,
        force=args.force,
        model=args.model,
        languages=tuple(args.languages) if args.languages else None,
        vault_root=args.vault_root,
        fault=getattr(args, "bundle_fault", None),  # a test's parser default, never an option
    )
    emit(result_locators(fetch(request), args.out, args.vault_root))
    return EXIT_OK
