"""``set-identity``: a reviewed capture entry, stored as the talk's ``source_identity``.

The capture (``rvault-db capture-identity``) holds provider facts only; the
reviewer supplies the delivery claims (``--speaker``, ``--recorded-date``)
from other evidence. The shortcut takes the entry for the talk's own
recording (the capture must list the talk under that video), adds those
claims, and builds one ``set_source_identity`` lane change against the value
stored now; the lane re-checks the recording and the schema.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_tracking_db.apply_protocol import Session
from rvault_tracking_db.identity.recording import catalog_video_id
from rvault_tracking_db.sources.plan import MISSING_MARKER, SET_SOURCE_IDENTITY

CAPTURE = "db-identity-capture"
MAX_CAPTURE_BYTES = 64 * 1024 * 1024


def read_capture(path: str) -> Mapping[str, Any]:
    """The capture document, strictly decoded and valid against its schema."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            document = loads_strict(handle.read(MAX_CAPTURE_BYTES + 1))
    except OSError as exc:
        raise Refusal(
            "capture_unreadable",
            f"{path}: {exc.strerror}",
            "--capture",
            hint="run `rvault-db capture-identity DB --out FILE` first",
        ) from None
    except StrictJSONError as exc:
        raise Refusal(exc.code, f"capture: {exc.message}", exc.path) from None
    issues = schema_issues(CAPTURE, 1, document)
    if issues:
        raise Refusal(
            "capture_invalid",
            issues[0].message,
            issues[0].path,
            hint="capture again with `rvault-db capture-identity`",
        )
    return document


@dataclass(frozen=True)
class IdentityRequest:
    talk: str
    capture: str
    speakers: tuple[str, ...] = ()
    recorded_date: str | None = None

    def build(self, session: Session) -> dict[str, Any]:
        database = session.result.database or {}
        talk = next(
            (
                t
                for t in database.get("talks") or []
                if isinstance(t, Mapping) and t.get("filename") == self.talk
            ),
            None,
        )
        video = None if talk is None else catalog_video_id(talk)
        entry = next(
            (
                e
                for e in read_capture(self.capture)["entries"]
                if e["video_id"] == video and self.talk in e["talks"]
            ),
            None,
        )
        if entry is None or entry["proposal"] is None:
            raise Refusal(
                "capture_entry_missing",
                f"the capture has no provider facts for {self.talk}'s recording {video!r}",
                "--capture",
                reason=None if entry is None else entry["error"],
                hint="capture again after the talk's video_url is final",
            )
        identity = dict(entry["proposal"])
        if self.speakers:
            identity["speakers"] = list(self.speakers)
        if self.recorded_date is not None:
            identity["recorded_date"] = self.recorded_date
        expect = talk.get("source_identity", MISSING_MARKER) if talk is not None else MISSING_MARKER
        change = {
            "kind": SET_SOURCE_IDENTITY,
            "filename": self.talk,
            "expect": expect,
            "value": identity,
        }
        return {"schema_version": 1, "mutations": [change]}
