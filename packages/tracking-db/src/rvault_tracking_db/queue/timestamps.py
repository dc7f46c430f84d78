"""Timezone-aware timestamps in one canonical spelling.

A claim's ``claimed_at`` and its baseline's ``as_of`` must be string-equal, and
every member of a batch must share one ``claimed_at``; so the owner writes a
single canonical form: UTC, ``isoformat()`` (``+00:00`` suffix, microseconds
only when non-zero). Naive input is refused, never assumed to be UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime


def parse_aware(value: object) -> datetime | None:
    """The datetime of a timezone-aware ISO-8601 string, else ``None``."""
    if not isinstance(value, str) or "T" not in value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return None
    return parsed


def canonical(moment: datetime) -> str:
    """The canonical UTC spelling of an aware datetime."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime has no canonical spelling")
    return moment.astimezone(UTC).isoformat()


def canonicalize(value: str) -> str | None:
    """Canonical spelling of an aware ISO string, or ``None`` when it is not one."""
    parsed = parse_aware(value)
    return None if parsed is None else canonical(parsed)


def utc_now() -> str:
    return canonical(datetime.now(UTC))
