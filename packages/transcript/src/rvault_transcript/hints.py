"""The next action for each refusal of ``rvault-transcript`` that its call site names none for.

``console_main`` registers this table; ``rvault_contracts.cli.emit`` prints a
refusal's hint from it (see ``rvault_contracts.hints``).
"""

from __future__ import annotations

_REFETCH = "fetch the transcript again (rvault-transcript fetch) to write a fresh bundle"
_VERIFY = "the stored bundle no longer matches its receipt: " + _REFETCH
_AUDIO = "pass the talk's recording with --audio to transcribe it with Whisper instead"
_TEXT = "the text is not a real transcript: " + _AUDIO + ", or fix the VTT"
_MEDIA = "check the recording passed with --audio (a complete, readable file with sound)"
_NETWORK = "check the network connection and try again later, or " + _AUDIO
_RECEIPT = "the receipt file is damaged or from another tool version: " + _REFETCH

HINTS: dict[str, str] = {
    "artifact_hash_mismatch": _VERIFY,
    "artifact_missing": _VERIFY,
    "artifact_not_regular_file": _VERIFY,
    "artifact_symlink": "replace the symlink in the transcript bundle with the real file, or "
    + _REFETCH,
    "artifact_unreadable": "make the bundle's files readable, then verify again",
    "audio_download_failed": "check the network and try again later, or download the "
    "audio yourself and pass it with --audio",
    "captions_blocked": "YouTube blocked the caption request from this address: try later or "
    "from another network, or " + _AUDIO,
    "captions_disabled": "the video has no captions: " + _AUDIO,
    "captions_empty": "the caption track is empty: " + _AUDIO,
    "captions_network_error": _NETWORK,
    "captions_not_found": "no caption track in an accepted language: " + _AUDIO,
    "captions_unavailable": "captions cannot be fetched: " + _AUDIO,
    "cue_extent_mismatch": _RECEIPT,
    "decoder_loop": _TEXT,
    "degenerate_timing": "fix the cue timings in the VTT (each end after its start)",
    "duration_drift": "the recording's duration changed: " + _REFETCH,
    "empty_text": _TEXT,
    "existing_transcript_invalid": "the transcript already on disk is invalid: pass --force "
    "to replace its bundle",
    "invalid_duration": "pass a positive --duration-seconds (the talk's length)",
    "invalid_existing_source": "pass --existing-source as one of the values in the message",
    "invalid_fetch_result": "pass the fetch-result JSON that rvault-transcript fetch printed",
    "invalid_label": "pass a non-empty LABEL (the talk's name) with --audio",
    "invalid_language_record": _RECEIPT,
    "invalid_min_words": "pass --min-words as a positive integer",
    "invalid_policy": _RECEIPT,
    "invalid_provenance": _RECEIPT,
    "invalid_quality_receipt": _RECEIPT,
    "invalid_segments": _RECEIPT,
    "invalid_timestamp": "fix the cue timestamp in the VTT (minutes and seconds 00-59)",
    "invalid_timing_receipt": _RECEIPT,
    "invalid_utf8": "re-save the file as UTF-8",
    "invalid_video_id": "pass the 11-character YouTube id (from the watch URL's v=), or "
    "--audio with a label",
    "media_changed": "the recording changed while it was transcribed: wait until it is fully "
    "copied, then run again",
    "media_mismatch": "the receipt is for other media bytes: transcribe this recording again",
    "media_not_regular_file": "pass the recording file itself (not a symlink or directory) "
    "with --audio",
    "media_unreadable": _MEDIA,
    "media_without_audio": "the file has no audio stream: pass the talk's recording with sound",
    "media_without_duration": _MEDIA,
    "metadata_identity_mismatch": "check the YouTube id: yt-dlp resolved another video",
    "metadata_unavailable": _NETWORK,
    "metadata_without_duration": "pass --duration-seconds with the talk's length",
    "model_unavailable": "install the Whisper model (or set --model / RVAULT_WHISPER_MODEL to "
    "a model that is present), then run again",
    "no_cues": "the VTT has no cue with text: pass the talk's real caption file",
    "not_webvtt": "pass a WebVTT file (it starts with WEBVTT); convert .srt captions first, "
    "e.g. ffmpeg -i captions.srt captions.vtt",
    "output_collides_with_input": "pass an OUT path other than the VTT file",
    "output_directory_missing": "create the transcripts directory (mkdir -p "
    "VAULT/transcripts) or pass OUT inside an existing one",
    "output_exists": "pass --force to replace the existing transcript bundle",
    "output_not_txt": "name OUT with a .txt extension",
    "owner_context_missing": "attach the talk's recording (rvault-db mutate attach_media) so "
    "the transcript can be verified against it",
    "owner_mismatch": "the receipt is for another video: " + _REFETCH,
    "policy_floor_too_low": "raise --min-words to at least the policy floor in the message",
    "quality_policy_failed": _TEXT,
    "repetitive_text": _TEXT,
    "replacement_characters": "the text has U+FFFD (broken encoding): re-save the VTT as UTF-8",
    "schema_violation": _RECEIPT,
    "segment_not_canonical": _RECEIPT,
    "segment_out_of_bounds": "the cues run past the recording's end: check the VTT belongs to "
    "this talk, or pass the right --duration-seconds",
    "segment_text_mismatch": _RECEIPT,
    "stub_text": _TEXT,
    "timestamp_out_of_range": "fix the cue timestamps in the VTT (under the limit in the message)",
    "timing_invalid": "fix the VTT's cue timings (see reason), then import it again",
    "too_few_words": _TEXT,
    "traceback_text": _TEXT,
    "transcript_hash_mismatch": _VERIFY,
    "transcript_missing": _REFETCH,
    "transcript_quality_context_drift": _REFETCH,
    "transcript_quality_failed": _TEXT,
    "transcript_unavailable": "no captions and no audio: " + _AUDIO,
    "unsafe_artifact_path": _RECEIPT,
    "unsupported_policy_version": "upgrade rvault-transcript, or " + _REFETCH,
    "unsupported_quality_version": "upgrade rvault-transcript, or " + _REFETCH,
    "unsupported_timing_version": "upgrade rvault-transcript, or " + _REFETCH,
    "vault_root_missing": "pass the vault root directory (it must exist)",
    "video_age_restricted": "the video is age-restricted: " + _AUDIO,
    "video_unavailable": "the video is private or removed: check the id, or " + _AUDIO,
    "video_unplayable": "the video cannot be played here: " + _AUDIO,
    "vtt_missing": "check the VTT path: no file exists there",
    "vtt_outside_transcript_dir": "move (or copy) the VTT into the transcript directory "
    "(VAULT/transcripts/), then run vtt-cleanup on it there",
    "vtt_too_large": "the VTT is larger than the limit: pass the talk's own caption file",
}
