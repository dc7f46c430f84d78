"""The handlers behind ``rvault-db sources`` and its shortcuts (imported on use)."""

from __future__ import annotations

import argparse

from rvault_contracts.cli import emit, finish

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
