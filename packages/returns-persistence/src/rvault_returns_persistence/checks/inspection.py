"""Source inspection receipts: closed records, ordered ranges, honest bounds.

The receipt says what the worker actually read. Which sources are complete
*and* absence-capable decides every absence and applicability outcome, so
that set is computed here once and handed to the pattern rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_number
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.delivery_video import missing_video
from rvault_returns_persistence.vocabulary import (
    COMPARISON,
    ENGINE_INSPECTION_FIELDS,
    EVIDENCE_SOURCE_NAMES,
    EVIDENCE_SOURCES,
    INSPECTION_FIELDS,
    RANGE_KEY,
)

VIDEO_TOLERANCE_SECONDS = 1.0


@dataclass
class Inspection:
    declared: set[str] = field(default_factory=set)  # evidence_sources
    inspected: set[str] = field(default_factory=set)  # underlying sources with a range record
    groups: dict[frozenset[str], str] = field(default_factory=dict)  # comparison group -> scope
    ranges: dict[str, list[list[Any]]] = field(default_factory=dict)
    complete: set[str] = field(default_factory=set)
    capable: set[str] = field(default_factory=set)  # complete and absence-capable
    refused: dict[str, str] = field(default_factory=dict)  # source -> why its receipt was refused

    def not_inspected(self, source: str) -> str:
        """Why ``source`` counts as uninspected, for the issues of what cites it.

        A receipt the worker wrote but persistence refused (a delivery_video of a
        talk with no video) is named as refused, with the reason, so the speaker
        is not sent looking for a receipt that is there.
        """
        reason = self.refused.get(source)
        if reason is None:
            return f"{source} has no inspection receipt"
        return f"{source} cannot be cited: its inspection receipt was refused ({reason})"


def is_source_group(used: Any) -> bool:
    """Two or more distinct underlying sources (never source_comparison itself).

    Membership is checked before distinctness, so unhashable members are refused, not raised.
    """
    return (
        isinstance(used, list)
        and len(used) >= 2
        and all(u in EVIDENCE_SOURCES for u in used)
        and len(set(used)) == len(used)
    )


def _bound(ctx: ReturnContext, source: str) -> float | int | None:
    art = ctx.artifacts
    return {
        "transcript": art.transcript_lines,
        "static_slides": art.pdf_pages,
        "native_deck": art.deck_slides,
        "delivery_video": art.video_duration,
    }[source]


def _check_ranges(ctx: ReturnContext, path: str, source: str, ranges: Any) -> bool:
    """Shape and order of one lane; True when the ranges are well formed."""
    if not isinstance(ranges, list) or not ranges:
        ctx.add("range_invalid", path, "ranges are a non-empty array of [start, end] pairs")
        return False
    timed = source == "delivery_video"
    previous_end: float | None = None
    ok = True
    for index, pair in enumerate(ranges):
        pair_path = child(path, index)
        if not isinstance(pair, list) or len(pair) != 2:
            ctx.add("range_invalid", pair_path, "each range is a [start, end] pair")
            ok = False
            continue
        start, end = pair
        if timed:
            valid = (
                is_number(start) and is_number(end) and math.isfinite(start) and math.isfinite(end)
            )
            valid = valid and start >= 0 and end > start
        else:
            valid = is_int(start) and is_int(end) and start >= 1 and end >= start
        if not valid:
            ctx.add(
                "range_invalid",
                pair_path,
                "time ranges are finite seconds >= 0 with end > start"
                if timed
                else "line/page ranges are inclusive positive integers with end >= start",
            )
            ok = False
            continue
        if previous_end is not None and (
            start <= previous_end if not timed else start < previous_end
        ):
            ctx.add(
                "ranges_unordered_or_overlapping",
                pair_path,
                "ranges are ascending and non-overlapping",
            )
            ok = False
        previous_end = end
    return ok


def range_complete(source: str, ranges: list[list[Any]], bound: float | int | None) -> bool:
    """Ranges start at 1 (or 0 s), reach the verified final bound and leave no gap."""
    if bound is None:
        return False
    if source == "delivery_video":
        expected_start: float = 0.0
        for start, end in ranges:
            if start > expected_start:
                return False
            expected_start = end
        return expected_start >= bound - VIDEO_TOLERANCE_SECONDS
    next_line = 1
    for start, end in ranges:
        if start > next_line:
            return False
        next_line = end + 1
    return next_line - 1 >= bound


def declared_sources(ctx: ReturnContext, po: dict[str, Any], path: str) -> Inspection:
    """The Inspection holding the sources ``evidence_sources`` declares (each known, once)."""
    result = Inspection()
    sources = po.get("evidence_sources")
    src_path = child(path, "evidence_sources")
    if "evidence_sources" not in po:
        return result
    if not isinstance(sources, list):
        ctx.add("wrong_type", src_path, "evidence_sources is an array of source names")
        return result
    for index, name in enumerate(sources):
        if name not in EVIDENCE_SOURCE_NAMES:
            ctx.add(
                "evidence_source_unknown",
                child(src_path, index),
                f"{name!r} is not an evidence source",
            )
        elif name in result.declared:
            ctx.add("duplicate_entry", child(src_path, index), f"{name!r} is listed twice")
        else:
            result.declared.add(name)
    return result


def check_inspection(ctx: ReturnContext, po: dict[str, Any], path: str) -> Inspection:
    """The declared sources, their receipts, and what the receipts prove complete."""
    result = declared_sources(ctx, po, path)
    records = po.get("source_inspection")
    rec_path = child(path, "source_inspection")
    if not isinstance(records, list):
        if "source_inspection" in po:
            ctx.add("wrong_type", rec_path, "source_inspection is an array of receipts")
        return result
    record_sources: set[str] = set()
    for index, record in enumerate(records):
        source = _check_receipt(ctx, child(rec_path, index), record, result)
        if source is not None:
            record_sources.add(source)
    for group in result.groups:
        missing = sorted(group - result.inspected)
        if missing:
            ctx.add(
                "comparison_group_invalid",
                rec_path,
                f"compared sources {missing} have no range receipt",
            )
    sources = po.get("evidence_sources")
    if "evidence_sources" in po and isinstance(sources, list) and record_sources != result.declared:
        ctx.add(
            "inspection_sources_mismatch",
            child(path, "evidence_sources"),
            f"evidence_sources {sorted(result.declared)} must "
            f"equal the receipt sources {sorted(record_sources)}",
        )
    result.capable = absence_capable(
        result.complete, ctx.artifacts.pdf_is_video_extracted, ctx.ret.get("slide_source")
    )
    return result


def _check_receipt(ctx: ReturnContext, r_path: str, record: Any, result: Inspection) -> str | None:
    """One receipt's closed fields and ranges, kept in ``result``; its source (None: unnamed)."""
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("source"), str)
        or record["source"] not in INSPECTION_FIELDS
    ):
        ctx.add(
            "inspection_record_shape", r_path, "each receipt is an object naming a known source"
        )
        return None
    source = record["source"]
    for key in sorted(set(record) - INSPECTION_FIELDS[source]):
        code = (
            "engine_owned_field" if key in ENGINE_INSPECTION_FIELDS else "inspection_record_shape"
        )
        ctx.add(code, child(r_path, key), f"{key!r} is not a worker field of a {source} receipt")
    for key in sorted(INSPECTION_FIELDS[source] - set(record)):
        ctx.add(
            "inspection_record_shape",
            child(r_path, key),
            f"a {source} receipt requires {key!r}",
        )
    if source == COMPARISON:
        _check_comparison_record(ctx, r_path, record, result)
    elif source in result.ranges:
        ctx.add("inspection_duplicate_source", r_path, f"{source} has more than one receipt")
    elif RANGE_KEY[source] in record and _source_exists(ctx, r_path, source, result):
        _check_receipt_ranges(ctx, child(r_path, RANGE_KEY[source]), source, record, result)
    return source


def _source_exists(ctx: ReturnContext, r_path: str, source: str, result: Inspection) -> bool:
    """A delivery_video receipt needs a video to have been watched (``delivery_video``).

    Without one the transcript's timing receipt would bound the ranges, so an
    audio-only recording would count as delivery video; the receipt is refused
    and the source stays uninspected (its citations and detections are refused too,
    their issues naming this refusal: ``result.refused``).
    """
    if source != "delivery_video":
        return True
    reason = missing_video(ctx.vault_root, ctx.talk, ctx.artifacts)
    if reason is None:
        return True
    ctx.add("delivery_video_unavailable", r_path, f"no delivery_video to inspect: {reason}")
    result.refused[source] = f"delivery_video_unavailable at {r_path}: {reason}"
    return False


def _check_receipt_ranges(
    ctx: ReturnContext, path: str, source: str, record: dict[str, Any], result: Inspection
) -> None:
    """Well-formed ranges inspect the source; within the artifact's bound they may complete it."""
    ranges = record[RANGE_KEY[source]]
    if not _check_ranges(ctx, path, source, ranges):
        return
    result.ranges[source] = ranges
    result.inspected.add(source)
    bound = _bound(ctx, source)
    if bound is None:
        return
    slack = VIDEO_TOLERANCE_SECONDS if source == "delivery_video" else 0
    if ranges[-1][1] > bound + slack:
        ctx.add(
            "range_exceeds_artifact",
            path,
            f"the ranges reach {ranges[-1][1]} but the artifact ends at {bound}",
        )
    elif range_complete(source, ranges, bound):
        result.complete.add(source)


def absence_capable(
    complete: set[str], pdf_is_video_extracted: bool, slide_source: object
) -> set[str]:
    """The completely covered sources that can establish an absence or applicability result.

    Only a complete transcript and a complete authored PDF can: a video-extracted PDF
    (by artifact or by the slide_source) shows what was on screen, not what was authored.
    """
    capable = {"transcript"} & complete
    if (
        "static_slides" in complete
        and not pdf_is_video_extracted
        and slide_source != "video_extracted"
    ):
        capable.add("static_slides")
    return capable


def _check_comparison_record(
    ctx: ReturnContext, r_path: str, record: dict[str, Any], result: Inspection
) -> None:
    used = record.get("evidence_sources_used")
    scope = record.get("comparison_scope")
    if scope not in ("full", "partial"):
        ctx.add(
            "inspection_record_shape",
            child(r_path, "comparison_scope"),
            "comparison_scope is full or partial",
        )
    if not is_source_group(used):
        ctx.add(
            "comparison_group_invalid",
            child(r_path, "evidence_sources_used"),
            "a comparison names two or more distinct underlying sources (never source_comparison)",
        )
        return
    group = frozenset(used)
    if group in result.groups:
        ctx.add(
            "comparison_group_invalid",
            r_path,
            "comparison records must name distinct underlying groups",
        )
        return
    result.groups[group] = scope if isinstance(scope, str) else ""
