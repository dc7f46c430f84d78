"""The owner's Python assessment and the published JSON Schemas agree.

Both run over the same corpus: every ``conformance/cases`` document of the
tracking-database schemas (database roots and every record version) plus
whole databases built from the spec example. Where a rule compares two
values or an external fact, JSON Schema cannot state it; those rules are
listed in ``BEYOND_SCHEMA`` and asserted explicitly (schema-valid, refused by
the owner with that exact code), so no disagreement is silent.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _support import CASES_DIR, load_cases
from rvault_contracts.issues import Collector
from rvault_contracts.schemas import is_valid, registry
from rvault_testkit.tracking_db.samples import example_database, example_talk
from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.config import assess_config
from rvault_tracking_db.assessment.pptx import assess_pptx
from rvault_tracking_db.assessment.records import (
    assess_confirmed_intent,
    assess_goal,
    assess_qr,
    assess_resource,
    assess_source_rejection,
    assess_thumbnail,
)
from rvault_tracking_db.assessment.talks import assess_talk, deep_claim_checker


def _record(assess: Callable[..., Any]) -> Callable[[Any, int], bool]:
    def check(document: Any, version: int) -> bool:
        issues = Collector()
        if assess is assess_talk:
            assess(document, "$", issues, missing_version=1, claim_checker=deep_claim_checker())
        elif assess is assess_config:
            assess(document, "$", issues, missing_version=1, database_parent=None)
        else:
            assess(document, "$", issues, missing_version=1)
        resolved = document.get("schema_version", 1) if isinstance(document, dict) else None
        return not issues.has_errors and resolved == version

    return check


def _database(document: Any, version: int) -> bool:
    assessment = assess_database(document)
    return assessment.ok and assessment.root_version == version


PYTHON: dict[str, Callable[[Any, int], bool]] = {
    "tracking-database": _database,
    "db-config": _record(assess_config),
    "db-talk": _record(assess_talk),
    "db-pptx-catalog": _record(assess_pptx),
    "db-qr-code": _record(assess_qr),
    "db-resource": _record(assess_resource),
    "db-thumbnail": _record(assess_thumbnail),
    "db-confirmed-intent": _record(assess_confirmed_intent),
    "db-improvement-goal": _record(assess_goal),
    "db-source-rejection": _record(assess_source_rejection),
}


def _corpus() -> list[Any]:
    params = []
    for artifact in sorted(PYTHON):
        for path in sorted((CASES_DIR / artifact).glob("v*.json")):
            version = int(path.stem[1:])
            for group in load_cases(path):
                for test in group["tests"]:
                    params.append(
                        pytest.param(
                            artifact,
                            version,
                            test["data"],
                            test["valid"],
                            id=f"{artifact}-v{version}-{test['description']}",
                        )
                    )
    return params


CORPUS = _corpus()


def test_corpus_covers_every_schema_version() -> None:
    covered = {(p.values[0], p.values[1]) for p in CORPUS}
    expected = {
        (artifact, version) for artifact in PYTHON for version in registry()[artifact].versions
    }
    assert expected <= covered
    assert any(p.values[3] for p in CORPUS) and any(not p.values[3] for p in CORPUS)


@pytest.mark.parametrize(("artifact", "version", "document", "valid"), CORPUS)
def test_python_assessment_and_schema_agree(
    artifact: str, version: int, document: Any, valid: bool
) -> None:
    schema_says = is_valid(artifact, version, document)
    python_says = PYTHON[artifact](document, version)
    assert schema_says == valid
    assert python_says == valid


def _with(mutator: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    database = example_database()
    mutator(database)
    return database


def _dup(database: dict[str, Any]) -> None:
    database["talks"].append(copy.deepcopy(database["talks"][0]))
    database["talks"][1]["_queue_claim"] = None


def _qr_mirror(database: dict[str, Any]) -> None:
    database["qr_codes"][0]["qr_png_rel_path"] = "stale.png"


def _float_version(database: dict[str, Any]) -> None:
    database["resources"][0]["schema_version"] = 1.0


def _storage_elsewhere(database: dict[str, Any]) -> None:
    database["config"]["vault_storage_path"] = "/somewhere/else"


def _claim_member(database: dict[str, Any]) -> None:
    database["talks"][0]["_queue_claim"]["adherence_baseline"]["excluded_filenames"] = ["other.md"]


def _ledger_outcome(database: dict[str, Any]) -> None:
    database["talks"][0]["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"


# Rules that compare two values or an outside fact: (mutator, owner code, path).
BEYOND_SCHEMA = [
    (_dup, "duplicate_talk_filename", '$["talks"][1]["filename"]'),
    (_qr_mirror, "qr_png_rel_path_mismatch", '$["qr_codes"][0]["qr_png_rel_path"]'),
    (_float_version, "invalid_schema_version", '$["resources"][0]["schema_version"]'),
    (_storage_elsewhere, "vault_storage_path_mismatch", '$["config"]["vault_storage_path"]'),
]


@pytest.mark.parametrize(
    ("mutator", "code", "path"), BEYOND_SCHEMA, ids=[c for _, c, _ in BEYOND_SCHEMA]
)
def test_cross_field_rules_are_owner_checked(mutator, code: str, path: str) -> None:
    database = _with(mutator)
    assert is_valid("tracking-database", 1, database)
    assessment = assess_database(database, database_parent="/vault")
    assert not assessment.ok
    assert (code, path) in {(i.code, i.path) for i in assessment.fatal}


def test_claim_cross_field_rule_is_owner_checked() -> None:
    database = _with(_claim_member)
    assert is_valid("tracking-database", 1, database)
    codes = {i.code for i in assess_database(database).fatal}
    assert codes, "the queue owner's deep claim check must refuse a claim that omits its own talk"


def test_spec_example_database_is_valid_both_ways() -> None:
    database = example_database()
    assert is_valid("tracking-database", 1, database)
    assert assess_database(database).ok
    talk = example_talk(claimed=True)
    assert is_valid("db-talk", 5, talk)


def test_the_ledger_contract_is_owner_checked_per_talk() -> None:
    """The ledger rule is another contract's: db-talk v5 constrains only the ledger's
    version, and the owner validates the ledger against the pattern-observations
    schema that version names, as one talk's warning (the database stays usable)."""
    database = _with(_ledger_outcome)
    assert is_valid("tracking-database", 1, database)
    assessment = assess_database(database, database_parent="/vault")
    assert assessment.ok
    path = '$["talks"][0]["pattern_observations"]["pattern_outcomes"][0]["outcome"]'
    assert ("ledger_schema_violation", path) in {(i.code, i.path) for i in assessment.warnings}
