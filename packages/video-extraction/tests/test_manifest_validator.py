"""``rvault_video_extraction.api``: the referential manifest validator.

A real extraction provides the valid manifest; each test breaks one rule and
expects its stable code. Legacy and future versions are classified, never
trusted. The api module must stay light (no OpenCV, NumPy or yt-dlp).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_mp4v,
)
from rvault_video_extraction.api import read_manifest, validate_manifest
from rvault_video_extraction.extract import ExtractRequest, extract
from rvault_video_extraction.manifest_validation import MAX_MANIFEST_BYTES

VIDEO_ID = "AbCdEfGhI_1"


def _extract(root: Path, **options: Any) -> dict[str, Any]:
    outdir = root / "slides-rebuild" / VIDEO_ID
    outdir.mkdir(parents=True)
    video = outdir / f"{VIDEO_ID}.mp4"
    write_mp4v(TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(3))), video)
    return extract(ExtractRequest(video, outdir, VIDEO_ID, fps=2.0, **options))


@pytest.fixture(scope="module")
def trusted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("trusted") / "vault"
    return root, _extract(root, region=[0.03, 0.12, 0.66, 0.88], region_verified=True)


def codes(document: Any, root: Path, **kwargs: Any) -> list[str]:
    return validate_manifest(document, vault_root=root, **kwargs).codes


def test_real_manifest_is_current_and_trusted(trusted: tuple[Path, dict[str, Any]]) -> None:
    root, manifest = trusted
    report = validate_manifest(manifest, vault_root=root, expected_video_id=VIDEO_ID)
    assert report.status == "current" and report.usable and report.trusted
    assert report.issues == ()
    assert set(report.pdf_sha256) == {a["path"] for a in manifest["artifacts"]}
    assert not validate_manifest(manifest, vault_root=None).trusted


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(document: dict[str, Any]) -> None:
        target: Any = document
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        last = keys[-1]
        target[int(last) if last.isdigit() else last] = value

    return apply


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (_set("artifacts.0.source_video_id", "ZZZZZZZZZZZ"), "artifact_identity_mismatch"),
        (_set("artifacts.1.source_video_path", "/elsewhere/x.mp4"), "artifact_identity_mismatch"),
        (_set("slide_region", [0.7, 0.1, 0.2, 0.9]), "region_geometry_invalid"),
        (_set("slide_region", None), "region_flags_inconsistent"),
        (_set("slide_region_detected", True), "region_flags_inconsistent"),
        (_set("slide_region_method", "auto"), "region_flags_inconsistent"),
        (_set("unique_frame_count", 2), "page_count_mismatch"),
        (_set("artifacts.1.page_count", 4), "page_count_mismatch"),
        (_set("retained_frames.1.timestamp_seconds", 99.0), "timestamp_mismatch"),
        (_set("retained_frames.1.page_number", 3), "retained_frames_order"),
        (
            _set("artifacts.1.trusted_for_authored_slide_analysis", True),
            "artifact_flags_inconsistent",
        ),
        (_set("artifacts.1.crop_method", "manual"), "artifact_flags_inconsistent"),
        (_set("artifacts.0.crop_verified", False), "artifact_flags_inconsistent"),
        (_set("review_required", True), "review_inconsistent"),
        (_set("review_reason", "please look"), "review_inconsistent"),
        (_set("artifacts.1.artifact_scope", "slide_region"), "artifact_scope_invalid"),
        (_set("artifacts.0.path", "/tmp/../etc/passwd"), "path_dot_or_empty_segment"),
        (_set("artifacts.0.path", "//server/share/x.pdf"), "path_dual_flavor"),
        (_set("source_video_path", "C:\\\\talks\\\\x.mp4"), "path_foreign_flavor"),
        (_set("artifacts.1.path", "~/x.pdf"), "path_contains_tilde"),
        (_set("artifacts.1.path", "relative/x.pdf"), "path_not_absolute"),
        (_set("schema_version", "3"), "schema_version_invalid"),
        (_set("authored_slide_count", 85), "schema_violation"),
    ],
)
def test_each_broken_rule_has_its_code(
    trusted: tuple[Path, dict[str, Any]], mutate: Callable[[dict[str, Any]], None], code: str
) -> None:
    root, manifest = trusted
    document = copy.deepcopy(manifest)
    mutate(document)
    report = validate_manifest(document, vault_root=root)
    assert code in report.codes, report.to_dict()
    assert not report.trusted and not report.usable


def test_one_optimistic_flag_cannot_make_an_auto_crop_trusted(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    manifest = _extract(root)
    assert validate_manifest(manifest, vault_root=root).status == "current"
    forged = copy.deepcopy(manifest)
    forged["artifacts"][0]["trusted_for_authored_slide_analysis"] = True
    assert "trust_inconsistent" in codes(forged, root)
    forged["review_required"] = False
    forged["review_reason"] = None
    report = validate_manifest(forged, vault_root=root)
    assert not report.trusted and "review_inconsistent" in report.codes


def test_paths_outside_root_symlinked_or_with_wrong_page_count(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    manifest = _extract(root)
    other = tmp_path / "other-vault"
    other.mkdir()
    assert "path_outside_vault_root" in codes(manifest, other)
    assert "video_id_mismatch" in codes(manifest, root, expected_video_id="XXXXXXXXXXX")
    context = Path(manifest["artifacts"][1]["path"])
    original = context.read_bytes()
    region_pdf = Path(manifest["artifacts"][0]["path"])
    context.unlink()
    context.symlink_to(region_pdf)
    assert "path_symlink" in codes(manifest, root)
    context.unlink()
    import cv2
    import numpy as np
    from rvault_video_extraction.pdf_writer import JpegPage, write_jpeg_pdf

    ok, jpeg = cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))
    assert ok
    one_page = write_jpeg_pdf(
        [JpegPage(jpeg.tobytes(), 8, 8)], title="x", producer="x", creator="x"
    )
    context.write_bytes(one_page)
    # Other bytes than extracted: stale before any parsing...
    assert codes(manifest, root) == ["artifact_changed"]
    # ...and with the digests forged to match, the probe still counts the pages.
    assert "pdf_page_count_mismatch" in codes(_bound_to(manifest, one_page), root)
    context.write_bytes(b"%PDF-1.4 truncated")
    assert "pdf_unreadable" in codes(_bound_to(manifest, b"%PDF-1.4 truncated"), root)
    context.write_bytes(original)
    assert codes(manifest, root) == []


def _bound_to(manifest: dict[str, Any], context_bytes: bytes) -> dict[str, Any]:
    """``manifest`` with the context PDF's recorded digest and size set to ``context_bytes``."""
    forged = copy.deepcopy(manifest)
    forged["artifacts"][1]["sha256"] = hashlib.sha256(context_bytes).hexdigest()
    forged["artifacts"][1]["size_bytes"] = len(context_bytes)
    return forged


@pytest.mark.parametrize(
    ("document", "status", "usable"),
    [
        (
            {"slide_source": "video_extracted", "unique_slides_count": 4, "output_pdf": "/v/x.pdf"},
            "legacy",
            True,
        ),
        ({"schema_version": 1, "slide_region": [0, 0, 1, 1]}, "legacy", True),
        (
            {"schema_version": 2, "slide_region_verified": True, "output_pdf": "/v/x.pdf"},
            "legacy",
            True,
        ),
        ({"schema_version": 5, "anything": True}, "future", False),
        ([1, 2], "invalid", False),
    ],
)
def test_version_classes(document: Any, status: str, usable: bool, tmp_path: Path) -> None:
    report = validate_manifest(document, vault_root=tmp_path)
    assert (report.status, report.usable, report.trusted) == (status, usable, False)


def test_read_manifest_is_strict(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(b'{"schema_version": 3, "schema_version": 3}')
    report = read_manifest(path, vault_root=tmp_path)
    assert report.codes == ["duplicate_key"] and not report.usable


def test_validate_command(cli: Callable[..., Any], tmp_path: Path) -> None:
    root = tmp_path / "vault"
    manifest = _extract(root)
    path = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    ok = cli("rvault-video", "validate", path, "--vault-root", root, "--video-id", VIDEO_ID)
    assert ok.returncode == 0 and ok.json["status"] == "current" and ok.json["trusted"] is False
    untrusted = cli("rvault-video", "validate", path, "--vault-root", root, "--require-trusted")
    assert untrusted.returncode == 2 and untrusted.json["error"]["code"] == "manifest_untrusted"
    future = tmp_path / "future.json"
    future.write_text(json.dumps({**manifest, "schema_version": 9}))
    refused = cli("rvault-video", "validate", future, "--vault-root", root)
    assert refused.returncode == 2 and refused.json["report"]["status"] == "future"


def test_validate_reads_only_bounded_regular_files(cli: Callable[..., Any], tmp_path: Path) -> None:
    fifo = tmp_path / "manifest.fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_MANIFEST_BYTES + 1)
    cases = {
        fifo: "manifest_not_regular_file",
        Path("/dev/zero"): "manifest_not_regular_file",
        tmp_path: "manifest_not_regular_file",
        big: "manifest_too_large",
        tmp_path / "missing.json": "manifest_unreadable",
    }
    for path, code in cases.items():
        result = cli("rvault-video", "validate", path, "--vault-root", tmp_path, timeout=60)
        assert result.returncode == 2, (path, result.stdout)
        assert result.json["error"]["code"] == "manifest_unusable"
        assert [i["code"] for i in result.json["report"]["issues"]] == [code]
    no_root = cli("rvault-video", "validate", big, "--vault-root", tmp_path / "missing")
    assert no_root.returncode == 2
    assert no_root.json["error"]["code"] == "vault_root_missing"


def test_nul_byte_in_a_schema_valid_path_is_an_issue_not_a_crash(
    trusted: tuple[Path, dict[str, Any]],
) -> None:
    root, manifest = trusted
    for mutate in (
        lambda doc: doc.__setitem__("source_video_path", str(root.resolve()) + "/\x00"),
        lambda doc: doc["artifacts"][1].__setitem__("path", doc["artifacts"][1]["path"] + "\x00"),
    ):
        broken = copy.deepcopy(manifest)
        mutate(broken)
        report = validate_manifest(broken, vault_root=root)
        assert not report.usable and not report.trusted
        assert "path_contains_nul" in report.codes


def test_api_and_package_import_stay_light() -> None:
    code = (
        "import sys, rvault_video_extraction, rvault_video_extraction.api as api;"
        "heavy = {'cv2', 'numpy', 'yt_dlp', 'av', 'pptx', 'faster_whisper', 'pypdf'};"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
