"""Every stable code the validator can emit has a failing case in the corpus.

The codes are collected from the source (``.add(CODE, path, ...)`` and
``Issue(CODE, path, ...)`` calls) by the repository's one code scan,
``tools/emitted_codes.py`` (which also keeps ``rvault_returns_persistence.codes``
honest), so a new rule without a corpus case fails this test instead of going
untested.
"""

from __future__ import annotations

import sys
from pathlib import Path

from test_validate_corpus import INVALID

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import emitted_codes as scan

# Codes exercised by dedicated tests in test_validate_corpus.py / test_cli_validate.py.
DEDICATED = {
    "return_not_object",
    "duplicate_return",
    "batch_mixed_identity",
    "batch_empty",
    "batch_epoch_invalid",
    "video_artifact_not_promoted",
    "batch_key_mismatch",
    "batch_membership_mismatch",
    "claim_invalid",
    "claim_version_unknown",
    "wrong_type",
    "schema_violation",
    # test_deck_audit.py: a held native deck audit against a real deck and PDF
    "authored_visual_fields_render_incomplete",
    "native_citation_render_required",
    "native_deck_artifact_unverified",
    "rendered_page_ranges_mismatch",
    "rendered_pdf_unverified",
    # test_feedback.py: the read-only feedback aggregator's findings across returns
    "feedback_before_contract",
    "feedback_legacy_key",
    "return_shape_invalid",
    "suggestion_polarity_conflict",
    # test_persist.py: the same batch persisted a second time
    "return_already_persisted",
    # test_delivery_video_audio_only.py: a real audio-only recording attached as local media
    "delivery_video_unavailable",
}


def emitted_codes() -> set[str]:
    """The validator's issue codes: what ``Collector.add`` and ``Issue`` receive."""
    source = Path(__file__).resolve().parents[1] / "src"
    return {site.code for site in scan.sites(source) if site.callee in ("add", "Issue")}


def test_every_emitted_code_has_a_failing_case() -> None:
    covered = {case[3] for case in INVALID} | DEDICATED
    missing = sorted(emitted_codes() - covered)
    assert not missing, f"codes without a failing corpus case: {missing}"


def test_code_collection_sees_the_rules() -> None:
    codes = emitted_codes()
    assert len(codes) > 80
    assert {"queue_generation_mismatch", "not_evaluable_missing", "translation_required"} <= codes
