"""Public, light reader of pptx-extraction output (no python-pptx import).

Consumers (returns-persistence for native-deck evidence, tracking-db for the
``pptx_catalog``) decide with :func:`classify` whether an extraction record
may be used, instead of re-deriving the version rules:

* no ``schema_version`` (legacy v0) or v1: native timing is *unknown*, never
  all-zero; re-extract.
* v2 / v3: pre-build timing lanes or missing capability/asset bindings;
  re-extract for current analysis.
* v4: still read (validated against ``urn:rvault:pptx-extraction:v4``; a
  record that fails it is ``invalid``) but ``needs_reextraction``: it lacks
  the ``grouped_shapes`` render reason, so a grouped slide may be missing
  from its render-required set, and per-cell table provenance.
* v5: validated against ``urn:rvault:pptx-extraction:v5`` plus the
  cross-record bindings a schema cannot state (slide ordinal <-> part name,
  timing provenance part, corrupt asset <-> archive recovery record, audit
  digests and counts).
* any higher version: no usable prior output until the reader is updated.

A v5 record with a non-empty ``archive_recovery`` is valid but *degraded*:
it is not permission to score the surviving slides.

A consumer holding a native deck audit (a worker return carries one) reads it
with :func:`native_deck_audit_issues` against :func:`recompute_extraction` of
the current deck and :func:`probe_rendered_pdf` of the current rendered PDF:
coded ``rvault_contracts.issues.Issue`` values, empty when the audit still
describes both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rvault_contracts.issues import Issue
from rvault_contracts.lazy_exports import lazy_exports
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_pptx_evidence.versions import (
    ARTIFACT_ID,
    DIRECTORY_BATCH_SCHEMA_VERSION,
    SCHEMA_VERSION,
)
from rvault_pptx_evidence.visual_evidence import (
    LiveObservation,
    VisualEvidenceClass,
    classify_pptx_visual_evidence,
    failed_receipt,
    receipt_problems,
    visual_evidence_receipt,
)

if TYPE_CHECKING:
    from rvault_pptx_evidence.audit import native_deck_audit, receipt_projection
    from rvault_pptx_evidence.audit_match import (
        AUDIT_MISMATCH,
        AUDIT_OBSOLETE,
        INSPECTION_INVALID,
        RENDERED_PDF_MISMATCH,
        RecomputationRefused,
        audit_issues,
        inspection_issues,
        match_native_deck_audit,
        native_deck_audit_issues,
        probe_rendered_pdf,
        recompute_extraction,
    )
    from rvault_pptx_evidence.batch_contract import (
        INCOMPLETE_REASON_CODES,
        POLICY_SKIP_REASON_CODES,
        ROOT_REASON_CODES,
    )
    from rvault_pptx_evidence.deck_identity import deck_identity_facts
    from rvault_pptx_evidence.render_policy import (
        TEXT_BEARING_IMAGE_AREA_RATIO,
        slide_render_reasons,
    )

#: The names loaded on first use (PEP 562), and the module that defines each: a
#: reader of catalog receipts (``rvault-db status``: ``classify_pptx_visual_evidence``)
#: does not import the audit recomputation (subprocess), the batch envelope rules or
#: the schema registry. The imports above, for type checking, keep the import
#: checker's view of everything this module can reach.
_LAZY = {
    "native_deck_audit": "audit",
    "receipt_projection": "audit",
    "AUDIT_MISMATCH": "audit_match",
    "AUDIT_OBSOLETE": "audit_match",
    "INSPECTION_INVALID": "audit_match",
    "RENDERED_PDF_MISMATCH": "audit_match",
    "RecomputationRefused": "audit_match",
    "audit_issues": "audit_match",
    "inspection_issues": "audit_match",
    "match_native_deck_audit": "audit_match",
    "native_deck_audit_issues": "audit_match",
    "probe_rendered_pdf": "audit_match",
    "recompute_extraction": "audit_match",
    "INCOMPLETE_REASON_CODES": "batch_contract",
    "POLICY_SKIP_REASON_CODES": "batch_contract",
    "ROOT_REASON_CODES": "batch_contract",
    "deck_identity_facts": "deck_identity",
    "TEXT_BEARING_IMAGE_AREA_RATIO": "render_policy",
    "slide_render_reasons": "render_policy",
}


__getattr__, __dir__ = lazy_exports("rvault_pptx_evidence", _LAZY, globals())


__all__ = [
    "AUDIT_MISMATCH",
    "AUDIT_OBSOLETE",
    "CURRENT",
    "INCOMPLETE_REASON_CODES",
    "INSPECTION_INVALID",
    "INVALID",
    "NEEDS_REEXTRACTION",
    "POLICY_SKIP_REASON_CODES",
    "RENDERED_PDF_MISMATCH",
    "ROOT_REASON_CODES",
    "TEXT_BEARING_IMAGE_AREA_RATIO",
    "TIMING_UNKNOWN",
    "UNUSABLE_FUTURE",
    "ExtractionReading",
    "LiveObservation",
    "RecomputationRefused",
    "VisualEvidenceClass",
    "audit_issues",
    "batch_issues",
    "binding_issues",
    "classify",
    "classify_pptx_visual_evidence",
    "deck_identity_facts",
    "failed_receipt",
    "inspection_issues",
    "match_native_deck_audit",
    "native_deck_audit",
    "native_deck_audit_issues",
    "probe_rendered_pdf",
    "read_extraction",
    "receipt_problems",
    "receipt_projection",
    "recompute_extraction",
    "slide_render_reasons",
    "visual_evidence_receipt",
]

CURRENT = "current"
TIMING_UNKNOWN = "timing_unknown"
NEEDS_REEXTRACTION = "needs_reextraction"
UNUSABLE_FUTURE = "unusable_future_version"
INVALID = "invalid"


@dataclass(frozen=True)
class ExtractionReading:
    """What a consumer may do with one extraction record."""

    status: str
    schema_version: int | None
    timing_known: bool
    degraded: bool = False
    issues: tuple[str, ...] = field(default_factory=tuple)
    document: dict[str, Any] | None = None

    @property
    def usable_for_current_analysis(self) -> bool:
        return self.status == CURRENT and not self.degraded

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "schema_version": self.schema_version,
            "timing_known": self.timing_known,
            "degraded": self.degraded,
            "usable_for_current_analysis": self.usable_for_current_analysis,
            "issues": list(self.issues),
        }


def _ocr_receipt_issues(slide: dict[str, Any], where: str, at: str) -> list[Issue]:
    """Every OCR receipt must name an available asset of this slide, exactly."""
    pictures = {
        (tuple(s["shape_path"]), s["picture_part_name"], s["picture_asset_sha256"])
        for s in slide["shapes_summary"]
        if s["is_picture"] and s.get("picture_asset_status") == "available"
    }
    background = (
        (None, slide["background_part_name"], slide["background_asset_sha256"])
        if slide["background_asset_status"] == "available"
        else None
    )
    issues = []
    for c, channel in enumerate(slide["text_channels"]):
        if channel["channel"] not in ("picture_ocr", "background_image_ocr"):
            continue
        for r, receipt in enumerate(channel["ocr_receipts"]):
            path = receipt["shape_path"]
            key = (
                tuple(path) if path is not None else None,
                receipt["part_name"],
                receipt["asset_sha256"],
            )
            bound = key in pictures if channel["channel"] == "picture_ocr" else key == background
            if not bound:
                message = (
                    f"{where}: {channel['channel']} receipt for {receipt['part_name']} "
                    "does not match an available asset's part name and digest"
                )
                location = f"{at}.text_channels[{c}].ocr_receipts[{r}]"
                issues.append(Issue(BINDING_OCR_RECEIPT, location, message))
    return issues


#: Codes of an extraction's cross-record bindings (``binding_issues``).
BINDING_SLIDE_COUNT = "binding_slide_count"
BINDING_CORRUPT_ASSETS = "binding_corrupt_assets"
BINDING_SLIDE_NUMBER = "binding_slide_number"
BINDING_SLIDE_PART = "binding_slide_part_name"
BINDING_TIMING_PART = "binding_timing_provenance"
BINDING_RENDER_REASONS = "binding_render_reasons"
BINDING_CORRUPT_UNBOUND = "binding_corrupt_asset_unbound"
BINDING_RECOVERED_AVAILABLE = "binding_recovered_asset_available"
BINDING_OCR_RECEIPT = "binding_ocr_receipt"


def binding_issues(document: dict[str, Any]) -> list[Issue]:
    """Cross-record bindings of a schema-valid v5 document; empty when all hold.

    Coded issues at JSON paths (``binding_*``), then the document's own audit
    against the recomputed one (``audit_issues``).
    """
    issues: list[Issue] = []
    slides = document["per_slide_visual"]
    if document["slide_count"] != len(slides):
        message = "slide_count does not equal the number of per_slide_visual records"
        issues.append(Issue(BINDING_SLIDE_COUNT, "$.slide_count", message))
    recovered = {item["part_name"]: item for item in document["archive_recovery"]}
    projection = [
        {
            "part_name": r["part_name"],
            "error_type": r["error_type"],
            "status": "recovered_with_placeholder",
        }
        for r in document["archive_recovery"]
    ]
    if document["corrupt_assets"] != projection:
        message = "corrupt_assets is not the projection of archive_recovery"
        issues.append(Issue(BINDING_CORRUPT_ASSETS, "$.corrupt_assets", message))
    for position, slide in enumerate(slides, start=1):
        issues.extend(_slide_binding_issues(slide, position, recovered))
    from rvault_pptx_evidence.audit_match import audit_issues

    issues.extend(audit_issues(document))
    return issues


def _slide_binding_issues(
    slide: dict[str, Any], position: int, recovered: dict[str, dict[str, Any]]
) -> list[Issue]:
    """One slide record's bindings: numbering, part names, render reasons, assets, OCR."""
    from rvault_pptx_evidence.render_policy import slide_render_reasons

    where = f"slide {slide['slide_number']}"
    at = f"$.per_slide_visual[{position - 1}]"
    issues: list[Issue] = []
    if slide["slide_number"] != position:
        message = f"{where}: slide numbers are not consecutive from 1"
        issues.append(Issue(BINDING_SLIDE_NUMBER, f"{at}.slide_number", message))
    part = f"ppt/slides/slide{slide['slide_number']}.xml"
    if slide["slide_part_name"] != part:
        message = f"{where}: slide_part_name is not {part}"
        issues.append(Issue(BINDING_SLIDE_PART, f"{at}.slide_part_name", message))
    if slide["native_timing"]["provenance"]["part_name"] != slide["slide_part_name"]:
        message = f"{where}: native timing provenance names another part"
        location = f"{at}.native_timing.provenance.part_name"
        issues.append(Issue(BINDING_TIMING_PART, location, message))
    if slide["render_required_reasons"] != slide_render_reasons(slide):
        message = (
            f"{where}: render_required_reasons do not match unsupported_content,"
            " image_area_ratio, background_type and the slide's groups"
        )
        issues.append(Issue(BINDING_RENDER_REASONS, f"{at}.render_required_reasons", message))
    bindings = [
        (s.get("picture_asset_status"), s.get("picture_part_name"), s.get("picture_asset_sha256"))
        for s in slide["shapes_summary"]
        if s["is_picture"]
    ]
    bindings.append(
        (
            slide["background_asset_status"],
            slide["background_part_name"],
            slide["background_asset_sha256"],
        )
    )
    for status, part_name, digest in bindings:
        record = recovered.get(part_name) if part_name else None
        if status == "corrupt" and (record is None or record["replacement_sha256"] != digest):
            message = f"{where}: corrupt asset {part_name} is not bound to archive_recovery"
            issues.append(Issue(BINDING_CORRUPT_UNBOUND, at, message))
        if status == "available" and record is not None:
            message = f"{where}: recovered asset {part_name} is reported as available"
            issues.append(Issue(BINDING_RECOVERED_AVAILABLE, at, message))
    issues.extend(_ocr_receipt_issues(slide, where, at))
    return issues


def _version_of(document: dict[str, Any]) -> int | str | None:
    if "schema_version" not in document:
        return None
    value = document["schema_version"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return "invalid"
    return value


PREVIOUS_SCHEMA_VERSION = 4


def _previous_version(document: dict[str, Any]) -> ExtractionReading:
    """A v4 record: readable (schema-checked) but not current."""
    from rvault_contracts.schemas import schema_issues

    problems = tuple(
        f"{i.path}: {i.message}"
        for i in schema_issues(ARTIFACT_ID, PREVIOUS_SCHEMA_VERSION, document)
    )
    if problems:
        return ExtractionReading(INVALID, PREVIOUS_SCHEMA_VERSION, False, issues=problems)
    return ExtractionReading(
        NEEDS_REEXTRACTION,
        PREVIOUS_SCHEMA_VERSION,
        timing_known=True,
        degraded=bool(document["archive_recovery"]),
        issues=(
            "schema v4 lacks the grouped_shapes render reason and per-cell table provenance;"
            " re-extract with the current extractor",
        ),
        document=document,
    )


def classify(document: dict[str, Any]) -> ExtractionReading:
    """Classify one decoded extraction record (see the module docstring)."""
    from rvault_contracts.schemas import schema_issues

    version = _version_of(document)
    if version == "invalid":
        return ExtractionReading(
            INVALID, None, False, issues=("schema_version is not a non-negative integer",)
        )
    if version is None or version in (0, 1):
        number = 0 if version is None else int(version)
        return ExtractionReading(
            TIMING_UNKNOWN,
            number,
            timing_known=False,
            issues=(f"schema v{number} has no native timing lanes: timing is unknown; re-extract",),
        )
    assert isinstance(version, int)
    if version in (2, 3):
        missing = (
            "raw build-list evidence, archive-recovery and audit receipts"
            if version == 2
            else "required shape/picture/background capability bindings"
        )
        return ExtractionReading(
            NEEDS_REEXTRACTION,
            version,
            timing_known=True,
            issues=(f"schema v{version} lacks {missing}; re-extract with the current extractor",),
        )
    if version == PREVIOUS_SCHEMA_VERSION:
        return _previous_version(document)
    if version > SCHEMA_VERSION:
        return ExtractionReading(
            UNUSABLE_FUTURE,
            version,
            timing_known=False,
            issues=(
                f"schema v{version} is newer than this reader (v{SCHEMA_VERSION}); "
                "no usable prior output",
            ),
        )
    problems = [
        f"{i.path}: {i.message}" for i in schema_issues(ARTIFACT_ID, SCHEMA_VERSION, document)
    ]
    if not problems:
        problems = [issue.message for issue in binding_issues(document)]
    if problems:
        return ExtractionReading(INVALID, version, timing_known=False, issues=tuple(problems))
    return ExtractionReading(
        CURRENT,
        version,
        timing_known=True,
        degraded=bool(document["archive_recovery"]),
        document=document,
    )


def read_extraction(data: bytes | str) -> ExtractionReading:
    """Strictly decode and classify extraction bytes (e.g. a file written by ``--out``)."""
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        return ExtractionReading(INVALID, None, False, issues=(f"{exc.code}: {exc.message}",))
    return classify(document)


def batch_issues(envelope: Any) -> list[Issue]:
    """A ``pptx-directory-batch`` v2 envelope: schema (``schema_violation``), then
    the recomputed completeness and the structural rules of ``skipped[]``
    (``batch_*`` codes at their JSON paths); empty when valid. Only
    ``complete: true`` authorizes a full-catalog or absence claim."""
    from rvault_contracts.schemas import schema_issues

    from rvault_pptx_evidence.batch_contract import envelope_issues

    problems = schema_issues("pptx-directory-batch", DIRECTORY_BATCH_SCHEMA_VERSION, envelope)
    return problems or envelope_issues(envelope)
