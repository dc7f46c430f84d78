"""Recorded provider metadata for the identity-capture tests (no network).

``info_document`` is a yt-dlp info document of the kind ``extract_info``
returns for a YouTube video, cut to the fields the capture reads plus one
format, so yt-dlp's own processing (``process_ie_result``) accepts it as it
would a live answer. The uploader is deliberately named like the speaker:
the capture must still never treat it as one.
"""

from __future__ import annotations

from typing import Any


def info_document(video_id: str, **fields: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "_type": "video",
        "id": video_id,
        "title": "Kubernetes Cost Myths (Devoxx Belgium 2023)",
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "webpage_url": f"https://www.youtube.com/watch?v={video_id}",
        "uploader": "Jane Doe",
        "uploader_id": "@devoxx",
        "upload_date": "20231012",
        "duration": 2712,
        "formats": [{"format_id": "18", "url": "https://example.invalid/v", "ext": "mp4"}],
    }
    document.update(fields)
    return document
