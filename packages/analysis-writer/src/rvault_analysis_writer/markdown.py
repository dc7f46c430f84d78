"""Markdown rendering of a :class:`TalkView`: one deterministic file per talk.

The section order, headings and provenance keys are a contract (README,
"Rendering contract"): a reader, a diff and the later site all rely on
them. Worker prose is reproduced as written (it is Markdown already) except
that raw HTML is escaped (:func:`_no_html`), and table cells are escaped.
Output is UTF-8 with LF line ends and no timestamp beyond the persisted
``processed_date``.
"""

from __future__ import annotations

import json
import re

from rvault_analysis_writer.__about__ import __version__
from rvault_analysis_writer.talk_view import (
    LEGACY_UNVERIFIED,
    SOURCE_LOCATED_ARCHIVAL,
    SOURCE_VERIFIED,
    Citation,
    Observation,
    Table,
    TalkView,
)

RENDERING_CONTRACT = 1

#: The level-2 sections of every analysis, in order (README, "Rendering contract").
SECTIONS = (
    "Provenance",
    "Rhetoric notes",
    "Areas for improvement",
    "Adherence assessment",
    "Structured data",
    "Verbatim examples",
    "Pattern observations",
    "Catalog feedback",
)

BASIS_SENTENCES = {
    SOURCE_VERIFIED: (
        "Evidence basis: **source-verified**. Persistence matched every citation below "
        "against the exact artifacts named in the inspection table (evidence ledger v2)."
    ),
    SOURCE_LOCATED_ARCHIVAL: (
        "Evidence basis: **source-located, archival** (return v4, evidence ledger v1). "
        "Citations carry their recorded locations but are not current verified evidence."
    ),
    LEGACY_UNVERIFIED: (
        "Evidence basis: **legacy-unverified**. This evidence predates source-located "
        "citations; the prose below is shown as recorded and is not source-verified."
    ),
}


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")


def _no_html(text: str) -> str:
    """Worker text with every ``<`` as the entity ``&lt;``, so no renderer sees markup.

    A vault is often published by a static-site generator that passes raw
    HTML through: a worker's ``<script>`` or ``<img onerror=...>`` must reach
    the reader as text. Every tag, comment and autolink starts with ``<``;
    the entity reads as ``<`` in every CommonMark renderer, and a preceding
    backslash cannot turn it back into markup. The cost: inside a code span
    the entity shows literally.
    """
    return text.replace("<", "&lt;")


def _cell(value: str) -> str:
    text = _no_html(_lines(value))
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>") or " "


def _table(table: Table) -> list[str]:
    if not table.rows:
        return ["None recorded."]
    out = [
        "| " + " | ".join(_cell(c) for c in table.columns) + " |",
        "| " + " | ".join("---" for _ in table.columns) + " |",
    ]
    out.extend("| " + " | ".join(_cell(v) for v in row) + " |" for row in table.rows)
    return out


_SETEXT_UNDERLINE = re.compile(r"[ ]{0,3}(=+|-+)[ \t]*")


def _guard(line: str) -> str:
    """Keep worker prose from opening a heading (and so a section) of its own.

    An ATX heading (``#`` after up to three spaces) or a setext underline
    (a line of only ``=`` or ``-``) is escaped with a backslash; the text
    still reads the same.
    """
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) <= 3 and stripped.startswith("#"):
        return line[: len(line) - len(stripped)] + "\\" + stripped
    if _SETEXT_UNDERLINE.fullmatch(line):
        return "\\" + line.lstrip(" ")
    return line


def _prose(text: str, empty: str = "None recorded.") -> list[str]:
    body = _no_html(_lines(text))
    if not body.strip():
        return [empty]
    return ["\n".join(_guard(line) for line in body.split("\n"))]


def _inline(text: str) -> str:
    return " ".join(_no_html(_lines(text)).split())


def _citation(citation: Citation) -> str:
    if citation.original is not None:
        # Translation first, exact source-language span in parentheses.
        english, original = _inline(citation.text or ""), _inline(citation.original)
        return f'"{english}" ("{original}"), {_inline(citation.locator)}'
    if citation.channel in ("transcript", "timed_transcript"):
        return f'"{_inline(citation.text or "")}", {_inline(citation.locator)}'
    if citation.channel == "talk_metadata":
        value = "" if citation.text is None else f" = {_inline(citation.text)}"
        return f"{_inline(citation.locator)}{value}"
    return _inline(citation.locator)


def _observation(obs: Observation, basis: str) -> list[str]:
    facts = []
    if obs.kind == "assessment":
        facts.append(f"result {obs.result}")
        if obs.condition_id:
            facts.append(f"condition `{_inline(obs.condition_id)}`")
    elif obs.confidence:
        facts.append(f"confidence {obs.confidence}")
    if obs.evidence_source:
        source = obs.evidence_source
        if obs.evidence_sources_used:
            source += " (" + " + ".join(obs.evidence_sources_used) + ")"
        facts.append(f"evidence source {source}")
    facts.append(f"outcome {obs.outcome or 'unknown'}")
    out = [f"#### `{_inline(obs.pattern_id)}`", "", _inline("; ".join(facts)) + ".", ""]
    out.extend(_prose(obs.evidence))
    out.append("")
    if obs.citations:
        label = "Citations (source-verified)" if basis == SOURCE_VERIFIED else "Citations"
        out.append(f"{label}:")
        out.append("")
        out.extend(f"- {_citation(c)}" for c in obs.citations)
    else:
        out.append("Citations: none recorded (legacy marker; not source-verified).")
    out.append("")
    return out


def _observations(title: str, observations: tuple[Observation, ...], basis: str) -> list[str]:
    out = [f"### {title}", ""]
    if not observations:
        return [*out, "None recorded.", ""]
    for obs in observations:
        out.extend(_observation(obs, basis))
    return out


def _frontmatter(view: TalkView) -> list[str]:
    # JSON scalars are valid YAML scalars: machine-readable and unambiguous.
    out = ["---"]
    out.extend(f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in view.provenance)
    out.append(f"rendered_by: {json.dumps(f'rvault-analysis {__version__}')}")
    out.append(f"rendering_contract: {RENDERING_CONTRACT}")
    out.append("---")
    return out


def _legacy(view: TalkView) -> list[str]:
    if view.legacy is None:
        return []
    reasons = ", ".join(f"`{_inline(r)}`" for r in view.legacy.reasons) or "none recorded"
    return [
        f"> **Legacy-unverified result** (scoring generation `{view.legacy.status}`; "
        f"reasons: {reasons}).",
        "> Its adherence prose is legacy-unverified. This talk is excluded from current "
        "numeric baselines, Section 15 aggregates, and speaker profiles.",
        "",
    ]


def render(view: TalkView) -> bytes:
    """The analysis Markdown of one talk; the same view always gives the same bytes."""
    out: list[str] = [*_frontmatter(view), "", f"# {_inline(view.title)}", ""]
    out.extend(_legacy(view))
    out += ["## Provenance", ""]
    out.extend(_table(Table(("key", "value"), view.provenance)))
    out += ["", "## Rhetoric notes", ""]
    out.extend(_prose(view.rhetoric_notes))
    out += ["", "## Areas for improvement", ""]
    out.extend(_prose(view.areas_for_improvement))
    out += ["", "## Adherence assessment", ""]
    if view.legacy is not None and view.adherence_assessment.strip():
        out.append("**Legacy-unverified** (archival prose, not a current numeric input):")
        out.append("")
    out.extend(_prose(view.adherence_assessment, "No adherence assessment (current sentinel)."))
    out += ["", "## Structured data", "", "### Summary", ""]
    out.extend(_table(view.summary))
    for key, items in view.sequences:
        out += ["", f"### `{_inline(key)}`", ""]
        if items:
            out.extend(f"{n}. {_inline(item)}" for n, item in enumerate(items, 1))
        else:
            out.append("None recorded.")
    out += ["", "### Per-slide visual ledger", ""]
    out.extend(_table(view.ledger) if view.ledger is not None else ["Not recorded."])
    out += ["", "### Image sources", ""]
    if view.image_sources is None:
        out.append("Not recorded.")
    else:
        out.extend(_table(view.image_sources))
        out += ["", f"Basis: {_inline(view.image_source_basis or '')}"]
    for key, table in view.structured_objects:
        out += ["", f"### `{_inline(key)}`", ""]
        out.extend(_table(table))
    out += ["", "## Verbatim examples", ""]
    if not view.verbatim:
        out.append("None recorded.")
    for lane, heading, items in view.verbatim:
        out += [f"### {heading}", ""]
        if items:
            for item in items:
                out += [f"> {_inline(item)}", ""]
        else:
            out += [f"None recorded (`{lane}` is empty).", ""]
    out += ["", "## Pattern observations", "", BASIS_SENTENCES[view.evidence_basis], ""]
    out += ["### Sources inspected", ""]
    out.extend(_table(view.inspection))
    out.append("")
    out.extend(_observations("Patterns detected", view.detections, view.evidence_basis))
    out.extend(_observations("Antipatterns detected", view.antidetections, view.evidence_basis))
    out.extend(_observations("Applicability assessments", view.assessments, view.evidence_basis))
    out += ["### Not evaluable", ""]
    out.extend(_table(view.not_evaluable))
    out += ["", "### Outcomes", "", f"Pattern score: {view.pattern_score}.", ""]
    out.extend(_table(view.outcomes))
    out += ["", "## Catalog feedback", ""]
    if not view.feedback_present:
        out += ["Not recorded: the return carries no `catalog_feedback` (a legacy return).", ""]
    for _lane, heading, items in view.feedback:
        out += [f"### {heading}", ""]
        if not items:
            out += ["None reported.", ""]
            continue
        for item in items:
            out.append("- " + "; ".join(f"{k}: {_inline(v)}" for k, v in item))
        out.append("")
    # Every interpolation above is single-line; a stray CR can only sit inside a line.
    text = "\n".join(out).replace("\r", " ").rstrip("\n") + "\n"
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.encode("utf-8")
