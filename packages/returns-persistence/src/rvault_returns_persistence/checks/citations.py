"""Closed citation shapes per channel, checked against catalog and artifacts.

A citation is the auditable proof of a detection. The worker supplies only
the source, the channel and the smallest locator it can honestly claim;
everything persistence stamps later (line numbers, hashes, metadata values)
is refused here so it can never be smuggled in from an older analysis.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import is_number
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks.inspection import VIDEO_TOLERANCE_SECONDS, Inspection
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


QuoteRule = Callable[[ReturnContext, str, dict[str, Any]], bool]


def check_citation(
    ctx: ReturnContext,
    path: str,
    cit: Any,
    entry: CatalogEntry,
    inspection: Inspection,
    quote: QuoteRule,
) -> tuple[str, str] | None:
    """Check one citation; return its (source, channel) when it is well formed.

    ``quote`` is the version's rule for a transcript quote (the current one
    locates it in the transcript: :func:`check_located_quote`).
    """
    named = _source_and_channel(ctx, path, cit)
    if named is None:
        return None
    source, channel = named
    ok = _check_fields(ctx, path, cit, channel)
    ok &= _check_permitted(ctx, path, source, channel, entry, inspection)
    if channel in ("transcript", "timed_transcript"):
        ok &= quote(ctx, path, cit)
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
        ok &= _check_metadata(ctx, path, cit, entry)
    return (source, channel) if ok else None


def _source_and_channel(ctx: ReturnContext, path: str, cit: Any) -> tuple[str, str] | None:
    """The citation's underlying source and known channel (None: the shape issue is added)."""
    if not isinstance(cit, dict):
        ctx.add("citation_shape", path, "a citation is an object")
        return None
    source, channel = cit.get("source"), cit.get("channel")
    if (
        not isinstance(source, str)
        or not isinstance(channel, str)
        or source not in EVIDENCE_SOURCES
        or channel not in CITATION_FIELDS
    ):
        ctx.add("citation_shape", path, "a citation names an underlying source and a known channel")
        return None
    return source, channel


def _check_fields(ctx: ReturnContext, path: str, cit: dict[str, Any], channel: str) -> bool:
    """Exactly the channel's worker fields: anything persistence stamps is refused."""
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
    return ok


def _check_permitted(
    ctx: ReturnContext,
    path: str,
    source: str,
    channel: str,
    entry: CatalogEntry,
    inspection: Inspection,
) -> bool:
    """The source speaks through the channel, the entry accepts it, the source was inspected."""
    ok = True
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
    if source not in inspection.inspected:
        ctx.add(
            "citation_source_not_inspected",
            child(path, "source"),
            inspection.not_inspected(source),
        )
        ok = False
    return ok


def _check_metadata(
    ctx: ReturnContext, path: str, cit: dict[str, Any], entry: CatalogEntry
) -> bool:
    """A talk_metadata citation names a field the entry accepts."""
    field = cit.get("field")
    if isinstance(field, str) and field in TALK_METADATA_FIELDS and field in entry.metadata_fields:
        return True
    ctx.add(
        "metadata_field_not_permitted",
        child(path, "field"),
        f"{entry.id} accepts talk_metadata only for {sorted(entry.metadata_fields)}",
    )
    return False


def check_quote(ctx: ReturnContext, path: str, cit: dict[str, Any]) -> bool:
    """A transcript quote long enough to mean something, translated when not English."""
    ok = _check_quote_shape(ctx, path, cit)
    return _check_translation(ctx, path, cit) and ok


def check_located_quote(ctx: ReturnContext, path: str, cit: dict[str, Any]) -> bool:
    """:func:`check_quote`, and the quote occurs exactly once in the transcript (current)."""
    ok = _check_quote_shape(ctx, path, cit) and _check_located(ctx, path, cit["quote"])
    return _check_translation(ctx, path, cit) and ok


def _check_quote_shape(ctx: ReturnContext, path: str, cit: dict[str, Any]) -> bool:
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
    return ok


def _check_located(ctx: ReturnContext, path: str, quote: str) -> bool:
    """The normalized quote occurs once (an unreadable transcript is the artifact rules' to say)."""
    located = ctx.transcript_text
    if located is None:
        return True
    _, occurrences = located.find_once(quote)
    if occurrences == 1:
        return True
    near = near_miss(located, quote) if occurrences == 0 else None
    ctx.add(
        "citation_quote_ambiguous" if occurrences > 1 else "citation_quote_not_found",
        child(path, "quote"),
        "the normalized quote must occur exactly once in the transcript "
        f"(found {'more than once' if occurrences > 1 else 'nowhere'}); quote the exact "
        "source-language words, long enough to be unique"
        + (f"; {near.describe()}" if near is not None else ""),
    )
    return False


def _check_translation(ctx: ReturnContext, path: str, cit: dict[str, Any]) -> bool:
    if ctx.non_english and not is_text(cit.get("translation")):
        ctx.add(
            "translation_required",
            child(path, "translation"),
            "non-English delivery requires an English translation",
        )
        return False
    return True


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
