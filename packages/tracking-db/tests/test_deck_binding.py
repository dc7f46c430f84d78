"""Deck-to-talk binding proofs: the decision from the deck's facts and the talk record,
and ``record-deck`` refusing a contradicted binding while recording a proven one."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import pytest
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import CliResult, run_cli
from rvault_testkit.pptx_evidence.identity_decks import delivery_deck
from rvault_tracking_db.identity.deck_binding import prove_binding

K8S = {
    "filename": "2023-10-04-kubernetes-cost-myths.md",
    "title": "Kubernetes Cost Myths",
    "conference": "Devoxx Belgium",
    "date": "2023-10-04",
}
JAVA = {
    "filename": "2024-02-06-java-records.md",
    "title": "Java Records in Depth",
    "conference": "Jfokus",
    "date": "2024-02-06",
}


def _facts(**changes: Any) -> dict[str, Any]:
    facts = {
        "file_stem": "Cost Myths",
        "folders": ["Devoxx", "2023"],
        "footers": ["Devoxx Belgium 2023 | #devoxx"],
        "hashtags": ["devoxx"],
        "pptx_path": "Devoxx/2023/Cost Myths.pptx",
        "title_text": "Kubernetes Cost Myths\nJane Doe",
    }
    facts.update(changes)
    return facts


def test_the_title_slide_proves_its_own_talk_and_contradicts_another() -> None:
    proven = prove_binding(K8S, _facts())
    assert proven.decision == "proven" and proven.reasons == ("title_agrees",)
    assert proven.signals == {
        "title": "agree",
        "venue": "agree",
        "delivery_year": "agree",
        "filename_similarity": "agree",
    }
    wrong = prove_binding(JAVA, _facts(), others=[K8S])
    assert wrong.decision == "contradicted"
    assert set(wrong.reasons) == {"title_conflicts", "delivery_year_conflicts"}


def test_a_title_slide_naming_no_talk_proves_nothing() -> None:
    """A sponsor or "hello" first slide is neither agreement nor contradiction."""
    facts = _facts(title_text="Thanks to our sponsors", footers=[], folders=[], hashtags=[])
    proof = prove_binding(JAVA, facts, others=[K8S])
    assert proof.signals["title"] == "unknown" and proof.decision == "plausible"


def test_a_same_family_deck_from_another_year_is_contradicted() -> None:
    """Reused talk families: same title, another year's folder and footer."""
    later = dict(K8S, date="2025-10-08", filename="2025-10-08-kubernetes-cost-myths.md")
    proof = prove_binding(later, _facts())
    assert proof.decision == "contradicted" and proof.reasons == ("delivery_year_conflicts",)


def test_a_file_name_alone_never_proves() -> None:
    facts = _facts(title_text="", footers=[], hashtags=[], folders=[], file_stem="kubernetes cost")
    proof = prove_binding(K8S, facts)
    assert proof.decision == "plausible" and proof.reasons == ("filename_similarity_agrees",)
    bare = prove_binding(
        K8S, _facts(title_text="", footers=[], hashtags=[], folders=[], file_stem="deck")
    )
    assert bare.decision == "plausible" and bare.reasons == ("no_agreeing_signal",)


def test_venue_in_the_delivery_year_proves_an_image_only_title_slide() -> None:
    proof = prove_binding(K8S, _facts(title_text="", file_stem="final"))
    assert proof.decision == "proven" and proof.reasons == ("venue_and_year_agree",)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """One real extraction of a generated Devoxx 2023 deck (rvault-pptx extract)."""
    decks = tmp_path_factory.mktemp("decks")
    deck = decks / "Devoxx" / "2023" / "Cost Myths.pptx"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(delivery_deck("Kubernetes Cost Myths", "Jane Doe", "Devoxx Belgium 2023"))
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", decks)
    assert result.returncode == 0, result.stderr
    return decks, result.stdout.encode()


def applied(*args: str | Path) -> CliResult:
    """A source command's dry run, then its apply bound to the bytes the dry run read."""
    dry = run_cli("rvault-db", *args)
    if dry.returncode != 0:
        return dry
    return run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])


def _vault(tmp_path: Path, extracted: tuple[Path, bytes]) -> Path:
    decks, extraction = extracted
    vault = tmp_path / "vault"
    (vault / "pptx").mkdir(parents=True)
    (vault / "pptx" / "cost-myths.json").write_bytes(extraction)
    talks = [{**qb.pending_talk(t["filename"]), **t} for t in (K8S, JAVA)]
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(talks, pptx_source_dir=str(decks)))


def test_record_deck_refuses_a_contradicted_binding_and_records_a_proven_one(
    tmp_path: Path, extracted: tuple[Path, bytes], snapshot_file: Any
) -> None:
    db = _vault(tmp_path, extracted)
    before = snapshot_file(db)
    for mode in ((), ("--apply", "--expected-sha256", qb.sha(db.read_bytes()))):
        refused = run_cli(
            "rvault-db",
            "record-deck",
            db,
            db.parent / "pptx" / "cost-myths.json",
            "--talk",
            JAVA["filename"],
            *mode,
        )
        assert refused.returncode == 2, refused.stdout
        error = refused.json
        assert error["error"]["code"] == "deck_binding_contradicted"
        assert error["proof"]["decision"] == "contradicted" and error["hint"]
        assert snapshot_file(db) == before
    result = applied(
        "record-deck", db, db.parent / "pptx" / "cost-myths.json", "--talk", K8S["filename"]
    )
    assert result.returncode == 0, result.stdout
    talk = json.loads(db.read_bytes())["talks"][0]
    assert talk["pptx_path"] == "Devoxx/2023/Cost Myths.pptx"
    assert schema_issues("db-deck-binding", 1, talk["deck_binding"]) == []
    assert talk["deck_binding"]["decision"] == "proven"
    assert talk["deck_binding"]["extraction_sha256"] == qb.sha(extracted[1])
    report = run_cli("rvault-db", "preflight", db).json
    assert not [f for f in report["findings"] if f["code"].startswith("deck_binding")]


def test_preflight_re_proves_a_binding_made_by_hand(
    tmp_path: Path, extracted: tuple[Path, bytes]
) -> None:
    """A deck put on the wrong talk without record-deck is found by the sweep."""
    db = _vault(tmp_path, extracted)
    assert applied("record-deck", db, db.parent / "pptx" / "cost-myths.json").returncode == 0
    document = json.loads(db.read_bytes())
    document["talks"][1]["pptx_path"] = "Devoxx/2023/Cost Myths.pptx"
    document["pptx_catalog"][0]["talk_filename"] = JAVA["filename"]
    db.write_text(json.dumps(document), encoding="utf-8")
    result = run_cli("rvault-db", "preflight", db)
    assert result.returncode == 3
    finding = next(f for f in result.json["findings"] if f["code"] == "deck_binding_contradicted")
    assert finding["path"] == '$["talks"][1]["pptx_path"]' and finding["severity"] == "blocking"
    assert "title_conflicts" in finding["actual"]["reasons"]


def test_the_sweep_records_changed_proofs_and_never_a_contradicted_one(
    tmp_path: Path, extracted: tuple[Path, bytes], snapshot_file: Any
) -> None:
    db = _vault(tmp_path, extracted)
    extraction = db.parent / "pptx" / "cost-myths.json"
    assert applied("record-deck", db, extraction, "--talk", K8S["filename"]).returncode == 0
    current = run_cli("rvault-db", "deck-bindings", db)
    assert current.returncode == 2 and current.json["error"]["code"] == "bindings_current"
    # The catalog title was corrected since: the proof now rests on venue and year.
    document = json.loads(db.read_bytes())
    document["talks"][0]["title"] = "Cloud Budgets Without Tears"
    db.write_text(json.dumps(document), encoding="utf-8")
    swept = applied("deck-bindings", db)
    assert swept.returncode == 0, swept.stdout
    binding = json.loads(db.read_bytes())["talks"][0]["deck_binding"]
    assert (binding["decision"], binding["reasons"]) == ("proven", ["venue_and_year_agree"])
    # Re-dated to another year: contradicted, so nothing is recorded and preflight blocks.
    document = json.loads(db.read_bytes())
    document["talks"][0]["date"] = "2025-10-08"
    db.write_text(json.dumps(document), encoding="utf-8")
    before = snapshot_file(db)
    refused = run_cli("rvault-db", "deck-bindings", db)
    assert refused.returncode == 2 and "contradicted" in refused.stderr
    assert snapshot_file(db) == before
    report = run_cli("rvault-db", "preflight", db).json
    assert "deck_binding_contradicted" in report["summary"]["by_code"]
