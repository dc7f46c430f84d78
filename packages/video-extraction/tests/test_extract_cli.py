"""``rvault-video extract`` through the installed console script.

Covers the artifacts (two PDFs in one page order, physical crop, pipeline
version in the PDF metadata, manifest on stdout equal to the file), the trust
rules of manual regions, and every refusal code, each asserting that no
output changed (bytes and inode) and no intermediate survived.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from rvault_testkit.video_extraction.synthetic import TalkSpec, distinct_slides, timeline
from rvault_video_extraction import extract_media
from rvault_video_extraction.api import validate_manifest
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.extract import ExtractRequest, extract, output_names
from rvault_video_extraction.versioning import PIPELINE_VERSION

SCRIPT = "rvault-video"


def small_spec() -> TalkSpec:
    return TalkSpec(
        layout="side_by_side",
        segments=timeline(distinct_slides(3)),
        fade_seconds=0.3,
        noise_sigma=5,
    )


def outputs(vault: Any) -> list[Path]:
    return [vault.outdir / name for name in output_names(vault.video_id)]


def extract_cli(cli: Callable[..., Any], vault: Any, *extra: str) -> Any:
    return cli(SCRIPT, "extract", vault.video, vault.outdir, vault.video_id, "--fps", "2", *extra)


def test_extract_writes_both_pdfs_and_the_manifest(
    cli: Callable[..., Any], talk_vault: Callable[..., Any]
) -> None:
    vault = talk_vault(small_spec())
    result = extract_cli(cli, vault)
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = result.json
    region_pdf, context_pdf, manifest_file = outputs(vault)
    assert json.loads(manifest_file.read_text()) == manifest
    assert manifest["schema_version"] == 4
    data = vault.video.read_bytes()
    receipt = manifest["source_receipt"]
    assert receipt["vault_path"] == f"slides-rebuild/{vault.video_id}/{vault.video_id}.mp4"
    assert (receipt["sha256"], receipt["size_bytes"]) == (
        hashlib.sha256(data).hexdigest(),
        len(data),
    )
    assert receipt["video_stream"] == {
        "codec": "mpeg4",
        "width": 320,
        "height": 180,
        "fps": vault.spec.fps,
        "frame_count": vault.spec.frame_count(),
    }
    assert receipt["duration_source"] == "video_stream"
    assert receipt["container_duration_seconds"] == pytest.approx(vault.spec.duration())
    assert receipt["demuxed_end_seconds"] == pytest.approx(vault.spec.duration())
    assert receipt["decode_complete"] is True
    assert receipt["decoded_span_seconds"]["first"] == 0.0
    assert vault.spec.duration() - receipt["decoded_span_seconds"]["last"] <= 0.25 + 0.01
    for artifact in manifest["artifacts"]:
        pdf = Path(artifact["path"]).read_bytes()
        assert (artifact["sha256"], artifact["size_bytes"]) == (
            hashlib.sha256(pdf).hexdigest(),
            len(pdf),
        )
    assert manifest["pipeline_version"] == PIPELINE_VERSION
    assert manifest["source_video_path"] == str(vault.video.resolve())
    assert manifest["unique_frame_count"] == 3
    assert [a["path"] for a in manifest["artifacts"]] == [
        str(region_pdf.resolve()),
        str(context_pdf.resolve()),
    ]
    for path in (region_pdf, context_pdf):
        reader = PdfReader(io.BytesIO(path.read_bytes()))
        assert len(reader.pages) == 3
        assert PIPELINE_VERSION in str(reader.metadata.producer)
        assert PIPELINE_VERSION in str(reader.metadata.creator)
    context_page = PdfReader(str(context_pdf)).pages[0]
    region_page = PdfReader(str(region_pdf)).pages[0]
    assert (float(context_page.mediabox.width), float(context_page.mediabox.height)) == (
        320.0,
        180.0,
    )
    left, top, right, bottom = manifest["slide_region"]
    assert float(region_page.mediabox.width) == pytest.approx((right - left) * 320, abs=1.5)
    assert float(region_page.mediabox.height) == pytest.approx((bottom - top) * 180, abs=1.5)
    assert [f["timestamp_seconds"] for f in manifest["retained_frames"]] == [
        f["frame_index"] / 2.0 for f in manifest["retained_frames"]
    ]
    assert "decoded" in result.stderr and "retained" in result.stderr and "ETA" not in result.stdout
    leftovers = [
        p.name for p in vault.outdir.iterdir() if p.name.startswith(f".{vault.video_id}.frames-")
    ]
    assert leftovers == []
    assert validate_manifest(manifest, vault_root=vault.root).status == "current"


def test_rerun_is_byte_identical(cli: Callable[..., Any], talk_vault: Callable[..., Any]) -> None:
    vault = talk_vault(small_spec())
    assert extract_cli(cli, vault).returncode == 0
    first = [p.read_bytes() for p in outputs(vault)]
    assert extract_cli(cli, vault, "--force").returncode == 0
    assert [p.read_bytes() for p in outputs(vault)] == first


def test_verified_manual_region_is_the_only_trusted_outcome(
    cli: Callable[..., Any], talk_vault: Callable[..., Any]
) -> None:
    vault = talk_vault(small_spec())
    unverified = extract_cli(cli, vault, "--region", "0.03,0.12,0.66,0.88").json
    assert unverified["slide_region_method"] == "manual"
    assert unverified["slide_region_detected"] is False
    assert unverified["review_required"] is True
    assert unverified["artifacts"][0]["trusted_for_authored_slide_analysis"] is False
    assert not validate_manifest(unverified, vault_root=vault.root).trusted
    trusted = extract_cli(
        cli, vault, "--region", "0.03,0.12,0.66,0.88", "--region-verified", "--force"
    ).json
    assert trusted["slide_region_verified"] is True
    assert trusted["review_required"] is False and trusted["review_reason"] is None
    assert trusted["artifacts"][0]["trusted_for_authored_slide_analysis"] is True
    assert trusted["artifacts"][1]["trusted_for_authored_slide_analysis"] is False
    report = validate_manifest(trusted, vault_root=vault.root)
    assert report.trusted and report.trusted_slide_region_path == trusted["artifacts"][0]["path"]


def test_verified_screencast_region(
    cli: Callable[..., Any], talk_vault: Callable[..., Any]
) -> None:
    vault = talk_vault(
        TalkSpec(layout="fullscreen", speaker=False, segments=timeline(distinct_slides(2)))
    )
    manifest = extract_cli(cli, vault, "--region", "0,0,1,1", "--region-verified").json
    assert manifest["slide_region"] == [0.0, 0.0, 1.0, 1.0]
    assert manifest["review_required"] is False
    page = PdfReader(str(outputs(vault)[0])).pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == (320.0, 180.0)


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        (("--region", "0.1,0.1,1.2,0.9"), "invalid_region"),
        (("--region", "0.5,0.1,0.5,0.9"), "invalid_region"),
        (("--region", "0.1,0.9,0.5,0.2"), "invalid_region"),
        (("--region", "a,b,c,d"), "invalid_region"),
        (("--region-verified",), "region_verified_without_region"),
        (("--fps", "0"), "invalid_fps"),
        (("--fps", "1e-300"), "invalid_fps"),
        (("--fps", "0.01"), "invalid_fps"),
        (("--fps", "31"), "invalid_fps"),
        (("--fps", "nan"), "invalid_fps"),
        (("--fps", "6"), "fps_exceeds_video_rate"),
        (("--hash-threshold", "-1"), "invalid_hash_threshold"),
    ],
)
def test_bad_options_are_refused_and_change_nothing(
    cli: Callable[..., Any],
    talk_vault: Callable[..., Any],
    snapshot_tree: Callable[..., Any],
    extra: tuple[str, ...],
    code: str,
) -> None:
    vault = talk_vault(small_spec())
    assert extract_cli(cli, vault).returncode == 0
    before = snapshot_tree(vault.root)
    result = extract_cli(cli, vault, *extra, "--force")
    assert result.returncode == 2
    assert result.json["error"]["code"] == code
    assert snapshot_tree(vault.root) == before


def _truncated_after_header(path: Path) -> None:
    """An MP4 whose header lists frames but whose media data is cut off: opens, decodes nothing."""
    import subprocess

    full = path.with_suffix(".full.mp4")
    subprocess.run(
        [
            "ffmpeg",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=s=64x36:r=10:d=2",
            "-c:v",
            "mpeg4",
            "-movflags",
            "+faststart",
            str(full),
        ],
        check=True,
    )
    data = full.read_bytes()
    full.unlink()
    path.write_bytes(data[: data.index(b"mdat") + 4])


def test_bad_videos_are_refused(
    cli: Callable[..., Any], tmp_path: Path, snapshot_tree: Callable[..., Any]
) -> None:
    root = tmp_path / "vault"
    outdir = root / "slides-rebuild" / "AbCdEfGhI_1"
    outdir.mkdir(parents=True)
    empty = outdir / "empty.mp4"
    empty.write_bytes(b"")
    garbage = outdir / "garbage.mp4"
    garbage.write_bytes(b"this is not a video" * 100)
    frameless = outdir / "frameless.mp4"
    _truncated_after_header(frameless)
    directory = outdir / "directory.mp4"
    directory.mkdir()
    before = snapshot_tree(root)
    cases = {
        outdir / "missing.mp4": "video_not_found",
        empty: "video_empty",
        garbage: "video_unreadable",
        frameless: "video_no_frames",
        directory: "not_regular_file",
    }
    for video, code in cases.items():
        result = cli(SCRIPT, "extract", video, outdir, "AbCdEfGhI_1")
        assert result.returncode == 2, result.stdout
        assert result.json["error"]["code"] == code, (video.name, result.json)
    assert snapshot_tree(root) == before


def test_outdir_outside_vault_or_through_symlink_is_refused(
    cli: Callable[..., Any],
    talk_vault: Callable[..., Any],
    tmp_path: Path,
    snapshot_tree: Callable[..., Any],
) -> None:
    vault = talk_vault(small_spec())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = vault.root / "slides-rebuild" / "linked"
    linked.symlink_to(elsewhere, target_is_directory=True)
    video_link = vault.outdir / "link.mp4"
    video_link.symlink_to(vault.video)
    before_vault, before_elsewhere = snapshot_tree(vault.root), snapshot_tree(elsewhere)
    outside = cli(
        SCRIPT, "extract", vault.video, elsewhere, vault.video_id, "--vault-root", vault.root
    )
    assert outside.returncode == 2 and outside.json["error"]["code"] == "outside_vault_root"
    through = cli(
        SCRIPT, "extract", vault.video, linked, vault.video_id, "--vault-root", vault.root
    )
    assert through.returncode == 2 and through.json["error"]["code"] == "symlink_refused"
    symlinked_video = cli(SCRIPT, "extract", video_link, vault.outdir, vault.video_id)
    assert (
        symlinked_video.returncode == 2
        and symlinked_video.json["error"]["code"] == "symlink_refused"
    )
    no_root = cli(SCRIPT, "extract", vault.video, elsewhere, vault.video_id)
    assert no_root.returncode == 2 and no_root.json["error"]["code"] == "vault_root_required"
    bad_id = cli(SCRIPT, "extract", vault.video, vault.outdir, "../escape")
    assert bad_id.returncode == 2 and bad_id.json["error"]["code"] == "invalid_video_id"
    assert snapshot_tree(vault.root) == before_vault
    assert snapshot_tree(elsewhere) == before_elsewhere


def test_symlinked_vault_root_is_admitted_and_resolved(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], tmp_path: Path
) -> None:
    vault = talk_vault(small_spec())
    alias = tmp_path / "vault-alias"
    alias.symlink_to(vault.root, target_is_directory=True)
    outdir = alias / "slides-rebuild" / vault.video_id
    result = cli(
        SCRIPT, "extract", outdir / f"{vault.video_id}.mp4", outdir, vault.video_id, "--fps", "2"
    )
    assert result.returncode == 0, result.stdout
    manifest = result.json
    assert manifest["source_video_path"] == str(vault.video.resolve())
    assert all(str(vault.root.resolve()) in a["path"] for a in manifest["artifacts"])
    assert validate_manifest(manifest, vault_root=alias).status == "current"


def test_failure_mid_run_leaves_previous_outputs_and_no_intermediates(
    talk_vault: Callable[..., Any],
    snapshot_file: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = talk_vault(small_spec())
    extract(ExtractRequest(vault.video, vault.outdir, vault.video_id, fps=2.0))
    before = {path: snapshot_file(path) for path in outputs(vault)}
    real_writer = extract_media.write_jpeg_pdf
    calls = []

    def failing_writer(*args: Any, **kwargs: Any) -> bytes:
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk full while building the slide-region PDF")
        return real_writer(*args, **kwargs)

    monkeypatch.setattr(extract_media, "write_jpeg_pdf", failing_writer)
    with pytest.raises(VideoExtractionError) as refused:
        extract(
            ExtractRequest(
                vault.video,
                vault.outdir,
                vault.video_id,
                fps=2.0,
                region=[0.0, 0.0, 0.5, 0.5],
                force=True,
            )
        )
    assert refused.value.code == "io_error"
    assert {path: snapshot_file(path) for path in outputs(vault)} == before
    names = sorted(p.name for p in vault.outdir.iterdir())
    assert not [n for n in names if ".frames-" in n or ".staged" in n or n.endswith(".tmp")], names


def test_no_partial_outputs_on_first_run_failure(
    talk_vault: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = talk_vault(small_spec())

    def exploding(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("manifest builder crashed")

    monkeypatch.setattr(extract_media, "build_manifest", exploding)
    with pytest.raises(RuntimeError):
        extract(ExtractRequest(vault.video, vault.outdir, vault.video_id, fps=2.0))
    assert sorted(p.name for p in vault.outdir.iterdir()) == [f"{vault.video_id}.mp4"]
    assert vault.video.exists()


def test_refusal_after_creating_outdir_leaves_no_new_directory(
    cli: Callable[..., Any], tmp_path: Path, snapshot_tree: Callable[..., Any]
) -> None:
    root = tmp_path / "vault"
    (root / "slides-rebuild").mkdir(parents=True)
    garbage = root / "garbage.mp4"
    garbage.write_bytes(b"this is not a video" * 100)
    before = snapshot_tree(root)
    result = cli(
        SCRIPT,
        "extract",
        garbage,
        root / "slides-rebuild" / "new" / "deeper",
        "X",
        "--vault-root",
        root,
    )
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "video_unreadable"
    assert snapshot_tree(root) == before


def test_outdir_below_a_regular_file_is_refused(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], snapshot_tree: Callable[..., Any]
) -> None:
    vault = talk_vault(small_spec())
    blocker = vault.root / "slides-rebuild" / "blocker"
    blocker.write_bytes(b"a regular file")
    before = snapshot_tree(vault.root)
    for outdir in (blocker / "X", vault.video / "X"):
        result = cli(
            SCRIPT, "extract", vault.video, outdir, vault.video_id, "--vault-root", vault.root
        )
        assert result.returncode == 2, result.stdout
        assert result.json["error"]["code"] == "outdir_unwritable"
        assert "Traceback" not in result.stderr
    missing_video = cli(
        SCRIPT, "extract", blocker / "v.mp4", vault.outdir, "X", "--vault-root", vault.root
    )
    assert missing_video.returncode == 2
    assert missing_video.json["error"]["code"] == "video_not_found"
    assert snapshot_tree(vault.root) == before


def test_video_that_is_one_of_the_outputs_is_refused(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], snapshot_tree: Callable[..., Any]
) -> None:
    vault = talk_vault(small_spec())
    for name in output_names(vault.video_id):
        (vault.outdir / name).write_bytes(vault.video.read_bytes())
    before = snapshot_tree(vault.root)
    for name in output_names(vault.video_id):
        result = cli(SCRIPT, "extract", vault.outdir / name, vault.outdir, vault.video_id)
        assert result.returncode == 2, result.stdout
        assert result.json["error"]["code"] == "video_is_output"
    assert snapshot_tree(vault.root) == before


def test_non_utf8_paths_are_refused_before_opencv_sees_them(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], snapshot_tree: Callable[..., Any]
) -> None:
    vault = talk_vault(small_spec())
    odd = vault.root / "slides-rebuild" / os.fsdecode(b"\xfe.mp4")
    odd.write_bytes(vault.video.read_bytes())
    before = snapshot_tree(vault.root)
    new_outdir = vault.root / "slides-rebuild" / os.fsdecode(b"\xff")
    for video, outdir in ((vault.video, new_outdir), (odd, vault.outdir)):
        result = cli(SCRIPT, "extract", video, outdir, "X", "--vault-root", vault.root)
        assert result.returncode == 2, result.stderr[-500:]
        assert result.json["error"]["code"] == "argument_not_utf8"
    assert snapshot_tree(vault.root) == before


def test_sigterm_mid_run_cleans_up_like_ctrl_c(
    tmp_path: Path, snapshot_tree: Callable[..., Any]
) -> None:
    import signal
    import subprocess
    import time

    from rvault_testkit.plugin import console_script
    from rvault_testkit.video_extraction.synthetic import write_mp4v

    root = tmp_path / "vault"
    (root / "slides-rebuild").mkdir(parents=True)
    video = root / "slides-rebuild" / "long.mp4"
    spec = TalkSpec(width=160, height=90, fps=10, segments=timeline(distinct_slides(4), 60))
    write_mp4v(spec, video)
    before = snapshot_tree(root)
    outdir = root / "slides-rebuild" / "new" / "X"
    process = subprocess.Popen(
        [
            console_script(SCRIPT),
            "extract",
            str(video),
            str(outdir),
            "X",
            "--fps",
            "5",
            "--vault-root",
            str(root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not list(outdir.glob(".X.frames-*/sample-*.jpg")) and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err[-500:]  # EXIT_INTERRUPTED
    assert json.loads(out)["error"]["code"] == "interrupted"
    assert snapshot_tree(root) == before  # no frames directory, no new OUTDIR
