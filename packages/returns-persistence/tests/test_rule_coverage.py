"""Every stable code the validator can emit has a failing case in the corpus.

The codes are collected from the source (``.add(path, CODE, ...)`` and
``Issue(path, CODE, ...)`` calls), so a new rule without a corpus case fails
this test instead of going untested.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rvault_returns_persistence
from test_validate_corpus import INVALID

# Codes exercised by dedicated tests in test_validate_corpus.py / test_cli_validate.py.
DEDICATED = {
    "return_not_object",
    "duplicate_return",
    "batch_mixed_identity",
    "batch_empty",
    "batch_epoch_invalid",
    "video_artifact_not_promoted",
    "batch_key_mismatch",
    "batch_membership_mismatch",
    "claim_invalid",
    "claim_version_unknown",
    "wrong_type",
    "schema_violation",
}


def emitted_codes() -> set[str]:
    root = Path(rvault_returns_persistence.__file__).parent
    found: set[str] = set()
    for source in root.glob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            name = (
                node.func.attr
                if isinstance(node.func, ast.Attribute)
                else getattr(node.func, "id", "")
            )
            arg = node.args[1]
            if (
                name in ("add", "Issue")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
            ):
                found.add(arg.value)
    return found


def test_every_emitted_code_has_a_failing_case() -> None:
    covered = {case[3] for case in INVALID} | DEDICATED
    missing = sorted(emitted_codes() - covered)
    assert not missing, f"codes without a failing corpus case: {missing}"


def test_code_collection_sees_the_rules() -> None:
    codes = emitted_codes()
    assert len(codes) > 80
    assert {"queue_generation_mismatch", "not_evaluable_missing", "translation_required"} <= codes
