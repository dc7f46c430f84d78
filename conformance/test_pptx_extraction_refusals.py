"""pptx-extraction v4, native deck audit, rendered-page inspection: what their consumers refuse.

One ``rvault-pptx extract --rendered-pdf --inspected-pages --no-ocr`` run on a
generated deck is produced per module, stored in a vault as tracking-db
expects it. tracking-db reads it with its real console script ``rvault-db
record-deck`` (dry run: the refusal comes before any plan). returns-persistence
reads the extraction with the public reader ``api.read_extraction`` (the
declared code is the reading's status constant). The audit and its
rendered-page inspection reach returns-persistence the way a worker hands them
over: a second vault records the same deck (``rvault-db record-deck --talk
--apply``, config ``pptx_source_dir``) and holds the same PDF bytes as the
talk's authored slide PDF, the talk is claimed, its return is scaffolded and
completed, and the produced audit, changed in one field, goes into the
return's ``structured_data.native_deck_audit``; the real ``rvault-returns
validate`` recomputes it through ``rvault_pptx_evidence.api`` and must refuse
it with the declared code.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from _queue_producer import claim
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from _returns_producer import QUOTE, completed_return
from _support import pending_talk, write_current_database
from rvault_contracts.schemas import is_valid
from rvault_pptx_evidence import api
from rvault_returns_persistence.catalog import load_catalog
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
        ),
    ],
    ("pptx-rendered-page-inspection", "pptx-evidence", "returns-persistence"): [
        (
            "rendered_pdf_mismatch",
            ["native_deck_audit", "rendered_page_inspection", "rendered_pdf_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
}
STORED = "pptx/talk.extraction.json"
MEMBER = "2024-01-01-a.md"


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
    return {
        "db": db,
        "stored": stored,
        "document": result.json,
        "fresh": fresh,
        "probe": probe,
        "returns": _returns_vault(root, decks, stored, pdf),
    }


def _returns_vault(root: Path, decks: Path, stored: Path, pdf: Path) -> dict[str, Any]:
    """A claimed talk whose recorded deck and slide PDF are the produced ones, and its return."""
    vault = root / "returns-vault"
    lines = [f"{QUOTE} number 1"] + [f"another line number {n}" for n in range(2, 31)]
    db = write_current_database(vault, [pending_talk(vault, MEMBER, "\n".join(lines) + "\n")])
    database = json.loads(db.read_bytes())
    database["config"]["pptx_source_dir"] = str(decks)
    db.write_text(json.dumps(database, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (vault / STORED).parent.mkdir(parents=True)
    (vault / STORED).write_bytes(stored.read_bytes())
    (vault / "slides").mkdir()
    (vault / "slides" / "talk.pdf").write_bytes(pdf.read_bytes())  # the inspected PDF's bytes
    record = ("rvault-db", "record-deck", db, vault / STORED, "--talk", MEMBER)
    dry = run_cli(*record)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    applied = run_cli(*record, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert applied.returncode == 0, applied.stdout + applied.stderr
    claim(
        db, "2026-07-31T18:00:00+00:00", extra=("--catalog-fingerprint", load_catalog().fingerprint)
    )
    ret = completed_return(db, MEMBER)
    assert "native_deck" in ret["pattern_observations"]["evidence_sources"]
    ret["slides_local_path"] = "slides/talk.pdf"
    return {"db": db, "return": ret, "file": root / "RETURNS.json"}


def _validate(returns: dict[str, Any], audit: Any) -> Any:
    """``rvault-returns validate`` on the talk's return carrying ``audit``."""
    ret = copy.deepcopy(returns["return"])
    ret.setdefault("structured_data", {})["native_deck_audit"] = audit
    returns["file"].write_text(json.dumps([ret]), encoding="utf-8")
    return run_cli("rvault-returns", "validate", returns["file"], "--db", returns["db"])


def _record_deck(db: Path) -> Any:
    return run_cli("rvault-db", "record-deck", db, db.parent / STORED, "--talk", "t.md")


def test_produced_extraction_passes_schema_and_every_reader(produced: dict[str, Any]) -> None:
    document = produced["document"]
    assert is_valid("pptx-extraction", 5, document)
    assert is_valid("pptx-native-deck-audit", 2, document["native_deck_audit"])
    inspection = document["native_deck_audit"]["rendered_page_inspection"]
    assert is_valid("pptx-rendered-page-inspection", 1, inspection)
    dry = _record_deck(produced["db"])
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert api.read_extraction(produced["stored"].read_bytes()).status == api.CURRENT
    issues = api.native_deck_audit_issues(
        document["native_deck_audit"], produced["fresh"], pdf_probe=produced["probe"]
    )
    assert issues == []
    checked = _validate(produced["returns"], document["native_deck_audit"])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.json["ok"] is True


def _audit_codes(produced: dict[str, Any], changed: dict[str, Any]) -> list[str]:
    issues = api.native_deck_audit_issues(
        changed["native_deck_audit"], produced["fresh"], pdf_probe=produced["probe"]
    )
    return [i.code for i in issues]


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
        codes = cli_codes(_validate(produced["returns"], changed["native_deck_audit"]))
    assert_refused(case, codes)


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ([*AUDIT, "source_pptx_sha256"], api.AUDIT_MISMATCH),
        ([*INSPECTION, "rendered_pdf_sha256"], api.RENDERED_PDF_MISMATCH),
    ],
)
def test_owner_reader_names_each_changed_binding(
    produced: dict[str, Any], path: list[str], code: str
) -> None:
    """The code the consumer reports is the owner reader's own, for the same change."""
    edge = ("pptx-native-deck-audit", "pptx-evidence", "returns-persistence")
    case = RefusalCase(edge, code, tuple(path), "0" * 64)
    assert code in _audit_codes(produced, mutated(produced["document"], case))
