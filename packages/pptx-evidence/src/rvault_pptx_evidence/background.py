"""Slide backgrounds, including those inherited from the layout or master.

python-pptx only exposes a slide's own ``p:bg``; an empty one means the
background comes from the layout, then the master. The record says where a
solid color came from (``solid_from_layout`` / ``solid_from_master``), and an
image background carries its exact part name, digest and asset status, so a
placeholder that replaced a corrupt image is never reported as available.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.canonical import sha256_bytes

from rvault_pptx_evidence.ooxml import child, qn
from rvault_pptx_evidence.theme import COLOR_TAGS, Theme

FILL_TYPES = {
    qn("a:solidFill"): "solid",
    qn("a:gradFill"): "gradient",
    qn("a:pattFill"): "pattern",
    qn("a:blipFill"): "image",
}
# The record when no fill can be resolved; a resolved fill overwrites its fields.
UNKNOWN_BACKGROUND: dict[str, Any] = {
    "background_type": "unknown",
    "background_color_hex": None,
    "background_asset_status": "not_applicable",
    "background_part_name": None,
    "background_asset_sha256": None,
}


class AssetIndex:
    """Part digests and recovery status, computed once per part."""

    def __init__(self, recovered_parts: dict[str, Any]) -> None:
        self._recovered = recovered_parts
        self._digests: dict[str, str] = {}

    def is_corrupt(self, part_name: str) -> bool:
        return part_name in self._recovered

    def digest(self, part: Any) -> str:
        name = str(part.partname).lstrip("/")
        if name not in self._digests:
            if name in self._recovered:
                self._digests[name] = self._recovered[name].replacement_sha256
            else:
                self._digests[name] = sha256_bytes(part.blob)
        return self._digests[name]

    def binding(self, owner_part: Any, r_id: str | None) -> tuple[str, str | None, str | None]:
        """``(asset_status, part_name, sha256)`` for a relationship id of ``owner_part``."""
        if not r_id:
            return "unavailable", None, None
        rel = owner_part.rels.get(r_id)
        if rel is None or rel.is_external:
            return "unavailable", None, None
        part = rel.target_part
        name = str(part.partname).lstrip("/")
        if not self.is_corrupt(name) and not part.blob:
            # A zero-byte part is no image at all: binding it to the digest of
            # empty bytes would let a reader rate it current evidence.
            return "unavailable", None, None
        status = "corrupt" if self.is_corrupt(name) else "available"
        return status, name, self.digest(part)


def _fill_of(bg: Any, theme: Theme) -> tuple[Any, Any, Any]:
    """``(fill_element, placeholder_color, owner_is_theme)`` for a ``p:bg``."""
    bg_pr = child(bg, "p:bgPr")
    if bg_pr is not None:
        for element in bg_pr:
            if element.tag in FILL_TYPES or element.tag in (qn("a:noFill"), qn("a:grpFill")):
                return element, None, False
        return None, None, False
    bg_ref = child(bg, "p:bgRef")
    if bg_ref is not None:
        try:
            idx = int(bg_ref.get("idx", "0"))
        except ValueError:
            return None, None, False
        placeholder = next((c for c in bg_ref if c.tag in COLOR_TAGS), None)
        styles = theme.bg_fill_styles if idx >= 1001 else theme.fill_styles
        position = idx - 1001 if idx >= 1001 else idx - 1
        if 0 <= position < len(styles):
            return styles[position], placeholder, True
    return None, None, False


def resolve_background(slide: Any, theme: Theme, assets: AssetIndex) -> dict[str, Any]:
    layout = slide.slide_layout
    master = layout.slide_master
    chain = ((slide, ""), (layout, "_from_layout"), (master, "_from_master"))
    for owner, suffix in chain:
        c_sld = child(owner._element, "p:cSld")
        bg = child(c_sld, "p:bg")
        if bg is None:
            continue
        fill, placeholder, from_theme = _fill_of(bg, theme)
        kind = FILL_TYPES.get(fill.tag) if fill is not None else None
        record = dict(UNKNOWN_BACKGROUND)
        if kind == "solid":
            record["background_type"] = "solid" + suffix
            record["background_color_hex"] = theme.fill_color_hex(fill, placeholder)
        elif kind == "pattern":
            record["background_type"] = "pattern"
            record["background_color_hex"] = theme.fill_color_hex(
                child(fill, "a:fgClr"), placeholder
            )
        elif kind == "gradient":
            record["background_type"] = "gradient"
            first_stop = fill.find(f"{qn('a:gsLst')}/{qn('a:gs')}")
            record["background_color_hex"] = theme.fill_color_hex(first_stop, placeholder)
        elif kind == "image":
            record["background_type"] = "image"
            blip = child(fill, "a:blip")
            r_id = blip.get(qn("r:embed")) if blip is not None else None
            owner_part = theme.part if from_theme else owner.part
            status, part_name, digest = assets.binding(owner_part, r_id)
            record.update(
                background_asset_status=status,
                background_part_name=part_name,
                background_asset_sha256=digest,
            )
        return record
    return dict(UNKNOWN_BACKGROUND)
