"""From one parsed page to a metadata proposal plus the issues found on the way.

Sources, in order of authority: frontmatter keys, then labeled body lines
(``Conference:``, ``**Video:** [watch](url)``, ``- Slides: <url>``), then the
body H1 for the title and a Jekyll ``YYYY-MM-DD-`` filename prefix for the
date. Two sources that disagree on one field are a ``conflicting_metadata``
issue, never a silent choice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from rvault_tracking_db.ids import google_drive_id, youtube_id

LABELS = {
    "conference": "conference",
    "event": "conference",
    "venue": "conference",
    "date": "date",
    "video": "video_url",
    "recording": "video_url",
    "slides": "slides_url",
    "deck": "slides_url",
}
FRONTMATTER_KEYS = {
    "title": ("title",),
    "conference": ("conference", "event", "venue"),
    "date": ("date", "talk_date", "event_date"),
    "video_url": ("video_url", "video", "youtube", "recording"),
    "slides_url": ("slides_url", "slides", "deck"),
}
# Every pattern below runs in linear time on a hostile line: no lazy capture
# before a trailing ``\s*$`` (the value is right-stripped in code instead) and
# possessive runs that stop at the next bracket, so a 50 kB line of spaces or
# ``[`` cannot make the scan quadratic.
_LABEL_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?[*_]{0,2}(conference|event|venue|date|video|recording|slides|deck)"
    r"[*_]{0,2}\s*:\s*[*_]{0,2}\s*(.+)$",
    re.IGNORECASE,
)
_MD_LINK = re.compile(r"\[([^\[\]]*+)\]\(\s*+<?([^)\s>\[]++)>?(?:\s++\"[^\"]*+\")?\s*+\)")
_ANGLE = re.compile(r"<(https?://[^<>\s]++)>")
_BARE = re.compile(r"https?://[^\s)>\]]+")
_H1 = re.compile(r"^#\s+(.+)$")
# also the date of an ISO datetime (YAML/TOML timestamps reach us as ``isoformat()``)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?=T\d|\b)")
_FILENAME_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-")
_EMPHASIS = re.compile(r"[*_`]+")
_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y")


@dataclass
class Proposal:
    fields: dict[str, Any] = field(default_factory=dict)
    issues: list[dict[str, Any]] = field(default_factory=list)


def _iso(value: str) -> str | None:
    text = value.strip()
    match = _ISO_DATE.search(text)
    if match:
        try:
            return date(int(match[1]), int(match[2]), int(match[3])).isoformat()
        except ValueError:
            return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _url(value: str) -> str | None:
    link = _MD_LINK.search(value)
    if link and link[2].lower().startswith(("http://", "https://")):
        return link[2]
    angle = _ANGLE.search(value)
    if angle:
        return angle[1]
    bare = _BARE.search(value)
    return bare[0] if bare else None


def _text(value: str) -> str:
    link = _MD_LINK.search(value)
    if link:
        value = link[1]
    return _EMPHASIS.sub("", value).strip()


def _normalize(field_name: str, raw: Any) -> Any:
    """A frontmatter or body value in the DB's spelling, or ``None`` when unusable."""
    if raw is None:
        return None
    if field_name == "date":
        return _iso(str(raw))
    if not isinstance(raw, str):
        return None
    if field_name in ("video_url", "slides_url"):
        return _url(raw)
    text = _text(raw)
    return text or None


def _outside_fences(lines: list[str]) -> Iterator[tuple[int, str]]:
    """``(index, line)`` of every line outside fenced code blocks (fence lines excluded)."""
    in_fence = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence:
            yield index, line


def body_title(body: str) -> str | None:
    lines = body.split("\n")
    for index, line in _outside_fences(lines):
        match = _H1.match(line)
        if match:
            # the closing ``#`` run and spaces of an ATX heading, stripped in code
            inner = match[1]
            return _text(inner.rstrip().rstrip("#").rstrip() or inner[:1]) or None
        if index + 1 < len(lines) and line.strip() and re.fullmatch(r"=+\s*", lines[index + 1]):
            return _text(line) or None
    return None


def body_labels(body: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for _, line in _outside_fences(body.split("\n")):
        match = _LABEL_LINE.match(line)
        if not match:
            continue
        target = LABELS[match[1].lower()]
        value = _normalize(target, match[2].rstrip() or match[2][:1])
        if value is not None and value not in found.setdefault(target, []):
            found[target].append(value)
    return found


def extract(frontmatter: dict[str, Any], body: str, filename: str) -> Proposal:
    proposal = Proposal()
    candidates: dict[str, list[tuple[str, Any]]] = {}
    for target, keys in FRONTMATTER_KEYS.items():
        for key in keys:
            if key in frontmatter and frontmatter[key] not in (None, ""):
                value = _normalize(target, frontmatter[key])
                if value is None:
                    proposal.issues.append(
                        {
                            "code": "unusable_metadata",
                            "field": target,
                            "message": f"frontmatter {key!r} has no usable {target}",
                        }
                    )
                    continue
                candidates.setdefault(target, []).append((f"frontmatter:{key}", value))
                break  # the first key present is the page's own value for this field
    for target, values in body_labels(body).items():
        for value in values:
            candidates.setdefault(target, []).append(("body_label", value))
    title = body_title(body)
    if title is not None and "title" not in candidates:
        candidates["title"] = [("body_h1", title)]
    if "date" not in candidates:
        match = _FILENAME_DATE.match(filename)
        if match:
            iso = _iso(match[0].rstrip("-"))
            if iso:
                candidates["date"] = [("filename", iso)]
    for target, options in sorted(candidates.items()):
        distinct = []
        for _, value in options:
            if value not in distinct:
                distinct.append(value)
        if len(distinct) > 1:
            proposal.issues.append(
                {
                    "code": "conflicting_metadata",
                    "field": target,
                    "message": f"sources disagree on {target}: {distinct}",
                }
            )
            continue
        proposal.fields[target] = distinct[0]
    video = proposal.fields.get("video_url")
    if video is not None:
        vid = youtube_id(video)
        if vid is not None:
            proposal.fields["youtube_id"] = vid
    slides = proposal.fields.get("slides_url")
    if slides is not None:
        gid = google_drive_id(slides)
        if gid is not None:
            proposal.fields["google_drive_id"] = gid
    return proposal
