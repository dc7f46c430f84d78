"""Closed citation shapes per channel, checked against catalog and artifacts.

A citation is the auditable proof of a detection. The worker supplies only
the source, the channel and the smallest locator it can honestly claim;
everything persistence stamps later (line numbers, hashes, metadata values)
is refused here so it can never be smuggled in from an older analysis.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import is_number
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks_inspection import VIDEO_TOLERANCE_SECONDS, Inspection
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.quote_locator import near_miss
from rvault_returns_persistence.vocabulary import (
    CITATION_FIELDS,
    ENGINE_CITATION_FIELDS,
    EVIDENCE_SOURCES,
    LOCATING_CHANNELS,
    SOURCE_CHANNELS,
    TALK_METADATA_FIELDS,
)

MIN_QUOTE_WORDS = 4


def check_citation(
    ctx: ReturnContext, path: str, cit: Any, entry: CatalogEntry, inspection: Inspection
) -> tuple[str, str] | None:
    """Check one citation; return its (source, channel) when it is well formed."""
    if not isinstance(cit, dict):
        ctx.add("citation_shape", path, "a citation is an object")
        return None
    source, channel = cit.get("source"), cit.get("channel")
    if not isinstance(source, str) or not isinstance(channel, str):
        ctx.add("citation_shape", path, "a citation names an underlying source and a known channel")
        return None
    if source not in EVIDENCE_SOURCES or channel not in CITATION_FIELDS:
        ctx.add("citation_shape", path, "a citation names an underlying source and a known channel")
        return None
    required, optional = CITATION_FIELDS[channel]
    ok = True
    for key in sorted(set(cit) - required - optional):
        if key in ENGINE_CITATION_FIELDS or key in ("start_seconds", "end_seconds"):
            ctx.add(
                "engine_owned_field",
                child(path, key),
                f"{key!r} is stamped by persistence, never by the worker",
            )
        else:
            ctx.add(
                "citation_shape",
                child(path, key),
                f"{key!r} is not a field of a {channel} citation",
            )
        ok = False
    for key in sorted(required - set(cit)):
        ctx.add("citation_shape", child(path, key), f"a {channel} citation requires {key!r}")
        ok = False
    if channel not in SOURCE_CHANNELS[source]:
        ctx.add(
            "citation_channel_source_mismatch",
            child(path, "channel"),
            f"{source} cannot be cited through {channel}",
        )
        ok = False
    if channel not in entry.evidence_channels:
        ctx.add(
            "citation_channel_not_permitted",
            child(path, "channel"),
            f"{entry.id} permits only {sorted(entry.evidence_channels)}",
        )
        ok = False
    if ctx.version >= 4 and source not in inspection.inspected:
        ctx.add(
            "citation_source_not_inspected",
            child(path, "source"),
            f"{source} has no inspection receipt",
        )
        ok = False
    if channel in ("transcript", "timed_transcript"):
        ok &= _check_quote(ctx, path, cit)
        if channel == "timed_transcript" and ok and not ctx.timing_usable:
            ctx.add(
                "timed_transcript_unavailable",
                child(path, "channel"),
                "timed_transcript needs a current timing receipt beside the transcript",
            )
            ok = False
    elif channel in ("slides", "slide_sequence"):
        ok &= _check_slides(ctx, path, cit, source, channel)
    elif channel == "video":
        ok &= _check_video(ctx, path, cit)
    else:
        field = cit.get("field")
        if (
            not isinstance(field, str)
            or field not in TALK_METADATA_FIELDS
            or field not in entry.metadata_fields
        ):
            ctx.add(
                "metadata_field_not_permitted",
                child(path, "field"),
                f"{entry.id} accepts talk_metadata only for {sorted(entry.metadata_fields)}",
            )
            ok = False
    return (source, channel) if ok else None


def _check_quote(ctx: ReturnContext, path: str, cit: dict[str, Any]) -> bool:
    quote = cit.get("quote")
    ok = True
    if not isinstance(quote, str) or len(quote.split()) < MIN_QUOTE_WORDS:
        ctx.add(
            "quote_too_short",
            child(path, "quote"),
            f"a transcript quote has at least {MIN_QUOTE_WORDS} words",
        )
        ok = False
    if "translation" in cit and not isinstance(cit["translation"], str):
        ctx.add("wrong_type", child(path, "translation"), "translation is a string")
        ok = False
    located = ctx.transcript_text
    if ok and ctx.version == 5 and located is not None:
        _, occurrences = located.find_once(quote)
        if occurrences != 1:
            near = near_miss(located, quote) if occurrences == 0 else None
            ctx.add(
                "citation_quote_ambiguous" if occurrences > 1 else "citation_quote_not_found",
                child(path, "quote"),
                "the normalized quote must occur exactly once in the transcript "
                f"(found {'more than once' if occurrences > 1 else 'nowhere'}); quote the exact "
                "source-language words, long enough to be unique"
                + (f"; {near.describe()}" if near is not None else ""),
            )
            ok = False
    if ctx.non_english and not is_text(cit.get("translation")):
        ctx.add(
            "translation_required",
            child(path, "translation"),
            "non-English delivery requires an English translation",
        )
        ok = False
    return ok


def _check_slides(
    ctx: ReturnContext, path: str, cit: dict[str, Any], source: str, channel: str
) -> bool:
    numbers = cit.get("slide_numbers")
    n_path = child(path, "slide_numbers")
    if not (isinstance(numbers, list) and numbers and all(is_int(n) and n >= 1 for n in numbers)):
        ctx.add(
            "slide_numbers_invalid",
            n_path,
            "slide_numbers is a non-empty array of positive integers",
        )
        return False
    if sorted(set(numbers)) != numbers:
        ctx.add("slide_numbers_invalid", n_path, "slide_numbers are ascending and distinct")
        return False
    if channel == "slide_sequence" and (
        len(numbers) < 2 or any(b != a + 1 for a, b in itertools.pairwise(numbers))
    ):
        ctx.add(
            "slide_sequence_not_consecutive",
            n_path,
            "a slide_sequence has at least two consecutive slides",
        )
        return False
    bound = ctx.artifacts.pdf_pages if source == "static_slides" else ctx.artifacts.deck_slides
    if bound is not None and numbers[-1] > bound:
        ctx.add("slide_number_out_of_range", n_path, f"the {source} artifact has {bound} slides")
        return False
    return True


def _check_video(ctx: ReturnContext, path: str, cit: dict[str, Any]) -> bool:
    start, end = cit.get("start_seconds"), cit.get("end_seconds")
    if not (
        is_number(start)
        and is_number(end)
        and math.isfinite(start)
        and math.isfinite(end)
        and 0 <= start < end
    ):
        ctx.add(
            "video_interval_invalid",
            path,
            "a video interval is finite seconds with 0 <= start < end",
        )
        return False
    bound = ctx.artifacts.video_duration
    if bound is not None and end > bound + VIDEO_TOLERANCE_SECONDS:
        ctx.add(
            "video_interval_out_of_range",
            child(path, "end_seconds"),
            f"the video lasts {bound} seconds",
        )
        return False
    return True


def locates(cited: list[tuple[str, str]], source: str) -> bool:
    """Some citation locates proof from ``source`` (talk_metadata only supplements)."""
    return any(s == source and ch in LOCATING_CHANNELS[s] for s, ch in cited)
