"""Percent-encoded part names: valid OPC spellings extract, second spellings refuse.

OPC writes a space in a part name as ``%20`` (``ppt/media/image%201.png``);
PowerPoint and LibreOffice produce such names for pictures inserted from a
file whose name had a space. Names are decoded once and then compared, so a
package that holds two spellings of one part is still ``ambiguous_package``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence import api
from rvault_pptx_evidence.archive import open_archive
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_pptx_evidence.opc_names import decoded_part_name
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

ENCODED = "ppt/media/image%201.png"


@pytest.fixture(scope="module")
def encoded_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    deck = tmp_path_factory.mktemp("encoded") / "encoded space.pptx"
    deck.write_bytes(sample_decks.rename_media_member(sample_decks.picture_deck(), ENCODED))
    return deck


def test_decoding_is_done_once() -> None:
    assert decoded_part_name(ENCODED) == "ppt/media/image 1.png"
    # %25 is an encoded '%': one decode leaves the literal "%20", not a space.
    assert decoded_part_name("ppt/media/a%2520b.png") == "ppt/media/a%20b.png"
    assert decoded_part_name("ppt/media/%C3%A9t%C3%A9.png") == "ppt/media/été.png"
    assert decoded_part_name("ppt/slides/slide1.xml") == "ppt/slides/slide1.xml"


def test_encoded_space_extracts_and_binds_the_member_name(
    encoded_deck: Path, schema_valid: Any
) -> None:
    document = extract_path(encoded_deck, "encoded space.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(document)
    slide = document["per_slide_visual"][1]
    picture = next(s for s in slide["shapes_summary"] if s["is_picture"])
    # The binding names the zip member exactly as stored (the OPC part name).
    assert picture["picture_part_name"] == ENCODED
    assert picture["picture_asset_status"] == "available"
    assert len(picture["picture_asset_sha256"]) == 64
    assert "Picture slide" in slide["text_content_preview"]
    assert api.classify(document).status == api.CURRENT


def test_encoded_space_from_the_console_script(encoded_deck: Path) -> None:
    result = run_cli("rvault-pptx", "extract", encoded_deck, "--no-ocr")
    assert result.returncode == 0, result.stderr
    assert result.json["slide_count"] == 2


@pytest.mark.parametrize("twin", ["ppt/media/image 1.png", "ppt/media/IMAGE%201.PNG"])
def test_two_spellings_of_one_part_stay_ambiguous(encoded_deck: Path, twin: str) -> None:
    members = sample_decks.members_of(encoded_deck.read_bytes())
    members.append((twin, sample_decks.png_bytes((5, 5, 5))))
    with pytest.raises(Refusal) as refused:
        open_archive(sample_decks.zip_members(members))
    assert (refused.value.code, refused.value.path) == ("ambiguous_package", twin)
    assert "percent-decoded" in refused.value.message


def test_encoded_folder_shadowing_is_ambiguous(encoded_deck: Path) -> None:
    """``ppt/media%2Fx`` is refused outright; ``ppt/med%20ia`` beside a real
    ``ppt/med ia/`` folder is the folder-shadowing case after decoding."""
    members = sample_decks.members_of(encoded_deck.read_bytes())
    members += [("ppt/med ia/x.png", b"x"), ("ppt/med%20ia", b"y")]
    with pytest.raises(Refusal) as refused:
        open_archive(sample_decks.zip_members(members))
    assert (refused.value.code, refused.value.path) == ("ambiguous_package", "ppt/med%20ia")
