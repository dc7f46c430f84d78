"""``rvault-db queue DB claim|recover|inspect`` through the console script and in-process.

Every refusal is asserted three ways: exit 2 with one ``ok: false`` JSON
object carrying a stable code, and the database's bytes *and* inode (plus
mtime/ctime) unchanged.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_tracking_db.cli import main

T1 = "2026-07-31T18:00:00+00:00"
T2 = "2026-07-31T19:00:00+00:00"
T3 = "2026-07-31T20:00:00+00:00"


def _vault(tmp_path: Path, extra: list[dict] | None = None) -> Path:
    vault = tmp_path / "vault"
    talks = [
        qb.bind_evidence(vault, qb.processed_talk(f"2023-0{i}-01-done.md", i)) for i in range(1, 5)
    ]
    talks += [
        qb.remote_talk("2024-01-01-a.md", "dQw4w9WgXcQ"),
        qb.pending_talk("2024-02-01-b.md", transcript_path="transcripts/b.txt"),
        qb.pending_talk("2024-03-01-nosrc.md"),
        qb.pending_talk(
            "2024-04-01-c.md",
            status="needs-reprocessing",
            reprocess_generation=3,
            transcript_path="transcripts/c.txt",
        ),
    ]
    qb.write_transcript(vault, "transcripts/b.txt")
    qb.write_transcript(vault, "transcripts/c.txt")
    return qb.write_db(vault, qb.database(talks + (extra or [])))


@dataclass(frozen=True)
class InProcess:
    returncode: int
    stdout: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def _bound(db: Path, args: tuple[str, ...], apply: bool) -> tuple[str, ...]:
    """``claim``/``recover`` applied, bound to the bytes on disk now (the protocol's
    ``--apply --expected-sha256``); ``apply=False`` keeps the dry run."""
    if not apply or not args or args[0] not in ("claim", "recover"):
        return args
    try:
        digest = qb.sha(db.read_bytes())
    except OSError:
        digest = "0" * 64
    return (*args, "--apply", "--expected-sha256", digest)


def _queue(db: Path, *args: str, console: bool = False, apply: bool = True) -> Any:
    """In-process by default (fast); ``console=True`` runs the installed script."""
    args = _bound(db, args, apply)
    if console:
        return run_cli("rvault-db", "queue", db, *args)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["queue", str(db), *args])
    return InProcess(code, out.getvalue())


def _claim(
    db: Path,
    *args: str,
    now: str = T1,
    batch: str = "b1",
    console: bool = False,
    apply: bool = True,
) -> Any:
    return _queue(
        db,
        "claim",
        "--run-id",
        "r1",
        "--batch-id",
        batch,
        "--now",
        now,
        *args,
        console=console,
        apply=apply,
    )


def _refused(result: Any, code: str) -> dict:
    assert result.returncode == 2, result.stdout + result.stderr
    document = result.json
    assert document["ok"] is False
    assert document["error"]["code"] == code, document
    assert "path" in document["error"]
    assert schema_issues("cli-failure", 1, document) == []
    return document


def _talk(db: Path, name: str) -> dict:
    return next(t for t in qb.read_db(db)["talks"] if t["filename"] == name)


def test_claim_writes_v5_claims_with_one_shared_baseline(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    result = _claim(db, "--limit", "5", console=True)
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    assert schema_issues("queue-report", 1, report) == []
    assert report["database_written"] is True and report["durability_state"] == "durable"
    names = [m["filename"] for m in report["members"]]
    assert names == ["2024-01-01-a.md", "2024-02-01-b.md", "2024-04-01-c.md"]
    assert report["skipped"] == [
        {"filename": "2024-03-01-nosrc.md", "reason": "no_source_capabilities"}
    ]
    baseline = report["adherence_baseline"]
    assert baseline["excluded_filenames"] == names
    assert baseline["as_of"] == report["claimed_at"] == T1
    assert (baseline["eligible_talk_count"], baseline["pattern_score_sum"]) == (4, 10)
    assert baseline["average_pattern_score"] == 2.5
    for name in names:
        talk = _talk(db, name)
        claim = talk["_queue_claim"]
        assert claim["schema_version"] == 5 and claim["required_return_schema_version"] == 5
        assert claim["adherence_baseline"] == baseline
        assert talk["status"] == "reprocessing-inflight"
        assert claim["reprocess_generation"] == talk["reprocess_generation"]
    assert _talk(db, "2024-04-01-c.md")["reprocess_generation"] == 4
    assert _talk(db, "2024-04-01-c.md")["_queue_claim"]["previous_status"] == "needs-reprocessing"
    assert _talk(db, "2024-01-01-a.md")["reprocess_generation"] == 1
    assert report["output_sha256"] == qb.sha(db.read_bytes())


def test_replay_returns_the_stored_claim_and_keeps_bytes_and_inode(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    first = _claim(db, "--talk", "2024-02-01-b.md", "--talk", "2024-01-01-a.md").json
    before = snapshot_file(db)
    again = _claim(
        db,
        "--talk",
        "2024-01-01-a.md",
        "--talk",
        "2024-02-01-b.md",
        now="2026-07-31T20:00:00+02:00",
    )
    assert again.returncode == 0
    replay = again.json
    assert replay["replayed"] is True
    assert replay["database_written"] is False and replay["durability_state"] == "unchanged"
    assert replay["members"] == first["members"]
    assert replay["input_sha256"] == replay["output_sha256"] == first["output_sha256"]
    assert snapshot_file(db) == before
    by_limit = _claim(db, "--limit", "2", now="2026-07-31T18:00:00Z")
    assert by_limit.json["replayed"] is True
    assert snapshot_file(db) == before


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--talk", "2024-01-01-a.md"], "batch_already_claimed"),
        (["--limit", "1"], "batch_already_claimed"),
    ],
)
def test_same_batch_with_a_different_request_is_refused(
    tmp_path: Path, snapshot_file, args, code
) -> None:
    db = _vault(tmp_path)
    assert _claim(db, "--limit", "2").returncode == 0
    before = snapshot_file(db)
    _refused(_claim(db, *args), code)
    _refused(_claim(db, "--limit", "2", now=T2), "batch_already_claimed")
    assert snapshot_file(db) == before


def test_claim_over_an_already_claimed_talk_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    assert _claim(db, "--talk", "2024-01-01-a.md").returncode == 0
    before = snapshot_file(db)
    document = _refused(
        _claim(db, "--talk", "2024-01-01-a.md", batch="b2", console=True), "talk_already_claimed"
    )
    assert document["error"]["path"] == '$["talks"][4]["_queue_claim"]'
    assert snapshot_file(db) == before


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--talk", "missing.md"], "talk_not_found"),
        (["--talk", "2023-01-01-done.md"], "talk_not_claimable"),
        (["--talk", "2024-03-01-nosrc.md"], "talk_has_no_sources"),
        (["--talk", "2024-01-01-a.md", "--talk", "2024-01-01-a.md"], "duplicate_talk"),
        (["--talk", "2024-01-01-a.md", "--limit", "1"], "selection_conflict"),
        ([], "selection_required"),
        (["--limit", "0"], "invalid_argument"),
        (["--limit", "1", "--catalog-fingerprint", "ABC"], "invalid_argument"),
    ],
)
def test_bad_selections_are_refused(tmp_path: Path, snapshot_file, args, code) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    _refused(_claim(db, *args), code)
    assert snapshot_file(db) == before


@pytest.mark.parametrize(
    ("now", "code"),
    [
        ("2026-07-31T18:00:00", "now_not_timezone_aware"),
        ("2026-07-31", "now_not_timezone_aware"),
        ("yesterday", "now_not_timezone_aware"),
        # aware, but the UTC instant overflows datetime (was an internal error)
        ("9999-12-31T23:59:59-23:59", "now_not_timezone_aware"),
        ("0001-01-01T00:00:00+23:59", "now_not_timezone_aware"),
    ],
)
def test_non_timezone_aware_now_is_refused(
    tmp_path: Path, snapshot_file, now: str, code: str
) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    _refused(_claim(db, "--limit", "1", now=now, console=True), code)
    _refused(_queue(db, "recover", "--run-id", "r1", "--batch-id", "b1", "--now", now), code)
    assert snapshot_file(db) == before


def test_claim_and_recover_default_now_to_the_current_time(tmp_path: Path) -> None:
    """``--now`` is optional for every queue command that takes it (issue 25)."""
    db = _vault(tmp_path)
    before = datetime.now(UTC).replace(microsecond=0)
    claimed = _queue(db, "claim", "--run-id", "r1", "--batch-id", "b1", "--limit", "1")
    assert claimed.returncode == 0, claimed.stdout
    stamp = datetime.fromisoformat(claimed.json["claimed_at"])
    assert before <= stamp <= datetime.now(UTC)
    recovered = _queue(db, "recover", "--run-id", "r1", "--batch-id", "b1")
    assert recovered.returncode == 0, recovered.stdout


def test_unknown_future_claim_version_is_refused_everywhere(tmp_path: Path, snapshot_file) -> None:
    future = qb.pending_talk("2024-09-01-future.md", status="reprocessing-inflight")
    future["_queue_claim"] = {
        "schema_version": 6,
        "run_id": "r0",
        "batch_id": "b0",
        "state": "claimed",
    }
    db = _vault(tmp_path, [future])
    before = snapshot_file(db)
    for args in (
        ["inspect"],
        ["claim", "--run-id", "r", "--batch-id", "b", "--now", T1, "--limit", "1"],
        ["recover", "--run-id", "r0", "--batch-id", "b0"],
        ["normalize"],
    ):
        result = _queue(db, *args)
        assert result.returncode == 2, args
        assert result.json["ok"] is False
        assert "database" not in result.json
        assert "_queue_claim" in result.json["error"]["path"]
    assert snapshot_file(db) == before


def test_mixed_batch_is_refused_by_replay_and_recovery(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    assert _claim(db, "--talk", "2024-01-01-a.md", "--talk", "2024-02-01-b.md").returncode == 0
    document = qb.read_db(db)
    a = next(t for t in document["talks"] if t["filename"] == "2024-01-01-a.md")
    a["_queue_claim"]["claimed_at"] = T2
    a["_queue_claim"]["adherence_baseline"]["as_of"] = T2
    qb.write_db(db.parent, document)
    before = snapshot_file(db)
    _refused(_claim(db, "--talk", "2024-01-01-a.md", "--talk", "2024-02-01-b.md"), "mixed_batch")
    _refused(
        _queue(db, "recover", "--run-id", "r1", "--batch-id", "b1", "--now", T3), "mixed_batch"
    )
    assert snapshot_file(db) == before


def test_recovery_then_reclaim_takes_a_new_generation_and_fresh_baseline(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    first = _claim(db, "--talk", "2024-04-01-c.md").json
    original = first["members"][0]["claim"]
    recovered = _queue(
        db, "recover", "--run-id", "r1", "--batch-id", "b1", "--now", T2, console=True
    )
    assert recovered.returncode == 0, recovered.stdout
    report = recovered.json
    assert schema_issues("queue-report", 1, report) == []
    closed = report["released"][0]["claim"]
    assert report["released"][0]["restored_status"] == "needs-reprocessing"
    assert {
        k: v for k, v in closed.items() if k not in ("state", "released_at", "release_reason")
    } == {k: v for k, v in original.items() if k != "state"}
    assert (closed["state"], closed["released_at"], closed["release_reason"]) == (
        "released",
        T2,
        "recovered",
    )
    talk = _talk(db, "2024-04-01-c.md")
    assert "_queue_claim" not in talk and talk["status"] == "needs-reprocessing"
    assert talk["_queue_claim_history"] == [closed] and talk["reprocess_generation"] == 4
    # the closed epoch cannot be reused, and the batch has nothing left to recover
    before = snapshot_file(db)
    _refused(_claim(db, "--talk", "2024-04-01-c.md"), "epoch_already_closed")
    _refused(_queue(db, "recover", "--run-id", "r1", "--batch-id", "b1"), "batch_already_closed")
    _refused(_queue(db, "recover", "--run-id", "r9", "--batch-id", "b9"), "batch_not_found")
    assert snapshot_file(db) == before
    # processing elsewhere changes the cohort; the reclaim takes a fresh baseline
    document = qb.read_db(db)
    document["talks"].append(qb.processed_talk("2025-01-01-new.md", 10))
    qb.write_db(db.parent, document)
    second = _claim(db, "--talk", "2024-04-01-c.md", now=T3).json
    claim = second["members"][0]["claim"]
    assert claim["reprocess_generation"] == 5 and claim["previous_status"] == "needs-reprocessing"
    assert claim["adherence_baseline"]["as_of"] == T3
    assert claim["adherence_baseline"]["eligible_talk_count"] == 5
    assert claim["adherence_baseline"] != original["adherence_baseline"]
    assert _talk(db, "2024-04-01-c.md")["_queue_claim_history"] == [closed]


def test_recovery_runs_on_a_schema_zero_database_in_place(tmp_path: Path) -> None:
    legacy_claim = {
        "run_id": "old",
        "batch_id": "7",
        "claimed_at": "2025-01-01T00:00:00Z",
        "previous_status": "pending",
        "reprocess_generation": 1,
        "state": "claimed",
    }
    document = {
        "config": {"vault_root": "~/vault"},
        "talks": [
            {
                "filename": "x.md",
                "transcript_source": "none",
                "status": "reprocessing-inflight",
                "reprocess_generation": 1,
                "_queue_claim": legacy_claim,
            },
            {"filename": "y.md", "transcript_source": "none", "status": "processed"},
        ],
    }
    db = qb.write_db(tmp_path / "vault", document)
    before_claim = _claim(db, "--limit", "1")
    _refused(before_claim, "database_requires_migration")
    inspected = _queue(db, "inspect").json
    assert inspected["root_schema_version"] == 0
    assert inspected["talks"][0]["active_claim"]["schema_version"] == 1
    assert inspected["talks"][0]["active_claim"]["issues"] == []
    assert inspected["epochs"][0]["states"] == {"claimed": 1}
    result = _queue(db, "recover", "--run-id", "old", "--batch-id", "7", "--now", T1)
    assert result.returncode == 0, result.stdout
    assert result.json["root_schema_version"] == 0
    after = qb.read_db(db)
    assert "schema_version" not in after
    talk = after["talks"][0]
    assert "schema_version" not in talk and talk["status"] == "pending"
    assert talk["_queue_claim_history"] == [
        dict(
            legacy_claim,
            schema_version=2,
            state="released",
            released_at=T1,
            release_reason="recovered",
        )
    ]
    untouched = copy.deepcopy(document)
    untouched["talks"][0] = talk
    assert after == untouched


def test_inspect_reads_every_claim_version_without_mutating(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    assert _claim(db, "--talk", "2024-01-01-a.md").returncode == 0
    document = qb.read_db(db)
    legacy = {
        "run_id": "old",
        "batch_id": "1",
        "claimed_at": "2025-01-01T00:00:00+00:00",
        "previous_status": "pending",
        "reprocess_generation": 1,
        "state": "completed",
        "released_at": "2025-01-02T00:00:00+00:00",
        "release_reason": "completed",
        "result_status": "processed",
    }
    target = next(t for t in document["talks"] if t["filename"] == "2023-01-01-done.md")
    target["_queue_claim_history"] = [
        legacy,
        dict(legacy, schema_version=2, result_payload_sha256="e" * 64),
    ]
    qb.write_db(db.parent, document)
    before = snapshot_file(db)
    result = _queue(db, "inspect", console=True)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("queue-report", 1, report) == []
    assert snapshot_file(db) == before
    views = {t["filename"]: t for t in report["talks"]}
    assert [h["schema_version"] for h in views["2023-01-01-done.md"]["history"]] == [1, 2]
    assert views["2024-01-01-a.md"]["active_claim"]["schema_version"] == 5
    assert views["2024-01-01-a.md"]["active_claim"]["issues"] == []
    epochs = {(e["run_id"], e["batch_id"]): e for e in report["epochs"]}
    assert epochs[("r1", "b1")]["issues"] == [] and epochs[("r1", "b1")]["states"] == {"claimed": 1}
    assert report["status_counts"]["reprocessing-inflight"] == 1


def test_in_process_claim_and_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot_file
) -> None:
    db = _vault(tmp_path)
    code = main(
        ["queue", str(db), "claim", "--run-id", "r", "--batch-id", "b", "--now", T1, "--limit", "1"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["member_count"] == 1
    before = snapshot_file(db)
    code = main(
        [
            "queue",
            str(db),
            "claim",
            "--run-id",
            "r2",
            "--batch-id",
            "b",
            "--now",
            "2026-01-01T00:00:00",
            "--limit",
            "1",
        ]
    )
    assert code == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "now_not_timezone_aware"
    assert snapshot_file(db) == before


def test_catalog_fingerprint_is_derived_or_required(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path, [qb.processed_talk("2022-01-01-other.md", 1, fingerprint="e" * 64)])
    before = snapshot_file(db)
    _refused(_claim(db, "--limit", "1"), "catalog_fingerprint_ambiguous")
    assert snapshot_file(db) == before
    result = _claim(db, "--limit", "1", "--catalog-fingerprint", "e" * 64)
    assert result.returncode == 0
    assert result.json["adherence_baseline"]["eligible_talk_count"] == 1
    fresh = qb.write_db(tmp_path / "fresh", qb.database([qb.remote_talk("n.md", "dQw4w9WgXcQ")]))
    _refused(_claim(fresh, "--limit", "1"), "catalog_fingerprint_required")
    empty = _claim(fresh, "--limit", "1", "--catalog-fingerprint", qb.FP).json
    assert empty["adherence_baseline"]["raw_score_comparison_reason"] == "no_eligible_talks"


def test_talk_accepts_several_filenames_and_archives_a_closed_claim(tmp_path: Path) -> None:
    completed = {
        "schema_version": 2,
        "run_id": "old",
        "batch_id": "1",
        "claimed_at": "2025-01-01T00:00:00+00:00",
        "previous_status": "pending",
        "reprocess_generation": 1,
        "state": "completed",
        "released_at": "2025-01-02T00:00:00+00:00",
        "release_reason": "completed",
        "result_status": "processed",
        "result_payload_sha256": "e" * 64,
    }
    redo = qb.remote_talk(
        "2024-05-01-redo.md",
        "dQw4w9WgXcQ",
        status="needs-reprocessing",
        reprocess_generation=1,
        _queue_claim=completed,
    )
    db = _vault(tmp_path, [redo])
    result = _claim(db, "--talk", "2024-05-01-redo.md", "2024-01-01-a.md", console=True)
    assert result.returncode == 0, result.stdout
    talk = _talk(db, "2024-05-01-redo.md")
    assert talk["_queue_claim_history"] == [completed]
    assert talk["_queue_claim"]["reprocess_generation"] == 2
    assert talk["_queue_claim"]["previous_status"] == "needs-reprocessing"


def test_a_non_cooperating_edit_between_read_and_install_is_refused(
    tmp_path: Path, snapshot_file, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rvault_tracking_db.queue.claim import ClaimView

    db = _vault(tmp_path)
    real_plan = ClaimView.plan  # what decides the claim, streamed or on the whole read

    def racing_plan(*args: Any, **kwargs: Any) -> Any:
        outcome = real_plan(*args, **kwargs)
        document = qb.read_db(db)
        document["talks"][0]["title"] = "edited by someone ignoring the lock"
        qb.write_db(db.parent, document)
        return outcome

    monkeypatch.setattr(ClaimView, "plan", racing_plan)
    result = _claim(db, "--limit", "1")
    edited = snapshot_file(db)
    _refused(result, "input_changed")
    assert snapshot_file(db) == edited
    assert "_queue_claim" not in _talk(db, "2024-01-01-a.md")


def test_concurrent_claims_of_one_talk_serialize(tmp_path: Path) -> None:
    import subprocess

    db = _vault(tmp_path)
    digest = qb.sha(db.read_bytes())
    script = str(Path(sys.executable).parent / "rvault-db")
    procs = [
        subprocess.Popen(
            [
                script,
                "queue",
                str(db),
                "claim",
                "--run-id",
                "r",
                "--batch-id",
                f"b{i}",
                "--now",
                T1,
                "--talk",
                "2024-01-01-a.md",
                "--apply",
                "--expected-sha256",
                digest,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(3)
    ]
    outcomes = []
    for proc in procs:
        out, _ = proc.communicate(timeout=60)
        outcomes.append((proc.returncode, json.loads(out)))
    assert sorted(code for code, _ in outcomes) == [0, 2, 2]
    assert {doc["error"]["code"] for code, doc in outcomes if code == 2} == {"talk_already_claimed"}
    assert _talk(db, "2024-01-01-a.md")["_queue_claim"]["reprocess_generation"] == 1


def test_recovery_before_the_claim_time_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    assert _claim(db, "--talk", "2024-02-01-b.md", now=T2).returncode == 0
    before = snapshot_file(db)
    document = _refused(
        _queue(db, "recover", "--run-id", "r1", "--batch-id", "b1", "--now", T1, console=True),
        "release_before_claim",
    )
    assert document["error"]["path"] == '$["talks"][5]["_queue_claim"]["claimed_at"]'
    assert snapshot_file(db) == before
    # the claim's own instant is not before it
    assert _queue(db, "recover", "--run-id", "r1", "--batch-id", "b1", "--now", T2).returncode == 0


@pytest.mark.parametrize("version", [None, 2, 4])
@pytest.mark.parametrize("selection", [["--talk", "2024-05-01-old.md"], ["--limit", "1"]])
def test_an_exact_replay_of_a_live_legacy_batch_is_refused(
    tmp_path: Path, snapshot_file, version: int | None, selection: list[str]
) -> None:
    legacy: dict[str, Any] = {
        "run_id": "r1",
        "batch_id": "b1",
        "claimed_at": T1,
        "previous_status": "pending",
        "reprocess_generation": 1,
        "state": "claimed",
    }
    if version is not None:
        legacy["schema_version"] = version
    if version == 4:
        legacy["required_return_schema_version"] = 4
        legacy["adherence_baseline"] = {
            "schema_version": 1,
            "as_of": T1,
            "scope": "global",
            "active_batch_excluded": True,
            "excluded_filenames": ["2024-05-01-old.md"],
            "eligible_statuses": ["processed", "processed_partial"],
            "pattern_scoring_generation_status": "current",
            "pattern_scoring_generation_reasons": [],
            "pattern_catalog_fingerprint": qb.FP,
            "pattern_scoring_schema_version": 4,
            "eligible_talk_count": 0,
            "pattern_score_sum": 0,
            "average_pattern_score": None,
        }
    old = qb.remote_talk(
        "2024-05-01-old.md",
        "dQw4w9WgXcQ",
        status="reprocessing-inflight",
        reprocess_generation=1,
        _queue_claim=legacy,
    )
    db = _vault(tmp_path, [old])
    before = snapshot_file(db)
    document = _refused(_claim(db, *selection), "legacy_claim_replay")
    assert document["error"]["path"] == '$["talks"][8]["_queue_claim"]'
    assert snapshot_file(db) == before


def test_inspect_reports_an_epoch_whose_members_differ_from_its_baseline(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    assert _claim(db, "--talk", "2024-01-01-a.md", "--talk", "2024-02-01-b.md").returncode == 0
    document = qb.read_db(db)
    b = next(t for t in document["talks"] if t["filename"] == "2024-02-01-b.md")
    del b["_queue_claim"]  # a member lost its claim: the epoch no longer matches its snapshot
    b["status"] = "pending"
    qb.write_db(db.parent, document)
    before = snapshot_file(db)
    result = _queue(db, "inspect", console=True)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("queue-report", 1, report) == []
    (epoch,) = report["epochs"]
    assert [m["filename"] for m in epoch["members"]] == ["2024-01-01-a.md"]
    assert [(i["code"], i["path"]) for i in epoch["issues"]] == [
        ("epoch_membership_mismatch", '$["talks"][4]["_queue_claim"]')
    ]
    assert snapshot_file(db) == before


def test_claim_reports_current_talks_left_out_of_the_baseline(tmp_path: Path) -> None:
    no_observations = qb.processed_talk("2022-01-01-noobs.md", 7)
    del no_observations["pattern_observations"]
    no_identity = qb.processed_talk("2022-02-01-noid.md", 7)
    # A ledger that declares no evidence_schema_version has no contract to be
    # checked against, so the read accepts it and the baseline leaves it out
    # (a ledger v2 without its identity is one talk's warning: the next test).
    del no_identity["pattern_observations"]["opportunity_coverage_identity"]
    del no_identity["pattern_observations"]["evidence_schema_version"]
    db = _vault(tmp_path, [no_observations, no_identity])
    result = _claim(db, "--talk", "2024-01-01-a.md", console=True)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("queue-report", 1, report) == []
    assert report["baseline_exclusions"] == [
        {"filename": "2022-01-01-noobs.md", "reason": "missing_pattern_observations"},
        {"filename": "2022-02-01-noid.md", "reason": "missing_opportunity_coverage_identity"},
    ]
    assert (
        report["adherence_baseline"]["eligible_talk_count"],
        report["adherence_baseline"]["pattern_score_sum"],
    ) == (4, 10)


def test_a_broken_ledger_is_left_out_of_the_baseline_and_other_talks_still_claim(
    tmp_path: Path,
) -> None:
    """One talk's ledger breaking its contract is that talk's trouble, not the vault's."""
    broken = qb.processed_talk("2022-02-01-noid.md", 7)
    broken["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"
    db = _vault(tmp_path, [broken])
    result = _claim(db, "--talk", "2024-01-01-a.md", console=True)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("queue-report", 1, report) == []
    assert report["baseline_exclusions"] == [
        {"filename": "2022-02-01-noid.md", "reason": "pattern_observations_invalid"}
    ]
    assert report["adherence_baseline"]["eligible_talk_count"] == 4
    stored = {t["filename"]: t for t in qb.read_db(db)["talks"]}
    assert stored["2024-01-01-a.md"]["status"] == "reprocessing-inflight"
    assert stored["2022-02-01-noid.md"] == broken  # not claimed, not touched


def test_normalize_requeues_the_talk_whose_ledger_is_broken(tmp_path: Path) -> None:
    broken = qb.processed_talk(
        "2022-02-01-noid.md", 7, reprocess_generation=2, transcript_path="transcripts/b.txt"
    )
    del broken["pattern_observations"]["opportunity_coverage_identity"]
    db = _vault(tmp_path, [broken])
    dry = _queue(db, "normalize", console=True)
    assert dry.returncode == 0, dry.stdout
    digest = dry.json["input_sha256"]
    result = _queue(db, "normalize", "--apply", "--expected-sha256", digest, console=True)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("queue-report", 1, report) == []
    ledger = '$["talks"][8]["pattern_observations"]'
    assert {"filename": "2022-02-01-noid.md", "path": ledger,
            "code": "ledger_schema_violation"} in report["review"]  # fmt: skip
    talks = {t["filename"]: t for t in qb.read_db(db)["talks"]}
    requeued = talks["2022-02-01-noid.md"]
    assert (
        requeued["status"],
        requeued["reprocess_reason"],
        requeued["reprocess_generation"],
    ) == ("needs-reprocessing", "evidence_ledger_invalid", 3)
    assert [t["status"] for n, t in sorted(talks.items()) if n.startswith("2023")] == [
        "processed"
    ] * 4
    # requeued, the talk is claimable like any other needs-reprocessing talk
    claimed = _claim(db, "--talk", "2022-02-01-noid.md", console=True)
    assert claimed.returncode == 0, claimed.stdout
