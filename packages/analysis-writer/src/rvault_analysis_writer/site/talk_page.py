"""What one talk page shows, in the order a speaker reads it.

The page leads with the analysis (score and how it was computed, rhetoric
notes, areas for improvement), then every detected pattern and antipattern
grouped by the fourteen rhetoric dimensions with its evidence: the quote
with its line and the time it was said, the cited slides as thumbnails with
the time they appeared. Outcomes without a detection are a compact list
with their reasons; provenance and raw structured data come last.

The page is built from the same talk view model as the Markdown analysis
(:func:`rvault_analysis_writer.talk_view.build_view`), so provenance, legacy
labels and citation wording cannot disagree between the file and the page.
The completed claim on the talk is the receipt; the return version it
authorized decides the evidence basis. ``catalog_feedback`` lives only in
the return: it is shown when the caller passed the return whose canonical
hash is the claim's receipt (``site --returns``), exactly the binding
``write`` uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rvault_returns_persistence.api import Catalog
from rvault_tracking_db.api import (
    authorized_return_versions,
    talk_duration_seconds,
    talk_local_media,
    talk_video_id,
)

from rvault_analysis_writer.site.outcomes import OutcomeRow, outcome_rows
from rvault_analysis_writer.site.overview import TalkRow
from rvault_analysis_writer.site.paths import Scrubber
from rvault_analysis_writer.site.timeline import (
    Moment,
    Timeline,
    build_timeline,
    public_link,
    recording,
    where,
)
from rvault_analysis_writer.site.transcript_times import quote_start
from rvault_analysis_writer.talk_view import Citation, Observation, TalkView, build_view, seconds

#: The fourteen rhetoric dimensions in catalog order (spec SUPPLEMENT).
DIMENSIONS = (
    "Opening Pattern",
    "Narrative Structure",
    "Humor & Wit",
    "Audience Interaction",
    "Transition Techniques",
    "Closing Pattern",
    "Verbal Signatures",
    "Slide-to-Speech Relationship",
    "Persuasion Techniques",
    "Cultural & Pop-Culture References",
    "Technical Content Delivery",
    "Pacing Clues",
    "Slide Design Patterns",
    "Reflection: Areas for Improvement",
)
UNGROUPED = "Not in the catalog"
OUTCOME_ORDER = ("not_evaluable", "not_applicable", "undetected")
OUTCOME_HEADINGS = {
    "not_evaluable": "Not evaluable",
    "not_applicable": "Not applicable",
    "undetected": "Looked for, not found",
}
SCORE_RULE = "the catalog's rule: one point per detected pattern, minus one per antipattern"


@dataclass(frozen=True)
class Quote:
    text: str
    original: str | None
    lines: str
    """Where persistence located it, worded as in the Markdown ("transcript lines 7-8")."""
    seconds: float | None
    time: str | None
    href: str | None


@dataclass(frozen=True)
class SlideRef:
    page: int
    uri: str | None
    time: str | None


@dataclass(frozen=True)
class Finding:
    pattern_id: str
    anchor: str
    name: str
    kind: str
    confidence: str | None
    evidence: str
    also: tuple[str, ...]
    quotes: tuple[Quote, ...]
    slides: tuple[SlideRef, ...]
    other: tuple[str, ...]
    """Locators of citations that are neither a transcript quote nor a slide page."""


@dataclass(frozen=True)
class TalkPage:
    row: TalkRow
    view: TalkView
    receipt_bound: bool
    score: str
    score_line: str
    dimensions: list[tuple[str, list[Finding]]]
    others: list[tuple[str, list[OutcomeRow]]]
    timeline: Timeline | None
    timeline_note: str
    thumbnails: list[SlideRef]
    thumbnail_note: str | None
    feedback_note: str | None
    video_id: str | None = None
    local_recording: str | None = None
    identity: tuple[Any, ...] = ()  # site.identity.IdentityNote: source-identity findings


@dataclass(frozen=True)
class _Context:
    """What places a citation in time and on a slide."""

    catalog: Catalog
    lines: Sequence[str]
    word_starts: Sequence[float]
    line_starts: Sequence[float | None]
    slide_times: Sequence[float]
    thumbnails: Sequence[str]
    video_id: str | None
    local: str | None


def _claim(talk: Mapping[str, Any]) -> Mapping[str, Any]:
    claim = talk.get("_queue_claim")
    return claim if isinstance(claim, Mapping) and claim.get("state") == "completed" else {}


def talk_view(talk: Mapping[str, Any], feedback: Mapping[str, Any] | None = None) -> TalkView:
    claim = _claim(talk)
    versions = authorized_return_versions(claim) if claim else ()
    return build_view(
        talk,
        claim=claim,
        return_version=versions[0] if len(versions) == 1 else None,
        catalog_feedback=feedback,
    )


def _quote(citation: Citation, ctx: _Context) -> Quote:
    at = citation.start_seconds
    line = citation.line_start
    quote = citation.original if citation.original is not None else citation.text
    if at is None and quote:
        at = quote_start(ctx.lines, ctx.word_starts, quote, line)
    if at is None and line is not None and 0 < line <= len(ctx.line_starts):
        at = ctx.line_starts[line - 1]
    return Quote(
        citation.text or "",
        citation.original,
        citation.locator.split(",", 1)[0],
        at,
        seconds(at) if at is not None else None,
        public_link(ctx.video_id, at) if at is not None else None,
    )


def _slide(page: int, ctx: _Context) -> SlideRef:
    uri = ctx.thumbnails[page - 1] if 0 < page <= len(ctx.thumbnails) else None
    at = ctx.slide_times[page - 1] if 0 < page <= len(ctx.slide_times) else None
    return SlideRef(page, uri, seconds(at) if at is not None else None)


def _finding(obs: Observation, ctx: _Context) -> Finding:
    entry = ctx.catalog.get(obs.pattern_id)
    name = entry.raw.get("name") if entry is not None else None
    quotes, slides, other = [], [], []
    for citation in obs.citations:
        if citation.channel in ("transcript", "timed_transcript"):
            quotes.append(_quote(citation, ctx))
        elif citation.source == "static_slides" and citation.slide_numbers:
            slides.extend(_slide(page, ctx) for page in citation.slide_numbers)
        else:
            other.append(citation.locator + (f": {citation.text}" if citation.text else ""))
    return Finding(
        pattern_id=obs.pattern_id,
        anchor=f"finding-{obs.pattern_id}",
        name=name if isinstance(name, str) else obs.pattern_id,
        kind=obs.kind,
        confidence=obs.confidence,
        evidence=obs.evidence,
        also=tuple(entry.dimensions[1:]) if entry is not None else (),
        quotes=tuple(quotes),
        slides=tuple(slides),
        other=tuple(other),
    )


def _dimension(finding: Finding, catalog: Catalog) -> str:
    entry = catalog.get(finding.pattern_id)
    return entry.dimensions[0] if entry is not None and entry.dimensions else UNGROUPED


def _grouped(findings: Sequence[Finding], catalog: Catalog) -> list[tuple[str, list[Finding]]]:
    """Findings under their first (primary) dimension, dimensions in catalog order."""
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(_dimension(finding, catalog), []).append(finding)
    order = [*DIMENSIONS, *sorted(set(groups) - set(DIMENSIONS))]
    return [(name, groups[name]) for name in order if name in groups]


def _moments(findings: Sequence[Finding], ctx: _Context) -> list[Moment]:
    out = []
    for finding in findings:
        times = {q.seconds for q in finding.quotes if q.seconds is not None}
        for slide in finding.slides:
            if 0 < slide.page <= len(ctx.slide_times):
                times.add(ctx.slide_times[slide.page - 1])
        for at in sorted(times):
            link = public_link(ctx.video_id, at)
            text = where(at, ctx.video_id, ctx.local)
            out.append(Moment(at, finding.kind, finding.name, finding.anchor, link, text))
    return out


def _score(view: TalkView) -> str:
    found, anti = len(view.detections), len(view.antidetections)
    line = (
        f"{found} pattern{'s' * (found != 1)} detected minus {anti} "
        f"antipattern{'s' * (anti != 1)} detected ({SCORE_RULE})."
    )
    if view.pattern_score not in (str(found - anti), "none"):
        line += (
            f" The stored score differs from the recount of the detections below ({found - anti})."
        )
    return line


def _others(rows: Sequence[OutcomeRow]) -> list[tuple[str, list[OutcomeRow]]]:
    groups: dict[str, list[OutcomeRow]] = {}
    for row in rows:
        if not row.outcome.startswith("detected"):
            groups.setdefault(row.outcome, []).append(row)
    order = [*OUTCOME_ORDER, *sorted(set(groups) - set(OUTCOME_ORDER))]
    return [(OUTCOME_HEADINGS.get(o, o.replace("_", " ")), groups[o]) for o in order if o in groups]


def _local_recording(row: TalkRow) -> str | None:
    media = talk_local_media(row.talk)
    if media is not None:
        return str(media["path"])
    return row.evidence.manifest.video_path


def _slide_times(row: TalkRow) -> tuple[float, ...]:
    """Page n of the promoted PDF appeared at ``[n-1]``: only for the trusted region."""
    slides = row.evidence.slides
    if slides.trusted and row.talk.get("slide_source") == "video_extracted":
        return row.evidence.manifest.frame_times
    return ()


def _timeline_note(row: TalkRow, timeline: Timeline | None) -> str:
    if timeline is not None:
        return f"Times on {timeline.recording}."
    transcript = row.evidence.transcript
    if not transcript.timed_quote:
        return (
            "No cited moment has a recorded time: the transcript has no current "
            f"timing receipt ({transcript.timing_code}) and no usable video manifest "
            "records slide changes."
        )
    return "No cited moment has a recorded time."


def talk_page(
    row: TalkRow,
    catalog: Catalog,
    thumbnails: list[str],
    note: str | None,
    feedback: Mapping[str, Any] | None,
    scrubber: Scrubber,
) -> TalkPage:
    view = scrubber.any(talk_view(row.talk, feedback))
    video_id = talk_video_id(row.talk)
    transcript = row.evidence.transcript
    ctx = _Context(
        catalog,
        transcript.lines,
        transcript.word_starts,
        transcript.line_starts,
        _slide_times(row),
        thumbnails,
        video_id,
        _local_recording(row),
    )
    findings = [_finding(obs, ctx) for obs in (*view.detections, *view.antidetections)]
    media = talk_local_media(row.talk)
    duration = (
        talk_duration_seconds(row.talk)
        or (float(media["duration_seconds"]) if media is not None else None)
        or row.evidence.manifest.video_seconds
        or row.evidence.transcript.timed_until
    )
    of = recording(video_id, ctx.local)
    timeline = build_timeline(_moments(findings, ctx), ctx.slide_times, duration, of)
    return TalkPage(
        row=row,
        view=view,
        receipt_bound=row.receipt is not None and row.receipt.bound,
        score=view.pattern_score,
        score_line=_score(view),
        dimensions=_grouped(findings, catalog),
        others=_others(outcome_rows(view, catalog)),
        timeline=timeline,
        timeline_note=_timeline_note(row, timeline),
        thumbnails=[_slide(n, ctx) for n in range(1, len(thumbnails) + 1)],
        thumbnail_note=scrubber.text(note) if note else None,
        video_id=video_id,
        local_recording=ctx.local,
        feedback_note=None
        if feedback is not None
        else "Not shown: catalog feedback lives only in the worker's return. Pass the "
        "batch's RETURNS.json with --returns to show it here (it is always in the "
        "Markdown analysis).",
    )
