"""Theme colors, fonts and fill styles of a slide master.

A slide that says ``schemeClr bg1`` or ``+mn-lt`` only has a concrete color
or font through its master's color map and theme part. Colors with DrawingML
transforms (``lumMod``, ``tint`` ...) are reported as unknown (None) rather
than approximated: a wrong hex would be worse evidence than none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from rvault_pptx_evidence.ooxml import child, qn

# DTDs were refused in ``archive`` already; this parser would not resolve
# them anyway.
HARDENED_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, remove_blank_text=True
)

RT_THEME = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme"
DEFAULT_CLR_MAP = {
    "bg1": "lt1", "tx1": "dk1", "bg2": "lt2", "tx2": "dk2",
    "accent1": "accent1", "accent2": "accent2", "accent3": "accent3",
    "accent4": "accent4", "accent5": "accent5", "accent6": "accent6",
    "hlink": "hlink", "folHlink": "folHlink",
}  # fmt: skip
COLOR_TAGS = (
    qn("a:srgbClr"),
    qn("a:schemeClr"),
    qn("a:sysClr"),
    qn("a:prstClr"),
    qn("a:scrgbClr"),
    qn("a:hslClr"),
)


@dataclass
class Theme:
    """What one master contributes to color and font resolution."""

    scheme: dict[str, str] = field(default_factory=dict)
    clr_map: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CLR_MAP))
    major_latin: str | None = None
    minor_latin: str | None = None
    bg_fill_styles: list[Any] = field(default_factory=list)
    fill_styles: list[Any] = field(default_factory=list)
    part: Any = None

    def resolve_font(self, typeface: str | None) -> str | None:
        if not typeface:
            return None
        if typeface.startswith("+mj"):
            return self.major_latin
        if typeface.startswith("+mn"):
            return self.minor_latin
        return typeface

    def color_hex(self, color_element: Any, placeholder: Any = None) -> str | None:
        """Hex of one color choice element (``a:srgbClr`` ...), or None when unknown."""
        if color_element is None or len(color_element):  # transforms present
            return None
        tag = color_element.tag
        if tag == qn("a:srgbClr"):
            return _hex(color_element.get("val"))
        if tag == qn("a:sysClr"):
            return _hex(color_element.get("lastClr"))
        if tag == qn("a:schemeClr"):
            name = color_element.get("val", "")
            if name == "phClr":
                return self.color_hex(placeholder) if placeholder is not None else None
            return self.scheme.get(self.clr_map.get(name, name))
        return None

    def fill_color_hex(self, fill_parent: Any, placeholder: Any = None) -> str | None:
        """Hex of the color choice directly inside a fill element (e.g. ``a:solidFill``)."""
        if fill_parent is None:
            return None
        for element in fill_parent:
            if element.tag in COLOR_TAGS:
                return self.color_hex(element, placeholder)
        return None


def _hex(value: str | None) -> str | None:
    if not value or len(value) != 6:
        return None
    try:
        int(value, 16)
    except ValueError:
        return None
    return "#" + value.upper()


def load_theme(master: Any) -> Theme:
    """The theme of a python-pptx ``SlideMaster`` (color scheme, fonts, fill styles)."""
    theme = Theme()
    clr_map = child(master._element, "p:clrMap")
    if clr_map is not None:
        theme.clr_map = dict(clr_map.attrib)
    theme_part = None
    for rel in master.part.rels.values():
        if rel.reltype == RT_THEME and not rel.is_external:
            theme_part = rel.target_part
            break
    if theme_part is None:
        return theme
    theme.part = theme_part
    root = etree.fromstring(theme_part.blob, HARDENED_PARSER)
    elements = root.find(qn("a:themeElements"))
    if elements is None:
        return theme
    scheme = elements.find(qn("a:clrScheme"))
    if scheme is not None:
        for slot in scheme:
            name = etree.QName(slot).localname
            for color in slot:
                value = theme.color_hex(color) if color.tag != qn("a:schemeClr") else None
                if value:
                    theme.scheme[name] = value
    fonts = elements.find(qn("a:fontScheme"))
    if fonts is not None:
        major = fonts.find(f"{qn('a:majorFont')}/{qn('a:latin')}")
        minor = fonts.find(f"{qn('a:minorFont')}/{qn('a:latin')}")
        theme.major_latin = major.get("typeface") or None if major is not None else None
        theme.minor_latin = minor.get("typeface") or None if minor is not None else None
    fmt = elements.find(qn("a:fmtScheme"))
    if fmt is not None:
        bg = fmt.find(qn("a:bgFillStyleLst"))
        fills = fmt.find(qn("a:fillStyleLst"))
        theme.bg_fill_styles = list(bg) if bg is not None else []
        theme.fill_styles = list(fills) if fills is not None else []
    return theme
