"""The jsonschema-rs fast acceptance never accepts what python-jsonschema refuses.

Run over every declared schema case of every registered contract it may
decide (``conformance/cases``); analysis-writer's ledger-check tests pin the
ledger's edge cases (surrogates, maxItems, dependentRequired, ...) on the same
implementation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.fast_accept import fast_accepts, fast_path_safe, fast_validator
from rvault_contracts.schemas import is_valid, load_schema, registry

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"


def _cases() -> list[Any]:
    params = []
    for artifact, entry in sorted(registry().items()):
        for version in sorted(entry.versions):
            path = CASES / artifact / f"v{version}.json"
            if not path.exists() or fast_validator(artifact, version) is None:
                continue
            for group in json.loads(path.read_text(encoding="utf-8")):
                for n, test in enumerate(group["tests"]):
                    params.append(
                        pytest.param(
                            artifact, version, test["data"], test["valid"],
                            id=f"{artifact}-v{version}-{n}",
                        )
                    )  # fmt: skip
    return params


CORPUS = _cases()


def test_the_ledger_contract_and_others_get_the_fast_path() -> None:
    decided = {(p.values[0], p.values[1]) for p in CORPUS}
    assert ("pattern-observations", 2) in decided
    assert len(decided) > 5


@pytest.mark.parametrize(("artifact", "version", "document", "valid"), CORPUS)
def test_fast_acceptance_agrees_with_the_declared_case(
    artifact: str, version: int, document: Any, valid: bool
) -> None:
    assert is_valid(artifact, version, document) is valid
    assert fast_accepts(artifact, version, document) is valid


def test_schemas_outside_the_pinned_keywords_get_no_verdict() -> None:
    assert not fast_path_safe({"type": "string", "format": "date"})
    assert not fast_path_safe({"allOf": [{"$ref": "urn:rvault:db-resource:v1"}]})
    assert fast_path_safe({"properties": {"format": {"type": "string"}}})
    unsafe = [
        (a, v) for a, e in registry().items() for v in e.versions
        if not fast_path_safe(load_schema(a, v))
    ]  # fmt: skip
    for artifact, version in unsafe:
        assert fast_validator(artifact, version) is None
        assert fast_accepts(artifact, version, {}) is False


def test_the_module_stays_light() -> None:
    """``rvault-db read`` imports it: no python-jsonschema, no importlib.resources."""
    import subprocess

    code = (
        "import sys, rvault_contracts.fast_accept as f;"
        "f.fast_validator('pattern-observations', 2);"
        "print(sorted(m for m in ('jsonschema', 'importlib.resources') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
