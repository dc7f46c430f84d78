"""The plan decoder and the published ``db-mutation-plan`` v1 schema agree
on every conformance case (the writer-side record checks included)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import is_valid
from rvault_tracking_db.mutations.goal_ops import validate_goal
from rvault_tracking_db.mutations.metadata_ops import WRITABLE_FIELDS
from rvault_tracking_db.mutations.plan import RECORD_KINDS, parse_plan
from rvault_tracking_db.mutations.record_ops import validate_record

CASES = (
    Path(__file__).resolve().parents[3] / "conformance" / "cases" / "db-mutation-plan" / "v1.json"
)


def _python_accepts(document: Any) -> bool:
    try:
        plan = parse_plan(document)
        for mutation in plan.mutations:
            if mutation.kind in RECORD_KINDS:
                validate_record(mutation.kind, mutation.body["record"], mutation.path)
            if mutation.kind == "upsert_improvement_goal":
                validate_goal(mutation.body["record"], mutation.path)
            if mutation.kind == "apply_reviewed_metadata":
                assert set(mutation.body["fields"]) <= set(WRITABLE_FIELDS)
    except (Refusal, AssertionError):
        return False
    return True


def _cases() -> list[Any]:
    groups = json.loads(CASES.read_text(encoding="utf-8"))
    return [
        pytest.param(t["data"], t["valid"], id=t["description"]) for g in groups for t in g["tests"]
    ]


@pytest.mark.parametrize(("document", "valid"), _cases())
def test_decoder_and_schema_agree(document: Any, valid: bool) -> None:
    assert is_valid("db-mutation-plan", 1, document) is valid
    assert _python_accepts(document) is valid


def test_help_lists_the_owner_commands(capsys: pytest.CaptureFixture[str]) -> None:
    from rvault_tracking_db.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("read", "mutate", "migrate"))
