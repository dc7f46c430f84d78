"""PresentationML / DrawingML names and small raw-XML helpers.

python-pptx does not model timing trees, transitions, build lists, markup
compatibility branches or inherited backgrounds, so those are read from the
parsed part XML with exact qualified names. Part XML comes from python-pptx's
parser (``resolve_entities=False``) and only after ``archive`` has refused
any member that declares a DTD.
"""

from __future__ import annotations

from functools import cache
from typing import Any

NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "p14": "http://schemas.microsoft.com/office/powerpoint/2010/main",
}

URI_TABLE = "http://schemas.openxmlformats.org/drawingml/2006/table"
URI_CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
URI_CHARTEX = "http://schemas.microsoft.com/office/drawing/2014/chartex"
URI_DIAGRAM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
URI_OLE = "http://schemas.openxmlformats.org/presentationml/2006/ole"

# Exact DrawingML URI -> graphic_frame_type. Any other non-empty URI, and a
# missing or empty one, is the generic ``graphic_frame``.
GRAPHIC_TYPE_BY_URI = {
    URI_TABLE: "table",
    URI_CHART: "chart",
    URI_CHARTEX: "chart",
    URI_DIAGRAM: "smartart",
    URI_OLE: "ole_object",
}


@cache
def qn(tag: str) -> str:
    """Clark notation for a ``prefix:local`` name."""
    prefix, local = tag.split(":")
    return f"{{{NS[prefix]}}}{local}"


def child(element: Any, tag: str) -> Any:
    """The first direct child with the exact qualified name, or None."""
    if element is None:
        return None
    return element.find(qn(tag))


def emu_to_inches(value: int | None) -> float | None:
    if value is None:
        return None
    return round(int(value) / 914400, 3)
