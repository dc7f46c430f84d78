"""The refusal, error and issue codes of ``rvault-analysis``, each with its next action.

How a declaration is used (default hints, the README table, the guard tests):
``rvault_contracts.codes``. A code shared by every tool is declared there; one
repeated here gives it this tool's own hint.
"""

from __future__ import annotations

from rvault_contracts.codes import declare, issue, refusal

CODES = declare(
    # Refusals: a ``cli-failure`` document, exit 2.
    refusal("batch_empty"),
    refusal("batch_key_mismatch"),
    refusal("batch_membership_mismatch"),
    refusal("batch_mixed_identity"),
    refusal("batch_not_completed"),
    refusal("catalog_fingerprint_mismatch"),
    refusal("catalog_invalid"),
    refusal("database_changed"),
    refusal("database_invalid"),
    refusal("duplicate_return"),
    refusal("output_directory_missing"),
    refusal("output_directory_not_directory"),
    refusal("output_directory_not_site"),
    refusal("output_directory_outside_vault"),
    refusal("output_directory_symlink"),
    refusal("output_directory_unreadable"),
    refusal("output_directory_unwritable"),
    refusal("queue_generation_mismatch"),
    refusal("receipt_mismatch"),
    refusal("receipt_unavailable"),
    refusal("result_status_mismatch"),
    refusal("return_invalid"),
    refusal("returns_shape_invalid"),
    refusal("scoring_generation_mismatch"),
    refusal("site_manifest_invalid"),
    refusal("slides_local_path_mismatch"),
    refusal("talk_status_mismatch"),
    refusal("target_changed"),
    refusal("target_collision"),
    refusal("target_is_directory"),
    refusal("target_name_invalid"),
    refusal("target_special_file"),
    refusal("target_unreadable"),
    refusal(
        "vault_root_invalid",
        "pass --vault-root with the vault directory (the database's own "
        "directory is used when it is left out)",
    ),
    refusal("video_manifest_identity_mismatch"),
    # Issues: an entry of a report or of a reader's status.
    issue("evidence_changed"),
    issue("evidence_missing"),
    issue("ledger_schema_violation"),
    issue("pattern_observations_invalid"),
)

HINTS: dict[str, str] = CODES.hints()
