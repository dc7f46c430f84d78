"""The one issue value: argument order, severities, report order and its JSON shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rvault_contracts.issues import ERROR, ISSUE_KEYS, WARNING, Collector, Issue, render
from rvault_contracts.schemas import (
    SCHEMA_ISSUE_KEYS,
    SCHEMA_VIOLATION,
    load_schema,
    registry,
    schema_issues,
)


def test_one_argument_order_code_path_message() -> None:
    issue = Issue("missing_field", '$["talks"][0]', "talk requires 'filename'")
    assert (issue.code, issue.path, issue.message) == (
        "missing_field",
        '$["talks"][0]',
        "talk requires 'filename'",
    )
    assert issue.severity == ERROR and issue.is_error and issue.validator is None
    with pytest.raises(TypeError):
        Issue("a", "$", "m", WARNING)  # type: ignore[misc]  # extras are keyword-only


def test_the_collector_keeps_order_and_separates_severities() -> None:
    issues = Collector()
    assert not issues and not issues.has_errors and len(issues) == 0
    issues.warn("invalid_visual_evidence", "$.b", "receipt is malformed")
    assert issues and not issues.has_errors and issues.warnings == tuple(issues)
    issues.add("wrong_type", "$.a", "a must be an object")
    issues.add("schema_violation", "$.c", "'x' is not of type 'integer'", validator="type")
    assert [i.code for i in issues] == ["invalid_visual_evidence", "wrong_type", "schema_violation"]
    assert issues.has_errors
    assert [i.code for i in issues.errors] == ["wrong_type", "schema_violation"]
    assert [i.code for i in issues.warnings] == ["invalid_visual_evidence"]
    assert issues.items[2].validator == "type"


def test_ordered_is_each_distinct_issue_once_by_path_code_message() -> None:
    issues = Collector()
    issues.add("b_code", "$.z", "second")
    issues.add("a_code", "$.z", "second")
    issues.add("a_code", "$.z", "first")
    issues.add("z_code", "$.a", "x")
    issues.add("a_code", "$.z", "first")
    assert [(i.path, i.code, i.message) for i in issues.ordered()] == [
        ("$.a", "z_code", "x"),
        ("$.z", "a_code", "first"),
        ("$.z", "a_code", "second"),
        ("$.z", "b_code", "second"),
    ]
    assert len(issues) == 5  # ordered() reads; it never drops what was added


def test_rendering_is_the_contract_keys_and_nothing_else() -> None:
    issue = Issue("claim_invalid", "$[0].queue_claim", "bad", severity=WARNING, validator="type")
    expected = {"code": "claim_invalid", "message": "bad", "path": "$[0].queue_claim"}
    assert issue.to_dict() == expected
    assert issue.to_dict([*ISSUE_KEYS, "severity"])["severity"] == "warning"
    with pytest.raises(ValueError, match="no field 'hint'"):
        issue.to_dict(["code", "hint"])
    issues = Collector([issue, Issue("a", "$", "m")])
    assert issues.to_json() == render(issues) == [i.to_dict() for i in issues]


def _issue_objects(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Closed object schemas that describe an issue (a code, a message and a path)."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and {"code", "message", "path"} <= properties.keys():
            yield where, node
        for key, value in node.items():
            yield from _issue_objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _issue_objects(value, f"{where}/{index}")


# Reports whose findings are an issue plus named context (a preflight finding carries its
# severity, the talk and the expected/actual values a reviewer compares): not the bare
# issue object, and declared here rather than guessed from their keys.
FINDING_REPORTS = frozenset({"db-preflight-report"})


def _registered_issue_objects() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for entry in registry().values():
        if entry.id in FINDING_REPORTS:
            continue
        for version in entry.versions:
            for where, node in _issue_objects(load_schema(entry.id, version), ""):
                found.append((f"{entry.id} v{version} {where}", node))
    return found


def test_every_registered_issue_object_is_the_rendered_shape() -> None:
    found = _registered_issue_objects()
    assert len(found) >= 8  # cli-failure, the db reports, the returns reports
    rendered = Issue("schema_violation", '$["a"][0]', "0 is less than the minimum of 1").to_dict()
    for where, node in found:
        assert node.get("additionalProperties") is False, where
        assert set(node["properties"]) == set(rendered) == set(ISSUE_KEYS), where
        assert set(node["required"]) == set(rendered), where


def test_schema_issues_are_issues_with_the_failed_keyword() -> None:
    problems = schema_issues("cli-failure", 1, {"ok": False, "error": {"code": "X", "path": 3}})
    assert all(isinstance(p, Issue) and p.code == SCHEMA_VIOLATION for p in problems)
    assert [(p.path, p.validator) for p in problems] == [
        ('$["error"]', "required"),
        ('$["error"]["code"]', "pattern"),
        ('$["error"]["path"]', "type"),
    ]
    # The refusal-context shape schema issues have always had.
    assert problems[2].to_dict(SCHEMA_ISSUE_KEYS) == {
        "message": "3 is not of type 'string', 'null'",
        "path": '$["error"]["path"]',
        "validator": "type",
    }
