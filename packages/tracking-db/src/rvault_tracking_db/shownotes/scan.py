"""Planning a shownotes scan: one entry per page, dispositions, and the candidate database.

Dispositions (spec, "Shownotes Scan/Import Report"):

* ``add``: no talk has this filename and the proposal is complete (title,
  conference, ISO date) and collides with nothing after normalization; the
  new record is a complete current-schema talk with status ``pending``;
* ``update``: an exact filename match whose empty fields the proposal can
  fill, with agreeing titles and no established value contradicted;
* ``unchanged``: an exact match with nothing to fill;
* ``review_required``: anything conflicting (title disagreement, an
  established value contradicted, sources on the page disagreeing),
  incomplete, colliding after normalization, unreadable, under a live claim,
  or proposing a source the talk's rejection ledger already rejected.

Review-required entries never mutate anything.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.cli import printable

from rvault_tracking_db.queue.batches import live_claim, talks_of
from rvault_tracking_db.rejections import match_rejection
from rvault_tracking_db.shownotes.frontmatter import parse
from rvault_tracking_db.shownotes.metadata import extract
from rvault_tracking_db.shownotes.titles import shownotes_titles_agree

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
REQUIRED_NEW_FIELDS = ("title", "conference", "date")
FILL_FIELDS = (
    "title",
    "conference",
    "date",
    "video_url",
    "youtube_id",
    "slides_url",
    "google_drive_id",
)
SOURCE_FIELDS = {"video_url": "video", "slides_url": "slides"}
SECTION_PAGES = frozenset({"_index.md", "index.md"})
# A shownotes page is a few kilobytes; a bigger file is reported, never read whole.
MAX_PAGE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Page:
    filename: str
    relative: str
    text: str | None
    error: str | None = None


@dataclass
class ScanPlan:
    entries: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scanned_file_count: int = 0
    additions: list[dict[str, Any]] = field(default_factory=list)
    updates: dict[int, dict[str, Any]] = field(default_factory=dict)


def normalized_name(filename: str) -> str:
    return unicodedata.normalize("NFC", filename).casefold()


def discover(directory: str) -> tuple[list[Page], list[str]]:
    """Every Markdown page below ``directory`` (no links followed), with its DB filename.

    A Hugo/Astro page bundle ``slug/index.md`` is the talk ``slug.md``.
    """
    pages: list[Page] = []
    warnings: list[str] = []
    stack = [("", directory)]
    while stack:
        relative_dir, absolute_dir = stack.pop()
        try:
            with os.scandir(absolute_dir) as iterator:
                items = sorted(iterator, key=lambda e: e.name)
        except OSError as exc:
            warnings.append(f"unreadable directory {relative_dir or '.'}: {exc.strerror}")
            continue
        for item in items:
            relative = f"{relative_dir}/{item.name}" if relative_dir else item.name
            try:
                item.name.encode("utf-8")
            except UnicodeEncodeError:
                # the report is UTF-8 JSON: such a name cannot become a talk filename
                warnings.append(f"non-UTF-8 name skipped: {printable(relative)}")
                continue
            st = item.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                warnings.append(f"symbolic link skipped: {relative}")
                continue
            if stat.S_ISDIR(st.st_mode):
                if not item.name.startswith("."):
                    stack.append((relative, item.path))
                continue
            if not stat.S_ISREG(st.st_mode) or not item.name.lower().endswith(MARKDOWN_SUFFIXES):
                continue
            if item.name == "_index.md":
                continue  # a Hugo section list page, not a talk
            if item.name in SECTION_PAGES and relative_dir:
                stem = relative_dir.rsplit("/", 1)[-1]
                filename = f"{stem}.md"
            else:
                filename = Path(item.name).stem + ".md"
            try:
                fd = os.open(item.path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as handle:
                    data = handle.read(MAX_PAGE_BYTES + 1)
            except OSError as exc:
                pages.append(Page(filename, relative, None, f"unreadable: {exc.strerror}"))
                continue
            if len(data) > MAX_PAGE_BYTES:
                pages.append(Page(filename, relative, None, f"larger than {MAX_PAGE_BYTES} bytes"))
                continue
            try:
                pages.append(Page(filename, relative, data.decode("utf-8")))
            except UnicodeDecodeError:
                pages.append(Page(filename, relative, None, "not valid UTF-8"))
    pages.sort(key=lambda p: (p.filename, p.relative))
    return pages, warnings


def _issue(code: str, field_name: str | None, message: str, **extra: Any) -> dict[str, Any]:
    issue: dict[str, Any] = {"code": code, "field": field_name, "message": message}
    issue.update(extra)
    return issue


def _rejection_issue(field_name: str, url: str, rejections: Any) -> dict[str, Any] | None:
    source_type = SOURCE_FIELDS[field_name]
    match = match_rejection(source_type, url, rejections if isinstance(rejections, list) else None)
    if match is None:
        return None
    record = match.record
    return _issue(
        "rejected_source_reappeared",
        field_name,
        f"shownotes proposes a known-bad {field_name}; it stays inactive until a reviewer "
        "supplies a valid replacement",
        matched_rejection={
            "source_type": record.get("source_type"),
            "url": record.get("url"),
            "provider_id": match.rejected_provider_id,
            "reason": record.get("reason"),
            "evidence": record.get("evidence"),
            "verified_at": record.get("verified_at"),
        },
        match={
            "method": match.method,
            "candidate_url": match.candidate_url,
            "candidate_provider_id": match.candidate_provider_id,
        },
    )


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def plan_scan(database: Mapping[str, Any], directory: str, *, talk_schema_version: int) -> ScanPlan:
    plan = ScanPlan()
    pages, plan.warnings = discover(directory)
    plan.scanned_file_count = len(pages)
    talks = talks_of(database)
    exact: dict[str, list[int]] = {}
    normalized: dict[str, list[str]] = {}
    for position, talk in enumerate(talks):
        if isinstance(talk, Mapping) and isinstance(talk.get("filename"), str):
            exact.setdefault(talk["filename"], []).append(position)
            normalized.setdefault(normalized_name(talk["filename"]), []).append(talk["filename"])
    page_names: dict[str, list[str]] = {}
    for page in pages:
        page_names.setdefault(normalized_name(page.filename), []).append(page.relative)
    for page in pages:
        plan.entries.append(
            _plan_page(page, talks, exact, normalized, page_names, plan, talk_schema_version)
        )
    return plan


def _plan_page(
    page: Page,
    talks: list[Any],
    exact: dict[str, list[int]],
    normalized: dict[str, list[str]],
    page_names: dict[str, list[str]],
    plan: ScanPlan,
    talk_schema_version: int,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "filename": page.filename,
        "disposition": "review_required",
        "proposal": {"filename": page.filename},
        "changes": {},
        "issues": [],
        "applied": False,
    }
    issues: list[dict[str, Any]] = entry["issues"]
    if page.text is None:
        issues.append(_issue("unreadable_page", None, f"{page.relative}: {page.error}"))
        return entry
    parsed = parse(page.text)
    if parsed.error is not None:
        issues.append(_issue("frontmatter_malformed", None, f"{page.relative}: {parsed.error}"))
        return entry
    proposal = extract(parsed.data, parsed.body, page.filename)
    entry["proposal"] = {"filename": page.filename, **proposal.fields}
    issues.extend(proposal.issues)
    same_name_pages = page_names.get(normalized_name(page.filename), [])
    if len(same_name_pages) > 1:
        issues.append(
            _issue(
                "normalized_filename_collision",
                "filename",
                f"several pages map to {page.filename}: {sorted(same_name_pages)}",
            )
        )
    positions = exact.get(page.filename, [])
    if len(positions) > 1:
        issues.append(_issue("duplicate_database_filename", "filename", "the database repeats it"))
    if positions:
        _plan_update(entry, talks, positions[0], proposal.fields, plan)
    else:
        others = normalized.get(normalized_name(page.filename), [])
        if others:
            issues.append(
                _issue(
                    "normalized_filename_collision",
                    "filename",
                    f"{page.filename} collides with existing {sorted(others)} after normalization",
                )
            )
        for required in REQUIRED_NEW_FIELDS:
            if required not in proposal.fields:
                issues.append(
                    _issue("incomplete_metadata", required, f"a new talk needs {required}")
                )
        if not issues:
            record = {"schema_version": talk_schema_version, "filename": page.filename}
            record.update({k: proposal.fields[k] for k in FILL_FIELDS if k in proposal.fields})
            record["status"] = "pending"
            entry["disposition"] = "add"
            entry["changes"] = {
                key: {"before_exists": False, "before": None, "after": value}
                for key, value in sorted(record.items())
                if key != "filename"
            }
            plan.additions.append(record)
    if issues and entry["disposition"] != "review_required":
        entry["disposition"] = "review_required"
    if entry["disposition"] == "review_required":
        entry["changes"] = {}
        plan.additions = [r for r in plan.additions if r["filename"] != page.filename]
    return entry


def _plan_update(
    entry: dict[str, Any], talks: list[Any], position: int, fields: dict[str, Any], plan: ScanPlan
) -> None:
    talk = talks[position]
    issues: list[dict[str, Any]] = entry["issues"]
    if live_claim(talk) is not None:
        issues.append(
            _issue("talk_under_live_claim", None, "a claimed talk is not changed by a scan")
        )
    proposed_title = fields.get("title")
    if proposed_title is not None and not _empty(talk.get("title")):
        agree = shownotes_titles_agree(
            talk.get("title"), proposed_title, talk.get("conference"), talk.get("date")
        )
        if not agree:
            issues.append(
                _issue(
                    "existing_title_conflict",
                    "title",
                    f"stored title {talk.get('title')!r} disagrees with {proposed_title!r}",
                )
            )
    for field_name in SOURCE_FIELDS:
        url = fields.get(field_name)
        if url is not None:
            rejection = _rejection_issue(field_name, url, talk.get("source_rejections"))
            if rejection is not None:
                issues.append(rejection)
    changes: dict[str, Any] = {}
    for key in FILL_FIELDS:
        if key not in fields or (key == "title" and not _empty(talk.get("title"))):
            continue
        stored = talk.get(key)
        if _empty(stored):
            changes[key] = {"before_exists": key in talk, "before": stored, "after": fields[key]}
        elif stored != fields[key]:
            issues.append(
                _issue(
                    "existing_value_conflict",
                    key,
                    f"stored {key} {stored!r} differs from the shownotes value {fields[key]!r}",
                )
            )
    if issues:
        return
    if changes:
        entry["disposition"] = "update"
        entry["changes"] = changes
        plan.updates[position] = {key: change["after"] for key, change in changes.items()}
    else:
        entry["disposition"] = "unchanged"


def apply_plan(database: Mapping[str, Any], plan: ScanPlan) -> dict[str, Any] | None:
    """The candidate database, or ``None`` when the plan has no mutation."""
    if not plan.additions and not plan.updates:
        return None
    talks = list(talks_of(database))
    for position, values in sorted(plan.updates.items()):
        talk = dict(talks[position])
        talk.update(values)
        talks[position] = talk
    talks.extend(sorted(plan.additions, key=lambda r: r["filename"]))
    candidate = dict(database)
    candidate["talks"] = talks
    return candidate
