"""classify_pptx_visual_evidence: a pptx_catalog record plus live observations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_pptx_evidence import api


@pytest.fixture
def written(rich_doc: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], api.LiveObservation]:
    data = artifact_bytes(rich_doc)
    receipt = api.visual_evidence_receipt(rich_doc, "pptx/rich.json", sha256_bytes(data))
    record = {
        "schema_version": 2,
        "pptx_path": "talks/rich.pptx",
        "talk_filename": None,
        "matched": False,
        "slide_count": rich_doc["slide_count"],
        "visual_extracted": True,
        "visual_evidence": receipt,
    }
    observed = api.LiveObservation(
        source_fingerprint=dict(rich_doc["input_fingerprint"]),
        artifact_sha256=sha256_bytes(data),
        artifact_reading=api.read_extraction(data),
    )
    return record, observed


def _class(record: dict[str, Any], observed: api.LiveObservation) -> tuple[str, bool]:
    decision = api.classify_pptx_visual_evidence(record, observed)
    return decision.klass, decision.regenerate


def test_current_record(written: Any) -> None:
    from rvault_contracts.schemas import is_valid

    record, observed = written
    assert is_valid("db-pptx-catalog", 2, record)
    assert _class(record, observed) == ("current", False)


def test_each_class(written: Any) -> None:
    record, observed = written
    receipt = record["visual_evidence"]
    v1 = {k: v for k, v in record.items() if k != "visual_evidence"} | {"schema_version": 1}
    assert _class(v1, observed) == ("legacy_unbound", True)
    assert _class(record | {"visual_evidence": None}, observed) == ("never_extracted", True)
    broken = receipt | {"artifact": None}
    assert _class(record | {"visual_evidence": broken}, observed) == ("receipt_malformed", True)
    gone = api.LiveObservation(None)
    assert _class(record, gone) == ("source_missing", False)
    changed = api.LiveObservation(receipt["source_fingerprint"] | {"size_bytes": 1})
    assert _class(record, changed) == ("source_changed", True)
    old = receipt | {"pipeline_version": "1.4.0"}
    assert _class(record | {"visual_evidence": old}, observed) == ("extractor_outdated", True)
    failed = api.failed_receipt(receipt["source_fingerprint"])
    assert _class(record | {"visual_evidence": failed}, observed) == ("failed_current", False)
    missing = api.LiveObservation(observed.source_fingerprint, None, None)
    assert _class(record, missing) == ("artifact_missing", True)
    other = api.LiveObservation(observed.source_fingerprint, "0" * 64, observed.artifact_reading)
    assert _class(record, other) == ("artifact_changed", True)
    unusable = api.LiveObservation(
        observed.source_fingerprint, observed.artifact_sha256, api.classify({"schema_version": 3})
    )
    assert _class(record, unusable) == ("artifact_unusable", True)
    decision = api.classify_pptx_visual_evidence(record, unusable)
    assert decision.to_dict()["class"] == "artifact_unusable" and decision.reason
