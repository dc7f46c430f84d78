"""Every bad input is a clean refusal: exit 2, a stable code, no traceback."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence.archive import open_archive
from rvault_pptx_evidence.limits import Limits
from rvault_testkit.pptx_evidence import sample_decks

BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
    b'<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">&lol3;</p:sld>'
)


def _bomb(deck: bytes) -> bytes:
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(deck)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("ppt/media/zeros.bin", bytes(40 * 1024 * 1024))
    return out.getvalue()


CASES: dict[str, Callable[[bytes], bytes]] = {
    "not_a_zip": lambda deck: b"this is a text file, not a deck\n",
    "encrypted_package": lambda deck: bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504),
    "truncated_archive": lambda deck: deck[: len(deck) // 2],
    "empty_input": lambda deck: b"",
    "archive_limit_exceeded": _bomb,
    "xml_dtd_refused": lambda deck: sample_decks.replace_member(
        deck, "ppt/slides/slide1.xml", BILLION_LAUGHS
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_bad_bytes_refused_cleanly(
    code: str, picture_deck: Path, tmp_path: Path, cli: Any, snapshot_file: Any
) -> None:
    deck = tmp_path / f"{code}.pptx"
    deck.write_bytes(CASES[code](picture_deck.read_bytes()))
    before = snapshot_file(deck)
    result = cli("rvault-pptx", "extract", deck, "--no-ocr", timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.json["ok"] is False
    assert result.json["error"]["code"] == code
    assert "Traceback" not in result.stderr
    assert snapshot_file(deck) == before


def test_symlink_directory_and_missing_paths(picture_deck: Path, tmp_path: Path, cli: Any) -> None:
    link = tmp_path / "link.pptx"
    link.symlink_to(picture_deck)
    folder = tmp_path / "folder.pptx"
    folder.mkdir()
    expected = {
        link: "symlink_refused",
        folder: "not_regular_file",
        tmp_path / "absent.pptx": "input_missing",
        picture_deck / "under_a_file.pptx": "input_missing",  # ENOTDIR, as before
    }
    for path, code in expected.items():
        result = cli("rvault-pptx", "extract", path, "--no-ocr")
        assert result.returncode == 2
        assert result.json["error"] == {
            "code": code,
            "message": result.json["error"]["message"],
            "path": str(path),
        }
        assert "Traceback" not in result.stderr
    assert link.is_symlink() and folder.is_dir()


def test_directory_bounds_checked_before_inflating(picture_deck: Path) -> None:
    deck = picture_deck.read_bytes()
    with pytest.raises(Refusal) as too_many:
        open_archive(deck, Limits(max_members=3))
    assert too_many.value.code == "archive_limit_exceeded"
    with pytest.raises(Refusal) as too_big:
        open_archive(deck, Limits(max_total_uncompressed_bytes=1000))
    assert too_big.value.code == "archive_limit_exceeded"


def test_unsafe_member_names_refused(picture_deck: Path) -> None:
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(picture_deck.read_bytes())) as src,
        zipfile.ZipFile(out, "w") as dst,
    ):
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("../escape.xml", b"<x/>")
    with pytest.raises(Refusal) as refused:
        open_archive(out.getvalue())
    assert refused.value.code == "unsafe_member_name"


def test_zip_without_content_types_is_not_a_presentation() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        dst.writestr("hello.txt", b"hi")
    with pytest.raises(Refusal) as refused:
        open_archive(out.getvalue())
    assert refused.value.code == "not_a_presentation"
