"""``rvault-db sources`` and its shortcuts: the source-lane writer.

``sources DB PLAN`` runs a ``db-source-plan`` v1 document;
``register-transcript``, ``register-slides``, ``attach-media``,
``record-deck`` and ``add-talk`` build that plan from their arguments and the
database as it is now. All six follow the one apply protocol (dry run by default, ``--apply
--expected-sha256 HEX`` to write) and print ``db-source-report`` v1.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rvault_contracts.cli import emit, finish

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.apply_protocol import ApplyRequest
from rvault_tracking_db.plan_input import FETCH_RESULT, read_plan_bytes
from rvault_tracking_db.sources.plan import decode_source_plan
from rvault_tracking_db.sources.run import PlanBuilder, SourcePlan, run_sources
from rvault_tracking_db.sources.shortcuts import (
    DeckRequest,
    FetchedTranscriptRequest,
    MediaRequest,
    SlidesRequest,
    TalkRequest,
    TranscriptRequest,
)

TRANSCRIPT_SOURCES = ("youtube_auto", "whisper", "manual", "none")


Arg = tuple[tuple[str, ...], dict[str, Any]]


def _arg(*flags: str, **options: Any) -> Arg:
    return flags, options


def _path(kind: str) -> Arg:
    return _arg(
        "path", metavar="PATH", help=f"{kind} (relative to the working directory, inside the vault)"
    )


_TALK = _arg("--talk", required=True, metavar="FILENAME", help="the talk's filename")


def _command(
    subparsers: Any,
    name: str,
    *,
    help: str,
    description: str,
    handler: Callable[[argparse.Namespace], int],
    arguments: list[Arg],
) -> None:
    """One writing command: DATABASE, then ``arguments``, then the apply protocol."""
    parser = subparsers.add_parser(name, help=help, description=description)
    parser.add_argument("database", help="path of tracking-database.json")
    for flags, options in arguments:
        parser.add_argument(*flags, **options)
    apply_protocol.add_arguments(parser)
    parser.set_defaults(handler=handler)


def register(subparsers: Any) -> None:
    """The six writing commands, each registered by its own function below."""
    _sources_parser(subparsers)
    _register_transcript_parser(subparsers)
    _register_slides_parser(subparsers)
    _attach_media_parser(subparsers)
    _record_deck_parser(subparsers)
    _add_talk_parser(subparsers)


def _sources_parser(subparsers: Any) -> None:
    _command(
        subparsers,
        "sources",
        help="register where talks' evidence comes from (source-lane plan, dry-run by default)",
        description=(
            "Runs a source plan (db-source-plan v1: register_transcript, set_video_url, "
            "set_slides_url, register_pptx, register_slides_pdf, set_source_relation, add_talk, "
            "record_pptx, attach_media), each bound to the prior value it expects, as one "
            "transaction. "
            "Artifacts must be readable under the vault (decks: config.pptx_source_dir) without "
            "links; capabilities are re-derived; an analysed talk whose source changed moves "
            "to needs-reprocessing."
        ),
        handler=run_plan,
        arguments=[_arg("plan", help="path of the plan JSON file, or - for stdin")],
    )


def _register_transcript_parser(subparsers: Any) -> None:
    _command(
        subparsers,
        "register-transcript",
        help="register a talk's vault-relative transcript (e.g. a non-YouTube talk)",
        description=(
            "Builds a register_transcript source plan for one talk and runs it. The transcript "
            "is PATH, or the one named by the JSON that rvault-transcript fetch / vtt-cleanup "
            "printed (PATH with --fetch-result, - for stdin): that document is read by the "
            "transcript owner's reader, its receipts must be current on disk, and its "
            "transcript_source (when the fetch knows one) is recorded."
        ),
        handler=run_register_transcript,
        arguments=[
            _arg(
                "path",
                metavar="PATH",
                help="the transcript inside the vault, e.g. vault/transcripts/NAME.txt "
                "(relative to the working directory; stored vault-relative); with "
                "--fetch-result the fetch result JSON file instead (- for stdin)",
            ),
            _TALK,
            _arg(
                "--fetch-result",
                action="store_true",
                help="PATH is the JSON that rvault-transcript fetch or vtt-cleanup printed: the "
                "transcript, checked against its receipts, is taken from it",
            ),
            _arg(
                "--source",
                choices=TRANSCRIPT_SOURCES,
                help="how the transcript was obtained (omit when unknown: it is never guessed; "
                "with --fetch-result only where the fetch does not say)",
            ),
        ],
    )


def _register_slides_parser(subparsers: Any) -> None:
    _command(
        subparsers,
        "register-slides",
        help="record a promoted slides/ID.pdf (rvault-video promote) as slides_local_path",
        description=(
            "Builds a register_slides_pdf source plan for one talk and runs it; the lane "
            "records the PDF's SHA-256 and size (slides_local_identity), so status reports a "
            "replaced PDF as stale."
        ),
        handler=run_register_slides,
        arguments=[
            _path("slides/NAME.pdf"),
            _TALK,
            _arg(
                "--pdf-sha256",
                metavar="HEX",
                help="the source_sha256 rvault-video promote printed: refused if the PDF on "
                "disk has other bytes",
            ),
        ],
    )


def _attach_media_parser(subparsers: Any) -> None:
    _command(
        subparsers,
        "attach-media",
        help="record a talk's own recording inside the vault (SHA-256, size, probed duration)",
        description=(
            "Builds an attach_media source plan for one talk and runs it: the recording must be "
            "a regular file inside the vault reached without a symbolic link; it is hashed and "
            "its container duration probed with ffprobe through one descriptor, and stored as "
            "the talk's local_media, from which every reader builds the transcript owner "
            "context (a Whisper or --audio transcript of these bytes then verifies)."
        ),
        handler=run_attach_media,
        arguments=[_path("the recording, e.g. recordings/NAME.wav"), _TALK],
    )


def _record_deck_parser(subparsers: Any) -> None:
    _command(
        subparsers,
        "record-deck",
        help="record a deck's pptx_catalog receipt from its pptx-extraction v4 document",
        description=(
            "Reads a pptx-extraction v4 document stored in the vault through its contract "
            "schema, checks that the deck it names (relative to config.pptx_source_dir, else "
            "the vault root) still has the extracted bytes, and builds the record_pptx "
            "receipt (plus the talk's pptx_path with --talk)."
        ),
        handler=run_record_deck,
        arguments=[
            _arg(
                "extraction",
                metavar="EXTRACTION",
                help="the extraction JSON inside the vault (relative to the working directory)",
            ),
            _arg(
                "--talk", metavar="FILENAME", help="also register the deck as this talk's pptx_path"
            ),
        ],
    )


def _add_talk_parser(subparsers: Any) -> None:
    _command(
        subparsers,
        "add-talk",
        help="add a talk that is not on the shownotes site (with its sources)",
        description="Builds an add_talk source plan (status pending, talk schema 5) and runs it.",
        handler=run_add_talk,
        arguments=[
            _arg("--title", required=True),
            _arg("--conference", required=True),
            _arg("--date", required=True, help="YYYY-MM-DD"),
            _arg("--filename", help="default: DATE-title-slug.md"),
            _arg("--delivery-language", help="e.g. en"),
            _arg("--video-url"),
            _arg("--slides-url"),
            _arg(
                "--transcript",
                metavar="PATH",
                help="a transcript inside the vault (relative to the working directory)",
            ),
            _arg("--transcript-source", choices=TRANSCRIPT_SOURCES),
            _arg("--pptx", metavar="PATH", help="the deck, relative to config.pptx_source_dir"),
            _arg(
                "--slides-pdf",
                metavar="PATH",
                help="a slides PDF inside the vault (relative to the working directory)",
            ),
            _arg(
                "--media",
                metavar="PATH",
                help="the talk's recording inside the vault (relative to the working directory), "
                "as attach-media",
            ),
        ],
    )


def _run(args: argparse.Namespace, plan: SourcePlan | PlanBuilder, command: str) -> int:
    emit(run_sources(args.database, plan, ApplyRequest.from_args(args), command=command))
    return finish(0)


def run_plan(args: argparse.Namespace) -> int:
    return _run(args, decode_source_plan(read_plan_bytes(args.plan)), "sources")


def run_register_transcript(args: argparse.Namespace) -> int:
    if args.fetch_result:
        data = read_plan_bytes(args.path, FETCH_RESULT)
        fetched = FetchedTranscriptRequest(args.talk, data, args.source)
        return _run(args, fetched.build, "register-transcript")
    request = TranscriptRequest(args.talk, args.path, args.source)
    return _run(args, request.build, "register-transcript")


def run_register_slides(args: argparse.Namespace) -> int:
    request = SlidesRequest(args.talk, args.path, args.pdf_sha256)
    return _run(args, request.build, "register-slides")


def run_attach_media(args: argparse.Namespace) -> int:
    return _run(args, MediaRequest(args.talk, args.path).build, "attach-media")


def run_record_deck(args: argparse.Namespace) -> int:
    return _run(args, DeckRequest(args.extraction, args.talk).build, "record-deck")


def run_add_talk(args: argparse.Namespace) -> int:
    request = TalkRequest(
        title=args.title,
        conference=args.conference,
        date=args.date,
        filename=args.filename,
        delivery_language=args.delivery_language,
        video_url=args.video_url,
        slides_url=args.slides_url,
        transcript=args.transcript,
        transcript_source=args.transcript_source,
        pptx=args.pptx,
        slides_pdf=args.slides_pdf,
        media=args.media,
    )
    return _run(args, request.build, "add-talk")
