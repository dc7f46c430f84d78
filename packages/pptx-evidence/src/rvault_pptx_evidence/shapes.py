"""Walk every shape of a slide and emit only what its capabilities allow.

Each shape gets explicit ``has_text_frame`` / ``is_picture`` /
``is_graphic_frame`` flags; text previews and the five-field font bundle
exist only for text frames, table fields only for table graphic frames and
asset bindings only for pictures. Graphic types are derived from the exact
DrawingML URI, so a URI the extractor does not know stays a generic
``graphic_frame`` instead of being guessed. Text found on the way is kept in
distinct channels (top-level shapes, shapes inside groups, table cells, the
labels stored in a chart part) so a reader can tell which route produced
each string.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pptx.enum.shapes import MSO_AUTO_SHAPE_TYPE, MSO_SHAPE_TYPE

from rvault_pptx_evidence.background import AssetIndex
from rvault_pptx_evidence.chart_text import chart_label_channels
from rvault_pptx_evidence.geometry import PlaceholderGeometry, non_visual, placeholder_of
from rvault_pptx_evidence.ooxml import GRAPHIC_TYPE_BY_URI, child, emu_to_inches, qn
from rvault_pptx_evidence.theme import Theme

TEXT_PREVIEW_CHARS = 200
RASTER_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF87a",
    b"GIF89a",
    b"BM",
    b"II*\x00",
    b"MM\x00*",
)

UNSUPPORTED_REASONS = {
    "smartart": "visible text or labels may not be represented in PPTX text frames",
    "chart": "chart labels, values and legends are rendered, not read as text frames",
    "graphic_frame": "unknown or missing graphic data; its visible content is not extracted",
    "embedded_ole_object": "embedded object content is rendered by another application",
    "linked_ole_object": "linked object content lives outside the package",
    "media": "audio/video content and its poster frame are not text evidence",
    "unreadable_picture": "picture bytes are not a readable"
    " raster image; any text in it is invisible",
    "corrupt_embedded_asset": "the embedded image was corrupt"
    " and replaced by a transparent placeholder",
}


@dataclass
class SlideShapes:
    """Everything the shape walk of one slide found."""

    summaries: list[dict[str, Any]] = field(default_factory=list)
    channels: list[dict[str, Any]] = field(default_factory=list)
    unsupported: list[dict[str, Any]] = field(default_factory=list)
    pictures: list[dict[str, Any]] = field(default_factory=list)
    fonts: Counter[str] = field(default_factory=Counter)
    shape_types: Counter[str] = field(default_factory=Counter)
    shape_count_recursive: int = 0
    has_group: bool = False
    has_table: bool = False
    footer_parts: list[str] = field(default_factory=list)
    native_text_parts: list[str] = field(default_factory=list)
    has_text_frame_shapes: bool = False


def _enum_label(member: Any) -> str:
    return f"{member.name} ({int(member.value)})"


AUTO_SHAPE_LABEL = _enum_label(MSO_SHAPE_TYPE.AUTO_SHAPE)


def _bool_attr(element: Any, name: str) -> bool | None:
    value = element.get(name) if element is not None else None
    if value is None:
        return None
    return value in ("1", "true")


def _font_size(r_pr: Any) -> int | float | None:
    value = r_pr.get("sz") if r_pr is not None else None
    if value is None or not value.isdigit():
        return None
    points = int(value) / 100
    return int(points) if points.is_integer() else points


def _run_font(r_pr: Any, theme: Theme) -> str | None:
    latin = child(r_pr, "a:latin")
    return theme.resolve_font(latin.get("typeface")) if latin is not None else None


def _font_bundle(tx_body: Any, theme: Theme) -> dict[str, Any]:
    """The five-field bundle of the first run that carries text."""
    for run in tx_body.iter(qn("a:r")):
        text_el = child(run, "a:t")
        if text_el is None or not (text_el.text or "").strip():
            continue
        r_pr = child(run, "a:rPr")
        return {
            "font_name": _run_font(r_pr, theme),
            "font_size": _font_size(r_pr),
            "font_color": theme.fill_color_hex(child(r_pr, "a:solidFill")),
            "bold": _bool_attr(r_pr, "b"),
            "italic": _bool_attr(r_pr, "i"),
        }
    return {"font_name": None, "font_size": None, "font_color": None, "bold": None, "italic": None}


def _count_fonts(tx_body: Any, theme: Theme, counter: Counter[str]) -> None:
    for run in tx_body.iter(qn("a:r")):
        name = _run_font(child(run, "a:rPr"), theme)
        if name:
            counter[name] += 1


def text_of(tx_body: Any) -> str:
    paragraphs = []
    for paragraph in tx_body.iter(qn("a:p")):
        pieces = []
        for node in paragraph:
            if node.tag == qn("a:r") or node.tag == qn("a:fld"):
                text_el = child(node, "a:t")
                pieces.append(text_el.text or "" if text_el is not None else "")
            elif node.tag == qn("a:br"):
                pieces.append("\n")
        paragraphs.append("".join(pieces))
    return "\n".join(paragraphs).strip()


def is_raster(blob: bytes) -> bool:
    if blob.startswith(b"RIFF") and blob[8:12] == b"WEBP":
        return True
    return any(blob.startswith(signature) for signature in RASTER_SIGNATURES)


SHAPE_TAGS = frozenset(
    {
        qn("p:sp"),
        qn("p:grpSp"),
        qn("p:graphicFrame"),
        qn("p:cxnSp"),
        qn("p:pic"),
        qn("p:contentPart"),
    }
)


TAG_ALTERNATE = qn("mc:AlternateContent")


def shape_elements(container: Any) -> Iterator[Any]:
    """Shape elements of a shape tree or group, in document order.

    An ``mc:AlternateContent`` wrapper (PowerPoint stores equations, ink, 3D
    models and some SmartArt this way) contributes the shapes of its
    ``mc:Fallback`` branch, or of its first ``mc:Choice`` when there is no
    fallback, so each visual is inventoried once and never silently skipped
    (python-pptx itself does not see these shapes).
    """
    for element in container:
        if element.tag in SHAPE_TAGS:
            yield element
        elif element.tag == TAG_ALTERNATE:
            branch = element.find(qn("mc:Fallback"))
            if branch is None:
                branch = element.find(qn("mc:Choice"))
            if branch is not None:
                yield from shape_elements(branch)


def _shape_type_label(element: Any, is_media: bool) -> str:
    """python-pptx's ``MSO_SHAPE_TYPE`` for the element, derived without proxies."""
    tag = element.tag
    if tag == qn("p:grpSp"):
        return _enum_label(MSO_SHAPE_TYPE.GROUP)
    if tag == qn("p:cxnSp"):
        return _enum_label(MSO_SHAPE_TYPE.LINE)
    if tag == qn("p:pic"):
        if is_media:
            return _enum_label(MSO_SHAPE_TYPE.MEDIA)
        # A picture inserted into a picture placeholder is python-pptx's
        # PlaceholderPicture, typed PLACEHOLDER; it is still is_picture.
        placeholder = placeholder_of(element) is not None
        return _enum_label(MSO_SHAPE_TYPE.PLACEHOLDER if placeholder else MSO_SHAPE_TYPE.PICTURE)
    if tag == qn("p:graphicFrame"):
        return "GRAPHIC_FRAME"
    if tag == qn("p:sp"):
        if placeholder_of(element) is not None:
            return _enum_label(MSO_SHAPE_TYPE.PLACEHOLDER)
        sp_pr = child(element, "p:spPr")
        if child(sp_pr, "a:custGeom") is not None:
            return _enum_label(MSO_SHAPE_TYPE.FREEFORM)
        c_nv_sp_pr = child(child(element, "p:nvSpPr"), "p:cNvSpPr")
        is_textbox = c_nv_sp_pr is not None and c_nv_sp_pr.get("txBox") in ("1", "true")
        if child(sp_pr, "a:prstGeom") is not None and not is_textbox:
            return _enum_label(MSO_SHAPE_TYPE.AUTO_SHAPE)
        if is_textbox:
            return _enum_label(MSO_SHAPE_TYPE.TEXT_BOX)
    return "UNKNOWN"


def _auto_shape_label(element: Any) -> str | None:
    prst = child(child(element, "p:spPr"), "a:prstGeom")
    try:
        return _enum_label(MSO_AUTO_SHAPE_TYPE.from_xml(prst.get("prst")))
    except (ValueError, KeyError, AttributeError):
        return None


class ShapeWalker:
    """Walks one slide's shape tree (recursively through groups) on the raw XML."""

    def __init__(
        self, slide: Any, theme: Theme, assets: AssetIndex, geometry: PlaceholderGeometry
    ) -> None:
        self.slide = slide
        self.layout = slide.slide_layout
        self.theme = theme
        self.assets = assets
        self.geometry = geometry
        self.result = SlideShapes()
        self.shape_count = 0

    def walk(self) -> SlideShapes:
        sp_tree = self.slide._element.find(f"{qn('p:cSld')}/{qn('p:spTree')}")
        if sp_tree is not None:
            self.shape_count = sum(1 for _ in shape_elements(sp_tree))
            self._walk(sp_tree, [], 0)
        return self.result

    def _walk(self, container: Any, parent_path: list[str], depth: int) -> None:
        for element in shape_elements(container):
            nv = non_visual(element)
            c_nv_pr = nv.find(qn("p:cNvPr")) if nv is not None else None
            if c_nv_pr is None and element.tag == qn("p:contentPart"):
                c_nv_pr = element.find(f".//{qn('p:cNvPr')}")
            name = c_nv_pr.get("name", "") if c_nv_pr is not None else ""
            path = [*parent_path, name]
            self.result.shape_count_recursive += 1
            self._summarize(element, name, path, depth)
            if element.tag == qn("p:grpSp"):
                self.result.has_group = True
                self._walk(element, path, depth + 1)

    def _unsupported(self, kind: str, name: str, path: list[str], uri: str | None) -> None:
        self.result.unsupported.append(
            {
                "content_type": kind,
                "shape_name": name,
                "shape_path": path,
                "graphic_data_uri": uri,
                "reason": UNSUPPORTED_REASONS[kind],
                "render_required": True,
            }
        )
        if kind in ("unreadable_picture", "corrupt_embedded_asset"):
            return  # picture text is the OCR channels' domain
        self.result.channels.append(
            {
                "channel": f"{kind}_text",
                "text": "",
                "confidence": "low",
                "status": "requires_render",
                "provenance": {"source": "pptx_unsupported_container", "shape_path": path},
            }
        )

    def _summarize(self, element: Any, name: str, path: list[str], depth: int) -> None:
        tag = element.tag
        is_picture_element = tag == qn("p:pic")
        is_media = is_picture_element and self._is_media(element)
        is_picture = is_picture_element and not is_media
        is_graphic_frame = tag == qn("p:graphicFrame")
        has_text_frame = tag == qn("p:sp") and child(element, "p:txBody") is not None
        shape_type = _shape_type_label(element, is_media)
        left, top, width, height = self.geometry.box(element, self.layout)
        summary: dict[str, Any] = {
            "name": name,
            "shape_type": shape_type,
            "has_text_frame": has_text_frame,
            "is_picture": is_picture,
            "is_graphic_frame": is_graphic_frame,
            "graphic_frame_type": None,
            "graphic_data_uri": None,
            "left": emu_to_inches(left),
            "top": emu_to_inches(top),
            "width": emu_to_inches(width),
            "height": emu_to_inches(height),
            "shape_path": path,
            "group_depth": depth,
        }
        if has_text_frame:
            self._text_frame(element, summary, path, depth)
        if shape_type == AUTO_SHAPE_LABEL:
            sp_pr = child(element, "p:spPr")
            summary["auto_shape_type"] = _auto_shape_label(element)
            summary["fill_color"] = self.theme.fill_color_hex(child(sp_pr, "a:solidFill"))
            summary["line_color"] = self.theme.fill_color_hex(
                child(child(sp_pr, "a:ln"), "a:solidFill")
            )
            if summary["auto_shape_type"]:
                self.result.shape_types[summary["auto_shape_type"]] += 1
        if is_picture:
            self._picture(element, name, summary, path, (width, height))
        if is_media:
            self._unsupported("media", name, path, None)
        if is_graphic_frame:
            self._graphic_frame(element, name, summary, path)
        self.result.summaries.append(summary)

    @staticmethod
    def _is_media(element: Any) -> bool:
        nv_pr = element.find(f"{qn('p:nvPicPr')}/{qn('p:nvPr')}")
        if nv_pr is None:
            return False
        for node in nv_pr:
            if node.tag in (qn("a:videoFile"), qn("a:audioFile"), qn("a:quickTimeFile")):
                return True
        ext_lst = child(nv_pr, "p:extLst")
        return ext_lst is not None and ext_lst.find(f".//{qn('p14:media')}") is not None

    def _text_frame(
        self, element: Any, summary: dict[str, Any], path: list[str], depth: int
    ) -> None:
        tx_body = child(element, "p:txBody")
        text = text_of(tx_body)
        summary["text_preview"] = text[:TEXT_PREVIEW_CHARS]
        summary.update(_font_bundle(tx_body, self.theme))
        _count_fonts(tx_body, self.theme, self.result.fonts)
        self.result.has_text_frame_shapes = True
        ph = placeholder_of(element)
        if ph is not None and ph.get("type") == "ftr" and text:
            self.result.footer_parts.append(text)
        if not text:
            return
        self.result.native_text_parts.append(text)
        in_group = depth > 0
        self.result.channels.append(
            {
                "channel": "group_container_text" if in_group else "shape_text",
                "text": text,
                "confidence": "medium" if in_group else "high",
                "status": "extracted",
                "provenance": {
                    "source": "pptx_group_member_text_frame"
                    if in_group
                    else "pptx_shape_text_frame",
                    "shape_path": path,
                },
            }
        )

    def _picture(
        self,
        element: Any,
        name: str,
        summary: dict[str, Any],
        path: list[str],
        size: tuple[int | None, int | None],
    ) -> None:
        blip = element.find(f"{qn('p:blipFill')}/{qn('a:blip')}")
        r_id = blip.get(qn("r:embed")) if blip is not None else None
        status, part_name, digest = self.assets.binding(self.slide.part, r_id)
        summary["picture_asset_status"] = status
        summary["picture_part_name"] = part_name
        summary["picture_asset_sha256"] = digest
        readable = False
        if status == "corrupt":
            self._unsupported("corrupt_embedded_asset", name, path, None)
        elif status == "unavailable":
            self._unsupported("unreadable_picture", name, path, None)
        else:
            blob = self.slide.part.rels[r_id].target_part.blob
            readable = is_raster(blob)
            if not readable:
                self._unsupported("unreadable_picture", name, path, None)
        width = size[0] or 0
        height = size[1] or 0
        self.result.pictures.append(
            {
                "shape_path": path,
                "part_name": part_name,
                "asset_sha256": digest,
                "readable": readable,
                "area_emu": max(int(width), 0) * max(int(height), 0),
            }
        )

    def _graphic_frame(
        self, element: Any, name: str, summary: dict[str, Any], path: list[str]
    ) -> None:
        graphic_data = element.find(f"{qn('a:graphic')}/{qn('a:graphicData')}")
        uri = (graphic_data.get("uri") or "").strip() if graphic_data is not None else ""
        kind = GRAPHIC_TYPE_BY_URI.get(uri, "graphic_frame")
        summary["graphic_frame_type"] = kind
        summary["graphic_data_uri"] = uri or None
        if kind == "table":
            summary["shape_type"] = _enum_label(MSO_SHAPE_TYPE.TABLE)
            self._table(graphic_data, summary, path)
        elif kind == "ole_object":
            linked = graphic_data.find(f".//{qn('p:oleObj')}/{qn('p:link')}") is not None
            member = (
                MSO_SHAPE_TYPE.LINKED_OLE_OBJECT if linked else MSO_SHAPE_TYPE.EMBEDDED_OLE_OBJECT
            )
            summary["shape_type"] = _enum_label(member)
            self._unsupported(
                "linked_ole_object" if linked else "embedded_ole_object", name, path, uri
            )
        else:
            if kind == "chart":
                summary["shape_type"] = _enum_label(MSO_SHAPE_TYPE.CHART)
            self._unsupported(kind, name, path, uri or None)
            if kind == "chart":
                self.result.channels.extend(
                    chart_label_channels(self.slide.part, graphic_data, path)
                )

    def _table(self, graphic_data: Any, summary: dict[str, Any], path: list[str]) -> None:
        self.result.has_table = True
        tbl = child(graphic_data, "a:tbl")
        rows = tbl.findall(qn("a:tr")) if tbl is not None else []
        grid = child(tbl, "a:tblGrid")
        columns = len(grid.findall(qn("a:gridCol"))) if grid is not None else 0
        fonts: Counter[str] = Counter()
        row_texts = []
        cells: list[dict[str, Any]] = []
        for row_number, row in enumerate(rows, start=1):
            texts = []
            for column_number, cell in enumerate(row.findall(qn("a:tc")), start=1):
                tx_body = child(cell, "a:txBody")
                text = text_of(tx_body).replace("\n", " ") if tx_body is not None else ""
                texts.append(text)
                if tx_body is not None:
                    _count_fonts(tx_body, self.theme, fonts)
                if text and not _is_merge_continuation(cell):
                    cells.append(_cell_record(cell, row_number, column_number, text))
            row_texts.append(" | ".join(texts))
        text = "\n".join(row_texts).strip()
        summary["table_rows"] = len(rows)
        summary["table_columns"] = columns
        summary["table_text_preview"] = text[:TEXT_PREVIEW_CHARS]
        summary["table_fonts"] = sorted(fonts)
        self.result.fonts.update(fonts)
        if text.replace("|", "").strip():
            self.result.native_text_parts.append(text)
            self.result.channels.append(
                {
                    "channel": "table_cell_text",
                    "text": text,
                    "confidence": "medium",
                    "status": "extracted",
                    "provenance": {
                        "source": "pptx_table_cells",
                        "shape_path": path,
                        "cells": cells,
                    },
                }
            )


def _is_merge_continuation(cell: Any) -> bool:
    """A cell covered by a merge (``hMerge``/``vMerge``): its anchor carries the text."""
    return cell.get("hMerge") in ("1", "true") or cell.get("vMerge") in ("1", "true")


def _span(cell: Any, attribute: str) -> int:
    value = cell.get(attribute) or "1"
    return int(value) if value.isdigit() and int(value) > 0 else 1


def _cell_record(cell: Any, row: int, column: int, text: str) -> dict[str, Any]:
    """One table cell's text at its 1-based grid position (the merge anchor for a span)."""
    return {
        "row": row,
        "column": column,
        "row_span": _span(cell, "rowSpan"),
        "column_span": _span(cell, "gridSpan"),
        "text": text,
    }
