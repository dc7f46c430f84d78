"""The registry and the schema files agree, and every edge has a conformance test."""

from __future__ import annotations

import json

import pytest
from _support import (
    SCHEMAS_DIR,
    declared_covers,
    declared_refusals,
    refusal_test_runners,
    registry_edges,
)
from jsonschema import Draft202012Validator
from rvault_contracts.schemas import load_schema, registry, schema_id

KNOWN_PACKAGES = json.loads((SCHEMAS_DIR.parent / "registry.json").read_text())["packages"]
REGISTERED = [(entry.id, v) for entry in registry().values() for v in sorted(entry.versions)]


def test_every_schema_file_is_registered() -> None:
    on_disk = {p.relative_to(SCHEMAS_DIR).as_posix() for p in SCHEMAS_DIR.rglob("*.json")}
    registered = {path for entry in registry().values() for path in entry.versions.values()}
    assert on_disk - registered == set(), "schema files missing from registry.json"


def test_every_registered_file_exists() -> None:
    missing = [
        path
        for entry in registry().values()
        for path in entry.versions.values()
        if not (SCHEMAS_DIR / path).is_file()
    ]
    assert missing == []


@pytest.mark.parametrize(("artifact", "version"), REGISTERED)
def test_schema_is_valid_draft_2020_12_with_its_id(artifact: str, version: int) -> None:
    schema = load_schema(artifact, version)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == schema_id(artifact, version)


def test_producers_and_consumers_are_known_packages() -> None:
    for entry in registry().values():
        assert entry.producer in KNOWN_PACKAGES, entry.id
        assert entry.consumers, f"{entry.id} has no consumer"
        assert set(entry.consumers) <= set(KNOWN_PACKAGES), entry.id
        assert entry.producer not in entry.consumers, entry.id


def test_every_edge_has_a_conformance_test() -> None:
    covered = set().union(*declared_covers().values()) if declared_covers() else set()
    uncovered = sorted(registry_edges() - covered)
    assert uncovered == [], f"producer->consumer edges without a conformance test: {uncovered}"


def test_covers_declarations_name_real_edges() -> None:
    edges = registry_edges()
    for module, covers in declared_covers().items():
        stale = sorted(covers - edges)
        assert stale == [], f"{module} declares edges the registry does not have: {stale}"


def test_every_edge_has_a_negative_case() -> None:
    declared = {
        edge for refusals in declared_refusals().values() for edge, cases in refusals.items()
        if cases
    }  # fmt: skip
    missing = sorted(registry_edges() - declared)
    assert missing == [], f"producer->consumer edges without a declared refusal: {missing}"


def test_declared_refusals_are_well_formed_and_on_covered_edges() -> None:
    covers = declared_covers()
    for module, refusals in declared_refusals().items():
        for edge, cases in refusals.items():
            assert edge in covers.get(module, set()), f"{module}: {edge} is not in its COVERS"
            for case in cases:
                assert len(case) in (3, 4), f"{module}: {case} is not (code, path, value[, defect])"
                code, path, _value, *defect = case
                assert isinstance(code, str) and code, f"{module}: {case} names no code"
                assert isinstance(path, list | tuple) and path, f"{module}: {case} names no field"
                assert all(isinstance(defect_text, str) and defect_text for defect_text in defect)


def test_every_declared_refusal_is_asserted_by_a_test_of_its_module() -> None:
    unrun = sorted(module for module in declared_refusals() if not refusal_test_runners(module))
    assert unrun == [], (
        "modules whose REFUSALS no test runs through refusal_cases(REFUSALS) and "
        f"assert_refused: {unrun}"
    )
