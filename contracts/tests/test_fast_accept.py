"""The jsonschema-rs fast acceptance never accepts what python-jsonschema refuses.

Run over every declared schema case of every registered contract it may
decide (``conformance/cases``); analysis-writer's ledger-check tests pin the
ledger's edge cases (surrogates, maxItems, dependentRequired, ...) on the same
implementation.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from rvault_contracts.ecma_regex import ecma_to_python
from rvault_contracts.fast_accept import (
    SPACES,
    fast_accepts,
    fast_path_safe,
    fast_validator,
    rust_pattern,
)
from rvault_contracts.schemas import is_valid, load_schema, registry

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"


def _cases_of(artifact: str, version: int) -> list[Any]:
    path = CASES / artifact / f"v{version}.json"
    if not path.exists() or fast_validator(artifact, version) is None:
        return []
    params = []
    for group in json.loads(path.read_text(encoding="utf-8")):
        for n, test in enumerate(group["tests"]):
            params.append(
                pytest.param(
                    artifact, version, test["data"], test["valid"],
                    id=f"{artifact}-v{version}-{n}",
                )
            )  # fmt: skip
    return params


def _cases() -> list[Any]:
    return [
        param
        for artifact, entry in sorted(registry().items())
        for version in sorted(entry.versions)
        for param in _cases_of(artifact, version)
    ]


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
    # a $ref to a registered contract is followed when the caller collects it
    refs: set[str] = set()
    assert fast_path_safe({"allOf": [{"$ref": "urn:rvault:db-resource:v1#/x"}]}, refs)
    assert refs == {"urn:rvault:db-resource:v1"}
    assert not fast_path_safe({"$ref": "https://example.org/schema"}, set())
    assert not fast_path_safe({"patternProperties": {"^a": {}}}, set())
    unsafe = {
        (a, v) for a, e in registry().items() for v in e.versions
        if fast_validator(a, v) is None
    }  # fmt: skip
    # Today: unevaluatedProperties (catalog-feedback-report), patternProperties
    # (tracking-database) and a $ref to the database (db-read-report).
    assert {("catalog-feedback-report", 1), ("tracking-database", 1)} <= unsafe
    assert ("db-read-report", 1) in unsafe
    for artifact, version in unsafe:
        assert fast_accepts(artifact, version, {}) is False
        pending, seen = [load_schema(artifact, version)], set()
        while pending:  # some schema it reaches uses a keyword outside FAST_KEYWORDS
            refs = set()
            if not fast_path_safe(pending.pop(), refs):
                break
            for uri in refs - seen:
                seen.add(uri)
                pending.append(load_schema(uri.split(":")[2], int(uri.split(":v")[-1])))
        else:
            raise AssertionError(f"{artifact} v{version} is within the pinned keywords")
    # every other schema compiles (a pattern Rust refused would silently cost
    # the whole schema its fast path): 71 of 74 versions today
    assert sum(len(e.versions) for e in registry().values()) - len(unsafe) >= 71


def test_a_ref_to_another_contract_reads_its_translated_schema() -> None:
    """db-goals-report v1 reaches db-mutation-report and write-report by $ref;
    jsonschema-rs reads them from the registry, patterns translated, and
    decides each declared case as python-jsonschema does."""
    from rvault_contracts.schemas import validator

    fast = fast_validator("db-goals-report", 1)
    assert fast is not None
    cases = [c.values for c in _cases_of("db-goals-report", 1)]
    assert any(valid for *_, valid in cases) and not all(valid for *_, valid in cases)
    for _artifact, _version, document, valid in cases:
        assert fast.is_valid(document) is valid
        assert validator("db-goals-report", 1).is_valid(document) is valid


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


def _patterns(schema: Any, found: set[str]) -> set[str]:
    if isinstance(schema, dict):
        if isinstance(schema.get("pattern"), str):
            found.add(schema["pattern"])
        for key, value in schema.items():
            if key not in ("enum", "const", "pattern"):
                _patterns(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _patterns(value, found)
    return found


REGISTERED_PATTERNS = sorted(
    {
        p
        for artifact, entry in registry().items()
        for version in entry.versions
        for p in _patterns(load_schema(artifact, version), set())
    }
)
# Strings the registered patterns match, which the probes then break.
SEEDS = ("b" * 64, "a0b1c2", "transcripts/a b.txt", "a", "index.html", "abc_1", "x-y.z",
         "abc_text", "1.2.3", "12:34", "2026-08-01", "2026-08-01T09:00:00+00:00",
         "2026-08-01T09:00:00.5Z", "talk.md", "one two three four five", "https://x.y/z",
         "ppt/slides/slide1.xml", "ppt/media/image1.png", "slides/a.pdf", "1280x720",
         "dQw4w9WgXcQ", "")  # fmt: skip
PROBE_CHARS = (
    SPACES + "".join(map(chr, range(128))) + "\ufeff\u200b\u180e\u0660\u00e9\u2060\U0001f600"
)


def _probes() -> list[str]:
    out = []
    for seed in SEEDS:
        out.append(seed)
        for char in PROBE_CHARS:
            out += [char, char * 3, char + seed, seed + char, seed[:1] + char + seed[1:]]
    return out


PROBES = _probes()


def test_spaces_is_every_code_point_python_calls_whitespace() -> None:
    assert all(re.match(r"\s", c) for c in SPACES)
    assert not any(re.match(r"\s", chr(i)) for i in range(0x3001, 0x110000))


def test_the_ledger_patterns_run_natively() -> None:
    """Every pattern of the evidence ledger contract is in the shared grammar."""
    ledger = _patterns(load_schema("pattern-observations", 2), set())
    assert ledger and all(rust_pattern(p) is not None for p in ledger)
    kept = [p for p in REGISTERED_PATTERNS if rust_pattern(p) is None]
    assert len(kept) < len(REGISTERED_PATTERNS) / 3, kept  # the rest keep the Python regex


@pytest.mark.parametrize("pattern", [p for p in REGISTERED_PATTERNS if rust_pattern(p) is not None])
def test_a_native_pattern_means_what_the_contracts_regex_means(pattern: str) -> None:
    native = jsonschema_rs.Draft202012Validator(
        {"type": "string", "pattern": rust_pattern(pattern)}
    )
    regex = re.compile(ecma_to_python(pattern))
    disagree = [p for p in PROBES if native.is_valid(p) != bool(regex.search(p))]
    assert disagree == []
    assert any(regex.search(p) for p in PROBES) and not all(regex.search(p) for p in PROBES)


# Each keyword added to FAST_KEYWORDS for schemas.schema_issues, at its edges:
# the two validators give the same verdict on every instance.
KEYWORD_EDGES = [
    ({"maxLength": 2}, ["", "ab", "abc", "\U0001f600\U0001f600", "e\u0301x", "\u00e9\u00e9", 5]),
    ({"maximum": 3}, [3, 3.0, 3.0000000000000004, 2**64, -(2**64), 2, "9", True, None]),
    ({"maximum": 0.1}, [0.1, 0.1 + 1e-17, 0.10000000000000002, 0, 1]),
    (
        {"minProperties": 1, "maxProperties": 2},
        [{}, {"a": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}, []],
    ),
    (
        {"propertyNames": {"pattern": "^[a-z_]+$", "maxLength": 3}},
        [{}, {"ab": 1}, {"abcd": 1}, {"a b": 1}, {"A": 1}, {"\u00e9": 1}],
    ),
    ({"propertyNames": {"enum": ["a", "b"]}}, [{"a": 1}, {"c": 1}, {"a": 1, "b": 2}]),
    (
        {"prefixItems": [{"type": "string"}, {"const": 1}], "items": False},
        [[], ["a"], ["a", 1], ["a", 1.0], ["a", True], ["a", 1, 2], [1]],
    ),
    ({"contains": {"const": "x"}}, [[], ["x"], ["y", "x"], ["y"], "x"]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 2, 2.5, 3, "a", 1.0]),
    ({"anyOf": [{"type": "null"}, {"type": "string", "minLength": 1}]}, [None, "", "a", 0, False]),
    ({"title": "t", "type": "string"}, ["a", 1]),
]


@pytest.mark.parametrize(("schema", "instances"), KEYWORD_EDGES, ids=lambda v: str(v)[:40])
def test_a_newly_pinned_keyword_means_the_same_in_both_validators(
    schema: dict[str, Any], instances: list[Any]
) -> None:
    from jsonschema import Draft202012Validator

    fast = jsonschema_rs.Draft202012Validator(schema)
    python = Draft202012Validator(schema)
    assert fast_path_safe(schema)
    assert [fast.is_valid(i) for i in instances] == [python.is_valid(i) for i in instances]
    assert any(python.is_valid(i) for i in instances)
    assert not all(python.is_valid(i) for i in instances)
