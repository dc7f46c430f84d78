"""Source plans (``db-source-plan`` v1): strict JSON, then the contract schema.

Field sets, enums, patterns and the plan version live in the registered
schema only; decoding here adds what the schema cannot say in a useful way
(an unknown kind is refused with the list of valid ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, json_path, loads_strict
from rvault_contracts.suggest import closest, did_you_mean

from rvault_tracking_db.mutations.plan import MISSING_MARKER
from rvault_tracking_db.schema_refusal import check_document, kinds_of

__all__ = ["MISSING_MARKER", "SourceChange", "SourcePlan", "decode_source_plan"]

ARTIFACT = "db-source-plan"
VERSION = 1

REGISTER_TRANSCRIPT = "register_transcript"
SET_VIDEO_URL = "set_video_url"
SET_SLIDES_URL = "set_slides_url"
REGISTER_PPTX = "register_pptx"
REGISTER_SLIDES_PDF = "register_slides_pdf"
SET_SOURCE_RELATION = "set_source_relation"
ADD_TALK = "add_talk"
RECORD_PPTX = "record_pptx"
ATTACH_MEDIA = "attach_media"
SET_SOURCE_IDENTITY = "set_source_identity"
SET_SOURCE_REJECTIONS = "set_source_rejections"
SET_DECK_BINDING = "set_deck_binding"
SET_TALK_STATUS = "set_talk_status"


@dataclass(frozen=True)
class SourceChange:
    kind: str
    path: str
    body: dict[str, Any]


@dataclass(frozen=True)
class SourcePlan:
    document: dict[str, Any]
    changes: tuple[SourceChange, ...]


def decode_source_plan(data: bytes) -> SourcePlan:
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise Refusal(exc.code, f"plan: {exc.message}", exc.path) from None
    return parse_source_plan(document)


def parse_source_plan(document: Any) -> SourcePlan:
    kinds = kinds_of(ARTIFACT, VERSION)
    mutations = document.get("mutations") if isinstance(document, dict) else None
    if isinstance(mutations, list):
        for index, item in enumerate(mutations):
            kind = item.get("kind") if isinstance(item, dict) else None
            if isinstance(item, dict) and "kind" in item and kind not in kinds:
                raise Refusal(
                    "unknown_mutation_kind",
                    f"unknown source change kind {kind!r}{did_you_mean(str(kind), kinds)}",
                    json_path("$", "mutations", index, "kind"),
                    valid_kinds=kinds,
                    closest=closest(str(kind), kinds),
                    hint="use one of: " + ", ".join(kinds),
                )
    check_document(ARTIFACT, VERSION, document, what="source plan")
    changes = tuple(
        SourceChange(item["kind"], json_path("$", "mutations", index), item)
        for index, item in enumerate(document["mutations"])
    )
    return SourcePlan(document, changes)
