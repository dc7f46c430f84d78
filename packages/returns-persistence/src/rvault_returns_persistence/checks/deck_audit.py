"""The native deck audit a return carries, re-proven against the current deck and PDF.

A worker copies ``native_deck_audit`` (``pptx-native-deck-audit`` v1, with its
optional ``rendered_page_inspection``) from ``rvault-pptx extract
--rendered-pdf --inspected-pages`` into ``structured_data``. It is a receipt
about bytes, so it is believed only after the owner has recomputed it: the
talk's recorded deck (its ``pptx_catalog`` record, below the configured
``pptx_source_dir`` or the vault) is re-extracted in the pptx-evidence bounded
worker, the talk's authored slide PDF is probed again, and the owner's reader
(``rvault_pptx_evidence.api.native_deck_audit_issues``) names every field that
no longer describes them with a stable code. The inspected pages must also be
the static-slide ranges the same return reports: the specification binds the
receipt to exactly the persisted static-slide inspection ranges (the persisted
inspection rows have no field naming the receipt yet, so this equality is the
binding). Once the audit is proven, its
render-required slides gate what the return may say about them: a native_deck
citation of such a slide needs it covered by the rendered inspection, and an
authored visual summary field needs every one of them covered.

Validation runs this and persistence re-runs validation under the writer lock,
so one rule refuses both: a report issue, or a ``returns_invalid`` refusal that
writes nothing. v4/v5 returns only (the versions with source receipts:
``protocol`` runs it for them); replay versions 1-3 keep their historical
snapshot semantics.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.artifacts import _regular_file
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import AUTHORED_SLIDE_FIELDS

AUDITED_VERSIONS = (4, 5)
AUDIT_KEY = "native_deck_audit"
INSPECTION_KEY = "rendered_page_inspection"
DECK_UNVERIFIED = "native_deck_artifact_unverified"
RENDERED_PDF_UNVERIFIED = "rendered_pdf_unverified"
RANGES_MISMATCH = "rendered_page_ranges_mismatch"
CITATION_NEEDS_RENDER = "native_citation_render_required"
SUMMARY_NEEDS_RENDER = "authored_visual_fields_render_incomplete"
CITED_LANES = ("patterns_detected", "antipatterns_detected", "applicability_assessments")
# Authored visual summaries: judgments of what the slides show. slide_count is native
# structure (the deck's own count), so it needs no rendered page.
VISUAL_SUMMARY_FIELDS = tuple(f for f in AUTHORED_SLIDE_FIELDS if f != "slide_count")

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor


def carries_audit(ret: Any) -> bool:
    """A v4/v5 return with a ``structured_data.native_deck_audit`` (what this module checks)."""
    if not isinstance(ret, dict) or ret.get("return_schema_version") not in AUDITED_VERSIONS:
        return False
    structured = ret.get("structured_data")
    return isinstance(structured, dict) and AUDIT_KEY in structured


def deck_file(record: Any, pptx_root: Path | None, vault_root: Path) -> Path | None:
    """The recorded deck file below its root (no symlink, no escape), else None."""
    relative = record.get("pptx_path") if isinstance(record, dict) else None
    if not isinstance(relative, str):
        return None
    return _regular_file(pptx_root if pptx_root is not None else vault_root, relative)


def _recompute(deck: Path) -> dict[str, Any]:
    from rvault_pptx_evidence import api as pptx  # a subprocess owner; only when an audit is held

    return pptx.recompute_extraction(deck)


class Recomputations:
    """The deck re-extractions one validation needs, started together on a small pool.

    Each audited return costs a re-extraction in a pptx-evidence worker subprocess
    (about 0.5 s for a 60-slide deck); one after another they dominate a batch. The
    batch validator starts every one it can foresee (:meth:`start`), the check takes
    its result (:meth:`result`, which runs it in place when it was not foreseen), and
    a refusal raised in the worker reaches the check unchanged.
    """

    def __init__(self, workers: int) -> None:
        self._pool: ThreadPoolExecutor | None = None
        if workers > 1:  # a pool only for a batch with audits: most validations hold none
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=workers)
        self._runs: dict[Path, Future[dict[str, Any]]] = {}

    def start(self, deck: Path) -> None:
        if self._pool is not None and deck not in self._runs:
            self._runs[deck] = self._pool.submit(_recompute, deck)

    def result(self, deck: Path) -> dict[str, Any]:
        run = self._runs.pop(deck, None)
        return run.result() if run is not None else _recompute(deck)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


def _static_ranges(ret: dict[str, Any]) -> Any:
    """The page ranges of the return's static_slides receipt (None: no such receipt)."""
    po = ret.get("pattern_observations")
    records = po.get("source_inspection") if isinstance(po, dict) else None
    for record in records if isinstance(records, list) else ():
        if isinstance(record, dict) and record.get("source") == "static_slides":
            return record.get("page_ranges")
    return None


def _native_slide_citations(ctx: ReturnContext) -> list[tuple[str, list[Any]]]:
    """(path of slide_numbers, slide_numbers) of every native_deck slide citation."""
    found = []
    po = ctx.ret.get("pattern_observations")
    for lane in CITED_LANES:
        rows = po.get(lane) if isinstance(po, dict) else None
        for index, row in enumerate(rows if isinstance(rows, list) else ()):
            citations = row.get("evidence_citations") if isinstance(row, dict) else None
            for number, cit in enumerate(citations if isinstance(citations, list) else ()):
                if not isinstance(cit, dict) or cit.get("source") != "native_deck":
                    continue  # shape problems are the citation rules' to report
                numbers = cit.get("slide_numbers")
                if isinstance(numbers, list):
                    where = child(ctx.path, "pattern_observations", lane, index)
                    found.append((child(where, "evidence_citations", number, "slide_numbers"),
                                  numbers))  # fmt: skip
    return found


def check_deck_audit(ctx: ReturnContext) -> None:
    """The carried audit, recomputed from the recorded deck and the authored PDF."""
    structured = ctx.ret.get("structured_data")
    if not isinstance(structured, dict) or AUDIT_KEY not in structured:
        return
    from rvault_pptx_evidence import api as pptx  # a subprocess owner; only when an audit is held

    audit = structured[AUDIT_KEY]
    path = child(ctx.path, "structured_data", AUDIT_KEY)
    deck = deck_file(ctx.pptx_record, ctx.pptx_root, ctx.vault_root)
    if deck is None:
        ctx.add(
            DECK_UNVERIFIED,
            path,
            "the return carries a native_deck_audit but the talk's recorded deck (its "
            "pptx_catalog record) is not a readable file below its root, so the audit "
            "cannot be recomputed",
        )
        return
    try:
        fresh = ctx.recomputations.result(deck) if ctx.recomputations else _recompute(deck)
    except pptx.RecomputationRefused as refused:
        ctx.add(
            DECK_UNVERIFIED,
            path,
            f"pptx-evidence could not re-extract the recorded deck to recompute the audit: "
            f"{refused.code}: {refused.message}",
        )
        return
    inspection = audit.get(INSPECTION_KEY) if isinstance(audit, dict) else None
    probe = None
    if inspection is not None:
        probe = _probe(ctx, child(path, INSPECTION_KEY))
        if probe is None:
            return
    issues = pptx.native_deck_audit_issues(audit, fresh, pdf_probe=probe, path=path)
    ctx.issues.extend(issues)
    if issues:
        return
    if isinstance(inspection, dict):
        ranges = _static_ranges(ctx.ret)
        if ranges is not None and ranges != inspection["inspected_page_ranges"]:
            ctx.add(
                RANGES_MISMATCH,
                child(path, INSPECTION_KEY, "inspected_page_ranges"),
                f"the rendered pages inspected {inspection['inspected_page_ranges']} are not "
                f"the static_slides page_ranges {ranges} this return reports",
            )
    _check_render_coverage(ctx, audit, structured)


def _check_render_coverage(
    ctx: ReturnContext, audit: dict[str, Any], structured: dict[str, Any]
) -> None:
    """Render-required slides are judged only from rendered pages (the verified audit's).

    A native_deck citation needs rendered coverage only where its slides overlap the
    render-required ones (a clean-slide citation stays usable); an explicit authored
    visual summary needs every render-required slide covered (``complete``).
    """
    required = audit["render_required_slide_numbers"]
    if not required:
        return
    inspection = audit.get(INSPECTION_KEY)
    covered = set(inspection["inspected_required_slide_numbers"]) if inspection else set()
    reasons = audit["render_required_reasons"]
    for where, numbers in _native_slide_citations(ctx):
        cited = {n for n in numbers if is_int(n)}  # the citation rules report the rest
        missing = sorted(n for n in cited & set(required) if n not in covered)
        if missing:
            why = "; ".join(f"{n}: {', '.join(reasons[str(n)])}" for n in missing)
            ctx.add(
                CITATION_NEEDS_RENDER,
                where,
                f"cited slides {missing} need a rendered page ({why}) that the audit's "
                "rendered_page_inspection does not cover; render and inspect them "
                "(rvault-pptx extract --rendered-pdf --inspected-pages)",
            )
    if inspection is not None and inspection["complete"]:
        return
    for key in VISUAL_SUMMARY_FIELDS:
        if key in structured:
            ctx.add(
                SUMMARY_NEEDS_RENDER,
                child(ctx.path, "structured_data", key),
                f"{key} summarizes the authored slides, but render-required slides "
                f"{sorted(set(required) - covered)} are not covered by the audit's "
                "rendered_page_inspection; render and inspect every one of them first",
            )


def _probe(ctx: ReturnContext, path: str) -> dict[str, Any] | None:
    """The bounded probe of the talk's authored slide PDF, or an issue and None."""
    from rvault_pptx_evidence import api as pptx

    relative = ctx.artifacts.pdf_path
    if relative is None or ctx.artifacts.pdf_is_video_extracted:
        ctx.add(
            RENDERED_PDF_UNVERIFIED,
            path,
            "the audit carries a rendered_page_inspection but the vault holds no authored "
            "slide PDF for the talk (a video-extracted PDF is not a render of the deck)",
        )
        return None
    try:
        return pptx.probe_rendered_pdf(ctx.vault_root / relative)
    except pptx.RecomputationRefused as refused:
        ctx.add(
            RENDERED_PDF_UNVERIFIED,
            path,
            f"pptx-evidence could not probe {relative}: {refused.code}: {refused.message}",
        )
        return None
