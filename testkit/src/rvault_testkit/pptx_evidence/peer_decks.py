"""Decks for the port of the public peer's black-box extraction tests.

jbaruch/speaker-toolkit's ``tests/`` check its extractor on decks built with
python-pptx and zip edits. ``packages/pptx-evidence/benchmarks/peer_suite.py``
re-checks the same behaviours on ``rvault-pptx``; the decks it needs are
built here, each from the facts the peer test states (what the deck holds),
written anew for this project. Every builder returns the deck's bytes.
"""

from __future__ import annotations

import io
import struct
import zipfile
from typing import Any

from pptx import Presentation
from pptx.util import Emu, Inches, Pt
from rvault_pptx_evidence.ooxml import qn

from rvault_testkit.pptx_evidence.sample_decks import (
    _save,
    add_graphic_frame,
    members_of,
    png_bytes,
    set_background_image,
    text_image,
    zip_members,
)

SMARTART = "http://schemas.openxmlformats.org/drawingml/2006/diagram"


def blank_slides(count: int, layout: int = 6) -> bytes:
    prs = Presentation()
    for _ in range(count):
        prs.slides.add_slide(prs.slide_layouts[layout])
    return _save(prs)


def titled(text: str, layout: int = 5) -> Any:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[layout])
    slide.shapes.title.text = text
    return prs, slide


def title_deck(text: str = "Hello World") -> bytes:
    prs, _ = titled(text, layout=1)
    return _save(prs)


def font_deck() -> bytes:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    run = (
        slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1))
        .text_frame.paragraphs[0]
        .add_run()
    )
    run.text, run.font.name, run.font.size = "Test text", "Arial", Pt(24)
    return _save(prs)


def picture_deck(
    fraction: tuple[float, float] = (1.0, 1.0),
    *,
    title: str | None = None,
    image: bytes | None = None,
) -> bytes:
    """One slide with one picture covering ``fraction`` (width, height) of the canvas."""
    if title is None:
        prs = Presentation()
        slide = prs.slides.add_slide(prs.slide_layouts[6])
    else:
        prs, slide = titled(title)
    width = Emu(int(prs.slide_width * fraction[0]))
    height = Emu(int(prs.slide_height * fraction[1]))
    blob = image if image is not None else png_bytes((127, 127, 127), (16, 16))
    slide.shapes.add_picture(io.BytesIO(blob), 0, 0, width, height)
    return _save(prs)


def two_picture_deck(first: bytes, second: bytes) -> bytes:
    """Two half-slide pictures side by side (two assets, one low slide)."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    half = Emu(prs.slide_width // 2)
    slide.shapes.add_picture(io.BytesIO(first), 0, 0, half, prs.slide_height)
    slide.shapes.add_picture(io.BytesIO(second), half, 0, half, prs.slide_height)
    return _save(prs)


def truncate_member(package: bytes, member: str, keep: int) -> bytes:
    """The package with ``member`` cut to its first ``keep`` bytes (a broken image)."""
    return zip_members([(n, b[:keep] if n == member else b) for n, b in members_of(package)])


def background_image_deck(image: bytes, *, missing_blob: bool = False) -> bytes:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    set_background_image(slide, image)
    if missing_blob:  # the background names a relationship the slide does not have
        slide._element.find(f".//{qn('a:blip')}").set(qn("r:embed"), "rIdX")
    return _save(prs)


def nested_group_deck() -> bytes:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    outer = slide.shapes.add_group_shape()
    outer.shapes.add_textbox(
        Inches(1), Inches(1), Inches(4), Inches(1)
    ).text_frame.text = "Text inside outer group"
    inner = outer.shapes.add_group_shape()
    inner.shapes.add_textbox(
        Inches(2), Inches(2), Inches(4), Inches(1)
    ).text_frame.text = "Text inside nested group"
    return _save(prs)


def table_deck() -> bytes:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(1), Inches(6), Inches(2)).table
    for (row, column), text in {
        (0, 0): "Name",
        (0, 1): "Count",
        (1, 0): "Hooks",
        (1, 1): "12",
    }.items():
        table.cell(row, column).text = text
    return _save(prs)


def graphic_frames_deck(uris: list[str | None], names: list[str] | None = None) -> bytes:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for index, uri in enumerate(uris):
        add_graphic_frame(slide, names[index] if names else f"Frame {index + 1}", uri)
    return _save(prs)


def text_and_picture_deck() -> bytes:
    """Healthy native text beside a picture, with one timing effect."""
    from rvault_testkit.pptx_evidence.sample_decks import TimingSpec, add_timing

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(5), Inches(1))
    box.text_frame.text = "Healthy native text"
    slide.shapes.add_picture(
        io.BytesIO(png_bytes((127, 127, 127), (16, 16))), Inches(1), Inches(2), Inches(2), Inches(2)
    )
    add_timing(
        slide,
        TimingSpec(behaviors=("animEffect",), visibility_sets=0, other_sets=0, media=(), builds=()),
    )
    return _save(prs)


def _timing_xml(behaviors: str) -> str:
    return (
        '<p:timing xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">'
        '<p:tnLst><p:par><p:cTn id="1"><p:childTnLst>'
        f"{behaviors}</p:childTnLst></p:cTn></p:par></p:tnLst>{{builds}}</p:timing>"
    )


def timing_structure_deck() -> bytes:
    """Slide 1: transition, two sets (one visibility), one of each behavior
    plus a second effect, audio and video nodes, a four-entry build list.
    Slide 2: audio timing only. Slide 3: a transition only."""
    from pptx.oxml import parse_xml

    ns = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
    transition = f"<p:transition {ns}><p:fade/></p:transition>"
    sets = "".join(
        f'<p:set><p:cBhvr><p:cTn id="{i}"/><p:attrNameLst><p:attrName>{name}</p:attrName>'
        "</p:attrNameLst></p:cBhvr></p:set>"
        for i, name in ((2, "style.visibility"), (3, "style.opacity"))
    )
    behaviors = "<p:anim/><p:animClr/><p:animEffect/><p:animEffect/><p:animMotion/><p:animRot/>"
    behaviors += "<p:animScale/>"
    media = (
        '<p:audio><p:cMediaNode><p:cTn id="4"/></p:cMediaNode></p:audio>'
        '<p:video><p:cMediaNode><p:cTn id="5"/></p:cMediaNode></p:video>'
    )
    builds = (
        '<p:bldLst><p:bldP spid="2" grpId="0"/><p:bldDgm spid="3" grpId="1"/>'
        '<p:bldOleChart spid="4" grpId="2"/><p:bldGraphic spid="5" grpId="3"/></p:bldLst>'
    )
    prs = Presentation()
    first = prs.slides.add_slide(prs.slide_layouts[6])
    first._element.append(parse_xml(transition))
    first._element.append(
        parse_xml(_timing_xml(sets + behaviors + media).replace("{builds}", builds))
    )
    second = prs.slides.add_slide(prs.slide_layouts[6])
    audio = '<p:audio><p:cMediaNode><p:cTn id="6"/></p:cMediaNode></p:audio>'
    second._element.append(parse_xml(_timing_xml(audio).replace("{builds}", "")))
    third = prs.slides.add_slide(prs.slide_layouts[6])
    third._element.append(parse_xml(transition))
    return _save(prs)


def static_build_deck() -> bytes:
    prs = Presentation()
    for texts in (["Base diagram"], ["Base diagram", "Step 2 annotation"]):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        for row, text in enumerate(texts):
            box = slide.shapes.add_textbox(Inches(1), Inches(1 + row), Inches(5), Inches(1))
            box.text_frame.text = text
    return _save(prs)


def placeholder_picture_deck() -> bytes:
    from pptx.shapes.placeholder import PicturePlaceholder

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[8])
    placeholder = next(p for p in slide.placeholders if isinstance(p, PicturePlaceholder))
    placeholder.insert_picture(io.BytesIO(png_bytes((0, 0, 128), (64, 64))))
    return _save(prs)


def linked_picture_deck() -> bytes:
    """A picture whose relationship is an external link (no blob in the package)."""
    package = picture_deck((0.2, 0.2))
    members = []
    for name, blob in members_of(package):
        if name == "ppt/slides/slide1.xml":
            blob = blob.replace(b'r:embed="rId2"', b'r:link="rId2"')
        elif name == "ppt/slides/_rels/slide1.xml.rels":
            blob = blob.replace(
                b'Target="../media/image1.png"',
                b'Target="https://example.invalid/image.png" TargetMode="External"',
            )
        members.append((name, blob))
    return zip_members(members)


def named_shapes_deck(names: list[str], *, unsupported: bool = False) -> bytes:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for index, name in enumerate(names):
        if unsupported:
            add_graphic_frame(slide, name, SMARTART)
            continue
        box = slide.shapes.add_textbox(Inches(1), Inches(1 + index), Inches(2), Inches(1))
        box.name = name
        box.text_frame.text = f"text {index + 1}"
    return _save(prs)


def edit_member(package: bytes, member: str, old: bytes, new: bytes) -> bytes:
    members = []
    for name, blob in members_of(package):
        if name == member:
            assert old in blob, (member, old)
            blob = blob.replace(old, new, 1)
        members.append((name, blob))
    return zip_members(members)


def add_member(package: bytes, name: str, blob: bytes) -> bytes:
    return zip_members([*members_of(package), (name, blob)])


def duplicate_slide_id_deck() -> bytes:
    package = blank_slides(1)
    presentation = dict(members_of(package))["ppt/presentation.xml"]
    start = presentation.index(b"<p:sldId ")
    entry = presentation[start : presentation.index(b"/>", start) + 2]
    return edit_member(package, "ppt/presentation.xml", b"</p:sldIdLst>", entry + b"</p:sldIdLst>")


def central_crc_damage(package: bytes, member: str) -> bytes:
    """Only the central directory's CRC of ``member`` flipped (the local header kept)."""
    data = bytearray(package)
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        crc = zf.getinfo(member).CRC
    position = 0
    while (position := data.find(b"PK\x01\x02", position)) >= 0:
        length = struct.unpack_from("<H", data, position + 28)[0]
        if bytes(data[position + 46 : position + 46 + length]) == member.encode():
            struct.pack_into("<I", data, position + 16, crc ^ 0xFFFFFFFF)
            return bytes(data)
        position += 4
    raise ValueError(member)


def text_png(text: str) -> bytes:
    return text_image([text])
