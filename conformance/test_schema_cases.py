"""Every registered schema accepts and rejects its conformance fixtures."""

from __future__ import annotations

import pytest
from _support import CASES_DIR, case_files, load_cases
from rvault_contracts.schemas import registry, schema_id, validator

SCHEMA_IDS = {
    schema_id(entry.id, version): (entry.id, version)
    for entry in registry().values()
    for version in entry.versions
}


def _all_tests() -> list[tuple[str, str, object, bool]]:
    rows = []
    for path in case_files():
        for group in load_cases(path):
            ref = group["schema"]["$ref"]
            for test in group["tests"]:
                name = f"{path.parent.name}/{path.name}: {group['description']}"
                rows.append(
                    (
                        f"{name}: {test['description']}",
                        ref,
                        test["data"],
                        test["valid"],
                    )
                )
    return rows


ROWS = _all_tests()


@pytest.mark.parametrize(("name", "ref", "data", "valid"), ROWS, ids=[r[0] for r in ROWS])
def test_case(name: str, ref: str, data: object, valid: bool) -> None:
    assert ref in SCHEMA_IDS, f"{name}: unknown schema {ref}"
    assert validator(*SCHEMA_IDS[ref]).is_valid(data) is valid, name


@pytest.mark.parametrize("schema_ref", sorted(SCHEMA_IDS))
def test_each_schema_version_has_accepting_and_rejecting_cases(schema_ref: str) -> None:
    artifact, version = SCHEMA_IDS[schema_ref]
    path = CASES_DIR / artifact / f"v{version}.json"
    assert path.is_file(), f"missing conformance cases {path.relative_to(CASES_DIR.parent)}"
    verdicts = {
        test["valid"]
        for group in load_cases(path)
        if group["schema"]["$ref"] == schema_ref
        for test in group["tests"]
    }
    assert verdicts == {True, False}, f"{schema_ref} needs both valid and invalid cases"
