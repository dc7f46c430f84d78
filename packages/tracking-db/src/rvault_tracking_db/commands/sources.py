"""``rvault-db sources`` and its shortcuts: the source-lane writer.

``sources DB PLAN`` runs a ``db-source-plan`` v1 document;
``register-transcript``, ``register-slides``, ``record-deck`` and
``add-talk`` build that plan from their arguments and the database as it is
now. All five follow the one apply protocol (dry run by default, ``--apply
--expected-sha256 HEX`` to write) and print ``db-source-report`` v1.
"""

from __future__ import annotations

from typing import Any

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.commands.lazy import lazy_handler

_RUN = "rvault_tracking_db.commands.sources_run"
TRANSCRIPT_SOURCES = ("youtube_auto", "whisper", "manual", "none")


def register(subparsers: Any) -> None:
    sources = subparsers.add_parser(
        "sources",
        help="register where talks' evidence comes from (source-lane plan, dry-run by default)",
        description=(
            "Runs a source plan (db-source-plan v1: register_transcript, set_video_url, "
            "set_slides_url, register_pptx, register_slides_pdf, set_source_relation, add_talk, "
            "record_pptx), each bound to the prior value it expects, as one transaction. "
            "Artifacts must be readable under the vault (decks: config.pptx_source_dir) without "
            "links; capabilities are re-derived; an analysed talk whose source changed moves "
            "to needs-reprocessing."
        ),
    )
    sources.add_argument("database", help="path of tracking-database.json")
    sources.add_argument("plan", help="path of the plan JSON file, or - for stdin")
    apply_protocol.add_arguments(sources)
    sources.set_defaults(handler=lazy_handler(_RUN, "run_plan"))

    transcript = subparsers.add_parser(
        "register-transcript",
        help="register a talk's vault-relative transcript (e.g. a non-YouTube talk)",
        description="Builds a register_transcript source plan for one talk and runs it.",
    )
    transcript.add_argument("database", help="path of tracking-database.json")
    transcript.add_argument(
        "path",
        metavar="PATH",
        help="transcripts/NAME.txt (vault-relative, or absolute inside the vault)",
    )
    transcript.add_argument("--talk", required=True, metavar="FILENAME", help="the talk's filename")
    transcript.add_argument(
        "--source",
        choices=TRANSCRIPT_SOURCES,
        help="how the transcript was obtained (omit when unknown: it is never guessed)",
    )
    apply_protocol.add_arguments(transcript)
    transcript.set_defaults(handler=lazy_handler(_RUN, "run_register_transcript"))

    slides = subparsers.add_parser(
        "register-slides",
        help="record a promoted slides/ID.pdf (rvault-video promote) as slides_local_path",
        description="Builds a register_slides_pdf source plan for one talk and runs it.",
    )
    slides.add_argument("database", help="path of tracking-database.json")
    slides.add_argument(
        "path",
        metavar="PATH",
        help="slides/NAME.pdf (vault-relative, or absolute inside the vault)",
    )
    slides.add_argument("--talk", required=True, metavar="FILENAME", help="the talk's filename")
    apply_protocol.add_arguments(slides)
    slides.set_defaults(handler=lazy_handler(_RUN, "run_register_slides"))

    deck = subparsers.add_parser(
        "record-deck",
        help="record a deck's pptx_catalog receipt from its pptx-extraction v4 document",
        description=(
            "Reads a pptx-extraction v4 document stored in the vault through its contract "
            "schema, checks that the deck it names (relative to config.pptx_source_dir, else "
            "the vault root) still has the extracted bytes, and builds the record_pptx "
            "receipt (plus the talk's pptx_path with --talk)."
        ),
    )
    deck.add_argument("database", help="path of tracking-database.json")
    deck.add_argument(
        "extraction", metavar="EXTRACTION", help="the extraction JSON inside the vault"
    )
    deck.add_argument(
        "--talk", metavar="FILENAME", help="also register the deck as this talk's pptx_path"
    )
    apply_protocol.add_arguments(deck)
    deck.set_defaults(handler=lazy_handler(_RUN, "run_record_deck"))

    talk = subparsers.add_parser(
        "add-talk",
        help="add a talk that is not on the shownotes site (with its sources)",
        description="Builds an add_talk source plan (status pending, talk schema 5) and runs it.",
    )
    talk.add_argument("database", help="path of tracking-database.json")
    talk.add_argument("--title", required=True)
    talk.add_argument("--conference", required=True)
    talk.add_argument("--date", required=True, help="YYYY-MM-DD")
    talk.add_argument("--filename", help="default: DATE-title-slug.md")
    talk.add_argument("--delivery-language", help="e.g. en")
    talk.add_argument("--video-url")
    talk.add_argument("--slides-url")
    talk.add_argument(
        "--transcript", metavar="PATH", help="a vault-relative transcript to register"
    )
    talk.add_argument("--transcript-source", choices=TRANSCRIPT_SOURCES)
    talk.add_argument("--pptx", metavar="PATH", help="the deck, relative to config.pptx_source_dir")
    talk.add_argument("--slides-pdf", metavar="PATH", help="a vault-relative slides/NAME.pdf")
    apply_protocol.add_arguments(talk)
    talk.set_defaults(handler=lazy_handler(_RUN, "run_add_talk"))
