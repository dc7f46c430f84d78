"""The next action for each refusal of ``rvault-video`` that its call site names none for.

``console_main`` registers this table; ``rvault_contracts.cli.emit`` prints a
refusal's hint from it (see ``rvault_contracts.hints``).
"""

from __future__ import annotations

_EXTRACT = "extract the slides again (rvault-video extract) to write a new manifest"
_PDF = "export the deck's PDF again and pass that file"
_VIDEO = "check the recording: download it again (rvault-video download) or pass a complete "
_VIDEO += "video file FFmpeg can play"
_INFO = "download the video again so yt-dlp writes a fresh .info.json beside it"

HINTS: dict[str, str] = {
    "batch_incomplete": "run batch-download again: finished downloads are kept, the failed "
    "ones (listed in the report) are retried",
    "download_failed": "check the network and the YouTube id, then run download again (yt-dlp "
    "must be current: pip install -U yt-dlp)",
    "fps_exceeds_video_rate": "lower --fps to half the video's frame rate or less",
    "info_json_id_mismatch": _INFO,
    "info_json_invalid": _INFO,
    "info_json_not_regular_file": _INFO,
    "info_json_too_large": _INFO,
    "info_json_unreadable": _INFO,
    "intermediate_unreadable": "another process touched the working directory: run extract "
    "again with nothing else writing OUTDIR",
    "invalid_fps": "pass --fps within the range in the message",
    "invalid_hash_threshold": "pass --hash-threshold within 0..256",
    "invalid_region": "pass --region as LEFT,TOP,RIGHT,BOTTOM pixels of the slide area",
    "invalid_video_id": "pass VIDEO_ID of letters, digits, _ and - (the YouTube id)",
    "invalid_youtube_id": "pass the 11-character YouTube id (the watch URL's v=)",
    "io_error": "check that the path exists, is readable/writable and the disk has space",
    "jpeg_encode_failed": "run extract again; if it repeats, report the video",
    "manifest_invalid": _EXTRACT,
    "manifest_not_regular_file": "pass the manifest file itself (not a directory or link)",
    "manifest_too_large": "pass the manifest extract wrote (it is far below the limit)",
    "manifest_unreadable": "make the manifest readable, or " + _EXTRACT,
    "manifest_untrusted": _EXTRACT + " with the current version, then promote that",
    "manifest_unusable": _EXTRACT,
    "outdir_not_directory": "pass an OUTDIR that is a directory (or does not exist yet)",
    "outdir_unwritable": "make OUTDIR's parent writable, or pass another OUTDIR",
    "path_not_found": "check the path: no file exists there",
    "path_not_utf8": "rename the path so it is valid UTF-8",
    "pdf_encrypted": _PDF + " (it is encrypted)",
    "pdf_not_a_pdf": _PDF + " (the file does not start with %PDF-)",
    "pdf_page_tree_incomplete": _PDF + " (its page tree is broken)",
    "pdf_repair_required": _PDF + " (the reader had to repair it)",
    "pdf_too_many_pages": _PDF + " (its page tree exceeds the limit)",
    "pdf_unreadable": _PDF + " (the reader could not parse it)",
    "region_verified_without_region": "pass --region LEFT,TOP,RIGHT,BOTTOM with "
    "--region-verified, or drop --region-verified",
    "slides_dir_unwritable": "make the slides directory's parent writable, then run again",
    "target_dir_unwritable": "make the download directory writable, then run again",
    "vault_root_missing": "pass an existing vault root directory",
    "vault_root_required": "pass --vault-root, or use OUTDIR {vault_root}/slides-rebuild/{id}",
    "video_decode_failed": _VIDEO,
    "video_empty": _VIDEO,
    "video_id_path_mismatch": "use the contract directory of the video id the message names, "
    "or pass the matching VIDEO_ID",
    "video_is_output": "move VIDEO out of OUTDIR, or pick another OUTDIR",
    "video_no_frame_rate": _VIDEO,
    "video_no_frames": _VIDEO,
    "video_not_found": "check the video path: no file exists there",
    "video_unreadable": _VIDEO,
}
