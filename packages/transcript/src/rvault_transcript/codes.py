"""The refusal, error and issue codes of ``rvault-transcript``, each with its next action.

How a declaration is used (default hints, the README table, the guard tests):
``rvault_contracts.codes``. A code shared by every tool is declared there; one
repeated here gives it this tool's own hint.
"""

from __future__ import annotations

from rvault_contracts.codes import ERROR, ISSUE, declare, error, issue, refusal

_REFETCH = "fetch the transcript again (rvault-transcript fetch) to write a fresh bundle"
_VERIFY = "the stored bundle no longer matches its receipt: " + _REFETCH
_AUDIO = "pass the talk's recording with --audio to transcribe it with Whisper instead"
_TEXT = "the text is not a real transcript: " + _AUDIO + ", or fix the VTT"
_MEDIA = "check the recording passed with --audio (a complete, readable file with sound)"
_NETWORK = "check the network connection and try again later, or " + _AUDIO
_RECEIPT = "the receipt file is damaged or from another tool version: " + _REFETCH

CODES = declare(
    # Refusals: a ``cli-failure`` document, exit 2.
    refusal("duration_mismatch"),
    refusal("duration_unbound"),
    refusal(
        "existing_transcript_invalid",
        "the transcript already on disk is invalid: pass --force to replace its bundle",
    ),
    refusal(
        "invalid_duration", "pass a positive --duration-seconds (the talk's length)", also=ERROR
    ),
    refusal(
        "invalid_existing_source", "pass --existing-source as one of the values in the message"
    ),
    refusal("invalid_label", "pass a non-empty LABEL (the talk's name) with --audio"),
    refusal("invalid_language"),
    refusal("invalid_min_words", "pass --min-words as a positive integer"),
    refusal("invalid_utf8", "re-save the file as UTF-8", also=ERROR),
    refusal(
        "invalid_video_id",
        "pass the 11-character YouTube id (from the watch URL's v=), or --audio with a label",
    ),
    refusal("language_mismatch"),
    refusal("language_unsupported"),
    refusal(
        "media_changed",
        "the recording changed while it was transcribed: wait until it is fully "
        "copied, then run again",
    ),
    refusal(
        "media_not_regular_file",
        "pass the recording file itself (not a symlink or directory) with --audio",
    ),
    refusal(
        "model_unavailable",
        "install the Whisper model (or set --model / RVAULT_WHISPER_MODEL to "
        "a model that is present), then run again",
    ),
    refusal("output_collides_with_input", "pass an OUT path other than the VTT file"),
    refusal(
        "output_directory_missing",
        "create the transcripts directory (mkdir -p "
        "VAULT/transcripts) or pass OUT inside an existing one",
    ),
    refusal("output_exists", "pass --force to replace the existing transcript bundle"),
    refusal("output_name_mismatch"),
    refusal("output_not_txt", "name OUT with a .txt extension"),
    refusal("output_outside_transcripts"),
    refusal("output_outside_vault"),
    refusal("timing_invalid", "fix the VTT's cue timings (see reason), then import it again"),
    refusal("transcript_missing", _REFETCH, also=ISSUE),
    refusal("transcript_quality_failed", _TEXT),
    refusal("transcript_unavailable", "no captions and no audio: " + _AUDIO),
    refusal("vault_root_missing", "pass the vault root directory (it must exist)"),
    refusal("vtt_missing", "check the VTT path: no file exists there"),
    refusal(
        "vtt_outside_transcript_dir",
        "move (or copy) the VTT into the transcript directory "
        "(VAULT/transcripts/), then run vtt-cleanup on it there",
    ),
    refusal("vtt_too_large", "the VTT is larger than the limit: pass the talk's own caption file"),
    # Errors: a coded exception that a command reports as a refusal, a reader as a status.
    error("artifact_hash_mismatch", _VERIFY),
    error("artifact_missing", _VERIFY),
    error("artifact_not_regular_file", _VERIFY),
    error(
        "artifact_symlink",
        "replace the symlink in the transcript bundle with the real file, or " + _REFETCH,
    ),
    error("artifact_unreadable", "make the bundle's files readable, then verify again"),
    error(
        "audio_download_failed",
        "check the network and try again later, or download the "
        "audio yourself and pass it with --audio",
    ),
    error(
        "captions_blocked",
        "YouTube blocked the caption request from this address: try later or "
        "from another network, or " + _AUDIO,
    ),
    error("captions_disabled", "the video has no captions: " + _AUDIO),
    error("captions_empty", "the caption track is empty: " + _AUDIO),
    error("captions_network_error", _NETWORK),
    error("captions_not_found", "no caption track in an accepted language: " + _AUDIO),
    error("captions_unavailable", "captions cannot be fetched: " + _AUDIO),
    error("cue_extent_mismatch", _RECEIPT),
    error("decoder_loop", _TEXT),
    error("degenerate_timing", "fix the cue timings in the VTT (each end after its start)"),
    error("duration_drift", "the recording's duration changed: " + _REFETCH),
    error("empty_text", _TEXT),
    error(
        "invalid_fetch_result", "pass the fetch-result JSON that rvault-transcript fetch printed"
    ),
    error("invalid_language_record", _RECEIPT),
    error("invalid_policy", _RECEIPT),
    error("invalid_provenance", _RECEIPT),
    error("invalid_quality_receipt", _RECEIPT),
    error("invalid_segments", _RECEIPT),
    error("invalid_timestamp", "fix the cue timestamp in the VTT (minutes and seconds 00-59)"),
    error("invalid_timing_receipt", _RECEIPT),
    error(
        "media_mismatch", "the receipt is for other media bytes: transcribe this recording again"
    ),
    error("media_unreadable", _MEDIA),
    error(
        "media_without_audio", "the file has no audio stream: pass the talk's recording with sound"
    ),
    error("media_without_duration", _MEDIA),
    error("metadata_identity_mismatch", "check the YouTube id: yt-dlp resolved another video"),
    error("metadata_unavailable", _NETWORK),
    error("metadata_without_duration", "pass --duration-seconds with the talk's length"),
    error("no_cues", "the VTT has no cue with text: pass the talk's real caption file"),
    error(
        "not_webvtt",
        "pass a WebVTT file (it starts with WEBVTT); convert .srt captions first, "
        "e.g. ffmpeg -i captions.srt captions.vtt",
    ),
    error(
        "owner_context_missing",
        "attach the talk's recording (rvault-db mutate attach_media) so "
        "the transcript can be verified against it",
    ),
    error("owner_mismatch", "the receipt is for another video: " + _REFETCH),
    error("policy_floor_too_low", "raise --min-words to at least the policy floor in the message"),
    error("quality_policy_failed", _TEXT),
    error("repetitive_text", _TEXT),
    error(
        "replacement_characters", "the text has U+FFFD (broken encoding): re-save the VTT as UTF-8"
    ),
    error("schema_violation", _RECEIPT),
    error("segment_not_canonical", _RECEIPT),
    error(
        "segment_out_of_bounds",
        "the cues run past the recording's end: check the VTT belongs to "
        "this talk, or pass the right --duration-seconds",
    ),
    error("segment_text_mismatch", _RECEIPT),
    error("stub_text", _TEXT),
    error(
        "timestamp_out_of_range",
        "fix the cue timestamps in the VTT (under the limit in the message)",
    ),
    error("too_few_words", _TEXT),
    error("traceback_text", _TEXT),
    error("transcript_hash_mismatch", _VERIFY),
    error("transcript_quality_context_drift", _REFETCH),
    error("unsafe_artifact_path", _RECEIPT),
    error("unsupported_policy_version", "upgrade rvault-transcript, or " + _REFETCH),
    error("unsupported_quality_version", "upgrade rvault-transcript, or " + _REFETCH),
    error("unsupported_timing_version", "upgrade rvault-transcript, or " + _REFETCH),
    error("video_age_restricted", "the video is age-restricted: " + _AUDIO),
    error("video_unavailable", "the video is private or removed: check the id, or " + _AUDIO),
    error("video_unplayable", "the video cannot be played here: " + _AUDIO),
    # Issues: an entry of a report or of a reader's status.
    issue("bundle_recovery_pending"),
    issue("caption_text_mismatch"),
    issue("duration_untrusted"),
    issue("fetch_result_is_failure"),
    issue("min_words_below_floor"),
    issue("quality_current"),
    issue("quality_missing"),
    issue("quality_path_mismatch"),
    issue("quality_reused"),
    issue("quality_status_mismatch"),
    issue("timed_path_mismatch"),
    issue("timing_archival"),
    issue("timing_current"),
    issue("timing_missing"),
    issue("timing_not_enriched"),
    issue("timing_not_produced"),
    issue("timing_status_mismatch"),
    issue("transcript_name_mismatch"),
    issue("transcript_outside_vault"),
    issue("transcript_path_not_txt"),
    issue("word_count_below_floor"),
)

HINTS: dict[str, str] = CODES.hints()
