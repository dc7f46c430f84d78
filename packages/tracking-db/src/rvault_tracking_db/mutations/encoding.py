"""The canonical bytes of a mutation candidate, without re-encoding the vault.

``canonical.artifact_bytes`` goes through Python's pure indent encoder and
costs seconds on a large vault, while a typed plan replaces the config, one
small record array or a few talks. When the input is in that canonical layout
(sorted keys, two-space indent) every top-level member is one
``\\n  "key": value`` block (JSON strings cannot contain raw newlines, and
nested lines are indented further), so the candidate's canonical encoding is
the input with exactly the replaced blocks re-encoded. Each replaced block is
first checked to be the canonical encoding of the value it replaces; on any
mismatch (hand-formatted file, changed key set) the whole candidate is
encoded instead. Talk-level changes reuse the queue owner's talk splice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rvault_contracts.canonical import artifact_bytes

from rvault_tracking_db.queue.splice import nested_artifact, replace_spans
from rvault_tracking_db.queue.splice import splice as splice_talks


def _encode_member(value: Any) -> bytes:
    return nested_artifact(value, b"  ")


def _key_prefix(key: str) -> bytes:
    return ("  " + json.dumps(key, ensure_ascii=False) + ": ").encode("utf-8")


def _member_spans(data: bytes, keys: list[str]) -> dict[str, tuple[int, int]] | None:
    if not data.startswith(b"{\n") or not data.endswith(b"\n}\n"):
        return None
    spans: dict[str, tuple[int, int]] = {}
    position = 2
    for index, key in enumerate(keys):
        prefix = _key_prefix(key)
        if not data.startswith(prefix, position):
            return None
        start = position + len(prefix)
        if index + 1 < len(keys):
            end = data.find(b",\n" + _key_prefix(keys[index + 1]), start)
            if end < 0:
                return None
            position = end + 2
        else:
            end = len(data) - 3
        spans[key] = (start, end)
    return spans


def splice_members(
    original: bytes, before: Mapping[str, Any], candidate: Mapping[str, Any]
) -> bytes | None:
    """Canonical bytes of ``candidate`` from ``original``, or ``None``."""
    if set(before) != set(candidate) or not before:
        return None
    changed = [key for key in candidate if candidate[key] is not before[key]]
    spans = _member_spans(original, sorted(before))
    if spans is None:
        return None
    return replace_spans(
        original,
        (
            (*spans[key], before[key], candidate[key])
            for key in sorted(changed, key=lambda k: spans[k][0])
        ),
        _encode_member,
    )


def candidate_bytes(
    original: bytes | None, before: dict[str, Any] | None, candidate: dict[str, Any]
) -> bytes:
    """The canonical artifact encoding of ``candidate`` (spliced when safe)."""
    if original is not None and before is not None:
        old_talks, new_talks = before.get("talks"), candidate.get("talks")
        talks_replaced = old_talks is not new_talks
        if (
            talks_replaced
            and isinstance(old_talks, list)
            and isinstance(new_talks, list)
            and len(old_talks) == len(new_talks)
        ):
            changed = [i for i, talk in enumerate(new_talks) if talk is not old_talks[i]]
            spliced = splice_talks(original, before, candidate, changed) if changed else None
            if spliced is not None:
                return spliced
        elif not talks_replaced:
            spliced = splice_members(original, before, candidate)
            if spliced is not None:
                return spliced
    return artifact_bytes(candidate)
