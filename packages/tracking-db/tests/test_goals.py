"""``rvault-db goals``: a speaker sets goals, later batches move them, verification records it.

The vault starts with one persisted batch (four talks, processed 2026-07-01)
of the spec's example talk shape; each talk's evidence ledger says whether
``shortchanged`` (an antipattern to reduce) and ``callback`` (a pattern to
use more) were detected. Later batches are talks as persist leaves them:
processed, stamped with the current generation, a completed claim naming
their run and batch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import (
    HEX_B,
    example_database,
    example_goal,
    example_ledger,
    example_talk,
)

PATTERNS = ("callback", "shortchanged")
counter = iter(range(10_000))


def talk(
    day: str, batch: str, detected: set[str], fingerprint: str | None = None
) -> dict[str, Any]:
    n = next(counter)
    youtube_id = f"talk{n:07d}"
    record = example_talk(f"{day}-{batch}-{n:04d}.md", youtube_id=youtube_id)
    outcomes = [
        {"pattern_id": p, "outcome": "detected" if p in detected else "undetected"}
        for p in PATTERNS
    ]
    record["pattern_observations"] = example_ledger(outcomes, youtube_id=youtube_id)
    record["pattern_score"] = record["pattern_observations"]["pattern_score"]
    record["processed_date"] = f"{day}T09:00:00+00:00"
    record["_queue_claim"] = None
    if fingerprint is not None:
        record["pattern_catalog_fingerprint"] = fingerprint
    return record


def batch(day: str, name: str, detections: list[set[str]], **options: Any) -> list[dict[str, Any]]:
    return [talk(day, name, d, **options) for d in detections]


def write(
    path: Path, talks: list[dict[str, Any]], goals: list[dict[str, Any]] | None = None
) -> Path:
    db = example_database(claimed=False)
    db["talks"] = talks
    db["improvement_goals"] = goals or []
    path.write_bytes(artifact_bytes(db))
    return path


def add_talks(path: Path, talks: list[dict[str, Any]]) -> None:
    db = json.loads(path.read_bytes())
    db["talks"] += talks
    path.write_bytes(artifact_bytes(db))


def goals(*args: object) -> Any:
    result = run_cli("rvault-db", "goals", *args)
    assert result.returncode in (0, 2), result.stderr
    return result


def applied(*args: object) -> dict[str, Any]:
    """Dry run, check it names its apply, then run exactly that apply."""
    dry = goals(*args)
    assert dry.returncode == 0, dry.stdout
    report = dry.json
    assert schema_issues("db-goals-report", 1, report) == []
    assert (
        report["mutation"]["mode"] == "dry-run" and report["mutation"]["database_written"] is False
    )
    command = report["next_command"]
    assert command.endswith(f"--apply --expected-sha256 {report['input_sha256']}")
    done = goals(*args, "--apply", "--expected-sha256", report["input_sha256"])
    assert done.returncode == 0, done.stdout
    assert schema_issues("db-goals-report", 1, done.json) == []
    assert done.json["next_command"] is None
    return done.json


BASE = [{"shortchanged"}, {"shortchanged"}, {"shortchanged", "callback"}, set()]
RUSHED = ("--id", "fewer-rushed-endings", "--kind", "antipattern", "--pattern", "shortchanged",
          "--issue", "rushing the final third", "--target", "0.25",
          "--set-date", "2026-07-02")  # fmt: skip
CALLBACKS = ("--id", "more-callbacks", "--kind", "underuse", "--pattern", "callback",
             "--issue", "close by returning to the opening", "--target", "0.75",
             "--set-date", "2026-07-02")  # fmt: skip


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(tmp_path / "tracking-database.json", batch("2026-07-01", "b0", BASE))


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["id"]: g for g in report["goals"]}


def test_a_speaker_sets_two_goals_and_later_batches_move_them(vault: Path) -> None:
    applied("set", vault, *RUSHED)
    applied("set", vault, *CALLBACKS)
    stored = {g["id"]: g for g in json.loads(vault.read_bytes())["improvement_goals"]}
    rushed = stored["fewer-rushed-endings"]
    assert rushed["schema_version"] == 2 and rushed["status"] == "active"
    assert rushed["baseline_value"] == "3 of 4 talks (0.75)"
    assert rushed["target"] == "at or below 0.25"
    frozen = rushed["baseline_provenance"]["pattern_baseline"]
    assert frozen["active_batch_excluded"] is False and frozen["excluded_filenames"] == []
    assert frozen["eligible_talk_count"] == 4
    assert stored["more-callbacks"]["baseline_value"] == "1 of 4 talks (0.25)"
    assert stored["more-callbacks"]["antipattern_id"] is None

    # Nothing persisted since the goals were set: verify has nothing to judge or write.
    idle = goals("verify", vault, "--checked-at", "2026-07-15").json
    assert idle["mutation"] is None and idle["next_command"] is None
    assert {g["id"]: g["reasons"] for g in idle["goals"]} == {
        "fewer-rushed-endings": ["no_talks_since_set_date"],
        "more-callbacks": ["no_talks_since_set_date"],
    }

    add_talks(
        vault, batch("2026-08-01", "b1", [{"shortchanged"}, {"shortchanged"}, {"callback"}, set()])
    )
    first = applied("verify", vault, "--checked-at", "2026-08-01")
    after_b1 = by_id(first)
    assert after_b1["fewer-rushed-endings"]["status"] == "improving"  # 0.75 -> 0.50, target 0.25
    assert after_b1["fewer-rushed-endings"]["current_value"] == "2 of 4 talks (0.50)"
    assert after_b1["more-callbacks"]["status"] == "stalled"  # 0.25 -> 0.25
    assert len(after_b1["more-callbacks"]["talks_counted"]) == 4

    add_talks(vault, batch("2026-09-01", "b2", [{"shortchanged"}, {"callback"}, set(), set()]))
    second = applied("verify", vault, "--checked-at", "2026-09-01")
    after_b2 = by_id(second)
    assert after_b2["fewer-rushed-endings"]["status"] == "improving"  # 3 of 8
    assert after_b2["fewer-rushed-endings"]["current_value"] == "3 of 8 talks (0.38)"
    assert after_b2["more-callbacks"]["status"] == "stalled"  # 2 of 8
    assert [p["value"] for p in after_b2["fewer-rushed-endings"]["trend"]] == [0.5, 0.38]
    assert [p["talk_count"] for p in after_b2["more-callbacks"]["trend"]] == [4, 8]

    stored_after = {g["id"]: g for g in json.loads(vault.read_bytes())["improvement_goals"]}
    rushed_after = stored_after["fewer-rushed-endings"]
    for fixed in ("baseline_value", "target", "issue", "set_date", "baseline_provenance", "metric"):
        assert rushed_after[fixed] == rushed[fixed]
    assert rushed_after["status"] == "improving"
    assert rushed_after["verification_state"] == "current"
    assert rushed_after["last_checked"] == "2026-09-01"
    assert rushed_after["checked_by"] == "rvault-db goals verify"

    # Re-verifying the same vault writes nothing: the records already say it.
    again = goals("verify", vault, "--checked-at", "2026-09-02").json
    assert again["mutation"] is None and all(not g["writes"] for g in again["goals"])
    listing = goals("list", vault).json
    assert by_id(listing)["more-callbacks"]["status"] == "stalled"


def test_a_goal_is_never_judged_on_talks_that_predate_it(vault: Path) -> None:
    applied("set", vault, *RUSHED)
    same_day = batch("2026-07-02", "late", [set(), set(), set()])  # the day it was set
    add_talks(vault, same_day)
    report = goals("verify", vault, "--checked-at", "2026-07-03").json
    rushed = by_id(report)["fewer-rushed-endings"]
    assert rushed["reasons"] == ["no_talks_since_set_date"] and rushed["talks_counted"] == []
    assert report["mutation"] is None


def test_a_new_catalog_generation_is_reported_and_never_written(vault: Path) -> None:
    applied("set", vault, *RUSHED)
    add_talks(vault, batch("2026-08-01", "b1", [set(), set()], fingerprint=HEX_B))
    before = vault.read_bytes()
    report = goals("verify", vault, "--checked-at", "2026-08-02").json
    rushed = by_id(report)["fewer-rushed-endings"]
    assert rushed["decision"] == "needs_rebaseline"
    assert rushed["reasons"] == ["catalog_generation_changed"]
    assert rushed["status"] == "active" and rushed["writes"] is False
    assert report["mutation"] is None and vault.read_bytes() == before


def test_v1_goals_stay_readable_report_only_and_never_become_v2(tmp_path: Path) -> None:
    legacy = example_goal(1)
    path = write(tmp_path / "db.json", batch("2026-07-01", "b0", BASE), goals=[legacy])
    report = goals("verify", path, "--checked-at", "2026-08-02").json
    [row] = report["goals"]
    assert row["schema_version"] == 1 and row["decision"] == "unverifiable"
    assert report["mutation"] is None
    assert json.loads(path.read_bytes())["improvement_goals"] == [legacy]


def test_revise_retires_the_old_record_and_supersedes_it(vault: Path) -> None:
    applied("set", vault, *RUSHED)
    old = json.loads(vault.read_bytes())["improvement_goals"][0]
    applied(
        "revise", vault, "--id", "fewer-rushed-endings", "--new-id", "fewer-rushed-endings-2",
        "--kind", "antipattern", "--pattern", "shortchanged", "--issue", "rushing the end",
        "--target", "0.5", "--set-date", "2026-07-03",
    )  # fmt: skip
    stored = {g["id"]: g for g in json.loads(vault.read_bytes())["improvement_goals"]}
    assert stored["fewer-rushed-endings"] == {**old, "status": "retired"}
    assert stored["fewer-rushed-endings-2"]["supersedes_goal_id"] == "fewer-rushed-endings"
    assert stored["fewer-rushed-endings-2"]["target"] == "at or below 0.50"
    applied("retire", vault, "--id", "fewer-rushed-endings-2")
    again = goals("retire", vault, "--id", "fewer-rushed-endings-2")
    assert again.returncode == 2 and again.json["error"]["code"] == "goal_not_active"


@pytest.mark.parametrize(
    ("args", "code", "path"),
    [
        ((*RUSHED[:5], "shortchange", *RUSHED[6:]), "goal_metric_unavailable", "--pattern"),
        (
            (*RUSHED[:-4], "--target", "3", "--set-date", "2026-07-02"),
            "goal_target_invalid",
            "--target",
        ),
        (
            ("--id", "x", "--kind", "other", "--issue", "i", "--target", "t"),
            "goal_option_required",
            "--metric",
        ),
    ],
)
def test_set_refusals_name_the_option_and_change_nothing(
    vault: Path, snapshot_file: Any, args: tuple[str, ...], code: str, path: str
) -> None:
    before = snapshot_file(vault)
    result = goals("set", vault, *args)
    assert result.returncode == 2
    assert result.json["error"]["code"] == code and result.json["error"]["path"] == path
    assert result.json["hint"]
    assert snapshot_file(vault) == before


def test_closest_matches_for_a_mistyped_pattern_or_goal(vault: Path) -> None:
    typo = goals("set", vault, *RUSHED[:5], "shortchange", *RUSHED[6:]).json
    assert typo["closest"] == ["shortchanged"] and "did you mean shortchanged" in typo["hint"]
    applied("set", vault, *RUSHED)
    missing = goals("retire", vault, "--id", "fewer-rushed-ending").json
    assert missing["error"]["code"] == "goal_not_found"
    assert missing["closest"] == ["fewer-rushed-endings"]


def test_apply_refusals_leave_bytes_and_inode(vault: Path, snapshot_file: Any) -> None:
    applied("set", vault, *RUSHED)
    before = snapshot_file(vault)
    duplicate = goals("set", vault, *RUSHED)
    assert (
        duplicate.json["error"]["code"] == "goal_exists"
        and duplicate.json["error"]["path"] == "--id"
    )
    stale = goals("set", vault, *CALLBACKS, "--apply", "--expected-sha256", "0" * 64)
    assert stale.returncode == 2 and stale.json["error"]["code"] == "expected_sha256_mismatch"
    assert snapshot_file(vault) == before


def test_the_mutation_plan_keeps_the_yardstick_fixed(
    vault: Path, tmp_path: Path, snapshot_file: Any
) -> None:
    applied("set", vault, *RUSHED)
    stored = json.loads(vault.read_bytes())["improvement_goals"][0]
    plans = {
        "goal_fixed_fields": {
            "kind": "upsert_improvement_goal",
            "record": {**stored, "target": "at or below 0.60"},
            "expect": stored,
        },
        "goal_fixed_fields_v": {
            "kind": "patch_improvement_goal_verification",
            "id": stored["id"],
            "set": {"baseline_value": "0 of 4 talks (0.00)"},
            "expect": {"baseline_value": stored["baseline_value"]},
        },
        "expectation_failed": {
            "kind": "patch_improvement_goal_verification",
            "id": stored["id"],
            "set": {"status": "achieved"},
            "expect": {"status": "improving"},
        },
    }
    before = snapshot_file(vault)
    for code, mutation in plans.items():
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"schema_version": 1, "mutations": [mutation]}))
        # The plan contract already says a patch sets only verification fields.
        schema_ok = schema_issues("db-mutation-plan", 1, json.loads(plan.read_text())) == []
        assert schema_ok == (code != "goal_fixed_fields_v")
        result = run_cli("rvault-db", "mutate", vault, plan)
        assert result.returncode == 2, result.stdout
        assert result.json["error"]["code"] == code.removesuffix("_v")
    assert snapshot_file(vault) == before
