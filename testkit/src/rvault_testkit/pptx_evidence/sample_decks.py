"""Decks generated at run time for tests, conformance and benchmarks.

python-pptx writes the ordinary parts (text, tables, groups, pictures,
charts, OLE objects, movies, notes); lxml edits add what python-pptx cannot
author (timing trees, transitions in markup-compatibility branches, build
lists, SmartArt and URI-less graphic frames, image/inherited backgrounds,
footers). ``corrupt_member_crc`` damages one member's recorded CRC so that
archive recovery can be exercised on real bytes.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.dml.color import RGBColor
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_SHAPE
from pptx.oxml import parse_xml
from pptx.util import Emu, Inches, Pt
from rvault_pptx_evidence.archive import MEDIA_PREFIX
from rvault_pptx_evidence.ooxml import NS, URI_DIAGRAM, URI_OLE, qn

WIDE_WIDTH = Emu(12192000)  # 13.333 in: 16:9 with the default 7.5 in height
_DECL = " ".join(f'xmlns:{prefix}="{uri}"' for prefix, uri in NS.items())


def png_bytes(rgb: tuple[int, int, int], size: tuple[int, int] = (8, 8)) -> bytes:
    """A small solid PNG; distinct colors give distinct image parts."""
    buffer = io.BytesIO()
    Image.new("RGB", size, rgb).save(buffer, format="PNG")
    return buffer.getvalue()


def _insert_before_ext(slide: Any, element: Any) -> None:
    root = slide._element
    ext = root.find(qn("p:extLst"))
    if ext is not None:
        ext.addprevious(element)
    else:
        root.append(element)


def add_transition(slide: Any, *, alternate: bool = False) -> None:
    """A slide transition; ``alternate`` stores it as mc Choice + Fallback (two elements)."""
    if alternate:
        xml = (
            f"<mc:AlternateContent {_DECL}>"
            '<mc:Choice Requires="p14"><p:transition spd="slow" p14:dur="2000">'
            "<p14:prism/></p:transition></mc:Choice>"
            '<mc:Fallback><p:transition spd="slow"><p:fade/></p:transition></mc:Fallback>'
            "</mc:AlternateContent>"
        )
    else:
        xml = f'<p:transition {_DECL} spd="med"><p:fade/></p:transition>'
    _insert_before_ext(slide, parse_xml(xml))


@dataclass
class TimingSpec:
    """Element counts for one generated ``<p:timing>`` tree."""

    behaviors: Sequence[str] = (
        "anim",
        "animEffect",
        "animEffect",
        "animMotion",
        "animRot",
        "animScale",
    )
    visibility_sets: int = 1
    other_sets: int = 1
    media: Sequence[str] = ("audio",)
    builds: Sequence[str] = ("bldP", "bldDgm")
    alternate_effect: bool = False


def timing_xml(spec: TimingSpec) -> str:
    counter = iter(range(10, 10_000))

    def ctn() -> str:
        return f'<p:cTn id="{next(counter)}" dur="500" fill="hold"/>'

    def behavior(tag: str) -> str:
        return (
            f'<p:{tag}><p:cBhvr>{ctn()}<p:tgtEl><p:spTgt spid="2"/></p:tgtEl></p:cBhvr></p:{tag}>'
        )

    def set_action(attr: str) -> str:
        return (
            f'<p:set><p:cBhvr>{ctn()}<p:tgtEl><p:spTgt spid="2"/></p:tgtEl>'
            f"<p:attrNameLst><p:attrName>{attr}</p:attrName></p:attrNameLst></p:cBhvr>"
            '<p:to><p:strVal val="visible"/></p:to></p:set>'
        )

    items = [behavior(tag) for tag in spec.behaviors]
    items += [set_action("style.visibility") for _ in range(spec.visibility_sets)]
    items += [set_action("style.color") for _ in range(spec.other_sets)]
    items += [
        f'<p:{kind}><p:cMediaNode vol="80000">{ctn()}<p:tgtEl><p:spTgt spid="3"/>'
        f"</p:tgtEl></p:cMediaNode></p:{kind}>"
        for kind in spec.media
    ]
    if spec.alternate_effect:
        branch = '<p:par><p:cTn id="{}" fill="hold"><p:childTnLst>{}</p:childTnLst></p:cTn></p:par>'
        choice = branch.format(next(counter), behavior("animEffect"))
        fallback = branch.format(next(counter), behavior("animEffect"))
        items.append(
            f'<mc:AlternateContent><mc:Choice Requires="p14">{choice}</mc:Choice>'
            f"<mc:Fallback>{fallback}</mc:Fallback></mc:AlternateContent>"
        )
    build_list = ""
    if spec.builds:
        entries = "".join(f'<p:{tag} spid="2" grpId="0"/>' for tag in spec.builds)
        build_list = f"<p:bldLst>{entries}</p:bldLst>"
    body = "".join(items)
    return (
        f"<p:timing {_DECL}><p:tnLst><p:par>"
        '<p:cTn id="1" dur="indefinite" restart="never" nodeType="tmRoot"><p:childTnLst>'
        '<p:seq concurrent="1" nextAc="seek"><p:cTn id="2" dur="indefinite" nodeType="mainSeq">'
        "<p:childTnLst>"
        f'<p:par><p:cTn id="3" fill="hold"><p:childTnLst>{body}</p:childTnLst></p:cTn></p:par>'
        "</p:childTnLst></p:cTn></p:seq></p:childTnLst></p:cTn></p:par></p:tnLst>"
        f"{build_list}</p:timing>"
    )


def add_timing(slide: Any, spec: TimingSpec) -> None:
    _insert_before_ext(slide, parse_xml(timing_xml(spec)))


def _next_id(slide: Any) -> int:
    return int(slide.shapes._next_shape_id)


def add_graphic_frame(slide: Any, name: str, uri: str | None, inner: str = "") -> None:
    """A raw graphic frame: SmartArt (diagram URI), an unknown URI, or no URI at all."""
    uri_attr = f' uri="{uri}"' if uri is not None else ""
    xml = (
        f"<p:graphicFrame {_DECL}><p:nvGraphicFramePr>"
        f'<p:cNvPr id="{_next_id(slide)}" name="{name}"/><p:cNvGraphicFramePr/>'
        "<p:nvPr/></p:nvGraphicFramePr>"
        '<p:xfrm><a:off x="914400" y="914400"/><a:ext cx="1828800" cy="914400"/></p:xfrm>'
        f"<a:graphic><a:graphicData{uri_attr}>{inner}</a:graphicData></a:graphic></p:graphicFrame>"
    )
    slide.shapes._spTree.append(parse_xml(xml))


def add_linked_ole(slide: Any, name: str) -> None:
    inner = (
        '<p:oleObj name="Linked" r:id="rId999" progId="Excel.Sheet.12">'
        '<p:link updateAutomatic="1"/></p:oleObj>'
    )
    add_graphic_frame(slide, name, URI_OLE, inner)


def add_footer(slide: Any, text: str) -> None:
    xml = (
        f'<p:sp {_DECL}><p:nvSpPr><p:cNvPr id="{_next_id(slide)}" name="Footer Placeholder"/>'
        '<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>'
        '<p:ph type="ftr" sz="quarter" idx="11"/></p:nvPr>'
        f"</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"
    )
    slide.shapes._spTree.append(parse_xml(xml))


def _set_background(owner: Any, fill_xml: str) -> None:
    """Replace the ``p:bg`` of a slide, layout or master with one holding ``fill_xml``."""
    bg = parse_xml(f"<p:bg {_DECL}><p:bgPr>{fill_xml}<a:effectLst/></p:bgPr></p:bg>")
    c_sld = owner._element.find(qn("p:cSld"))
    existing = c_sld.find(qn("p:bg"))
    if existing is not None:
        c_sld.remove(existing)
    c_sld.insert(0, bg)


def set_background_image(slide: Any, image: bytes) -> None:
    _, r_id = slide.part.get_or_add_image_part(io.BytesIO(image))
    _set_background(
        slide,
        f'<a:blipFill><a:blip r:embed="{r_id}"/><a:stretch><a:fillRect/></a:stretch></a:blipFill>',
    )


def set_solid_background(owner: Any, hex_rgb: str) -> None:
    """A solid ``p:bg`` on a slide, layout or master element owner."""
    _set_background(owner, f'<a:solidFill><a:srgbClr val="{hex_rgb}"/></a:solidFill>')


def _styled_text(
    shape: Any, text: str, font: str = "Bangers", size: int = 36, color: str = "FFFFFF"
) -> None:
    frame = shape.text_frame
    frame.text = text
    run = frame.paragraphs[0].runs[0]
    run.font.name = font
    run.font.size = Pt(size)
    run.font.bold = True
    run.font.italic = False
    run.font.color.rgb = RGBColor.from_string(color)


def _save(prs: Any) -> bytes:
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue()


def _grouped_slide(prs: Any) -> None:
    """Slide 2: nested groups, a table and a picture (low: group, table)."""
    s2 = prs.slides.add_slide(prs.slide_layouts[6])
    group = s2.shapes.add_group_shape()
    box = group.shapes.add_textbox(Inches(1), Inches(1), Inches(3), Inches(1))
    _styled_text(box, "Grouped words", font="Arial", size=20, color="000000")
    inner = group.shapes.add_group_shape()
    cloud = inner.shapes.add_shape(
        MSO_SHAPE.CLOUD_CALLOUT, Inches(2), Inches(2), Inches(3), Inches(2)
    )
    cloud.text_frame.text = "Nested cloud"
    cloud.fill.solid()
    cloud.fill.fore_color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    cloud.line.color.rgb = RGBColor(0, 0, 0)
    table = s2.shapes.add_table(2, 3, Inches(6), Inches(1), Inches(6), Inches(1.5)).table
    for r in range(2):
        for c in range(3):
            table.cell(r, c).text = f"r{r}c{c}"
    table.cell(0, 0).text_frame.paragraphs[0].runs[0].font.name = "Georgia"
    s2.shapes.add_picture(
        io.BytesIO(png_bytes((200, 10, 10))), Inches(6), Inches(4), Inches(4), Inches(3)
    )


def _unsupported_slide(prs: Any) -> None:
    """Slide 3: SmartArt, chart, URI-less and unknown-URI frames, embedded and linked OLE."""
    s3 = prs.slides.add_slide(prs.slide_layouts[5])
    s3.shapes.title.text = "Unsupported things"
    add_graphic_frame(s3, "Diagram 4", URI_DIAGRAM)
    chart_data = CategoryChartData()
    chart_data.categories = ["a", "b"]
    chart_data.add_series("S", (1, 2))
    s3.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(3), Inches(3), Inches(2), chart_data
    )
    add_graphic_frame(s3, "Mystery 6", None)
    add_graphic_frame(s3, "Ink 7", "http://example.invalid/ink")
    s3.shapes.add_ole_object(
        io.BytesIO(b"embedded payload"), "Package", Inches(8), Inches(3), Inches(1), Inches(1)
    )
    add_linked_ole(s3, "Linked 9")


def rich_deck() -> bytes:
    """Eight slides covering every capability the extraction claims.

    1 title + notes + footer, solid slide background, full timing tree with
      an mc-branch effect, transition in mc Choice/Fallback
    2 nested groups, a table and a picture (low: group, table)
    3 SmartArt, chart, URI-less and unknown-URI frames, embedded and linked OLE
    4 picture-only slide on an image background
    5 background inherited from the layout (solid_from_layout)
    6 background inherited from the master, a plain transition and no timing tree
    7 a movie (media) with python-pptx's own video timing node
    8 pattern background with an autoshape
    """
    prs = Presentation()
    prs.slide_width = WIDE_WIDTH
    layouts = prs.slide_layouts

    s1 = prs.slides.add_slide(layouts[0])
    _styled_text(s1.shapes.title, "Talk Title")
    s1.placeholders[1].text = "Subtitle here"
    s1.notes_slide.notes_text_frame.text = "Open with the story."
    add_footer(s1, "@handle | #conf")
    set_solid_background(s1, "5B2C6F")
    add_transition(s1, alternate=True)
    add_timing(s1, TimingSpec(alternate_effect=True))

    _grouped_slide(prs)
    _unsupported_slide(prs)

    s4 = prs.slides.add_slide(layouts[6])
    s4.shapes.add_picture(io.BytesIO(png_bytes((10, 200, 10))), 0, 0, WIDE_WIDTH, prs.slide_height)
    set_background_image(s4, png_bytes((10, 10, 200)))

    s5 = prs.slides.add_slide(layouts[5])
    set_solid_background(layouts[5], "C0392B")
    s5.shapes.title.text = "Inherits layout"

    s6 = prs.slides.add_slide(layouts[1])
    s6.shapes.title.text = "Inherits master"
    s6.placeholders[1].text = "Body text"
    add_transition(s6)

    s7 = prs.slides.add_slide(layouts[6])
    s7.shapes.add_movie(
        io.BytesIO(b"not really a video"),
        Inches(1),
        Inches(1),
        Inches(4),
        Inches(3),
        mime_type="video/mp4",
    )

    s8 = prs.slides.add_slide(layouts[6])
    s8.background.fill.patterned()
    s8.background.fill.fore_color.rgb = RGBColor(0x11, 0x22, 0x33)
    star = s8.shapes.add_shape(MSO_SHAPE.EXPLOSION1, Inches(1), Inches(1), Inches(2), Inches(2))
    star.text_frame.text = "Boom"
    return _save(prs)


def picture_deck() -> bytes:
    """Two slides: a text slide and a slide with one picture (for media recovery)."""
    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[5])
    s1.shapes.title.text = "Healthy text survives"
    s2 = prs.slides.add_slide(prs.slide_layouts[5])
    s2.shapes.title.text = "Picture slide"
    s2.shapes.add_picture(
        io.BytesIO(png_bytes((1, 2, 3))), Inches(1), Inches(2), Inches(2), Inches(2)
    )
    return _save(prs)


def one_slide_deck() -> bytes:
    """One title-and-content slide with notes (the latency-bound benchmark case)."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "One slide"
    slide.placeholders[1].text = "Body"
    slide.notes_slide.notes_text_frame.text = "Notes"
    return _save(prs)


def benchmark_deck(slide_count: int = 200) -> bytes:
    """Text and notes on every slide, a table every 10th, a group every 7th,
    a picture every 3rd and a timing tree every 5th slide."""
    prs = Presentation()
    prs.slide_width = WIDE_WIDTH
    layout = prs.slide_layouts[1]
    for number in range(1, slide_count + 1):
        slide = prs.slides.add_slide(layout)
        _styled_text(slide.shapes.title, f"Slide {number}", size=32, color="222222")
        slide.placeholders[1].text = f"Point one of slide {number}\nPoint two\nPoint three"
        slide.notes_slide.notes_text_frame.text = f"Speaker notes for slide {number}."
        if number % 10 == 0:
            table = slide.shapes.add_table(3, 3, Inches(7), Inches(2), Inches(5), Inches(2)).table
            for r in range(3):
                for c in range(3):
                    table.cell(r, c).text = f"{number}.{r}.{c}"
        if number % 7 == 0:
            group = slide.shapes.add_group_shape()
            group.shapes.add_textbox(
                Inches(1), Inches(5), Inches(2), Inches(1)
            ).text_frame.text = "group a"
            group.shapes.add_shape(
                MSO_SHAPE.OVAL, Inches(3), Inches(5), Inches(1), Inches(1)
            ).text_frame.text = "b"
        if number % 3 == 0:
            color = (number % 256, (number * 7) % 256, (number * 13) % 256)
            slide.shapes.add_picture(
                io.BytesIO(png_bytes(color)), Inches(8), Inches(4.5), Inches(3), Inches(2)
            )
        if number % 5 == 0:
            add_transition(slide)
            add_timing(slide, TimingSpec())
    return _save(prs)


def chart_deck() -> bytes:
    """Charts and nothing else: the deck a worker could read nothing from.

    Slide 1: a clustered column chart with a title, both axis titles, two
    series and three categories. Slide 2: a pie chart (no axes, no title)
    inside a group. Slide 3: a chart whose relationship names no part.
    """
    prs = Presentation()
    blank = prs.slide_layouts[6]
    data = CategoryChartData()
    data.categories = ["2024", "2025", "2026"]
    data.add_series("Talks given", (4, 9, 12))
    data.add_series("Talks accepted", (2, 6, 10))
    s1 = prs.slides.add_slide(blank)
    chart = s1.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1), Inches(8), Inches(5), data
    ).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Conference growth"
    chart.category_axis.has_title = True
    chart.category_axis.axis_title.text_frame.text = "Year"
    chart.value_axis.has_title = True
    chart.value_axis.axis_title.text_frame.text = "Number of talks"

    pie = CategoryChartData()
    pie.categories = ["Demo", "Slides"]
    pie.add_series("Time share", (30, 70))
    s2 = prs.slides.add_slide(blank)
    group = s2.shapes.add_group_shape()
    group.shapes.add_chart(XL_CHART_TYPE.PIE, Inches(1), Inches(1), Inches(4), Inches(4), pie)

    s3 = prs.slides.add_slide(blank)
    lost = s3.shapes.add_chart(XL_CHART_TYPE.LINE, Inches(1), Inches(1), Inches(4), Inches(3), data)
    lost._element.xpath(".//c:chart")[0].set(qn("r:id"), "rIdMissing")
    return _save(prs)


def merged_table_deck() -> bytes:
    """One slide, one 3x3 table: a header merged across columns 1-2, a cell
    merged down rows 2-3 in column 3, one empty cell (row 3, column 1)."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    table = slide.shapes.add_table(3, 3, Inches(1), Inches(1), Inches(6), Inches(2)).table
    table.cell(0, 0).merge(table.cell(0, 1))
    table.cell(0, 0).text = "Talks by year"
    table.cell(0, 2).text = "Notes"
    table.cell(1, 2).merge(table.cell(2, 2))
    table.cell(1, 2).text = "Growing"
    table.cell(1, 0).text = "2025"
    table.cell(1, 1).text = "9"
    table.cell(2, 1).text = "12"
    return _save(prs)


def first_media_member(package: bytes) -> str:
    """The name of the first ``ppt/media/`` member (the one to damage or replace)."""
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        return next(n for n in zf.namelist() if n.startswith(MEDIA_PREFIX))


def _central_entry(data: bytearray, member: str) -> int:
    """Offset of ``member``'s central directory entry in ``data``."""
    name = member.encode("utf-8")
    position = 0
    while True:
        position = data.find(b"PK\x01\x02", position)
        if position < 0:
            raise ValueError(f"{member} has no central directory entry")
        name_length = struct.unpack_from("<H", data, position + 28)[0]
        if bytes(data[position + 46 : position + 46 + name_length]) == name:
            return position
        position += 4


def corrupt_member_crc(package: bytes, member: str) -> bytes:
    """The same zip with ``member``'s recorded CRC-32 flipped (local and central headers)."""
    data = bytearray(package)
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        info = zf.getinfo(member)
    bad_crc = info.CRC ^ 0xFFFFFFFF
    # Local file header: CRC-32 at offset 14.
    struct.pack_into("<I", data, info.header_offset + 14, bad_crc)
    # Central directory entry: CRC-32 at offset 16.
    struct.pack_into("<I", data, _central_entry(data, member) + 16, bad_crc)
    return bytes(data)


def corrupt_member_stream(package: bytes, member: str) -> bytes:
    """The same zip with ``member``'s deflate stream made un-inflatable (headers intact).

    The first compressed byte becomes ``0xff``: a final block of the reserved
    type 3, which zlib rejects before producing any output.
    """
    data = bytearray(package)
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        info = zf.getinfo(member)
    if info.compress_type != zipfile.ZIP_DEFLATED:
        raise ValueError(f"{member} is not deflated")
    name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
    data[info.header_offset + 30 + name_length + extra_length] = 0xFF
    return bytes(data)


def flip_member_payload_byte(package: bytes, member: str) -> bytes:
    """The same zip with one byte in the middle of ``member``'s stored data inverted.

    The recorded CRC-32 is left as it was, the way a bad disk sector or a
    broken transfer damages a file: depending on where the byte lands the
    inflater either produces different bytes (the CRC check fails) or stops
    on an invalid code (it never reaches the CRC). Both are the same fault.
    """
    data = bytearray(package)
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        info = zf.getinfo(member)
    name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
    payload = info.header_offset + 30 + name_length + extra_length
    data[payload + info.compress_size // 2] ^= 0xFF
    return bytes(data)


def mark_member_encrypted(package: bytes, member: str) -> bytes:
    """The same zip with ``member``'s "encrypted" flag (bit 0) set in both headers."""
    data = bytearray(package)
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        info = zf.getinfo(member)
    # General purpose flags: offset 6 in the local header, 8 in the central entry.
    for offset in (info.header_offset + 6, _central_entry(data, member) + 8):
        flags = struct.unpack_from("<H", data, offset)[0]
        struct.pack_into("<H", data, offset, flags | 0x1)
    return bytes(data)


def replace_member(package: bytes, member: str, blob: bytes) -> bytes:
    """The same package with one member's bytes replaced (for malformed-XML cases)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(package)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            dst.writestr(info, blob if info.filename == member else src.read(info))
    return out.getvalue()


def rename_media_member(package: bytes, new_name: str) -> bytes:
    """The package with its first media member renamed to ``new_name`` (verbatim
    zip name, e.g. the percent-encoded ``ppt/media/image%201.png``) and every
    relationship target that named it rewritten to the new name."""
    old_name = first_media_member(package)
    old_target = ("../media/" + old_name.rsplit("/", 1)[1]).encode()
    new_target = ("../media/" + new_name.rsplit("/", 1)[1]).encode()
    members = []
    for name, blob in members_of(package):
        if name == old_name:
            name = new_name
        elif name.endswith(".rels"):
            blob = blob.replace(b'Target="' + old_target + b'"', b'Target="' + new_target + b'"')
        members.append((name, blob))
    return zip_members(members)


# -- shapes real decks had (issue: "what real decks broke") --------------------


def large_picture_deck() -> bytes:
    """Slide 1: titled, one picture covering 60 % of the canvas (``large_picture``).
    Slide 2: titled, one picture covering 25 % (no render needed).
    Slide 3: an image background and a title (``background_image``).
    Slide 4: an image background whose relationship names no part (blob missing)."""
    prs = Presentation()
    width, height = prs.slide_width, prs.slide_height
    s1 = prs.slides.add_slide(prs.slide_layouts[5])
    s1.shapes.title.text = "A big photo"
    s1.shapes.add_picture(
        io.BytesIO(png_bytes((9, 9, 9))), 0, 0, Emu(int(width * 0.75)), Emu(int(height * 0.8))
    )
    s2 = prs.slides.add_slide(prs.slide_layouts[5])
    s2.shapes.title.text = "A small photo"
    s2.shapes.add_picture(
        io.BytesIO(png_bytes((8, 8, 8))), 0, 0, Emu(int(width * 0.5)), Emu(int(height * 0.5))
    )
    s3 = prs.slides.add_slide(prs.slide_layouts[5])
    s3.shapes.title.text = "Photo background"
    set_background_image(s3, png_bytes((7, 7, 7)))
    s4 = prs.slides.add_slide(prs.slide_layouts[5])
    s4.shapes.title.text = "Lost background"
    _set_background(
        s4,
        '<a:blipFill><a:blip r:embed="rIdMissing"/><a:stretch><a:fillRect/></a:stretch>'
        "</a:blipFill>",
    )
    return _save(prs)


def zip_members(members: list[tuple[str, bytes]]) -> bytes:
    """A new zip holding exactly ``members`` in this order (names kept verbatim)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, blob in members:
            dst.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), blob)
    return out.getvalue()


def members_of(package: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(package)) as src:
        return [(info.filename, src.read(info)) for info in src.infolist()]


def text_image(lines: Sequence[str], size: tuple[int, int] = (1200, 300)) -> bytes:
    """A PNG with real rendered text (Pillow's bundled font), black on white."""
    from PIL import ImageDraw, ImageFont

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=48)
    for index, line in enumerate(lines):
        draw.text((40, 40 + 90 * index), line, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


OCR_PHRASES = (
    ("Quarterly revenue doubled", "Ship small changes often"),
    ("Measure before you optimise",),
    ("Background words matter",),
)


def ocr_deck() -> bytes:
    """Baked-in text where only OCR can read it.

    1: two text pictures (one repeated on slide 2, so OCR runs once per digest)
    plus a blank picture (genuine empty). 2: the repeated picture and a PNG whose
    header is valid but whose pixel data is cut off (an OCR failure: partial).
    3: an image background carrying text and no picture.
    """
    prs = Presentation()
    blank = prs.slide_layouts[6]
    first, second, third = (text_image(lines) for lines in OCR_PHRASES)
    s1 = prs.slides.add_slide(blank)
    s1.shapes.add_picture(io.BytesIO(first), Inches(0.5), Inches(0.5), Inches(8), Inches(2))
    s1.shapes.add_picture(io.BytesIO(second), Inches(0.5), Inches(3), Inches(8), Inches(2))
    s1.shapes.add_picture(
        io.BytesIO(png_bytes((255, 255, 255), (64, 64))),
        Inches(8.7),
        Inches(6),
        Inches(1),
        Inches(1),
    )
    s2 = prs.slides.add_slide(blank)
    s2.shapes.add_picture(io.BytesIO(first), Inches(0.5), Inches(0.5), Inches(8), Inches(2))
    broken = text_image(("broken",))
    s2.shapes.add_picture(
        io.BytesIO(broken[: len(broken) // 3]), Inches(0.5), Inches(3), Inches(4), Inches(1)
    )
    s3 = prs.slides.add_slide(blank)
    set_background_image(s3, third)
    return _save(prs)


def hungry_ocr_deck() -> bytes:
    """One slide whose only content is a 6000 x 6000 picture full of words: under
    the OCR pixel guard, but tesseract needs ~160 MiB and over a second for it."""
    from PIL import ImageDraw, ImageFont

    image = Image.new("L", (6000, 6000), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=120)
    for top in range(0, 6000, 400):
        draw.text((100, top), "memory hungry words " * 3, fill=0, font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_picture(io.BytesIO(buffer.getvalue()), 0, 0, Inches(4), Inches(4))
    return _save(prs)


def pdf_bytes(pages: int, height: int = 792) -> bytes:
    """A PDF of ``pages`` blank pages (a stand-in for a rendered deck); another
    three-digit ``height`` gives other bytes of the same size."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, height)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()
