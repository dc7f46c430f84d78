"""``rvault-video promote``: only a trusted slide_region becomes slides/{id}.pdf."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.video_extraction.synthetic import TalkSpec, distinct_slides, timeline
from rvault_video_extraction import promote as promote_module
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.extract import ExtractRequest, extract

SCRIPT = "rvault-video"
VIDEO_ID = "AbCdEfGhI_1"  # the id of conftest's vaults


def manifest_path(root: Path) -> Path:
    return root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"


def test_trusted_region_is_copied_and_slides_local_path_printed(
    cli: Callable[..., Any], extracted: tuple[Path, dict[str, Any]]
) -> None:
    root, manifest = extracted
    result = cli(SCRIPT, "promote", manifest_path(root), "--vault-root", root)
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    assert report["slides_local_path"] == f"slides/{VIDEO_ID}.pdf"
    target = root / "slides" / f"{VIDEO_ID}.pdf"
    source = Path(manifest["artifacts"][0]["path"])
    assert target.read_bytes() == source.read_bytes()
    assert report["page_count"] == manifest["unique_frame_count"]
    assert report["write"]["durability_state"] == "durable"
    again = cli(SCRIPT, "promote", manifest_path(root), "--vault-root", root)
    assert again.returncode == 0
    assert again.json["write"]["durability_state"] == "unchanged"


def test_untrusted_manifest_is_refused_and_nothing_is_created(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], snapshot_tree: Callable[..., Any]
) -> None:
    vault = talk_vault(TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(2))))
    extract(ExtractRequest(vault.video, vault.outdir, vault.video_id, fps=2.0))  # auto region
    before = snapshot_tree(vault.root)
    result = cli(SCRIPT, "promote", manifest_path(vault.root), "--vault-root", vault.root)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "manifest_untrusted"
    assert "--region-verified" in result.json["error"]["message"]
    assert snapshot_tree(vault.root) == before
    extract(
        ExtractRequest(
            vault.video, vault.outdir, vault.video_id, fps=2.0, region=[0, 0, 0.7, 1], force=True
        )
    )
    unverified = cli(SCRIPT, "promote", manifest_path(vault.root), "--vault-root", vault.root)
    assert unverified.json["error"]["code"] == "manifest_untrusted"
    assert "not verified" in unverified.json["error"]["message"]
    assert not (vault.root / "slides").exists()


def test_other_existing_deck_is_kept_unless_replace(
    cli: Callable[..., Any],
    extracted: tuple[Path, dict[str, Any]],
    snapshot_file: Callable[..., Any],
) -> None:
    root, manifest = extracted
    target = root / "slides" / f"{VIDEO_ID}.pdf"
    target.parent.mkdir()
    target.write_bytes(b"%PDF-1.4 an authored deck\n")
    before = snapshot_file(target)
    result = cli(SCRIPT, "promote", manifest_path(root), "--vault-root", root)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "target_exists"
    assert hashlib.sha256(target.read_bytes()).hexdigest() in result.json["error"]["message"]
    assert "--replace" in result.json["hint"]
    assert snapshot_file(target) == before
    replaced = cli(SCRIPT, "promote", manifest_path(root), "--vault-root", root, "--replace")
    assert replaced.returncode == 0
    assert replaced.json["replaced_other_pdf"] is True
    assert target.read_bytes() == Path(manifest["artifacts"][0]["path"]).read_bytes()


def test_broken_or_tampered_manifest_is_refused(
    cli: Callable[..., Any],
    extracted: tuple[Path, dict[str, Any]],
    snapshot_tree: Callable[..., Any],
) -> None:
    root, manifest = extracted
    path = manifest_path(root)
    tampered = dict(manifest, unique_frame_count=manifest["unique_frame_count"] + 1)
    path.write_text(json.dumps(tampered))
    before = snapshot_tree(root)
    result = cli(SCRIPT, "promote", path, "--vault-root", root)
    assert result.returncode == 2
    assert result.json["error"]["code"] in {"manifest_invalid", "manifest_unusable"}
    missing_root = cli(SCRIPT, "promote", path, "--vault-root", root / "nope")
    assert missing_root.json["error"]["code"] == "vault_root_missing"
    assert snapshot_tree(root) == before
    legacy = {key: value for key, value in manifest.items() if key != "schema_version"}
    path.write_text(json.dumps(legacy))
    before = snapshot_tree(root)
    old = cli(SCRIPT, "promote", path, "--vault-root", root)
    assert old.returncode == 2
    assert old.json["error"]["code"] == "manifest_untrusted", old.json
    assert "legacy" in old.json["error"]["message"]
    assert snapshot_tree(root) == before
    path.write_text("{not json")
    before = snapshot_tree(root)
    garbage = cli(SCRIPT, "promote", path, "--vault-root", root)
    assert garbage.returncode == 2
    assert garbage.json["error"]["code"] == "manifest_unusable"
    assert snapshot_tree(root) == before


def test_region_pdf_changed_after_validation_is_refused(
    extracted: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, manifest = extracted
    source = Path(manifest["artifacts"][0]["path"])
    real = promote_module.read_manifest_document

    def validate_then_swap(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        source.write_bytes(source.read_bytes() + b"\n% appended after the probe\n")
        return result

    monkeypatch.setattr(promote_module, "read_manifest_document", validate_then_swap)
    with pytest.raises(VideoExtractionError) as refused:
        promote_module.promote(promote_module.PromoteRequest(manifest_path(root), root))
    assert refused.value.code == "input_changed"
    assert not (root / "slides").exists()
