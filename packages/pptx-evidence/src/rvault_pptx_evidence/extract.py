"""Build the schema-v5 extraction document for one deck.

Order matters for honesty: the input fingerprint is taken over the exact
source bytes, then ``archive`` validates (and, for media only, recovers) the
package in memory, then python-pptx opens that in-memory package. Nothing
here writes to disk; the CLI's ``--out`` goes through the writer protocol.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from lxml import etree
from pptx.exc import PackageNotFoundError
from rvault_contracts.cli import Refusal

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.archive import OpenedArchive, open_archive
from rvault_pptx_evidence.audit import native_deck_audit
from rvault_pptx_evidence.background import AssetIndex, resolve_background
from rvault_pptx_evidence.geometry import PlaceholderGeometry, placeholder_of
from rvault_pptx_evidence.limits import DEFAULT_LIMITS, Limits
from rvault_pptx_evidence.ocr_channels import OcrAsset, OcrRunner
from rvault_pptx_evidence.ooxml import child, qn
from rvault_pptx_evidence.package_loader import presentation_from_members
from rvault_pptx_evidence.render_policy import adds_large_picture, render_required_reasons
from rvault_pptx_evidence.shapes import ShapeWalker, is_raster, text_of
from rvault_pptx_evidence.source import SourceDeck, read_source
from rvault_pptx_evidence.theme import Theme, load_theme
from rvault_pptx_evidence.timing import native_timing_summary, slide_native_timing
from rvault_pptx_evidence.versions import (
    PIPELINE_VERSION,
    SCHEMA_VERSION,
)

TEXT_CONTENT_PREVIEW_CHARS = 2000
RT_NOTES_SLIDE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide"
KNOWN_ASPECTS = {
    "16:9": 16 / 9,
    "4:3": 4 / 3,
    "16:10": 16 / 10,
    "3:2": 3 / 2,
    "1:1": 1.0,
    "4:5": 4 / 5,
}


def _aspect_ratio(width: int, height: int) -> str | None:
    if width <= 0 or height <= 0:
        return None
    ratio = width / height
    for label, value in KNOWN_ASPECTS.items():
        if abs(ratio - value) / value < 0.01:
            return label
    divisor = math.gcd(width, height)
    return f"{width // divisor}:{height // divisor}"


def _open_presentation(archive: OpenedArchive) -> Any:
    try:
        return presentation_from_members(archive.members)
    except etree.XMLSyntaxError as exc:
        raise Refusal(
            refusals.STRUCTURAL_MEMBER_CORRUPT, f"a structural XML member is malformed ({exc})"
        ) from None
    except PackageNotFoundError as exc:
        raise Refusal(
            refusals.NOT_A_PRESENTATION, f"no presentation part in the package ({exc})"
        ) from None
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise Refusal(
            refusals.NOT_A_PRESENTATION,
            f"the package is not a readable presentation ({type(exc).__name__}: {exc})",
        ) from None


def _template_layouts(prs: Any) -> list[dict[str, Any]]:
    layouts = []
    index = 0
    for master_index, master in enumerate(prs.slide_masters):
        for layout in master.slide_layouts:
            placeholders = []
            for placeholder in layout.placeholders:
                fmt = placeholder.placeholder_format
                placeholders.append(
                    {"idx": int(fmt.idx), "type": fmt.type.name if fmt.type is not None else None}
                )
            layouts.append(
                {
                    "index": index,
                    "master_index": master_index,
                    "name": layout.name,
                    "placeholders": placeholders,
                }
            )
            index += 1
    return layouts


def _speaker_notes(slide: Any) -> bool:
    """True when the notes slide's body placeholder carries text (read from the raw XML)."""
    for rel in slide.part.rels.values():
        if rel.reltype != RT_NOTES_SLIDE or rel.is_external:
            continue
        sp_tree = rel.target_part._element.find(f"{qn('p:cSld')}/{qn('p:spTree')}")
        for element in sp_tree if sp_tree is not None else ():
            ph = placeholder_of(element)
            tx_body = child(element, "p:txBody")
            if (
                ph is not None
                and ph.get("type") == "body"
                and tx_body is not None
                and text_of(tx_body)
            ):
                return True
    return False


def low_confidence_reasons(
    walk: Any, background: dict[str, Any], image_area_ratio: float, has_native_text: bool
) -> list[str]:
    """Why native text cannot be read as complete on this slide (empty: high)."""
    reasons = []
    if walk.has_group:
        reasons.append("group")
    if walk.has_table:
        reasons.append("table")
    if walk.pictures and not has_native_text:
        reasons.append("picture_only")
    if background["background_type"] == "image":
        reasons.append("background_image")
    if adds_large_picture(image_area_ratio):
        reasons.append("large_picture")
    if walk.unsupported:
        reasons.append("unsupported_content")
    return reasons


def _extraction_method(ocr_channels: list[dict[str, Any]]) -> str:
    """``shapes+ocr`` when the engine ran, ``shapes+ocr_unavailable`` when a
    readable asset met a missing engine, else ``shapes``."""
    if any(c["attempted"] for c in ocr_channels):
        return "shapes+ocr"
    if any(c["reason"] == "ocr_engine_unavailable" for c in ocr_channels):
        return "shapes+ocr_unavailable"
    return "shapes"


class DeckExtractor:
    """One extraction run over an opened package."""

    def __init__(self, prs: Any, archive: OpenedArchive, ocr_mode: str) -> None:
        self.prs = prs
        self.archive = archive
        self.ocr = OcrRunner(ocr_mode)
        self.assets = AssetIndex(archive.recovered_by_part())
        self.themes: dict[int, Theme] = {}
        self.geometry = PlaceholderGeometry()
        self.fonts: Counter[str] = Counter()
        self.shape_types: Counter[str] = Counter()
        self.slide_width = int(prs.slide_width or 0)
        self.slide_height = int(prs.slide_height or 0)

    def theme_for(self, slide: Any) -> Theme:
        master = slide.slide_layout.slide_master
        key = id(master.part)
        if key not in self.themes:
            self.themes[key] = load_theme(master)
        return self.themes[key]

    def slide_record(self, number: int, slide: Any) -> dict[str, Any]:
        part_name = f"ppt/slides/slide{number}.xml"
        actual = str(slide.part.partname).lstrip("/")
        theme = self.theme_for(slide)
        background = resolve_background(slide, theme, self.assets)
        area = self.slide_width * self.slide_height
        walker = ShapeWalker(slide, theme, self.assets, self.geometry)
        walk = walker.walk()
        self.fonts.update(walk.fonts)
        self.shape_types.update(walk.shape_types)

        largest = max((p["area_emu"] for p in walk.pictures), default=0)
        image_area_ratio = round(min(largest / area, 1.0), 4) if area > 0 else 0.0
        native_text = "\n".join(walk.native_text_parts)
        low_reasons = low_confidence_reasons(walk, background, image_area_ratio, bool(native_text))
        confidence = "low" if low_reasons else "high"
        channels = list(walk.channels)
        ocr = self._ocr_channels(walk, background) if confidence == "low" else []
        channels.extend(ocr)
        method = _extraction_method(ocr)

        reasons = render_required_reasons(
            (item["content_type"] for item in walk.unsupported),
            image_area_ratio,
            background["background_type"],
            walk.has_group,
        )
        record: dict[str, Any] = {
            "slide_number": number,
            "slide_part_name": part_name,
            **background,
            "layout_name": slide.slide_layout.name,
            "shape_count": walker.shape_count,
            "shape_count_recursive": walk.shape_count_recursive,
            "has_text_frame_shapes": walk.has_text_frame_shapes,
            "has_extracted_text": any(channel["text"] for channel in channels),
            "has_image": bool(walk.pictures),
            "image_area_ratio": image_area_ratio,
            "text_extraction_confidence": confidence,
            "text_content_preview": native_text[:TEXT_CONTENT_PREVIEW_CHARS],
            "ocr_text": "\n".join(c["text"] for c in ocr if c["text"]),
            "text_extraction_method": method,
            "text_channels": channels,
            "unsupported_content": walk.unsupported,
            "has_unsupported_content": bool(walk.unsupported),
            "render_required": bool(reasons),
            "render_required_reasons": reasons,
            "footer_text": " | ".join(walk.footer_parts),
            "has_speaker_notes": _speaker_notes(slide),
            "native_timing": slide_native_timing(slide._element, part_name),
            "shapes_summary": walk.summaries,
        }
        if actual != part_name:
            # python-pptx renames slide parts to slide{N}.xml on load; a
            # mismatch would mean the binding is not what the schema promises.
            raise Refusal(
                refusals.PACKAGE_UNREADABLE,
                f"slide {number} is bound to part {actual!r}, not the canonical {part_name!r}",
            )
        return record

    def _ocr_channels(self, walk: Any, background: dict[str, Any]) -> list[dict[str, Any]]:
        """The OCR channels of a low slide: one per picture set, one per image background."""
        channels = []
        if walk.pictures:
            readable = [p for p in walk.pictures if p["readable"]]
            assets = [
                OcrAsset(
                    p["part_name"],
                    p["asset_sha256"],
                    p["shape_path"],
                    self.archive.members[p["part_name"]],
                )
                for p in readable
            ]
            channels.append(
                self.ocr.channel(
                    "picture_ocr",
                    "embedded_picture_blobs",
                    assets,
                    [p["shape_path"] for p in readable],
                )
            )
        if background["background_type"] == "image":
            assets = []
            if background["background_asset_status"] == "available" and self._background_readable(
                background
            ):
                part = background["background_part_name"]
                assets.append(
                    OcrAsset(
                        part,
                        background["background_asset_sha256"],
                        None,
                        self.archive.members[part],
                    )
                )
            channels.append(
                self.ocr.channel("background_image_ocr", "background_image_blob", assets, [])
            )
        return channels

    def _background_readable(self, background: dict[str, Any]) -> bool:
        name = background["background_part_name"]
        blob = self.archive.members.get(name)
        return blob is not None and is_raster(blob)

    def document(self, source: SourceDeck, pptx_path: str) -> dict[str, Any]:
        slides = [
            self.slide_record(number, slide)
            for number, slide in enumerate(self.prs.slides, start=1)
        ]
        timing_records = [slide["native_timing"] for slide in slides]
        backgrounds = [s["background_color_hex"] for s in slides if s["background_color_hex"]]
        document: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "pipeline_version": PIPELINE_VERSION,
            "input_fingerprint": source.fingerprint(),
            "pptx_path": pptx_path,
            "slide_count": len(slides),
            "aspect_ratio": _aspect_ratio(self.slide_width, self.slide_height),
            "slide_width_inches": round(self.slide_width / 914400, 2),
            "slide_height_inches": round(self.slide_height / 914400, 2),
            "corrupt_assets": [item.corrupt_asset_record() for item in self.archive.recovered],
            "archive_recovery": [item.archive_recovery_record() for item in self.archive.recovered],
            "template_layouts": _template_layouts(self.prs),
            "per_slide_visual": slides,
            "native_timing_summary": native_timing_summary(timing_records),
            "global_design": {
                "fonts_used": dict(sorted(self.fonts.items())),
                "background_colors": dict(sorted(Counter(backgrounds).items())),
                "shape_types_used": dict(sorted(self.shape_types.items())),
                "color_sequence": backgrounds,
            },
        }
        document["native_deck_audit"] = native_deck_audit(document)
        return document


def extract_source(
    source: SourceDeck, pptx_path: str, *, ocr_mode: str, limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    archive = open_archive(source.data, limits)
    prs = _open_presentation(archive)
    try:
        return DeckExtractor(prs, archive, ocr_mode).document(source, pptx_path)
    except (KeyError, etree.XMLSyntaxError) as exc:
        raise Refusal(
            refusals.PACKAGE_UNREADABLE,
            f"the package topology is broken ({type(exc).__name__}: {exc})",
        ) from None


def extract_path(
    path: Path,
    pptx_path: str,
    *,
    ocr_mode: str,
    limits: Limits = DEFAULT_LIMITS,
    expected_generation: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """Read ``path`` (no-follow, bounded) and extract it in this process.

    ``expected_generation`` binds the run to the file version the caller
    checked: a deck replaced in between is refused with ``input_changed``.
    """
    source = read_source(path, limits)
    if expected_generation is not None and source.generation != tuple(expected_generation):
        raise Refusal(
            refusals.INPUT_CHANGED, "the deck was replaced after it was checked", str(path)
        )
    return extract_source(source, pptx_path, ocr_mode=ocr_mode, limits=limits)
