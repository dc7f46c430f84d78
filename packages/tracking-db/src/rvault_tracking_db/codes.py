"""The refusal, error and issue codes of ``rvault-db``, each with its next action.

How a declaration is used (default hints, the README table, the guard tests):
``rvault_contracts.codes``. A code shared by every tool is declared there; one
repeated here gives it this tool's own hint.
"""

from __future__ import annotations

from rvault_contracts.codes import ERROR, ISSUE, declare, error, issue, refusal

_PLAN = "then dry-run the plan again"
_RECOVER = "run rvault-db queue recover DB for that batch first, then claim again"
_INSPECT = "run rvault-db queue inspect DB to see the batch's claims"
_MEDIA = "check the recording named by path (present, readable, below the vault root), then "
_SHOWNOTES = "fix the shownotes section of the database config at path, then scan again"

CODES = declare(
    # Refusals: a ``cli-failure`` document, exit 2.
    refusal(
        "active_queue_claim",
        "the talk is claimed by a live batch: persist or recover that batch "
        "first (" + _INSPECT + ")",
    ),
    refusal(
        "ambiguous_record",
        "add the missing config object to the database by hand (or restore "
        "a backup), then migrate again",
    ),
    refusal(
        "ambiguous_record_key",
        "the database holds several records with that key: remove the "
        "duplicate by hand (or restore a backup), then run the command again",
    ),
    refusal("artifact_malformed"),
    refusal("artifact_missing"),
    refusal("artifact_unreadable"),
    refusal("batch_already_claimed", "this batch is already claimed: continue it, or " + _RECOVER),
    refusal(
        "batch_already_closed", "nothing to recover: claim a new batch with rvault-db queue claim"
    ),
    refusal("batch_not_found"),
    refusal("bindings_current"),
    refusal(
        "candidate_invalid", "the change would leave an invalid database: fix the plan, " + _PLAN
    ),
    refusal("capture_entry_missing"),
    refusal("capture_invalid"),
    refusal("capture_unavailable"),
    refusal("capture_unreadable"),
    refusal("catalog_fingerprint_ambiguous"),
    refusal("catalog_fingerprint_required"),
    refusal(
        "category_count_mismatch", "make item_count equal the number of items listed, " + _PLAN
    ),
    refusal("claim_not_active", _INSPECT + "; only a live claim can be closed"),
    refusal(
        "config_missing", "initialize the database's config (rvault-db migrate DB), then run again"
    ),
    refusal("config_path_not_object", "fix the config value at path: it must be an object"),
    refusal(
        "database_exists", "the database already exists: drop initialize_database from the plan"
    ),
    refusal("database_missing", "initialize the database first (rvault-db init VAULT_ROOT)"),
    refusal("database_requires_migration"),
    refusal("deck_binding_contradicted", also=ISSUE),
    refusal("deck_binding_stale"),
    refusal("deck_fingerprint_mismatch"),
    refusal("deck_not_found"),
    refusal("deck_unreadable"),
    refusal("duplicate_filename", "give each talk its own filename: rename one of those at path"),
    refusal("duplicate_talk", "name each talk once: remove the repeated --talk/filename at path"),
    refusal("duplicate_talk_filename", also=ISSUE),
    refusal(
        "epoch_already_closed",
        "claim again with a new --now (or leave --now out for the current time)",
    ),
    refusal(
        "expectation_failed",
        "the database differs from what the plan expected: read it again "
        "(rvault-db read DB), update the plan's expectations, then dry-run again",
    ),
    refusal("expected_sha256_is_output"),
    refusal("expected_sha256_mismatch"),
    refusal("expected_sha256_required"),
    refusal("expected_sha256_without_apply"),
    refusal("extraction_invalid"),
    refusal("extraction_not_current"),
    refusal("extraction_too_large", "pass the deck's own extraction JSON (under 256 MiB)"),
    refusal("extraction_unreadable"),
    refusal("fetch_result_media_mismatch"),
    refusal("fetch_result_not_regular_file"),
    refusal("fetch_result_owner_mismatch"),
    refusal("fetch_result_receipt_not_current"),
    refusal("fetch_result_stale"),
    refusal(
        "fetch_result_too_large", "pass the transcript tool's fetch-result JSON (under the limit)"
    ),
    refusal("fetch_result_unreadable", "make the fetch-result file readable, then run again"),
    refusal(
        "field_not_writable",
        "remove the field at path from the plan: only reviewed-metadata "
        "fields are written by mutate",
    ),
    refusal("goal_baseline_unavailable"),
    refusal("goal_exists"),
    refusal(
        "goal_fixed_fields",
        "a verification sets only the verification fields: drop the others from the plan at path",
    ),
    refusal("goal_metric_unavailable"),
    refusal(
        "goal_not_active",
        "the goal is retired: set or revise an active goal instead (rvault-db goals list DB)",
    ),
    refusal(
        "goal_not_found", "list the goals with rvault-db goals list DB and use one of their ids"
    ),
    refusal("goal_option_required"),
    refusal("goal_target_invalid"),
    refusal(
        "initialize_not_sole", "put initialize_database in a plan of its own, then the rest after"
    ),
    refusal("invalid_argument", "pass a non-empty value for the option named by path"),
    refusal(
        "invalid_expectation",
        "write the expectation as the exact record seen, or the missing marker, " + _PLAN,
    ),
    refusal("invalid_expected_sha256"),
    refusal("invalid_fetch_result"),
    refusal(
        "invalid_schema_version",
        "fix schema_version at path (an integer the tool supports)",
        also=ISSUE,
    ),
    refusal("invalid_timestamp", also=ISSUE),
    refusal("invalid_value", "fix the value at path, " + _PLAN, also=ISSUE),
    refusal("invalid_visual_evidence", "re-run the deck's extraction and pass the new evidence"),
    refusal("legacy_claim_replay", _RECOVER),
    refusal("media_mismatch"),
    refusal("missing", also=ISSUE),
    refusal("missing_argument", "pass the option named by path"),
    refusal("missing_field", "add the required field at path, " + _PLAN, also=ISSUE),
    refusal(
        "missing_marker_as_value", "to remove a field use delete: true, not the missing marker"
    ),
    refusal("mixed_batch", _RECOVER, also=ISSUE),
    refusal(
        "not_regular_file",
        "pass the database file (VAULT/tracking-database.json), not a directory",
        also=(ERROR, ISSUE),
    ),
    refusal("nothing_to_claim"),
    refusal("now_in_future"),
    refusal(
        "now_not_timezone_aware",
        "pass --now with a timezone, e.g. 2026-07-31T18:00:00+00:00, "
        "or leave it out for the current time",
    ),
    refusal(
        "owner_controlled_field", "remove the field at path from the plan: its owner writes it"
    ),
    refusal("path_empty", also=ISSUE),
    refusal(
        "path_escapes_root",
        "pass a path below the vault root, written relative to it",
        also=(ERROR, ISSUE),
    ),
    refusal(
        "path_not_canonical",
        "write the path relative, with / separators and no . or .. parts",
        also=(ERROR, ISSUE),
    ),
    refusal("path_not_portable", also=ISSUE),
    refusal("path_not_relative", also=ISSUE),
    refusal("path_not_utf8", "rename the path so it is valid UTF-8"),
    refusal("plan_not_regular_file"),
    refusal("plan_too_large", "split the mutation plan into smaller plans"),
    refusal("plan_unreadable", "make the plan file readable, then run again"),
    refusal("pptx_source_dir_invalid"),
    refusal("pptx_source_dir_missing"),
    refusal("reader_unavailable"),
    refusal("rejected_source", also=ISSUE),
    refusal("rejected_source_active", also=ISSUE),
    refusal(
        "relation_target_invalid",
        "name another talk of this database as target_filename (rvault-db read DB lists them)",
    ),
    refusal("release_before_claim", "pass a --now later than the batch's claim time"),
    refusal("root_unavailable", also=ISSUE),
    refusal("selection_conflict", "pass either --limit or --talk, not both"),
    refusal("selection_required"),
    refusal(
        "shownotes_directory_missing",
        "create the shownotes directory or fix its path in the config, then scan again",
    ),
    refusal("shownotes_root_invalid", _SHOWNOTES),
    refusal("shownotes_source_invalid", _SHOWNOTES),
    refusal("shownotes_subdir_invalid", _SHOWNOTES),
    refusal("slides_digest_mismatch"),
    refusal("source_identity_video_mismatch", also=ISSUE),
    refusal("status_repair_not_allowed"),
    refusal("symlink", also=ISSUE),
    refusal("symlink_or_not_directory", also=ISSUE),
    refusal("talk_already_claimed"),
    refusal("talk_has_no_sources"),
    refusal("talk_not_claimable"),
    refusal(
        "talk_not_found",
        "use a filename the database lists (rvault-db read DB), see the suggestions if any",
    ),
    refusal("terminal_skip_contradicted"),
    refusal("transcript_source_conflict"),
    refusal("unknown_field", "remove or rename the field at path, " + _PLAN, also=ISSUE),
    refusal(
        "unknown_mutation_kind", "use one of valid_kinds (closest lists the likely one), " + _PLAN
    ),
    refusal("unreadable", also=ISSUE),
    refusal(
        "unsupported_schema_version",
        "upgrade rvault-db, or migrate the database (rvault-db migrate DB)",
        also=ISSUE,
    ),
    refusal("vault_root_missing"),
    refusal("wrong_type", "fix the type of the value at path, " + _PLAN, also=ISSUE),
    # Errors: a coded exception that a command reports as a refusal, a reader as a status.
    error("ffprobe_unavailable", "install FFmpeg (its ffprobe) and make sure it is on PATH"),
    error(
        "media_changed",
        "the recording changed while it was measured: wait until it is fully "
        "copied, then run the command again",
    ),
    error("media_missing", _MEDIA + "run again"),
    error("media_unprobeable", _MEDIA + "check that ffprobe can read it"),
    error("media_unreadable", _MEDIA + "run again"),
    error("metadata_id_mismatch", "check the YouTube id: yt-dlp answered for another video"),
    error(
        "metadata_invalid",
        "yt-dlp answered with invalid metadata: update yt-dlp, then capture again",
    ),
    error(
        "metadata_unavailable",
        "check the network and the YouTube id (yt-dlp must be current: "
        "pip install -U yt-dlp), then capture again",
    ),
    # Issues: an entry of a report or of a reader's status.
    issue("aggregate_mismatch"),
    issue("baseline_as_of_mismatch"),
    issue("baseline_not_object"),
    issue("baseline_version_mismatch"),
    issue("batch_not_excluded"),
    issue("capture_stale"),
    issue("claim_not_object"),
    issue("claimed_artifact_missing"),
    issue("claimed_artifact_unreadable"),
    issue("claimed_pdf_invalid"),
    issue("conflicting_metadata"),
    issue("database_unusable"),
    issue("deck_binding_disagrees"),
    issue("deck_binding_unproven"),
    issue("duplicate_database_filename"),
    issue("duplicate_recording"),
    issue("duplicate_relation_missing"),
    issue("empty_exclusion"),
    issue("epoch_membership_mismatch"),
    issue("evidence_changed", "restore the file the analysis cites, or requeue the talk"),
    issue(
        "evidence_identity_stale",
        "the talk's evidence changed after its analysis: restore the file, or requeue the "
        "talk (rvault-db queue DB normalize) and claim it again",
    ),
    issue("evidence_missing", "restore the file the analysis cites, or requeue the talk"),
    issue("existing_title_conflict"),
    issue("existing_value_conflict"),
    issue("frontmatter_malformed"),
    issue("incomplete_metadata"),
    issue("invalid_baseline_version"),
    issue("invalid_claim_state"),
    issue("invalid_claim_version"),
    issue("invalid_digest"),
    issue("invalid_type"),
    issue("invalid_vault_storage_path"),
    issue("ledger_schema_violation"),
    issue("legacy_status_has_sources"),
    issue("local_media_invalid"),
    issue("member_not_excluded"),
    issue("missing_schema_version"),
    issue("no_remote_acquisition_path"),
    issue("normalized_filename_collision"),
    issue("not_sorted_unique"),
    issue("null_transcript_source"),
    issue("path_not_string"),
    issue("pdf_probe_unavailable"),
    issue("pptx_visual_evidence_malformed"),
    issue("qr_png_rel_path_mismatch"),
    issue("rejected_source_reappeared"),
    issue("released_before_claimed"),
    issue("return_version_mismatch"),
    issue("scoring_version_mismatch"),
    issue("skip_contradicted_by_capabilities"),
    issue("skipped_no_sources_has_capabilities"),
    issue("slides_identity_invalid"),
    issue("slides_pdf_changed"),
    issue("source_identity_duration_mismatch"),
    issue("source_identity_evidence_missing"),
    issue("source_identity_invalid"),
    issue("source_identity_not_comparable"),
    issue("source_identity_recorded_date_mismatch"),
    issue("source_identity_recorded_day_differs"),
    issue("source_identity_speaker_mismatch"),
    issue("source_identity_title_mismatch"),
    issue("source_identity_title_unconfirmed"),
    issue("source_identity_upload_predates_catalog"),
    issue("source_relation_invalid"),
    issue("status_source_reachability_conflict"),
    issue("suffix_field_while_claimed"),
    issue("talk_under_live_claim"),
    issue("unexpected_exclusion"),
    issue("unreadable_page"),
    issue("unsupported_baseline_version"),
    issue("unsupported_claim_version"),
    issue("unusable_metadata"),
    issue("url_not_http"),
    issue("vault_root_authority_mismatch"),
    issue("vault_root_config_invalid"),
    issue("vault_storage_path_mismatch"),
    issue("verified_local_artifact_remains"),
    issue("version_zero_sentinel"),
    issue("video_extraction_provenance_invalid"),
    issue("video_extraction_provenance_missing"),
    issue("video_extraction_source_lineage_mismatch"),
    issue("video_extraction_source_receipt_missing"),
    issue("video_reader_unavailable"),
    issue("visual_extracted_mismatch"),
    issue("youtube_id_mismatch"),
)

HINTS: dict[str, str] = CODES.hints()
