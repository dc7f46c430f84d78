"""OCR channels and receipts for slides where OCR would apply.

This pipeline does not run an OCR engine yet (tesseract arrives with a later
issue). It therefore never emits recovered text: with ``--no-ocr`` every
readable asset gets an explicit ``attempted: false`` / ``skipped`` receipt
with reason ``ocr_disabled``; without it the engine is not available to this
pipeline, so the receipts say ``unavailable`` with reason
``ocr_engine_unavailable`` and the slide's method is
``shapes+ocr_unavailable``. A channel with no readable asset is
``unavailable`` / ``no_readable_asset`` with no receipts. All of these are
``attempted: false`` and none is trustworthy text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OCR_ENGINE = "tesseract"
OCR_DISABLED = "disabled"
OCR_ENGINE_UNAVAILABLE = "engine_unavailable"


@dataclass(frozen=True)
class OcrAsset:
    part_name: str
    asset_sha256: str
    shape_path: list[str] | None


def _receipt(asset: OcrAsset, result_status: str) -> dict[str, Any]:
    return {
        "attempted": False,
        "engine": OCR_ENGINE,
        "engine_version": None,
        "result_status": result_status,
        "result_confidence": None,
        "error": None,
        "part_name": asset.part_name,
        "asset_sha256": asset.asset_sha256,
        "shape_path": asset.shape_path,
        "recovered_text": "",
        "trustworthy_text": False,
    }


def ocr_channel(
    channel: str, source: str, mode: str, assets: list[OcrAsset], shape_paths: list[list[str]]
) -> dict[str, Any]:
    """One ``picture_ocr`` or ``background_image_ocr`` channel, never attempted."""
    if not assets:
        status, reason, receipts = "unavailable", "no_readable_asset", []
    elif mode == OCR_DISABLED:
        status, reason = "skipped", "ocr_disabled"
        receipts = [_receipt(asset, "skipped") for asset in assets]
    else:
        status, reason = "unavailable", "ocr_engine_unavailable"
        receipts = [_receipt(asset, "unavailable") for asset in assets]
    provenance: dict[str, Any] = {"source": source}
    if channel == "picture_ocr":
        provenance["shape_paths"] = shape_paths
    return {
        "channel": channel,
        "text": "",
        "confidence": "low",
        "result_confidence": None,
        "status": status,
        "attempted": False,
        "engine": OCR_ENGINE,
        "engine_version": None,
        "reason": reason,
        "provenance": provenance,
        "ocr_receipts": receipts,
    }
