"""No silent downgrade: an existing manifest is replaced only when asked (light).

Re-running ``extract`` without flags on a verified talk used to overwrite
its trusted manifest with an untrusted auto-region candidate, and every
reader silently dropped the talk to untrusted. Now any existing manifest of
the id in OUTDIR is kept unless ``--force``, and the refusal names what the
new run would lose, read from the manifest's own recorded flags.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_video_extraction.errors import VideoExtractionError


def describe(data: bytes) -> str:
    """What an existing manifest holds, in a few words (its recorded flags)."""
    try:
        document: Any = loads_strict(data)
    except StrictJSONError:
        return "an unreadable manifest"
    if not isinstance(document, dict):
        return "a manifest that is not a JSON object"
    version = document.get("schema_version", 0)
    pages = document.get("unique_frame_count")
    region = document.get("slide_region")
    method = document.get("slide_region_method")
    if (
        method == "manual"
        and document.get("slide_region_verified") is True
        and document.get("review_required") is False
    ):
        what = f"a TRUSTED manifest (verified manual slide region {region})"
    elif document.get("slide_region_verified") is True:
        what = f"a manifest with a verified manual slide region {region} (review required)"
    else:
        what = f"an untrusted manifest (slide region method {method})"
    return f"{what}, schema v{version}, {pages} pages"


def require_replaceable(existing: bytes | None, force: bool, path: str) -> None:
    """Refuse ``manifest_exists`` when a manifest exists and ``force`` is not set."""
    if existing is None or force:
        return
    raise VideoExtractionError(
        "manifest_exists",
        f"{path} already holds {describe(existing)}; extract would replace it and its PDFs "
        "with this run's (trust is decided anew: without --region-verified it is lost)",
        path,
        hint="pass --force to replace it (with your checked --region L,T,R,B --region-verified "
        "to keep it trusted), or choose another OUTDIR; rvault-video validate shows what it holds",
    )
