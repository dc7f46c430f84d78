"""pptx-extraction v4, native deck audit, rendered-page inspection: what their consumers refuse.

One ``rvault-pptx extract --rendered-pdf --inspected-pages --no-ocr`` run on a
generated deck is produced per module, stored in a vault as tracking-db
expects it. tracking-db reads it with its real console script ``rvault-db
record-deck`` (dry run: the refusal comes before any plan). returns-persistence
has no pptx reader of its own (it only names ``native_deck_audit`` in its
return vocabulary), so its cases run the public reader it is meant to use:
``api.read_extraction`` (the declared code is the reading's status constant)
and ``api.match_native_deck_audit`` against a fresh ``recompute_extraction``
and ``probe_rendered_pdf`` of the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from _support import write_current_database
from rvault_contracts.schemas import is_valid
from rvault_pptx_evidence import api
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

COVERS = [
    ("pptx-extraction", "pptx-evidence", "tracking-db"),
    ("pptx-extraction", "pptx-evidence", "returns-persistence"),
    ("pptx-native-deck-audit", "pptx-evidence", "returns-persistence"),
    ("pptx-rendered-page-inspection", "pptx-evidence", "returns-persistence"),
]
AUDIT = ["native_deck_audit"]
INSPECTION = [*AUDIT, "rendered_page_inspection"]
REFUSALS = {
    ("pptx-extraction", "pptx-evidence", "tracking-db"): [
        ("extraction_not_current", ["schema_version"], 3),
        (
            "deck_fingerprint_mismatch",
            ["input_fingerprint", "digest"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
    ("pptx-extraction", "pptx-evidence", "returns-persistence"): [
        ("needs_reextraction", ["schema_version"], 3),
        ("invalid", ["slide_count"], -1),
    ],
    ("pptx-native-deck-audit", "pptx-evidence", "returns-persistence"): [
        (
            "native_deck_audit_mismatch",
            ["native_deck_audit", "source_pptx_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
            "returns-persistence has no reader of the held audit; the pptx-evidence reader "
            "it would use, api.match_native_deck_audit, refuses with free-text issues and no "
            "stable code",
        ),
    ],
    ("pptx-rendered-page-inspection", "pptx-evidence", "returns-persistence"): [
        (
            "rendered_pdf_mismatch",
            ["native_deck_audit", "rendered_page_inspection", "rendered_pdf_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
            "returns-persistence has no reader of the held audit; the pptx-evidence reader "
            "it would use, api.match_native_deck_audit, refuses with free-text issues and no "
            "stable code",
        ),
    ],
}
STORED = "pptx/talk.extraction.json"


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("pptx")
    decks = root / "decks"
    deck = decks / "Conf" / "2024" / "Talk.pptx"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(sample_decks.rich_deck())
    pdf = deck.with_suffix(".pdf")
    pdf.write_bytes(sample_decks.pdf_bytes(8))
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", decks,
                     "--rendered-pdf", pdf, "--inspected-pages", "1-8")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    vault = root / "vault"
    stored = vault / STORED
    stored.parent.mkdir(parents=True)
    stored.write_text(result.stdout, encoding="utf-8")
    db = write_current_database(vault, [{"schema_version": 5, "filename": "t.md",
                                         "status": "pending"}])  # fmt: skip
    database = json.loads(db.read_bytes())
    database["config"]["pptx_source_dir"] = str(decks)
    db.write_text(json.dumps(database, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    fresh, probe = api.recompute_extraction(deck), api.probe_rendered_pdf(pdf)
    return {"db": db, "stored": stored, "document": result.json, "fresh": fresh, "probe": probe}


def _record_deck(db: Path) -> Any:
    return run_cli("rvault-db", "record-deck", db, STORED, "--talk", "t.md")


def test_produced_extraction_passes_schema_and_every_reader(produced: dict[str, Any]) -> None:
    document = produced["document"]
    assert is_valid("pptx-extraction", 4, document)
    assert is_valid("pptx-native-deck-audit", 1, document["native_deck_audit"])
    inspection = document["native_deck_audit"]["rendered_page_inspection"]
    assert is_valid("pptx-rendered-page-inspection", 1, inspection)
    dry = _record_deck(produced["db"])
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert api.read_extraction(produced["stored"].read_bytes()).status == api.CURRENT
    issues = api.match_native_deck_audit(
        document["native_deck_audit"], produced["fresh"], pdf_probe=produced["probe"]
    )
    assert issues == []


def _audit_issues(produced: dict[str, Any], changed: dict[str, Any]) -> list[str]:
    return api.match_native_deck_audit(
        changed["native_deck_audit"], produced["fresh"], pdf_probe=produced["probe"]
    )


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(produced: dict[str, Any], case: RefusalCase) -> None:
    changed = mutated(produced["document"], case)
    if case.consumer == "tracking-db":
        before = produced["db"].read_bytes()
        with replaced(produced["stored"], changed):
            codes = cli_codes(_record_deck(produced["db"]))
        assert produced["db"].read_bytes() == before
    elif case.artifact == "pptx-extraction":
        reading = api.read_extraction(json.dumps(changed))
        assert not reading.usable_for_current_analysis
        codes = [reading.status]
    else:
        assert _audit_issues(produced, changed), "the audit reader must see the change"
        codes = []  # match_native_deck_audit names no code
    assert_refused(case, codes)


@pytest.mark.parametrize(
    "path", [[*AUDIT, "source_pptx_sha256"], [*INSPECTION, "rendered_pdf_sha256"]]
)
def test_audit_reader_sees_each_changed_binding(produced: dict[str, Any], path: list[str]) -> None:
    """What the two xfailed cases do get today: a refusal without a stable code."""
    edge = ("pptx-native-deck-audit", "pptx-evidence", "returns-persistence")
    case = RefusalCase(edge, "", tuple(path), "0" * 64)
    assert _audit_issues(produced, mutated(produced["document"], case)) != []
