"""When a slide must be rendered before its design may be judged.

The extractor derives ``render_required_reasons`` with this function and the
light reader (``api``) re-derives them with the same function to prove a
document's reasons are bound to its own evidence. ``TEXT_BEARING_IMAGE_AREA_RATIO``
is the sole authority for when ``image_area_ratio`` adds ``large_picture``;
nothing else restates the predicate. An image background always needs a
render (a blob that OCR can read still leaves the design unjudged; a missing
blob leaves even its words unread). A group always needs one too
(``grouped_shapes``, schema v5): the spec has groups force low confidence
because nested transforms can change the visible reading order, so the text
read from their frames is not proof of what the audience saw.
"""

from __future__ import annotations

from collections.abc import Iterable

# A picture covering at least this fraction of the slide is presumed able to
# carry baked-in text and dominate the design (reason ``large_picture``).
TEXT_BEARING_IMAGE_AREA_RATIO = 0.5
LARGE_PICTURE = "large_picture"
BACKGROUND_IMAGE = "background_image"
GROUPED_SHAPES = "grouped_shapes"
# python-pptx's ``MSO_SHAPE_TYPE.GROUP`` as the extractor labels it in
# ``shapes_summary[].shape_type`` (every group is summarized, empty or not).
GROUP_SHAPE_TYPE = "GROUP (6)"


def adds_large_picture(image_area_ratio: float) -> bool:
    return image_area_ratio >= TEXT_BEARING_IMAGE_AREA_RATIO


def render_required_reasons(
    unsupported_types: Iterable[str],
    image_area_ratio: float,
    background_type: str,
    has_group: bool,
) -> list[str]:
    """Sorted, unique reasons; empty exactly when no render is required."""
    reasons = set(unsupported_types)
    if has_group:
        reasons.add(GROUPED_SHAPES)
    if adds_large_picture(image_area_ratio):
        reasons.add(LARGE_PICTURE)
    if background_type == "image":
        reasons.add(BACKGROUND_IMAGE)
    return sorted(reasons)


def slide_render_reasons(slide: dict[str, object]) -> list[str]:
    """The reasons a schema-v5 ``per_slide_visual`` record must carry."""
    unsupported = slide["unsupported_content"]
    assert isinstance(unsupported, list)
    ratio = slide["image_area_ratio"]
    assert isinstance(ratio, int | float)
    shapes = slide["shapes_summary"]
    assert isinstance(shapes, list)
    return render_required_reasons(
        (item["content_type"] for item in unsupported),
        float(ratio),
        str(slide["background_type"]),
        any(shape["shape_type"] == GROUP_SHAPE_TYPE for shape in shapes),
    )
