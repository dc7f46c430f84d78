"""The refusal, error and issue codes of ``rvault-video``, each with its next action.

How a declaration is used (default hints, the README table, the guard tests):
``rvault_contracts.codes``. A code shared by every tool is declared there; one
repeated here gives it this tool's own hint.
"""

from __future__ import annotations

from rvault_contracts.codes import ISSUE, declare, error, issue, refusal

_EXTRACT = "extract the slides again (rvault-video extract) to write a new manifest"
_PDF = "export the deck's PDF again and pass that file"
_VIDEO = "check the recording: download it again (rvault-video download) or pass a complete "
_VIDEO += "video file FFmpeg can play"
_INFO = "download the video again so yt-dlp writes a fresh .info.json beside it"

CODES = declare(
    # Refusals: a ``cli-failure`` document, exit 2.
    refusal(
        "batch_incomplete",
        "run batch-download again: finished downloads are kept, the failed "
        "ones (listed in the report) are retried",
    ),
    refusal("bundle_recovery_pending", also=ISSUE),
    refusal(
        "download_failed",
        "check the network and the YouTube id, then run download again (yt-dlp "
        "must be current: pip install -U yt-dlp)",
    ),
    refusal("fps_exceeds_video_rate", "lower --fps to half the video's frame rate or less"),
    refusal("info_json_id_mismatch", _INFO),
    refusal("info_json_invalid", _INFO),
    refusal("info_json_not_regular_file", _INFO),
    refusal("info_json_too_large", _INFO),
    refusal("info_json_unreadable", _INFO),
    refusal(
        "intermediate_unreadable",
        "another process touched the working directory: run extract "
        "again with nothing else writing OUTDIR",
    ),
    refusal("invalid_fps", "pass --fps within the range in the message"),
    refusal("invalid_hash_threshold", "pass --hash-threshold within 0..256"),
    refusal("invalid_region", "pass --region as LEFT,TOP,RIGHT,BOTTOM pixels of the slide area"),
    refusal("invalid_video_id", "pass VIDEO_ID of letters, digits, _ and - (the YouTube id)"),
    refusal("invalid_youtube_id", "pass the 11-character YouTube id (the watch URL's v=)"),
    refusal("io_error", "check that the path exists, is readable/writable and the disk has space"),
    refusal("jpeg_encode_failed", "run extract again; if it repeats, report the video"),
    refusal("manifest_exists"),
    refusal("manifest_invalid", _EXTRACT),
    refusal("manifest_stale"),
    refusal("manifest_untrusted", _EXTRACT + " with the current version, then promote that"),
    refusal("manifest_unusable", _EXTRACT),
    refusal("outdir_not_directory", "pass an OUTDIR that is a directory (or does not exist yet)"),
    refusal("outdir_unwritable", "make OUTDIR's parent writable, or pass another OUTDIR"),
    refusal("outside_vault_root"),
    refusal("path_not_found", "check the path: no file exists there"),
    refusal("path_not_utf8", "rename the path so it is valid UTF-8"),
    refusal("pdf_encrypted", _PDF + " (it is encrypted)"),
    refusal("pdf_not_a_pdf", _PDF + " (the file does not start with %PDF-)"),
    refusal("pdf_page_tree_incomplete", _PDF + " (its page tree is broken)"),
    refusal("pdf_repair_required", _PDF + " (the reader had to repair it)"),
    refusal("pdf_too_many_pages", _PDF + " (its page tree exceeds the limit)"),
    refusal("pdf_unreadable", _PDF + " (the reader could not parse it)"),
    refusal(
        "region_verified_without_region",
        "pass --region LEFT,TOP,RIGHT,BOTTOM with --region-verified, or drop --region-verified",
    ),
    refusal("slides_dir_unwritable", "make the slides directory's parent writable, then run again"),
    refusal("target_dir_unwritable", "make the download directory writable, then run again"),
    refusal("target_exists"),
    refusal("vault_root_missing", "pass an existing vault root directory"),
    refusal(
        "vault_root_required", "pass --vault-root, or use OUTDIR {vault_root}/slides-rebuild/{id}"
    ),
    refusal("video_decode_failed", _VIDEO),
    refusal("video_decode_incomplete"),
    refusal("video_empty", _VIDEO),
    refusal(
        "video_id_path_mismatch",
        "use the contract directory of the video id the message names, "
        "or pass the matching VIDEO_ID",
    ),
    refusal("video_is_output", "move VIDEO out of OUTDIR, or pick another OUTDIR"),
    refusal("video_no_frame_rate", _VIDEO),
    refusal("video_no_frames", _VIDEO),
    refusal("video_not_found", "check the video path: no file exists there"),
    refusal("video_unreadable", _VIDEO),
    # Errors: a coded exception that a command reports as a refusal, a reader as a status.
    error("manifest_not_regular_file", "pass the manifest file itself (not a directory or link)"),
    error("manifest_too_large", "pass the manifest extract wrote (it is far below the limit)"),
    error("manifest_unreadable", "make the manifest readable, or " + _EXTRACT),
    # Issues: an entry of a report or of a reader's status.
    issue("artifact_changed"),
    issue("artifact_flags_inconsistent"),
    issue("artifact_identity_mismatch"),
    issue("artifact_missing"),
    issue("artifact_path_duplicate"),
    issue("artifact_scope_invalid"),
    issue("artifact_unreadable"),
    issue("frame_count_inconsistent"),
    issue("future_manifest"),
    issue("legacy_manifest"),
    issue("not_an_object"),
    issue("page_count_mismatch"),
    issue("path_contains_nul"),
    issue("path_contains_tilde"),
    issue("path_dot_or_empty_segment"),
    issue("path_dual_flavor"),
    issue("path_foreign_flavor"),
    issue("path_missing"),
    issue("path_not_absolute"),
    issue("path_not_regular_file"),
    issue("path_outside_vault_root"),
    issue("path_symlink"),
    issue("path_unreadable"),
    issue("pdf_page_count_mismatch"),
    issue("region_flags_inconsistent"),
    issue("region_geometry_invalid"),
    issue("retained_frames_order"),
    issue("review_inconsistent"),
    issue("schema_version_invalid"),
    issue("source_changed"),
    issue("source_missing"),
    issue("source_receipt_inconsistent"),
    issue("source_receipt_invalid"),
    issue("source_receipt_missing"),
    issue("source_unreadable"),
    issue("timestamp_mismatch"),
    issue("trust_inconsistent"),
    issue("video_id_mismatch"),
)

HINTS: dict[str, str] = CODES.hints()
