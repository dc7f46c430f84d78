"""What the identity lanes check beyond their schema, before a value is written.

- ``set_source_identity``: the identity must describe the recording the talk
  names now (its ``video_id`` and any ``webpage_video_id`` equal the ID in
  ``video_url``/``youtube_id``); a capture of another recording is never
  stored on this talk, and a captured webpage URL never becomes the talk's
  ``video_url`` (that is ``set_video_url``'s decision, a reviewer's).
- ``set_source_rejections``: each entry's ``verified_at`` is a real
  timezone-aware timestamp, and no entry may reject the talk's active
  ``video_url``/``slides_url`` at that point of the plan: remove the active
  source first (``set_video_url`` with ``delete``), then record why.
- ``set_deck_binding``: the proof is about the deck the talk uses and was not
  contradicted (``record-deck`` refuses that binding before any plan).

The talk value passed in is the candidate as the plan has changed it so far.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import json_path

from rvault_tracking_db.identity.deck_binding import CONTRADICTED
from rvault_tracking_db.identity.recording import catalog_video_id
from rvault_tracking_db.rejections import match_rejection
from rvault_tracking_db.sources.plan import (
    SET_DECK_BINDING,
    SET_SOURCE_IDENTITY,
    SET_SOURCE_REJECTIONS,
)

KINDS = frozenset({SET_SOURCE_IDENTITY, SET_SOURCE_REJECTIONS, SET_DECK_BINDING})
_HINT = "dry-run again after reviewing the value against the talk as it is now"


def check_identity_value(kind: str, talk: Mapping[str, Any], value: Any, where: str) -> None:
    """Refuse a value its lane must never write on this talk."""
    if kind == SET_SOURCE_IDENTITY:
        _identity(talk, value, where)
    elif kind == SET_SOURCE_REJECTIONS:
        _rejections(talk, value, where)
    elif kind == SET_DECK_BINDING:
        _binding(talk, value, where)


def _identity(talk: Mapping[str, Any], value: Mapping[str, Any], where: str) -> None:
    catalog = catalog_video_id(talk)
    for name in ("video_id", "webpage_video_id"):
        if name in value and value[name] != catalog:
            raise Refusal(
                "source_identity_video_mismatch",
                f"source_identity.{name} {value[name]!r} is not the talk's recording {catalog!r}",
                json_path(where, name),
                hint="capture the identity of the talk's own video_url, or correct video_url "
                "first (set_video_url) after review",
            )


def _rejections(talk: Mapping[str, Any], value: list[Any], where: str) -> None:
    for index, record in enumerate(value):
        stamp = record["verified_at"].replace("Z", "+00:00")
        try:
            datetime.fromisoformat(stamp)
        except ValueError:
            raise Refusal(
                "invalid_timestamp",
                f"verified_at {record['verified_at']!r} is not a real timestamp",
                json_path(where, index, "verified_at"),
                hint=_HINT,
            ) from None
    for name, source_type in (("video_url", "video"), ("slides_url", "slides")):
        url = talk.get(name)
        if isinstance(url, str) and match_rejection(source_type, url, value) is not None:
            raise Refusal(
                "rejected_source_active",
                f"the rejections reject the talk's active {name}",
                json_path(where),
                hint=f"remove the active source first in the same plan (set_{name} with "
                "delete), then record the rejection",
            )


def _binding(talk: Mapping[str, Any], value: Mapping[str, Any], where: str) -> None:
    if value["pptx_path"] != talk.get("pptx_path"):
        raise Refusal(
            "deck_binding_stale",
            "the binding proof is about another deck than the talk's pptx_path",
            json_path(where, "pptx_path"),
            hint="record the deck with `rvault-db record-deck DB EXTRACTION --talk FILENAME`",
        )
    if value["decision"] == CONTRADICTED:
        raise Refusal(
            "deck_binding_contradicted",
            "a contradicted binding is never recorded",
            json_path(where, "decision"),
            hint="bind the deck to the talk its title slide names",
        )
