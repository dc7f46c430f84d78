"""Shapes that real decks (the python-pptx test files, PowerPoint-saved decks)
showed were handled wrongly, each reproduced on a generated deck."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence import api
from rvault_pptx_evidence.archive import open_archive
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_pptx_evidence.render_policy import TEXT_BEARING_IMAGE_AREA_RATIO
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks


@pytest.fixture(scope="module")
def large_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    deck = tmp_path_factory.mktemp("large") / "large.pptx"
    deck.write_bytes(sample_decks.large_picture_deck())
    return extract_path(deck, "large.pptx", ocr_mode=OCR_DISABLED)


def test_large_picture_forces_a_render(large_doc: dict[str, Any], schema_valid: Any) -> None:
    schema_valid(large_doc)
    big, small = large_doc["per_slide_visual"][:2]
    assert big["image_area_ratio"] >= TEXT_BEARING_IMAGE_AREA_RATIO
    assert big["render_required"] is True
    assert big["render_required_reasons"] == ["large_picture"]
    assert big["unsupported_content"] == [] and big["has_unsupported_content"] is False
    assert small["image_area_ratio"] < TEXT_BEARING_IMAGE_AREA_RATIO
    assert small["render_required"] is False and small["render_required_reasons"] == []


def test_image_background_forces_a_render_blob_or_not(large_doc: dict[str, Any]) -> None:
    present, missing = large_doc["per_slide_visual"][2:4]
    assert present["background_type"] == missing["background_type"] == "image"
    assert present["background_asset_status"] == "available"
    assert missing["background_asset_status"] == "unavailable"
    for slide in (present, missing):
        assert slide["image_area_ratio"] == 0.0
        assert slide["text_extraction_confidence"] == "low"
        assert slide["render_required"] is True
        assert slide["render_required_reasons"] == ["background_image"]
    audit = large_doc["native_deck_audit"]
    assert audit["render_required_slide_numbers"] == [1, 3, 4]
    assert audit["render_required_reasons"] == {
        "1": ["large_picture"],
        "3": ["background_image"],
        "4": ["background_image"],
    }
    assert api.classify(large_doc).status == api.CURRENT


def test_reader_rejects_a_dropped_render_reason(large_doc: dict[str, Any]) -> None:
    import copy

    document = copy.deepcopy(large_doc)
    slide = document["per_slide_visual"][0]
    slide["render_required"], slide["render_required_reasons"] = False, []
    reading = api.classify(document)
    assert reading.status == api.INVALID
    assert any("render_required_reasons" in issue for issue in reading.issues)


def test_zero_byte_image_is_unreadable_not_available(
    picture_deck: Path, tmp_path: Path, schema_valid: Any
) -> None:
    raw = picture_deck.read_bytes()
    member = sample_decks.first_media_member(raw)
    deck = tmp_path / "empty-image.pptx"
    deck.write_bytes(sample_decks.replace_member(raw, member, b""))
    document = extract_path(deck, "empty-image.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(document)
    slide = document["per_slide_visual"][1]
    picture = next(s for s in slide["shapes_summary"] if s["is_picture"])
    assert picture["picture_asset_status"] == "unavailable"
    assert picture["picture_asset_sha256"] is None
    assert [u["content_type"] for u in slide["unsupported_content"]] == ["unreadable_picture"]
    assert slide["render_required"] is True
    assert "unreadable_picture" in slide["render_required_reasons"]
    assert api.classify(document).status == api.CURRENT


def _refusal(package: bytes) -> Refusal:
    with pytest.raises(Refusal) as refused:
        open_archive(package)
    return refused.value


def _members(picture_deck: Path) -> list[tuple[str, bytes]]:
    return sample_decks.members_of(picture_deck.read_bytes())


def _edit(members: list[tuple[str, bytes]], name: str, old: bytes, new: bytes) -> None:
    for index, (member, blob) in enumerate(members):
        if member == name:
            assert old in blob
            members[index] = (member, blob.replace(old, new, 1))
            return
    raise AssertionError(name)


def test_duplicate_relationship_id_is_refused(picture_deck: Path) -> None:
    members = _members(picture_deck)
    rels = "ppt/slides/_rels/slide2.xml.rels"
    blob = dict(members)[rels]
    # A second relationship reusing the first one's id, pointing elsewhere.
    first_id = blob.split(b'Id="', 1)[1].split(b'"', 1)[0]
    extra = (
        b'<Relationship Id="' + first_id + b'" Type="http://schemas.openxmlformats.org/'
        b'officeDocument/2006/relationships/image" Target="../media/other.png"/>'
    )
    _edit(members, rels, b"</Relationships>", extra + b"</Relationships>")
    refusal = _refusal(sample_decks.zip_members(members))
    assert (refusal.code, refusal.path) == ("ambiguous_package", rels)
    assert first_id.decode() in refusal.message


def test_case_equivalent_part_names_are_refused(picture_deck: Path) -> None:
    members = _members(picture_deck)
    members.append(("ppt/slides/SLIDE1.XML", dict(members)["ppt/slides/slide1.xml"]))
    refusal = _refusal(sample_decks.zip_members(members))
    assert refusal.code == "ambiguous_package"
    assert "case-insensitive" in refusal.message


def test_case_equivalent_content_types_member_is_refused(picture_deck: Path) -> None:
    members = _members(picture_deck)
    members.append(("[content_types].xml", dict(members)["[Content_Types].xml"]))
    assert _refusal(sample_decks.zip_members(members)).code == "ambiguous_package"


def test_member_that_is_a_folder_of_others_is_refused(picture_deck: Path) -> None:
    members = _members(picture_deck)
    members.append(("ppt/media", b"not a folder"))
    refusal = _refusal(sample_decks.zip_members(members))
    assert refusal.code == "ambiguous_package"
    assert refusal.path == "ppt/media"


@pytest.mark.parametrize(
    "name",
    [
        "ppt/media/image%31.png",  # an encoded unreserved character: a second spelling
        "ppt/media/%2Falias.png",  # an encoded '/' would move the part
        "ppt/media/%5calias.png",  # an encoded '\\'
        "ppt/media/bad%ZZ.png",  # not a percent-encoding
        "ppt/media/trailing%2",
        "ppt/media/image%FF.png",  # does not decode to UTF-8
        "ppt/media/image9.png?x=1",
        "ppt/media/image9.png.",
        "ppt/m#/a.png",
    ],
)
def test_non_canonical_member_names_are_refused(picture_deck: Path, name: str) -> None:
    members = _members(picture_deck)
    members.append((name, sample_decks.png_bytes((4, 4, 4))))
    refusal = _refusal(sample_decks.zip_members(members))
    assert (refusal.code, refusal.path) == ("ambiguous_package", name)


def test_dot_segment_member_name_is_refused(picture_deck: Path) -> None:
    members = _members(picture_deck)
    members.append(("ppt/./media/x.png", sample_decks.png_bytes((4, 4, 4))))
    assert _refusal(sample_decks.zip_members(members)).code == "unsafe_member_name"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            b'<Override PartName="/ppt/presentation.xml"',
            b'<Override PartName="/PPT/presentation.xml" ContentType="application/xml"/>'
            b'<Override PartName="/ppt/presentation.xml"',
        ),
        (b"<Default ", b'<Default Extension="PNG" ContentType="image/png"/><Default '),
    ],
)
def test_duplicate_content_type_entries_are_refused(
    picture_deck: Path, old: bytes, new: bytes
) -> None:
    members = _members(picture_deck)
    if old.startswith(b"<Default"):
        blob = dict(members)["[Content_Types].xml"]
        assert b'Extension="png"' in blob
    _edit(members, "[Content_Types].xml", old, new)
    refusal = _refusal(sample_decks.zip_members(members))
    assert (refusal.code, refusal.path) == ("ambiguous_package", "[Content_Types].xml")


def test_ambiguous_package_from_the_console_script(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any
) -> None:
    members = _members(picture_deck)
    members.append(("ppt/slides/SLIDE1.XML", dict(members)["ppt/slides/slide1.xml"]))
    deck = tmp_path / "ambiguous.pptx"
    deck.write_bytes(sample_decks.zip_members(members))
    before = snapshot_tree(tmp_path)
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--out", tmp_path / "x.json")
    assert result.returncode == 2, result.stderr
    assert result.json["error"]["code"] == "ambiguous_package"
    assert snapshot_tree(tmp_path) == before


def test_receipt_does_not_depend_on_where_the_command_ran(
    picture_deck: Path, tmp_path: Path
) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    deck = nested / "talk.pptx"
    deck.write_bytes(picture_deck.read_bytes())
    runs = [
        run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", tmp_path),
        run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", nested),
        run_cli("rvault-pptx", "extract", "talk.pptx", "--no-ocr", cwd=nested),
    ]
    assert [r.returncode for r in runs] == [0, 0, 0]
    paths = {r.json["pptx_path"] for r in runs}
    assert paths == {"a/b/talk.pptx", "talk.pptx"}
    receipts = {r.json["native_deck_audit"]["extraction_receipt_sha256"] for r in runs}
    assert len(receipts) == 1
    assert deck.is_file()


def test_empty_text_frame_may_omit_the_font_bundle(schema_valid: Any, rich_doc: Any) -> None:
    """The spec's own v4 example: "Cloud 2" has empty text, no runs, no font fields."""
    import copy

    from rvault_contracts.schemas import is_valid

    document = copy.deepcopy(rich_doc)
    frame = next(
        s
        for slide in document["per_slide_visual"]
        for s in slide["shapes_summary"]
        if s["has_text_frame"]
    )
    frame["text_preview"] = ""
    for key in ("font_name", "font_size", "font_color", "bold", "italic"):
        frame.pop(key)
    schema_valid(document)
    frame.pop("text_preview")
    assert not is_valid("pptx-extraction", 4, document)
    document = copy.deepcopy(rich_doc)
    document["native_deck_audit"]["rendered_page_inspection"] = None
    schema_valid(document)


def test_picture_in_a_picture_placeholder_is_typed_placeholder(
    tmp_path: Path, schema_valid: Any
) -> None:
    """python-pptx types an inserted placeholder picture PLACEHOLDER (14); it is
    still a picture with its asset binding (the peer checks the same)."""
    from rvault_testkit.pptx_evidence import peer_decks

    deck = tmp_path / "placeholder-picture.pptx"
    deck.write_bytes(peer_decks.placeholder_picture_deck())
    document = extract_path(deck, "placeholder-picture.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(document)
    slide = document["per_slide_visual"][0]
    picture = next(s for s in slide["shapes_summary"] if s["is_picture"])
    assert picture["shape_type"] == "PLACEHOLDER (14)"
    assert picture["has_text_frame"] is False
    assert picture["picture_asset_status"] == "available"
    assert slide["has_image"] is True
