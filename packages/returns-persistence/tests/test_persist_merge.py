"""Merge semantics of persist: snapshots, clear_fields, legacy replays (v1 and v4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from persist_vault import build_vault, fill_return, persist_applied, read_talk
from returns_testdata import BATCH_ID, claim_legacy
from rvault_contracts.canonical import artifact_bytes, payload_sha256
from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api as tracking

PRIOR = {
    "structured_data": {
        "slide_count": 40,
        "opening_type": "story",
        "typography_observations": {"old_child": "from an older run", "fonts": ["A"]},
        "extensions": {"lab": {"a": 1}},
        "image_source_distribution": {"unknown": 3},
        "image_source_distribution_basis": "slides; dominant class; metadata; unknown",
        "meme_count": 2,
    },
    "verbatim_examples": {"jokes": ["an old joke"], "transitions": ["an old transition"]},
    "slide_count": 40,
    "opening_type": "story",
    "adherence_comparison": {"stale": True},
}


@pytest.fixture(scope="module")
def _template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    return build_vault(tmp_path_factory.mktemp("merge"), members=1)


@pytest.fixture
def vault(_template: tuple[Path, list[str]], tmp_path: Path) -> tuple[Path, str]:
    db, names = _template
    root = tmp_path / "vault"
    shutil.copytree(db.parent, root, symlinks=True)
    db = root / db.name
    data = json.loads(db.read_text())
    data["talks"][0].update(json.loads(json.dumps(PRIOR)))
    db.write_bytes(artifact_bytes(data))
    return db, names[0]


def _run(db: Path, returns: list[dict[str, Any]]) -> dict[str, Any]:
    return persist_applied(db, returns)


def test_snapshot_replaces_supplied_fields_and_keeps_omitted_ones(vault: Any) -> None:
    db, name = vault
    ret = fill_return(db, name)
    ret["structured_data"].update(
        typography_observations={"fonts": ["B"]},
        extensions={"lab": {"b": 2}},
        image_source_distribution={"stock_photo": 1},
        image_source_distribution_basis="assets; majority; licence notes; unknown otherwise",
        slide_count=12,
    )
    ret["verbatim_examples"] = {"jokes": []}
    report = _run(db, [ret])
    talk = read_talk(db, name)
    structured = talk["structured_data"]
    assert structured["typography_observations"] == {"fonts": ["B"]}  # no old child survives
    assert structured["extensions"] == {"lab": {"a": 1, "b": 2}}  # the one additive place
    assert structured["image_source_distribution"] == {"stock_photo": 1}
    assert structured["image_source_distribution_basis"].startswith("assets")
    assert structured["meme_count"] == 2 and structured["opening_type"] == "story"  # omitted
    assert talk["verbatim_examples"] == {"jokes": [], "transitions": ["an old transition"]}
    assert talk["slide_count"] == structured["slide_count"] == 12  # promoted copy mirrors
    assert "adherence_comparison" not in talk  # a prior generation's comparison is stale
    row = report["talks"][0]
    assert "structured_data.typography_observations" in row["merged_fields"]
    assert row["merge_contract"] == "snapshot"


def test_clear_fields_run_first_and_clear_promoted_copies(vault: Any) -> None:
    db, name = vault
    ret = fill_return(db, name)
    ret["clear_fields"] = [
        "structured_data.slide_count",
        "structured_data.typography_observations",
        "verbatim_examples.jokes",
        "structured_data.opening_type",
    ]
    ret["structured_data"]["opening_type"] = "question"  # a replacement wins after a clear
    report = _run(db, [ret])
    talk = read_talk(db, name)
    assert "slide_count" not in talk["structured_data"] and "slide_count" not in talk
    assert "typography_observations" not in talk["structured_data"]
    assert "jokes" not in talk["verbatim_examples"]
    assert talk["structured_data"]["opening_type"] == talk["opening_type"] == "question"
    assert set(report["talks"][0]["cleared_fields"]) == set(ret["clear_fields"])


def test_a_stale_undeclared_verbatim_lane_must_be_cleared(vault: Any, snapshot_file: Any) -> None:
    db, name = vault
    data = json.loads(db.read_text())
    data["talks"][0]["verbatim_examples"]["callbacks"] = ["an undeclared lane"]
    db.write_bytes(artifact_bytes(data))
    ret = fill_return(db, name)
    ret["verbatim_examples"] = {"jokes": ["a new joke"]}
    before = snapshot_file(db)
    from rvault_contracts.cli import Refusal

    with pytest.raises(Refusal) as refused:
        _run(db, [ret])
    assert refused.value.code == "verbatim_lane_stale"
    assert "verbatim_examples.callbacks" in refused.value.context["hint"]
    assert snapshot_file(db) == before
    ret["clear_fields"] = ["verbatim_examples.callbacks"]
    _run(db, [ret])
    assert read_talk(db, name)["verbatim_examples"] == {
        "jokes": ["a new joke"],
        "transitions": ["an old transition"],
    }


def _legacy_claim(db: Path, version: int) -> None:
    data = json.loads(db.read_text())
    talk = data["talks"][0]
    talk["_queue_claim"] = claim_legacy(version, talk["filename"], batch_id=BATCH_ID)
    db.write_bytes(artifact_bytes(data))


def test_a_v4_return_replays_as_archival_ledger_v1(vault: Any) -> None:
    db, name = vault
    _legacy_claim(db, 4)
    ret = fill_return(db, name, version=4)
    report = _run(db, [ret])
    talk = read_talk(db, name)
    row = report["talks"][0]
    assert row["pattern_scoring_generation"]["status"] == "legacy_unbaselineable"
    assert talk["pattern_scoring_generation_status"] == "legacy_unbaselineable"
    assert talk["pattern_scoring_generation_reasons"] == sorted(
        row["pattern_scoring_generation"]["reasons"]
    )
    assert "pattern_scoring_schema_version" not in talk
    assert "pattern_catalog_fingerprint" not in talk
    assert talk["schema_version"] == 4  # only a current v5 result is talk schema 5
    po = talk["pattern_observations"]
    assert po["evidence_schema_version"] == 1
    assert "pattern_outcomes" not in po and "opportunity_coverage_identity" not in po
    citation = po["patterns_detected"][0]["evidence_citations"][0]
    assert citation["line_start"] >= 1 and citation["artifact_sha256"]  # still canonical
    assert talk["_queue_claim"]["schema_version"] == 4
    assert talk["_queue_claim"]["result_payload_sha256"] == payload_sha256(ret)
    assert schema_issues("db-talk", 4, talk) == []
    baseline = report["current_adherence_baseline"]
    assert baseline["eligible_talk_count"] == 0  # replay-only results never feed baselines
    assert baseline["raw_score_comparison_reason"] == "no_eligible_talks"


def test_a_v1_return_replays_additively_and_closes_as_v2(vault: Any) -> None:
    db, name = vault
    _legacy_claim(db, 1)
    ret = fill_return(db, name, version=1)
    ret.pop("return_schema_version")  # historical: no version field at all
    ret["structured_data"] = {"typography_observations": {"fonts": ["B"]}, "meme_count": 0}
    ret["verbatim_examples"] = {"jokes": ["a new joke"], "transitions": []}
    ret["new_patterns"] = ""
    report = _run(db, [ret])
    talk = read_talk(db, name)
    structured = talk["structured_data"]
    assert structured["typography_observations"] == {
        "old_child": "from an older run",
        "fonts": ["A", "B"],
    }  # additive: old children survive, lists gain new items
    assert structured["meme_count"] == 0
    assert talk["verbatim_examples"]["jokes"] == ["an old joke", "a new joke"]
    assert talk["verbatim_examples"]["transitions"] == ["an old transition"]  # empty: no-op
    claim = talk["_queue_claim"]
    assert claim["schema_version"] == 2 and claim["state"] == "completed"
    assert claim["result_payload_sha256"] == payload_sha256(ret)
    assert tracking.claim_issues(claim, filename=name) == []
    row = report["talks"][0]
    assert row["merge_contract"] == "legacy_additive"
    assert "legacy_empty_value_ignored" in {w["code"] for w in row["warnings"]}
    assert "legacy_unbaselineable" in {w["code"] for w in row["warnings"]}


def test_a_v3_replay_replaces_observations_and_infers_a_unique_comparison_group(
    vault: Any,
) -> None:
    db, name = vault
    _legacy_claim(db, 3)
    ret = fill_return(db, name, version=3)
    po = ret["pattern_observations"]
    for pid in ("progressive-reveal", "reading-the-slides"):
        po["patterns_detected" if pid == "progressive-reveal" else "antipatterns_detected"].append(
            {
                "pattern_id": pid,
                "confidence": "moderate",
                "evidence_source": "source_comparison",
                "evidence": "Deck and rendered pages compared (saved v3 artifact).",
                "evidence_citations": [],
            }
        )
    po["pattern_score"] = {
        "patterns_used": len(po["patterns_detected"]),
        "antipatterns_detected": len(po["antipatterns_detected"]),
        "score": len(po["patterns_detected"]) - len(po["antipatterns_detected"]),
    }
    report = _run(db, [ret])
    reasons = report["talks"][0]["pattern_scoring_generation"]["reasons"]
    assert "comparison_group_ambiguous:reading-the-slides" in reasons  # two groups qualify
    assert "comparison_group_ambiguous:progressive-reveal" not in reasons
    stored = read_talk(db, name)["pattern_observations"]
    rows = {
        r["pattern_id"]: r for r in stored["patterns_detected"] + stored["antipatterns_detected"]
    }
    assert rows["progressive-reveal"]["evidence_sources_used"] == ["native_deck", "static_slides"]
    assert "evidence_sources_used" not in rows["reading-the-slides"]
    assert rows["narrative-arc"]["evidence_citations"] == []  # the legacy empty-citation marker
    assert "evidence_schema_version" not in stored  # legacy detections never acquire it
    assert read_talk(db, name)["pattern_score"] == po["pattern_score"]["score"]
