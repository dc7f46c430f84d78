"""transcript fetch result, timing v2 and quality v1: what tracking-db and
returns-persistence refuse.

One ``rvault-transcript vtt-cleanup`` run on a generated caption file is
produced per module, inside a vault whose database names the transcript.
tracking-db reads the receipts in its real console script, ``rvault-db
status`` (each talk's ``transcript.quality`` / ``transcript.timing`` code;
a receipt it does not accept is reported with its code and the evidence is
not counted as current). returns-persistence reads the quality receipt in
``rvault-returns persist`` (a claimed batch whose transcripts came from
vtt-cleanup, ``_persist_producer.claimed_owner_vault``: the refusal must leave
the vault as it was) and the timing receipt in ``rvault-returns validate``
of the same batch with one ``timed_transcript`` citation (the only citation
that needs timing).
tracking-db reads the fetch result (vtt-cleanup's stdout, saved to a file)
in ``rvault-db register-transcript --fetch-result``, through the transcript
owner's ``api.read_fetch_result``: the refusal must leave the vault as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _persist_producer import RUN_DATE, claimed_owner_vault
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from _support import write_current_database
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli, run_cli_applied, tree_state
from rvault_transcript import api
from test_transcript_receipts_returns_persistence import caption_file

COVERS = [
    ("transcript-fetch-result", "transcript", "tracking-db"),
    ("transcript-timing", "transcript", "tracking-db"),
    ("transcript-quality", "transcript", "tracking-db"),
    ("transcript-timing", "transcript", "returns-persistence"),
    ("transcript-quality", "transcript", "returns-persistence"),
]
REFUSALS = {
    ("transcript-fetch-result", "transcript", "tracking-db"): [
        ("invalid_fetch_result", ["word_count"], -5),
        ("quality_path_mismatch", ["quality_path"], None),
        ("fetch_result_stale", ["word_count"], 491),
    ],
    ("transcript-timing", "transcript", "tracking-db"): [
        ("schema_violation", ["segments", 0, "start_seconds"], -1),
        (
            "artifact_hash_mismatch",
            ["provenance", "artifact_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
    ("transcript-quality", "transcript", "tracking-db"): [
        ("policy_floor_too_low", ["policy", "min_words"], 30),
        (
            "transcript_hash_mismatch",
            ["transcript_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
    ("transcript-timing", "transcript", "returns-persistence"): [
        ("timed_transcript_unavailable", ["segments", 0, "start_seconds"], -1),
        (
            "timed_transcript_unavailable",
            ["provenance", "artifact_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
    ("transcript-quality", "transcript", "returns-persistence"): [
        ("transcript_quality_receipt_unusable", ["policy", "min_words"], 30),
        (
            "transcript_quality_receipt_unusable",
            ["transcript_sha256"],
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
    ],
}
RECEIPTS = {"transcript-timing": api.timing_path_for, "transcript-quality": api.quality_path_for}


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(database, transcript, fetch result) of one vtt-cleanup inside a vault."""
    vault = tmp_path_factory.mktemp("transcript") / "vault"
    (vault / "transcripts").mkdir(parents=True)
    (vault / "transcripts" / "talk.en.vtt").write_text(caption_file(70), encoding="utf-8")
    out = vault / "transcripts" / "talk.txt"
    result = run_cli("rvault-transcript", "vtt-cleanup", vault / "transcripts" / "talk.en.vtt", out)
    assert result.returncode == 0, result.stdout + result.stderr
    talk = {"schema_version": 5, "filename": "2024-01-01-talk.md", "status": "pending",
            "transcript_path": "transcripts/talk.txt"}  # fmt: skip
    return write_current_database(vault, [talk]), out, result.json


@pytest.fixture(scope="module")
def claimed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(database, returns file) of a claimed batch citing vtt-cleanup transcripts."""
    db, _, returns = claimed_owner_vault(tmp_path_factory.mktemp("claimed"))
    return db, returns


@pytest.fixture(scope="module")
def timed(claimed: tuple[Path, Path]) -> Path:
    """The claimed batch with its first detection cited as ``timed_transcript``."""
    returns = claimed[1]
    batch = json.loads(returns.read_bytes())
    batch[0]["pattern_observations"]["patterns_detected"][0]["evidence_citations"][0]["channel"] = (
        "timed_transcript"
    )
    path = returns.with_name("timed-returns.json")
    path.write_text(json.dumps(batch), encoding="utf-8")
    return path


def _validate(db: Path, returns: Path) -> Any:
    return run_cli("rvault-returns", "validate", returns, "--db", db)


def test_a_timed_citation_validates_against_the_current_timing(
    claimed: tuple[Path, Path], timed: Path
) -> None:
    result = _validate(claimed[0], timed)
    assert result.returncode == 0, result.stdout + result.stderr


def _persist(db: Path, returns: Path) -> Any:
    return run_cli_applied("rvault-returns", "persist", db, returns, "--run-date", RUN_DATE)


def test_claimed_batch_with_current_receipts_persists(
    claimed: tuple[Path, Path], tmp_path: Path
) -> None:
    """The control of the persist cases, on a copy (persisting the shared vault would close it)."""
    db, returns = claimed
    shutil.copytree(db.parent, tmp_path / "vault")
    result = _persist(tmp_path / "vault" / db.name, returns)
    assert result.returncode == 0, result.stdout + result.stderr


def _status_transcript(db: Path) -> dict[str, Any]:
    result = run_cli("rvault-db", "status", db, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    (row,) = result.json["talks"]
    return row["transcript"]


def _register_fetched(db: Path, document: Path) -> Any:
    return run_cli(
        "rvault-db", "register-transcript", db, "--talk", "2024-01-01-talk.md",
        "--fetch-result", document,
    )  # fmt: skip


def test_produced_receipts_are_current_for_both_consumers(
    produced: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    db, out, fetch = produced
    assert schema_issues("transcript-fetch-result", 1, fetch) == []
    assert api.validate_fetch_result(fetch) == []
    # the control of the fetch-result case: the unchanged document registers (the path it
    # names is the one the talk already has, so the dry run changes nothing)
    document = tmp_path / "fetch.json"
    document.write_text(json.dumps(fetch), encoding="utf-8")
    registered = _register_fetched(db, document)
    assert registered.returncode == 0, registered.stdout + registered.stderr
    (change,) = registered.json["changes"]
    assert (change["after"], change["changed"]) == ("transcripts/talk.txt", False)
    assert (
        schema_issues("transcript-timing", 2, json.loads(api.timing_path_for(out).read_bytes()))
        == []
    )
    assert (
        schema_issues("transcript-quality", 2, json.loads(api.quality_path_for(out).read_bytes()))
        == []
    )
    row = _status_transcript(db)
    assert (row["state"], row["quality"], row["timing"]) == (
        "valid",
        "quality_current",
        "timing_current",
    )
    evidence = api.read_evidence(out)
    assert evidence.plain_quote and evidence.timed_quote


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(
    produced: tuple[Path, Path, dict[str, Any]],
    claimed: tuple[Path, Path],
    timed: Path,
    case: RefusalCase,
    tmp_path: Path,
) -> None:
    db, out, fetch = produced
    if case.artifact == "transcript-fetch-result":
        document = tmp_path / "fetch.json"
        document.write_text(json.dumps(mutated(fetch, case)), encoding="utf-8")
        before = tree_state(db.parent)
        result = _register_fetched(db, document)
        assert tree_state(db.parent) == before
        assert_refused(case, cli_codes(result))
        return
    if case.consumer == "returns-persistence":
        vault_db, returns = claimed
        receipt = RECEIPTS[case.artifact](vault_db.parent / "transcripts" / "2024-01-01-a.txt")
        with replaced(receipt, mutated(json.loads(receipt.read_bytes()), case)):
            before = tree_state(vault_db.parent)
            if case.artifact == "transcript-quality":
                result = _persist(vault_db, returns)
            else:
                result = _validate(vault_db, timed)
            assert tree_state(vault_db.parent) == before
        assert_refused(case, cli_codes(result))
        return
    receipt = RECEIPTS[case.artifact](out)
    changed = mutated(json.loads(receipt.read_bytes()), case)
    lane = "timing" if case.artifact == "transcript-timing" else "quality"
    with replaced(receipt, changed):
        if case.consumer == "tracking-db":
            row = _status_transcript(db)
            current = row[lane] in ("timing_current", "quality_current")
            codes = [row[lane]]
        else:
            evidence = api.read_evidence(out)
            reading = evidence.timing if lane == "timing" else evidence.quality
            current = reading.usable
            codes = [reading.code]
    assert not current, f"{case.consumer} still counts the {lane} receipt as current"
    assert_refused(case, codes)
