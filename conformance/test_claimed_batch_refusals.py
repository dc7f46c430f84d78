"""Claims, baselines, worker returns, ledgers and the catalog: what their consumers refuse.

Two vaults are produced once per module by the real tools: a claimed vault
(``rvault-db queue claim``, then ``rvault-returns scaffold`` completed as a
worker does, ``_returns_producer``) and a persisted one (the same, then
``rvault-returns persist``, ``_persist_producer``). Each negative case
changes one field of real output and runs the consumer's console script:

- returns-persistence: ``rvault-returns validate RETURNS --db DB`` on the
  claimed vault (claims and baselines reach it inside the database, read by
  ``rvault_tracking_db.api.read_database``; the owner code is reported beside
  ``database_invalid``).
- analysis-writer: ``rvault-analysis write RETURNS OUTDIR --db DB [--catalog]``
  on the persisted vault.
- tracking-db: ``rvault-db read DB`` (the persisted ledger) and
  ``rvault-db queue DB claim --catalog-fingerprint`` (the catalog, which it
  consumes as the fingerprint ``rvault-returns catalog`` prints).

Paths of artifacts that live inside the database (claims, baselines, ledgers)
start at the database root; worker returns at the batch array; catalog
entries at ``{file name: entry}``; the catalog report at its root.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _persist_producer import persisted_vault
from _queue_producer import build_vault
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from _returns_producer import claimed_vault, completed_return
from _support import catalog_fingerprint
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.catalog import default_catalog_dir
from rvault_testkit.plugin import run_cli

COVERS = [
    ("worker-return", "external", "returns-persistence"),
    ("worker-return", "external", "analysis-writer"),
    ("queue-claim", "tracking-db", "returns-persistence"),
    ("queue-claim", "tracking-db", "analysis-writer"),
    ("adherence-baseline", "tracking-db", "returns-persistence"),
    ("adherence-baseline", "tracking-db", "analysis-writer"),
    ("pattern-observations", "returns-persistence", "analysis-writer"),
    ("pattern-observations", "returns-persistence", "tracking-db"),
    ("pattern-catalog-entry", "returns-persistence", "analysis-writer"),
    ("pattern-catalog-entry", "returns-persistence", "tracking-db"),
]
REFUSALS = {
    ("worker-return", "external", "returns-persistence"): [
        ("pattern_score_mismatch", [0, "pattern_observations", "pattern_score", "score"], 7),
        ("claim_return_incompatible", [0, "return_schema_version"], 4),
        ("queue_claim_mismatch", [0, "queue_claim", "batch_id"], "another-batch"),
    ],
    ("worker-return", "external", "analysis-writer"): [
        ("receipt_mismatch", [0, "pattern_observations", "pattern_score", "score"], -1),
    ],
    ("queue-claim", "tracking-db", "returns-persistence"): [
        ("invalid_claim_state", ["talks", 0, "_queue_claim", "state"], "bogus"),
        ("invalid_type", ["talks", 0, "_queue_claim", "reprocess_generation"], 0),
    ],
    ("queue-claim", "tracking-db", "analysis-writer"): [
        ("invalid_claim_state", ["talks", 0, "_queue_claim", "state"], "bogus"),
        (
            "receipt_mismatch",
            ["talks", 0, "_queue_claim", "result_payload_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
    ("adherence-baseline", "tracking-db", "returns-persistence"): [
        (
            "aggregate_mismatch",
            ["talks", 0, "_queue_claim", "adherence_baseline", "pattern_score_sum"],
            5,
        ),
    ],
    ("adherence-baseline", "tracking-db", "analysis-writer"): [
        (
            "aggregate_mismatch",
            ["talks", 0, "_queue_claim", "adherence_baseline", "pattern_score_sum"],
            5,
        ),
    ],
    ("pattern-observations", "returns-persistence", "analysis-writer"): [
        (
            "unsupported_schema_version",
            ["talks", 0, "pattern_observations", "evidence_schema_version"],
            9,
        ),
        (
            "ledger_schema_violation",
            [
                "talks",
                0,
                "pattern_observations",
                "applicability_assessments",
                0,
                "evidence_citations",
                0,
                "line_start",
            ],
            0,
        ),
    ],
    # A ledger that breaks its contract is one talk's warning for tracking-db
    # (test_one_broken_ledger_is_reported_per_talk below); its version is structure.
    ("pattern-observations", "returns-persistence", "tracking-db"): [
        (
            "unsupported_schema_version",
            ["talks", 0, "pattern_observations", "evidence_schema_version"],
            9,
        ),
        (
            "invalid_value",
            ["talks", 0, "pattern_observations", "evidence_schema_version"],
            1,
        ),
    ],
    ("pattern-catalog-entry", "returns-persistence", "analysis-writer"): [
        ("catalog_invalid", ["narrative-arc.json", "type"], "bogus"),
    ],
    ("pattern-catalog-entry", "returns-persistence", "tracking-db"): [
        ("invalid_argument", ["fingerprint"], "not-a-sha256"),
    ],
}


@pytest.fixture(scope="module")
def claimed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(database, returns file) of a claimed batch, every return completed."""
    root = tmp_path_factory.mktemp("claimed")
    db, names = claimed_vault(root)
    returns = root / "returns.json"
    returns.write_text(json.dumps([completed_return(db, n) for n in names]), encoding="utf-8")
    return db, returns


@pytest.fixture(scope="module")
def persisted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(database, returns file) of a batch ``rvault-returns persist`` wrote."""
    root = tmp_path_factory.mktemp("persisted")
    db, _, _ = persisted_vault(root)
    return db, root / "returns.json"


@pytest.fixture(scope="module")
def pending(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with pending talks, for the catalog fingerprint a claim binds."""
    return build_vault(tmp_path_factory.mktemp("pending"))


def _validate(db: Path, returns: Path) -> Any:
    return run_cli("rvault-returns", "validate", returns, "--db", db)


def _write(db: Path, returns: Path, *catalog: str | Path) -> Any:
    out = db.parent / "analyses"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    return run_cli("rvault-analysis", "write", returns, out, "--db", db, *catalog)


def _claim_dry_run(db: Path, fingerprint: str) -> Any:
    return run_cli("rvault-db", "queue", db, "claim", "--run-id", "r9", "--batch-id", "b9",
                   "--now", "2026-08-03T09:00:00+00:00", "--limit", "5", "--catalog-fingerprint",
                   fingerprint)  # fmt: skip


def _catalog_report() -> dict[str, Any]:
    result = run_cli("rvault-returns", "catalog")
    assert result.returncode == 0, result.stdout + result.stderr
    return result.json


def test_unchanged_output_passes_every_consumer(
    claimed: tuple[Path, Path], persisted: tuple[Path, Path], pending: Path
) -> None:
    """The control for every case below: the same calls accept the unmutated output."""
    for ret in json.loads(claimed[1].read_bytes()):
        assert schema_issues("worker-return", 5, ret) == []
    assert _validate(*claimed).returncode == 0
    written = _write(*persisted)
    assert written.returncode == 0, written.stdout + written.stderr
    assert run_cli("rvault-db", "read", persisted[0]).returncode == 0
    talk = json.loads(persisted[0].read_bytes())["talks"][0]
    assert schema_issues("queue-claim", 5, talk["_queue_claim"]) == []
    assert schema_issues("adherence-baseline", 2, talk["_queue_claim"]["adherence_baseline"]) == []
    assert schema_issues("pattern-observations", 2, talk["pattern_observations"]) == []
    fingerprint, ids = catalog_fingerprint(default_catalog_dir())  # every entry passes v1
    report = _catalog_report()
    assert (report["fingerprint"], {e["id"] for e in report["entries"]}) == (fingerprint, ids)
    dry = _claim_dry_run(pending, report["fingerprint"])
    assert dry.returncode == 0, dry.stdout + dry.stderr


def _consume(case: RefusalCase, claimed: tuple[Path, Path], persisted: tuple[Path, Path],
             pending: Path, tmp_path: Path) -> Any:  # fmt: skip
    artifact, consumer = case.artifact, case.consumer
    if artifact == "pattern-catalog-entry" and consumer == "tracking-db":
        return _claim_dry_run(pending, mutated(_catalog_report(), case)["fingerprint"])
    if artifact == "pattern-catalog-entry":
        catalog = tmp_path / "catalog"
        shutil.copytree(default_catalog_dir(), catalog, ignore=shutil.ignore_patterns("__*"))
        name = case.path[0]
        entry = {name: json.loads((catalog / name).read_bytes())}
        (catalog / name).write_text(json.dumps(mutated(entry, case)[name]), encoding="utf-8")
        return _write(*persisted, "--catalog", catalog)
    db, returns = claimed if consumer == "returns-persistence" else persisted
    target = returns if artifact == "worker-return" else db
    with replaced(target, mutated(json.loads(target.read_bytes()), case)):
        if consumer == "returns-persistence":
            return _validate(db, returns)
        if consumer == "analysis-writer":
            return _write(db, returns)
        return run_cli("rvault-db", "read", db)


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(
    case: RefusalCase,
    claimed: tuple[Path, Path],
    persisted: tuple[Path, Path],
    pending: Path,
    tmp_path: Path,
) -> None:
    before = persisted[0].read_bytes(), pending.read_bytes()
    result = _consume(case, claimed, persisted, pending, tmp_path)
    assert (persisted[0].read_bytes(), pending.read_bytes()) == before
    assert_refused(case, cli_codes(result))


def test_one_broken_ledger_is_reported_per_talk(persisted: tuple[Path, Path]) -> None:
    """tracking-db reads a persisted database whose ledger breaks its contract, warning
    ``ledger_schema_violation`` at that member's path: the vault is not locked."""
    db = persisted[0]
    database = json.loads(db.read_bytes())
    database["talks"][0]["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"
    with replaced(db, database):
        result = run_cli("rvault-db", "read", db)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {
        "code": "ledger_schema_violation",
        "path": '$["talks"][0]["pattern_observations"]["pattern_outcomes"][0]["outcome"]',
    }.items() <= next(w for w in result.json["warnings"]).items()
