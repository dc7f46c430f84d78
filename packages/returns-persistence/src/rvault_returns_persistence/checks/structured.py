"""structured_data and verbatim_examples: registered snapshots only, closed ledgers.

Versions 2-5 replace snapshots atomically, so anything the merge contract
does not name is rejected instead of acquiring accidental merge semantics;
additive experiments live under ``extensions``. Version 1 keeps its
historical type-only behaviour (``legacy``: only :func:`structured_object`
and :func:`verbatim_object`).
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import (
    AUTHORED_SLIDE_FIELDS,
    CONTENT_TYPES,
    IMAGE_COMPOSITIONS,
    LEDGER_ROW_KEYS,
    STRUCTURED_OBJECTS,
    STRUCTURED_SCALARS,
    VERBATIM_LANES,
)


def _kind_ok(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "count":
        return is_int(value) and value >= 0
    if kind == "string_list":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return True  # ledger: checked row by row


def structured_object(ctx: ReturnContext) -> dict[str, Any] | None:
    """structured_data when the return carries it as an object (else the issue, and None)."""
    data = ctx.ret.get("structured_data")
    if "structured_data" not in ctx.ret:
        return None
    if not isinstance(data, dict):
        ctx.add(
            "wrong_type", child(ctx.path, "structured_data"), "structured_data must be an object"
        )
        return None
    return data


def check_structured(ctx: ReturnContext) -> None:
    """Registered snapshot fields of their kinds, their dependent groups, the slide ledger."""
    data = structured_object(ctx)
    if data is None:
        return
    path = child(ctx.path, "structured_data")
    _check_registered(ctx, path, data)
    _check_co_presenters(ctx, path, data)
    _check_image_sources(ctx, path, data)
    _check_ledger(ctx, path, data)
    if ctx.untrusted_video:
        for key in AUTHORED_SLIDE_FIELDS:
            if key in data:
                ctx.add(
                    "untrusted_manifest_authored_field",
                    child(path, key),
                    "an untrusted or missing video-extraction "
                    "manifest cannot supply authored-slide evidence",
                )


def _check_registered(ctx: ReturnContext, path: str, data: dict[str, Any]) -> None:
    """Every field has a registered snapshot policy and the kind it registers."""
    for key, value in data.items():
        key_path = child(path, key)
        if key in STRUCTURED_SCALARS:
            if not _kind_ok(STRUCTURED_SCALARS[key], value):
                ctx.add(
                    "structured_field_type",
                    key_path,
                    f"{key} must be a {STRUCTURED_SCALARS[key].replace('_', ' ')}",
                )
        elif key in STRUCTURED_OBJECTS:
            if not isinstance(value, dict):
                ctx.add("structured_field_type", key_path, f"{key} is a registered snapshot object")
        else:
            ctx.add(
                "structured_field_unregistered",
                key_path,
                f"{key!r} has no registered snapshot policy; put "
                "additive data under structured_data.extensions",
            )


def _check_co_presenters(ctx: ReturnContext, path: str, data: dict[str, Any]) -> None:
    flag = data.get("co_presenter")
    names = data.get("co_presenters")
    if flag is True and not (isinstance(names, list) and names and all(is_text(n) for n in names)):
        ctx.add(
            "co_presenters_required",
            child(path, "co_presenters"),
            "co_presenter true requires non-empty co_presenters names",
        )
    if flag is False and isinstance(names, list) and names:
        ctx.add(
            "co_presenters_inconsistent",
            child(path, "co_presenters"),
            "co_presenter false cannot list co-presenters",
        )
    if isinstance(names, list) and len(set(n for n in names if isinstance(n, str))) != len(names):
        ctx.add(
            "duplicate_entry", child(path, "co_presenters"), "co_presenters names must be distinct"
        )


def _check_image_sources(ctx: ReturnContext, path: str, data: dict[str, Any]) -> None:
    dist = data.get("image_source_distribution")
    if "image_source_distribution" in data and isinstance(dist, dict):
        for key, value in dist.items():
            if not key.strip() or not is_int(value) or value < 0:
                ctx.add(
                    "image_source_distribution_invalid",
                    child(child(path, "image_source_distribution"), key),
                    "image_source_distribution maps non-empty "
                    "provenance classes to non-negative integer counts",
                )
        if not is_text(data.get("image_source_distribution_basis")):
            ctx.add(
                "image_source_distribution_basis_required",
                child(path, "image_source_distribution_basis"),
                "the distribution needs a non-empty basis (unit, "
                "dominance rule, provenance evidence, unknown rule)",
            )
    elif "image_source_distribution_basis" in data and "image_source_distribution" not in data:
        ctx.add(
            "image_source_distribution_basis_orphan",
            child(path, "image_source_distribution_basis"),
            "the basis and the distribution form one dependent group",
        )


def _check_ledger(ctx: ReturnContext, path: str, data: dict[str, Any]) -> None:
    """per_slide_visual: one closed row per slide, and the totals it implies."""
    rows = _ledger_rows(ctx, path, data)
    if rows is None:
        return
    ledger_path = child(path, "per_slide_visual")
    for index, row in enumerate(rows):
        _check_ledger_row(ctx, child(ledger_path, index), index, row)
    _check_ledger_totals(ctx, path, data, rows)


def _ledger_rows(ctx: ReturnContext, path: str, data: dict[str, Any]) -> list[Any] | None:
    """The ledger's rows when it is an array sized by a usable slide_count (else None)."""
    if "per_slide_visual" not in data:
        return None
    ledger_path = child(path, "per_slide_visual")
    rows = data["per_slide_visual"]
    count = data.get("slide_count")
    if not isinstance(rows, list):
        ctx.add("structured_field_type", ledger_path, "per_slide_visual is an array of slide rows")
        return None
    if not is_int(count) or count < 1:
        ctx.add(
            "ledger_slide_count_required",
            child(path, "slide_count"),
            "per_slide_visual requires a positive integer slide_count",
        )
        return None
    if len(rows) != count:
        ctx.add(
            "ledger_incomplete",
            ledger_path,
            f"the ledger needs exactly {count} rows, one per slide",
        )
    return rows


def _check_ledger_row(ctx: ReturnContext, row_path: str, index: int, row: Any) -> None:
    """One row: the seven keys, its slide number, closed vocabularies, boolean flags."""
    if not isinstance(row, dict):
        ctx.add("ledger_row_keys", row_path, "each ledger row is an object with the seven row keys")
        return
    if set(row) != set(LEDGER_ROW_KEYS):
        extra = sorted(set(row) - set(LEDGER_ROW_KEYS))
        missing = sorted(set(LEDGER_ROW_KEYS) - set(row))
        ctx.add(
            "ledger_row_keys",
            row_path,
            f"row keys are exactly the seven documented keys (extra {extra}, missing {missing})",
        )
    if row.get("slide_number") != index + 1 or not is_int(row.get("slide_number")):
        ctx.add(
            "ledger_incomplete",
            child(row_path, "slide_number"),
            f"row {index + 1} must carry slide_number {index + 1}",
        )
    if not is_text(row.get("background_color_name")):
        ctx.add(
            "ledger_row_type",
            child(row_path, "background_color_name"),
            "background_color_name is a non-empty label",
        )
    for key, vocabulary in (
        ("content_type", CONTENT_TYPES),
        ("image_composition", IMAGE_COMPOSITIONS),
    ):
        if row.get(key) not in vocabulary:
            ctx.add(
                "ledger_vocabulary",
                child(row_path, key),
                f"{key} is outside the closed vocabulary",
            )
    for flag in ("has_speech_bubble", "has_starburst", "has_footer"):
        if flag in row and not isinstance(row[flag], bool):
            ctx.add("ledger_row_type", child(row_path, flag), f"{flag} is a boolean")


def _check_ledger_totals(
    ctx: ReturnContext, path: str, data: dict[str, Any], rows: list[Any]
) -> None:
    """background_color_sequence and meme_count reproduce what the rows say."""
    objects = [row for row in rows if isinstance(row, dict)]
    backgrounds = [row.get("background_color_name") for row in objects]
    memes = sum(row.get("content_type") in ("meme_only", "meme_with_text") for row in objects)
    sequence = data.get("background_color_sequence")
    if isinstance(sequence, list) and sequence != backgrounds:
        ctx.add(
            "background_sequence_mismatch",
            child(path, "background_color_sequence"),
            "background_color_sequence must reproduce the ledger's background labels in order",
        )
    meme_count = data.get("meme_count")
    if is_int(meme_count) and meme_count != memes:
        ctx.add(
            "meme_count_mismatch",
            child(path, "meme_count"),
            f"meme_count must equal the {memes} meme rows of the ledger",
        )


def verbatim_object(ctx: ReturnContext) -> dict[str, Any] | None:
    """verbatim_examples when the return carries it as an object (else the issue, and None)."""
    data = ctx.ret.get("verbatim_examples")
    if "verbatim_examples" not in ctx.ret:
        return None
    if not isinstance(data, dict):
        ctx.add(
            "wrong_type",
            child(ctx.path, "verbatim_examples"),
            "verbatim_examples must be an object",
        )
        return None
    return data


def check_verbatim(ctx: ReturnContext) -> None:
    """Only the six lanes, each an array of strings."""
    data = verbatim_object(ctx)
    if data is None:
        return
    path = child(ctx.path, "verbatim_examples")
    for key, value in data.items():
        if key not in VERBATIM_LANES:
            ctx.add(
                "verbatim_lane_unknown",
                child(path, key),
                f"{key!r} is not one of the six verbatim lanes",
            )
        elif not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            ctx.add(
                "verbatim_lane_type", child(path, key), "a verbatim lane is an array of strings"
            )
