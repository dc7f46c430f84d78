"""Shape geometry straight from the XML, with placeholder inheritance.

python-pptx resolves an inherited placeholder position with several XPath
queries per property; on a 200-slide deck that dominated the extraction. The
rules are small: a slide placeholder without its own ``a:xfrm`` takes the
layout placeholder with the same ``idx``, and a layout placeholder takes the
master placeholder of the same base type. Layout and master lookups are
indexed once per part.
"""

from __future__ import annotations

from typing import Any

from rvault_pptx_evidence.ooxml import qn

Box = tuple[int | None, int | None, int | None, int | None]
EMPTY_BOX: Box = (None, None, None, None)

# Layout placeholder type -> master placeholder type (python-pptx's table, in XML values).
BASE_TYPE = {
    "body": "body", "chart": "body", "pic": "body", "ctrTitle": "title", "dgm": "body",
    "dt": "dt", "ftr": "ftr", "media": "body", "obj": "body", "sldNum": "sldNum",
    "subTitle": "body", "tbl": "body", "title": "title", "clipArt": "body",
}  # fmt: skip

_XFRM_PATHS = {
    qn("p:sp"): (qn("p:spPr"), qn("a:xfrm")),
    qn("p:pic"): (qn("p:spPr"), qn("a:xfrm")),
    qn("p:cxnSp"): (qn("p:spPr"), qn("a:xfrm")),
    qn("p:grpSp"): (qn("p:grpSpPr"), qn("a:xfrm")),
    qn("p:graphicFrame"): (qn("p:xfrm"),),
}
_NV_PR = {
    qn("p:sp"): qn("p:nvSpPr"),
    qn("p:pic"): qn("p:nvPicPr"),
    qn("p:cxnSp"): qn("p:nvCxnSpPr"),
    qn("p:grpSp"): qn("p:nvGrpSpPr"),
    qn("p:graphicFrame"): qn("p:nvGraphicFramePr"),
}


def non_visual(element: Any) -> Any:
    """The ``p:nv*Pr`` element of a shape."""
    tag = _NV_PR.get(element.tag)
    return element.find(tag) if tag else None


def placeholder_of(element: Any) -> Any:
    """The ``p:ph`` element when the shape is a placeholder, else None."""
    nv = non_visual(element)
    if nv is None:
        return None
    nv_pr = nv.find(qn("p:nvPr"))
    return nv_pr.find(qn("p:ph")) if nv_pr is not None else None


def own_box(element: Any) -> Box | None:
    """The shape's own ``off``/``ext``, or None when it has no transform."""
    path = _XFRM_PATHS.get(element.tag)
    if path is None:
        return None
    node = element
    for tag in path:
        node = node.find(tag)
        if node is None:
            return None
    off = node.find(qn("a:off"))
    ext = node.find(qn("a:ext"))
    if off is None and ext is None:
        return None

    def number(item: Any, name: str) -> int | None:
        value = item.get(name) if item is not None else None
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    return (number(off, "x"), number(off, "y"), number(ext, "cx"), number(ext, "cy"))


def _placeholders(root: Any) -> list[tuple[Any, Any]]:
    sp_tree = root.find(f"{qn('p:cSld')}/{qn('p:spTree')}")
    found = []
    if sp_tree is None:
        return found
    for element in sp_tree:
        ph = placeholder_of(element)
        if ph is not None:
            found.append((element, ph))
    return found


class PlaceholderGeometry:
    """Inherited placeholder boxes, indexed once per layout and master."""

    def __init__(self) -> None:
        self._layouts: dict[int, dict[str, Box]] = {}
        self._masters: dict[int, dict[str, Box]] = {}

    def _master_index(self, master: Any) -> dict[str, Box]:
        key = id(master.part)
        if key not in self._masters:
            index: dict[str, Box] = {}
            for element, ph in _placeholders(master._element):
                box = own_box(element)
                if box is not None:
                    index.setdefault(ph.get("type", "obj"), box)
            self._masters[key] = index
        return self._masters[key]

    def _layout_index(self, layout: Any) -> dict[str, Box]:
        key = id(layout.part)
        if key not in self._layouts:
            master_index = self._master_index(layout.slide_master)
            index: dict[str, Box] = {}
            for element, ph in _placeholders(layout._element):
                box = own_box(element)
                if box is None:
                    base = BASE_TYPE.get(ph.get("type", "obj"), "body")
                    box = master_index.get(base)
                if box is not None:
                    index.setdefault(ph.get("idx", "0"), box)
            self._layouts[key] = index
        return self._layouts[key]

    def box(self, element: Any, layout: Any) -> Box:
        box = own_box(element)
        if box is not None:
            return box
        ph = placeholder_of(element)
        if ph is None:
            return EMPTY_BOX
        return self._layout_index(layout).get(ph.get("idx", "0"), EMPTY_BOX)
