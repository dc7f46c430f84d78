"""Applying a source plan to a candidate database, copy-on-write.

Every lane change is bound to the exact prior value it expects, names a talk
that exists and is not under a live claim, and, when it points at a local
artifact, must pass the capability resolver's own path rules and checker
(relative, canonical, inside the vault or deck root, no symbolic link below
it, readable by the source's checker). After the plan, every touched talk's
``source_capabilities`` are re-derived by that resolver in the same
transaction; an analysed talk whose evidence source really changed moves to
``needs-reprocessing`` (``reprocess_reason: source_lane_changed``,
``reprocess_generation + 1``), and a ``skipped_no_sources`` talk that now has
a capability is ``pending`` again.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import json_equal, json_path

from rvault_tracking_db.capabilities import (
    LOCAL_PDF,
    LOCAL_PPTX,
    LOCAL_TRANSCRIPT,
    ROOT_PPTX,
    ROOT_VAULT,
    SourceRoots,
    check_local,
    resolve,
)
from rvault_tracking_db.ids import google_drive_id, youtube_id
from rvault_tracking_db.media_probe import MediaError, durations_agree, measure_recording
from rvault_tracking_db.mutations.plan import Mutation, is_missing_marker
from rvault_tracking_db.mutations.record_ops import OwnedArray, record_upsert
from rvault_tracking_db.mutations.reprocess import invalidate_analysis
from rvault_tracking_db.queue.batches import live_claim
from rvault_tracking_db.rejections import match_rejection
from rvault_tracking_db.slides_identity import FIELD as SLIDES_IDENTITY
from rvault_tracking_db.slides_identity import measure_pdf
from rvault_tracking_db.sources.identity_lanes import KINDS as IDENTITY_KINDS
from rvault_tracking_db.sources.identity_lanes import check_identity_value
from rvault_tracking_db.sources.plan import (
    ADD_TALK,
    ATTACH_MEDIA,
    RECORD_PPTX,
    REGISTER_PPTX,
    REGISTER_SLIDES_PDF,
    REGISTER_TRANSCRIPT,
    SET_DECK_BINDING,
    SET_SLIDES_URL,
    SET_SOURCE_IDENTITY,
    SET_SOURCE_REJECTIONS,
    SET_SOURCE_RELATION,
    SET_TALK_STATUS,
    SET_VIDEO_URL,
    SourceChange,
    SourcePlan,
)
from rvault_tracking_db.sources.status_lane import check_status_value

REPROCESS_REASON = "source_lane_changed"
SKIPPED_NO_SOURCES = "skipped_no_sources"


@dataclass(frozen=True)
class Lane:
    """One source lane: the talk field it owns and how its value is proven."""

    field: str
    capability: str | None = None  # a local artifact checked by the resolver's checker
    root: str = ROOT_VAULT
    invalidates: bool = True  # a real change makes an existing analysis stale


LANES: dict[str, Lane] = {
    REGISTER_TRANSCRIPT: Lane("transcript_path", LOCAL_TRANSCRIPT),
    SET_VIDEO_URL: Lane("video_url"),
    SET_SLIDES_URL: Lane("slides_url"),
    REGISTER_PPTX: Lane("pptx_path", LOCAL_PPTX, ROOT_PPTX),
    REGISTER_SLIDES_PDF: Lane("slides_local_path", LOCAL_PDF),
    SET_SOURCE_RELATION: Lane("source_relation", invalidates=False),
    ATTACH_MEDIA: Lane("local_media"),
    # Identity records: what the sources are, not new evidence (issue 29).
    SET_SOURCE_IDENTITY: Lane("source_identity", invalidates=False),
    SET_SOURCE_REJECTIONS: Lane("source_rejections", invalidates=False),
    SET_DECK_BINDING: Lane("deck_binding", invalidates=False),
    SET_TALK_STATUS: Lane("status", invalidates=False),
}

# A URL lane also owns the provider ID derived from it (absent when none).
DERIVED = {
    SET_VIDEO_URL: ("youtube_id", youtube_id),
    SET_SLIDES_URL: ("google_drive_id", google_drive_id),
}

_ARTIFACT_CODES = {
    "missing": "artifact_missing",
    "symlink": "symlink_refused",
    "symlink_or_not_directory": "symlink_refused",
    "not_regular_file": "not_regular_file",
    "malformed": "artifact_malformed",
    "empty": "artifact_malformed",
    "unreadable": "artifact_unreadable",
    "root_unavailable": "artifact_unreadable",
}


@dataclass
class LaneOutcome:
    database: dict[str, Any]
    changes: list[dict[str, Any]] = field(default_factory=list)
    capabilities: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Talks:
    """The candidate's talks array, copied once, with each touched talk copied once."""

    items: list[Any]
    index: dict[str, int]
    touched: dict[int, dict[str, Any]] = field(default_factory=dict)
    originals: dict[int, Any] = field(default_factory=dict)
    invalidating: dict[int, list[str]] = field(default_factory=dict)

    def talk(self, position: int) -> dict[str, Any]:
        if position not in self.touched:
            self.originals[position] = self.items[position]
            self.touched[position] = dict(self.items[position])
            self.items[position] = self.touched[position]
        return self.touched[position]


def apply_source_plan(
    database: dict[str, Any], plan: SourcePlan, roots: SourceRoots
) -> LaneOutcome:
    candidate = dict(database)
    existing = database.get("talks")
    if not isinstance(existing, list):
        raise Refusal("missing_field", "the database has no talks array", '$["talks"]')
    talks = _Talks(list(existing), {})
    for position, talk in enumerate(talks.items):
        if isinstance(talk, dict) and isinstance(talk.get("filename"), str):
            talks.index.setdefault(talk["filename"], position)
    candidate["talks"] = talks.items
    outcome = LaneOutcome(candidate)
    owned: dict[str, OwnedArray] = {}
    for change in plan.changes:
        if change.kind == ADD_TALK:
            outcome.changes.append(_add_talk(talks, change))
        elif change.kind == RECORD_PPTX:
            mutation = Mutation(change.kind, change.path, change.body)
            outcome.changes.append(record_upsert(candidate, mutation, owned))
        else:
            outcome.changes.append(_lane_change(talks, change, roots))
    _rederive(talks, roots, outcome)
    if not talks.touched:
        candidate["talks"] = existing  # nothing touched: keep the input's array
    return outcome


def _find(talks: _Talks, change: SourceChange) -> int:
    filename = change.body["filename"]
    position = talks.index.get(filename)
    where = json_path(change.path, "filename")
    if position is None:
        raise Refusal(
            "talk_not_found",
            f"no talk has filename {filename!r}",
            where,
            hint="`rvault-db status DB` lists every talk; `rvault-db add-talk` adds one",
        )
    if live_claim(talks.items[position]) is not None:
        raise Refusal(
            "active_queue_claim",
            f"{filename} is under an active queue claim; its sources belong to that batch",
            json_path("$", "talks", position, "_queue_claim"),
            hint="wait for the batch to be persisted, or close it: `rvault-db queue DB recover`",
        )
    return position


def _check_expectation(change: SourceChange, exists: bool, current: Any, name: str) -> None:
    expect = change.body["expect"]
    where = json_path(change.path, "expect")
    stored = {"stored": current} if exists else {"stored_exists": False}
    hint = "dry-run again: build the plan from the value the database holds now"
    if is_missing_marker(expect):
        if exists:
            raise Refusal(
                "expectation_failed",
                f"{name} is present, not missing",
                where,
                hint=hint,
                **stored,
            )
    elif not exists:
        raise Refusal("expectation_failed", f"{name} is missing", where, hint=hint, **stored)
    elif not json_equal(expect, current):
        raise Refusal(
            "expectation_failed",
            f"{name} does not equal the expectation",
            where,
            hint=hint,
            **stored,
        )


def _check_artifact(lane: Lane, value: str, roots: SourceRoots, where: str) -> None:
    assert lane.capability is not None
    code = check_local(roots, lane.capability, lane.root, value)
    if code is None:
        return
    root = roots.root_for(lane.root)
    raise Refusal(
        _ARTIFACT_CODES.get(code, code),
        f"{lane.field} {value!r} is not a readable {lane.capability} artifact under {root}"
        f" ({code})",
        where,
        reason=code,
        hint=(
            "the file must exist below the "
            + ("deck root (config.pptx_source_dir)" if lane.root == ROOT_PPTX else "vault root")
            + f" {root}, be named relative to it (a shortcut also takes an absolute path inside"
            " it), traverse no symbolic link and pass its checker"
        ),
    )


def _check_value(
    talks: _Talks, change: SourceChange, talk: dict[str, Any], value: Any, roots: SourceRoots
) -> None:
    """The new value passes its lane's own rules (the artifact checker first)."""
    lane = LANES[change.kind]
    deleting = "delete" in change.body
    vpath = json_path(change.path, "value")
    if not deleting and lane.capability is not None:
        _check_artifact(lane, value, roots, vpath)
    if change.kind == ATTACH_MEDIA and not deleting:
        check_media_value(value, roots, vpath)
    if change.kind in IDENTITY_KINDS and not deleting:
        check_identity_value(change.kind, talk, value, vpath)
    if change.kind == SET_TALK_STATUS:
        check_status_value(talk, value, roots, vpath)
    if change.kind in DERIVED and not deleting:
        _check_not_rejected(change, talk, value, vpath)
    if change.kind == SET_SOURCE_RELATION and not deleting:
        target = value["target_filename"]
        if target == change.body["filename"] or target not in talks.index:
            raise Refusal(
                "relation_target_invalid",
                f"target_filename {target!r} is not another talk of this database",
                json_path(vpath, "target_filename"),
            )


def _check_not_rejected(change: SourceChange, talk: dict[str, Any], value: Any, vpath: str) -> None:
    """A video or slides URL the talk's source_rejections name never becomes a capability."""
    rejections = talk.get("source_rejections")
    source_type = "video" if change.kind == SET_VIDEO_URL else "slides"
    matched = match_rejection(
        source_type, value, rejections if isinstance(rejections, list) else None
    )
    if matched:
        raise Refusal(
            "rejected_source",
            f"{value} is rejected by this talk's source_rejections",
            vpath,
            rejection=dict(matched.record),
            match=matched.method,
            hint="a rejected source never becomes a capability; register a different one",
        )


def _derive(
    change: SourceChange,
    talk: dict[str, Any],
    updated: dict[str, Any],
    value: Any,
    roots: SourceRoots,
) -> dict[str, Any]:
    """Set the fields a lane derives (ids, slides identity, transcript_source) on ``updated``;
    returns those that moved."""
    deleting = "delete" in change.body
    derived_fields: dict[str, Any] = {}
    if change.kind in DERIVED:
        name, parser = DERIVED[change.kind]
        derived = None if deleting else parser(value)
        had = name in updated
        if derived is None:
            updated.pop(name, None)
        else:
            updated[name] = derived
        if had != (derived is not None) or (had and talk.get(name) != derived):
            derived_fields[name] = derived
    if change.kind == REGISTER_SLIDES_PDF:
        _derive_slides_identity(talk, updated, None if deleting else value, roots, derived_fields)
    if change.kind == REGISTER_TRANSCRIPT and "transcript_source" in change.body:
        updated["transcript_source"] = change.body["transcript_source"]
        derived_fields["transcript_source"] = change.body["transcript_source"]
    return derived_fields


def _receipt(change: SourceChange, exists: bool, before: Any, value: Any) -> dict[str, Any]:
    """What the change did to its field (and the fields derived from it)."""
    lane = LANES[change.kind]
    deleting = "delete" in change.body
    receipt: dict[str, Any] = {
        "kind": change.kind,
        "filename": change.body["filename"],
        "field": lane.field,
        "before_exists": exists,
        "after_exists": not deleting,
        "changed": exists == deleting or not json_equal(before, value),
    }
    if exists:
        receipt["before"] = before
    if not deleting:
        receipt["after"] = value
    return receipt


def _lane_change(talks: _Talks, change: SourceChange, roots: SourceRoots) -> dict[str, Any]:
    """One lane change: expectation, value checks, the write and its derivations, receipt."""
    lane = LANES[change.kind]
    position = _find(talks, change)
    talk = talks.items[position]
    exists = lane.field in talk
    before = talk.get(lane.field)
    _check_expectation(change, exists, before, lane.field)
    deleting = "delete" in change.body
    value = None if deleting else change.body["value"]
    _check_value(talks, change, talk, value, roots)
    updated = talks.talk(position)
    if deleting:
        updated.pop(lane.field, None)
    else:
        updated[lane.field] = copy.deepcopy(value)
    receipt = _receipt(change, exists, before, value)
    derived_fields = _derive(change, talk, updated, value, roots)
    if derived_fields:
        receipt["derived"] = derived_fields
        receipt["changed"] = receipt["changed"] or any(
            talk.get(k) != v for k, v in derived_fields.items()
        )
    if receipt["changed"] and lane.invalidates and not _same_recording(change, before, value):
        talks.invalidating.setdefault(position, []).append(lane.field)
    return receipt


def _same_recording(change: SourceChange, before: Any, value: Any) -> bool:
    """A re-attached recording whose bytes are the same (only its generation, the cache
    key, or its record version moved) is no new evidence: the analysis made from it
    stays current."""
    if change.kind != ATTACH_MEDIA or not isinstance(before, dict) or not isinstance(value, dict):
        return False
    return all(json_equal(before.get(k), value.get(k)) for k in _RECORDING_BYTES)


# What identifies the recording's bytes: re-attaching the same file to record a
# newer version's facts (v1 -> v2 streams) or a new generation is no new evidence.
_RECORDING_BYTES = ("path", "sha256", "size_bytes", "duration_seconds")


def _derive_slides_identity(
    talk: dict[str, Any],
    updated: dict[str, Any],
    value: str | None,
    roots: SourceRoots,
    derived: dict[str, Any],
) -> None:
    """The registered PDF's bytes (SHA-256, size), so a replaced PDF reads as stale."""
    identity = None if value is None else measure_pdf(roots.vault_root, value)
    if identity is None:
        updated.pop(SLIDES_IDENTITY, None)
    else:
        updated[SLIDES_IDENTITY] = identity
    if talk.get(SLIDES_IDENTITY) != identity or (SLIDES_IDENTITY in talk) != (identity is not None):
        derived[SLIDES_IDENTITY] = identity


MEDIA_HINT = (
    "put the recording inside the vault (e.g. recordings/NAME.wav), not behind a symbolic link,"
    " and attach it with `rvault-db attach-media DB --talk FILENAME PATH`, which measures it"
)


def check_media_value(value: dict[str, Any], roots: SourceRoots, where: str) -> None:
    """The recording named by an ``attach_media`` value has exactly the recorded facts."""
    try:
        measured = measure_recording(roots.vault_root, value["path"])
    except MediaError as exc:
        raise Refusal(
            exc.code, exc.message, json_path(where, "path"), reason=exc.reason, hint=MEDIA_HINT
        ) from None
    for name in ("sha256", "size_bytes"):
        if getattr(measured, name) != value[name]:
            raise Refusal(
                "media_mismatch",
                f"{value['path']} has {name} {getattr(measured, name)}, the plan says"
                f" {value[name]}: the recording changed since it was measured",
                json_path(where, name),
                hint="dry-run attach-media again to measure the recording as it is now",
            )
    streams = value.get("streams")  # v2; a v1 value carries none
    measured_streams = measured.record()["streams"]
    if streams is not None and streams != measured_streams:
        raise Refusal(
            "media_mismatch",
            f"ffprobe finds streams {measured_streams}, the plan says {streams}",
            json_path(where, "streams"),
            hint="dry-run attach-media again: it records the probed streams",
        )
    if not durations_agree(float(value["duration_seconds"]), measured.duration_seconds):
        raise Refusal(
            "media_mismatch",
            f"ffprobe measures {measured.duration_seconds} s, the plan says"
            f" {value['duration_seconds']} s",
            json_path(where, "duration_seconds"),
            hint="dry-run attach-media again: it records the probed duration",
        )


def _add_talk(talks: _Talks, change: SourceChange) -> dict[str, Any]:
    record = copy.deepcopy(change.body["record"])
    filename = record["filename"]
    if filename in talks.index:
        raise Refusal(
            "duplicate_talk_filename",
            f"a talk with filename {filename!r} already exists",
            json_path(change.path, "record", "filename"),
            hint="register sources on the existing talk instead (`rvault-db sources`)",
        )
    talks.items.append(record)
    position = len(talks.items) - 1
    talks.index[filename] = position
    talks.touched[position] = record
    return {"kind": ADD_TALK, "filename": filename, "changed": True, "after": record}


def _rederive(talks: _Talks, roots: SourceRoots, outcome: LaneOutcome) -> None:
    for position in sorted(talks.touched):
        talk = talks.touched[position]
        original = talks.originals.get(position)
        resolution = resolve(talk, roots)
        before = original.get("source_capabilities") if isinstance(original, dict) else None
        talk["source_capabilities"] = resolution.capabilities
        outcome.capabilities.append(
            {
                "filename": talk["filename"],
                "before": before,
                "after": resolution.capabilities,
                "findings": [f.to_dict() for f in resolution.findings],
            }
        )
        fields = talks.invalidating.get(position)
        transition = None
        if fields:
            transition = invalidate_analysis(
                talk, fields, REPROCESS_REASON, json_path("$", "talks", position)
            )
        if (
            transition is None
            and talk.get("status") == SKIPPED_NO_SOURCES
            and resolution.capabilities
        ):
            transition = {"from": SKIPPED_NO_SOURCES, "to": "pending"}
            talk["status"] = "pending"
        if transition is not None:
            outcome.changes.append(
                {
                    "kind": "status_transition",
                    "filename": talk["filename"],
                    "changed": True,
                    "status_transition": transition,
                }
            )
