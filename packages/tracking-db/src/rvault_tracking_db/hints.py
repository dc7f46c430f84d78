"""The next action for each refusal of ``rvault-db`` that its call site names none for.

``console_main`` registers this table; ``rvault_contracts.cli.emit`` prints a
refusal's hint from it (see ``rvault_contracts.hints``).
"""

from __future__ import annotations

_PLAN = "then dry-run the plan again"
_RECOVER = "run rvault-db queue recover DB for that batch first, then claim again"
_INSPECT = "run rvault-db queue inspect DB to see the batch's claims"
_MEDIA = "check the recording named by path (present, readable, below the vault root), then "
_SHOWNOTES = "fix the shownotes section of the database config at path, then scan again"

HINTS: dict[str, str] = {
    "active_queue_claim": "the talk is claimed by a live batch: persist or recover that batch "
    "first (" + _INSPECT + ")",
    "ambiguous_record": "add the missing config object to the database by hand (or restore "
    "a backup), then migrate again",
    "ambiguous_record_key": "the database holds several records with that key: remove the "
    "duplicate by hand (or restore a backup), then run the command again",
    "batch_already_claimed": "this batch is already claimed: continue it, or " + _RECOVER,
    "batch_already_closed": "nothing to recover: claim a new batch with rvault-db queue claim",
    "candidate_invalid": "the change would leave an invalid database: fix the plan, " + _PLAN,
    "category_count_mismatch": "make item_count equal the number of items listed, " + _PLAN,
    "claim_not_active": _INSPECT + "; only a live claim can be closed",
    "config_missing": "initialize the database's config (rvault-db migrate DB), then run again",
    "config_path_not_object": "fix the config value at path: it must be an object",
    "database_exists": "the database already exists: drop initialize_database from the plan",
    "database_missing": "initialize the database first (rvault-db init VAULT_ROOT)",
    "duplicate_filename": "give each talk its own filename: rename one of those at path",
    "duplicate_talk": "name each talk once: remove the repeated --talk/filename at path",
    "epoch_already_closed": "claim again with a new --now (or leave --now out for the "
    "current time)",
    "expectation_failed": "the database differs from what the plan expected: read it again "
    "(rvault-db read DB), update the plan's expectations, then dry-run again",
    "extraction_too_large": "pass the deck's own extraction JSON (under 256 MiB)",
    "fetch_result_too_large": "pass the transcript tool's fetch-result JSON (under the limit)",
    "fetch_result_unreadable": "make the fetch-result file readable, then run again",
    "ffprobe_unavailable": "install FFmpeg (its ffprobe) and make sure it is on PATH",
    "field_not_writable": "remove the field at path from the plan: only reviewed-metadata "
    "fields are written by mutate",
    "goal_fixed_fields": "a verification sets only the verification fields: drop the others "
    "from the plan at path",
    "goal_not_active": "the goal is retired: set or revise an active goal instead "
    "(rvault-db goals list DB)",
    "goal_not_found": "list the goals with rvault-db goals list DB and use one of their ids",
    "initialize_not_sole": "put initialize_database in a plan of its own, then the rest after",
    "invalid_argument": "pass a non-empty value for the option named by path",
    "invalid_expectation": "write the expectation as the exact record seen, or the missing "
    "marker, " + _PLAN,
    "invalid_schema_version": "fix schema_version at path (an integer the tool supports)",
    "invalid_value": "fix the value at path, " + _PLAN,
    "invalid_visual_evidence": "re-run the deck's extraction and pass the new evidence",
    "legacy_claim_replay": _RECOVER,
    "media_changed": "the recording changed while it was measured: wait until it is fully "
    "copied, then run the command again",
    "media_missing": _MEDIA + "run again",
    "media_unprobeable": _MEDIA + "check that ffprobe can read it",
    "media_unreadable": _MEDIA + "run again",
    "metadata_id_mismatch": "check the YouTube id: yt-dlp answered for another video",
    "metadata_invalid": "yt-dlp answered with invalid metadata: update yt-dlp, then capture again",
    "metadata_unavailable": "check the network and the YouTube id (yt-dlp must be current: "
    "pip install -U yt-dlp), then capture again",
    "missing_argument": "pass the option named by path",
    "missing_field": "add the required field at path, " + _PLAN,
    "missing_marker_as_value": "to remove a field use delete: true, not the missing marker",
    "mixed_batch": _RECOVER,
    "not_regular_file": "pass the database file (VAULT/tracking-database.json), not a directory",
    "now_not_timezone_aware": "pass --now with a timezone, e.g. 2026-07-31T18:00:00+00:00, "
    "or leave it out for the current time",
    "owner_controlled_field": "remove the field at path from the plan: its owner writes it",
    "path_escapes_root": "pass a path below the vault root, written relative to it",
    "path_not_canonical": "write the path relative, with / separators and no . or .. parts",
    "path_not_utf8": "rename the path so it is valid UTF-8",
    "plan_too_large": "split the mutation plan into smaller plans",
    "plan_unreadable": "make the plan file readable, then run again",
    "relation_target_invalid": "name another talk of this database as target_filename "
    "(rvault-db read DB lists them)",
    "release_before_claim": "pass a --now later than the batch's claim time",
    "selection_conflict": "pass either --limit or --talk, not both",
    "shownotes_directory_missing": "create the shownotes directory or fix its path in the "
    "config, then scan again",
    "shownotes_root_invalid": _SHOWNOTES,
    "shownotes_source_invalid": _SHOWNOTES,
    "shownotes_subdir_invalid": _SHOWNOTES,
    "talk_not_found": "use a filename the database lists (rvault-db read DB), see the "
    "suggestions if any",
    "unknown_field": "remove or rename the field at path, " + _PLAN,
    "unknown_mutation_kind": "use one of valid_kinds (closest lists the likely one), " + _PLAN,
    "unsupported_schema_version": "upgrade rvault-db, or migrate the database "
    "(rvault-db migrate DB)",
    "wrong_type": "fix the type of the value at path, " + _PLAN,
}
