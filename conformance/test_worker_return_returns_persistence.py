"""worker-return: external (the AI worker) -> returns-persistence.

Claims come from the real ``rvault-db queue claim``; each return is produced
by ``rvault-returns scaffold`` and completed with real observations, then
read by the consumer's gate, the installed ``rvault-returns validate``.
"""

from __future__ import annotations

import json
from pathlib import Path

from _returns_producer import claimed_vault, completed_return
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli

COVERS = [("worker-return", "external", "returns-persistence")]


def test_scaffolded_and_completed_returns_pass_validate(tmp_path: Path) -> None:
    db, names = claimed_vault(tmp_path)
    returns = [completed_return(db, name) for name in names]
    for ret in returns:
        assert schema_issues("worker-return", 5, ret) == []
    batch = tmp_path / "batch-returns.json"
    batch.write_text(json.dumps(returns), encoding="utf-8")
    result = run_cli("rvault-returns", "validate", batch, "--db", db)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("returns-validation-report", 1, report) == []
    assert [g["status"] for g in report["pattern_scoring_generations"]] == ["current", "current"]


def test_a_tampered_generation_is_refused(tmp_path: Path) -> None:
    db, names = claimed_vault(tmp_path)
    returns = [completed_return(db, name) for name in names]
    returns[0]["queue_claim"]["reprocess_generation"] += 1
    batch = tmp_path / "batch-returns.json"
    batch.write_text(json.dumps(returns), encoding="utf-8")
    result = run_cli("rvault-returns", "validate", batch, "--db", db)
    assert result.returncode == 2
    assert [e["code"] for e in result.json["returns"][0]["errors"]] == ["queue_generation_mismatch"]
