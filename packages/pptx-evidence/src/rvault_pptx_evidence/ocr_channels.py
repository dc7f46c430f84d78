"""OCR channels and per-asset receipts for slides where OCR applies.

On a low-confidence slide every readable picture blob (and a readable image
background) gets one receipt binding its part name, SHA-256 and shape path
to one outcome. With ``--no-ocr`` the receipts are explicit ``skipped`` /
``ocr_disabled``; without an installed engine they are ``unavailable`` /
``ocr_engine_unavailable`` (method ``shapes+ocr_unavailable``); with no
readable blob the channel is ``unavailable`` / ``no_readable_asset`` with no
receipts. Otherwise tesseract runs (``ocr_engine``) once per distinct asset
digest, and the channel's status and closed reason summarise its receipts:
all failed is ``failed`` / ``ocr_failed``, some failed ``partial`` /
``partial_ocr_results``. Only a receipt whose own ``trustworthy_text`` is true
authorizes its words; the channel ``text`` and the slide's ``ocr_text`` are
review aggregates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_pptx_evidence.ocr_engine import ENGINE, Engine, OcrResult, detect, recognize

OCR_ENGINE = ENGINE
OCR_DISABLED = "disabled"
OCR_ENABLED = "enabled"
OCR_MODES = (OCR_DISABLED, OCR_ENABLED)


@dataclass(frozen=True)
class OcrAsset:
    part_name: str
    asset_sha256: str
    shape_path: list[str] | None
    blob: bytes


class OcrRunner:
    """Runs the engine at most once per asset digest within one deck."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.engine: Engine | None = detect() if mode == OCR_ENABLED else None
        self._results: dict[str, OcrResult] = {}

    def result(self, asset: OcrAsset) -> OcrResult:
        assert self.engine is not None
        if asset.asset_sha256 not in self._results:
            self._results[asset.asset_sha256] = recognize(self.engine, asset.blob)
        return self._results[asset.asset_sha256]

    def channel(
        self, channel: str, source: str, assets: list[OcrAsset], shape_paths: list[list[str]]
    ) -> dict[str, Any]:
        """One ``picture_ocr`` or ``background_image_ocr`` channel."""
        version = self.engine.version if self.engine is not None else None
        receipts: list[dict[str, Any]]
        text, confidence = "", None
        attempted = False
        if not assets:
            status, reason, receipts = "unavailable", "no_readable_asset", []
        elif self.mode == OCR_DISABLED:
            status, reason = "skipped", "ocr_disabled"
            receipts = [_idle_receipt(asset, "skipped") for asset in assets]
        elif self.engine is None:
            status, reason = "unavailable", "ocr_engine_unavailable"
            receipts = [_idle_receipt(asset, "unavailable") for asset in assets]
        else:
            attempted = True
            results = [self.result(asset) for asset in assets]
            receipts = [
                _receipt(asset, result, self.engine.version)
                for asset, result in zip(assets, results, strict=True)
            ]
            status, reason = _summary(results)
            text = "\n".join(r.text for r in results if r.text)
            scored = [r.confidence for r in results if r.confidence is not None]
            confidence = round(sum(scored) / len(scored), 2) if scored else None
        provenance: dict[str, Any] = {"source": source}
        if channel == "picture_ocr":
            provenance["shape_paths"] = shape_paths
        return {
            "channel": channel,
            "text": text,
            "confidence": "low",
            "result_confidence": confidence,
            "status": status,
            "attempted": attempted,
            "engine": OCR_ENGINE,
            "engine_version": version,
            "reason": reason,
            "provenance": provenance,
            "ocr_receipts": receipts,
        }


def _summary(results: list[OcrResult]) -> tuple[str, str | None]:
    failed = sum(1 for r in results if r.status == "failed")
    if failed == len(results):
        return "failed", "ocr_failed"
    if failed:
        return "partial", "partial_ocr_results"
    if any(r.text for r in results):
        return "extracted", None
    return "empty", None


def _idle_receipt(asset: OcrAsset, result_status: str) -> dict[str, Any]:
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


def _receipt(asset: OcrAsset, result: OcrResult, version: str) -> dict[str, Any]:
    return {
        "attempted": True,
        "engine": OCR_ENGINE,
        "engine_version": version,
        "result_status": result.status,
        "result_confidence": result.confidence,
        "error": result.error,
        "part_name": asset.part_name,
        "asset_sha256": asset.asset_sha256,
        "shape_path": asset.shape_path,
        "recovered_text": result.text,
        "trustworthy_text": result.trustworthy,
    }
