"""``rvault-db queue recover`` decides as the read streams the talks, with today's answer.

``queue.streamed_recover`` gives each talk to a ``queue.recover.RecoverView``
right after the owner's talk loop assessed it (the view keeps the batch's
claims and, whole, only the talks holding a live member), decides after the
last talk and splices the recovered talks into the input; the whole read
decodes the tree and gives the same view every talk. Run through the console
command both ways (the whole way by a stream that proves nothing), every
vault here must give the same exit status, the same stdout byte for byte
(``output_sha256`` included) and, applied, the same installed bytes: every
writer layout, a stranded batch of two and the spec's one-member batch, a
schema-0 root, refused recoveries and refused vaults (bytes and inode left
alone), and the bytes the stream hands to the whole read.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import _stream_cases as sc
import pytest
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import example_database, realistic_database
from rvault_tracking_db.cli import main
from rvault_tracking_db.queue import recover as recovery

RECOVER = sc.queue_command("recover")
CLAIMED_AT = "2026-07-31T18:00:00+00:00"
LATER = "2026-08-02T09:30:00+00:00"
BATCH = ("--run-id", "r1", "--batch-id", "b1", "--now", LATER)
SPEC_BATCH = ("--run-id", "reparse-2026-07", "--batch-id", "25", "--now", LATER)
"""An apply's (exit status, stdout) and the bytes it left installed."""


def _talks(vault: Path) -> list[dict[str, Any]]:
    """Processed talks, the spec's live claim (another batch), two claimable talks the
    batch ``(r1, b1)`` claims, one with a closed claim in its history, and one passed over."""
    qb.write_transcript(vault, "transcripts/b.txt")
    return [
        *(qb.processed_talk(f"2023-0{i}-01-done.md", i) for i in range(1, 4)),
        example_database(claimed=True)["talks"][0],
        qb.remote_talk("2024-01-01-a.md", sc.YT),
        qb.pending_talk("2024-02-01-b.md", transcript_path="transcripts/b.txt",
                        title="Über Café 🎤"),
        qb.pending_talk("legacy.md", status="skipped_no_video"),
    ]  # fmt: skip


def _stranded(tmp_path: Path) -> dict[str, Any]:
    """The vault's database after ``queue claim`` stranded ``(r1, b1)`` on two talks."""
    vault = tmp_path / "claimed"
    db = sc.write_layout(vault, qb.database(_talks(vault)), "artifact")
    claim = ("queue", str(db), "claim", "--run-id", "r1", "--batch-id", "b1", "--now", CLAIMED_AT)
    named = ("--talk", "2024-01-01-a.md", "--talk", "2024-02-01-b.md")
    digest = sha256_bytes(db.read_bytes())
    assert main([*claim, *named, "--apply", "--expected-sha256", digest]) == 0
    return qb.read_db(db)


def _vault(tmp_path: Path, layout: str = "artifact", edit: sc.Edit | None = None) -> Path:
    database = _stranded(tmp_path)
    qb.write_transcript(tmp_path / "vault", "transcripts/b.txt")
    return sc.write_layout(tmp_path / "vault", database, layout, edit)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> sc.BothWays:
    return RECOVER.both_ways(capsys, monkeypatch)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_stranded_batch_is_recovered_the_same_in_every_layout(
    tmp_path: Path, cli: sc.BothWays, layout: str
) -> None:
    db = _vault(tmp_path, layout)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH)
    assert streamed == whole and streamed[0] == 0
    report = json.loads(streamed[1])
    assert [(r["filename"], r["restored_status"]) for r in report["released"]] == [
        ("2024-01-01-a.md", "pending"), ("2024-02-01-b.md", "pending"),
    ]  # fmt: skip
    # the artifact encoding (the peer's indent of a sorted tree is the same bytes) splices
    # the recovered talks; another layout is rewritten whole
    data = db.read_bytes()
    assert whole_reads == ([] if data == artifact_bytes(qb.read_db(db)) else [data])
    assert (whole_reads == []) == (layout in ("artifact", "peer indent"))
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db, *BATCH)
    assert streamed_apply == whole_apply and streamed_apply[0] == 0
    assert streamed_bytes == whole_bytes
    assert sha256_bytes(streamed_bytes) == report["output_sha256"]
    talks = {t["filename"]: t for t in qb.read_db(db)["talks"]}
    for entry in report["released"]:
        talk = talks[entry["filename"]]
        assert "_queue_claim" not in talk and talk["status"] == "pending"
        assert talk["_queue_claim_history"][-1] == entry["claim"]
        assert entry["claim"]["state"] == "released" and entry["claim"]["released_at"] == LATER


def test_the_spec_batch_of_one_is_recovered_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    db = _vault(tmp_path)
    streamed, whole, whole_reads = cli.both_spied(db, *SPEC_BATCH)
    assert streamed == whole and streamed[0] == 0 and whole_reads == []
    assert json.loads(streamed[1])["released"][0]["restored_status"] == "needs-reprocessing"
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db, *SPEC_BATCH)
    assert streamed_apply == whole_apply and streamed_bytes == whole_bytes


def test_a_schema_0_root_is_recovered_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    """Recovery touches only the batch's talks, so it runs on a legacy root (claim does not)."""
    db = _vault(tmp_path, edit=sc.legacy_root)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH)
    assert streamed == whole and streamed[0] == 0 and whole_reads == []
    assert json.loads(streamed[1])["root_schema_version"] == 0
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db, *BATCH)
    assert streamed_apply == whole_apply and streamed_bytes == whole_bytes
    assert "schema_version" not in qb.read_db(db)


def _recovered_before(database: dict[str, Any]) -> None:
    """The batch recovered already: its claims closed into history, the talks pending."""
    for talk in database["talks"]:
        claim = talk.get("_queue_claim")
        if claim and claim.get("run_id") == "r1":
            closed = {**claim, "state": "released", "released_at": LATER,
                      "release_reason": "recovered"}  # fmt: skip
            talk["_queue_claim_history"] = [closed]
            del talk["_queue_claim"]
            talk["status"] = claim["previous_status"]


def _mixed(database: dict[str, Any]) -> None:
    """One member claimed at another stamp (its baseline too): not one batch."""
    claim = next(t["_queue_claim"] for t in database["talks"] if t["filename"] == "2024-01-01-a.md")
    claim["claimed_at"] = "2026-08-01T00:00:00+00:00"
    claim["adherence_baseline"]["as_of"] = "2026-08-01T00:00:00+00:00"


REFUSED_RECOVERIES: dict[str, tuple[sc.Edit, tuple[str, ...], str]] = {
    "unknown batch": (id, ("--run-id", "r1", "--batch-id", "b9", "--now", LATER),
                      "batch_not_found"),
    "recovered before": (_recovered_before, BATCH, "batch_already_closed"),
    "mixed batch": (_mixed, BATCH, "mixed_batch"),
    "released before claimed": (
        id, ("--run-id", "r1", "--batch-id", "b1", "--now", "2026-07-01T00:00:00+00:00"),
        "release_before_claim",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFUSED_RECOVERIES))
def test_a_refused_recovery_is_refused_the_same_and_left_alone(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, name: str
) -> None:
    edit, args, code = REFUSED_RECOVERIES[name]
    db = _vault(tmp_path, edit=edit)
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db, *args)
    assert streamed == whole and streamed[0] == 2 and f'"code": "{code}"' in streamed[1]
    assert whole_reads == []
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db, *args)
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before  # bytes and inode


def test_a_closed_batch_names_its_first_claim_both_ways(tmp_path: Path, cli: sc.BothWays) -> None:
    db = _vault(tmp_path, edit=_recovered_before)
    streamed, whole = cli.both(db, *BATCH)
    assert streamed == whole
    assert json.loads(streamed[1])["error"]["path"] == '$["talks"][4]["_queue_claim_history"][0]'


def test_a_candidate_the_owner_would_refuse_is_refused_the_same(
    tmp_path: Path, cli: sc.BothWays, monkeypatch: pytest.MonkeyPatch, snapshot_file: Any
) -> None:
    """Both ways the recovered talk gets an invalid ``transcript_source``; the stream assesses
    it as ``store.candidate_bytes`` assesses changed talks."""
    real = recovery.recovered_talk

    def breaking(*args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        talk, entry = real(*args)
        return {**talk, "transcript_source": "guessed"}, entry

    monkeypatch.setattr(recovery, "recovered_talk", breaking)
    db = _vault(tmp_path)
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH)
    assert streamed == whole and streamed[0] == 2 and '"candidate_invalid"' in streamed[1]
    assert whole_reads == []
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db, *BATCH)
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before


REFUSED_VAULTS = sc.refused(
    "future talk version", "duplicate filename", "talk not an object", "future config",
    "talks not an array", "future root", "bad claim in a late talk",
)  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFUSED_VAULTS))
def test_a_refused_vault_is_refused_the_same_and_left_alone(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, name: str
) -> None:
    db = _vault(tmp_path, edit=REFUSED_VAULTS[name])
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH)
    assert whole_reads == []  # refused on the stream's own assessment
    assert streamed == whole and streamed[0] == 2 and '"ok": false' in streamed[1]
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db, *BATCH)
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before


def test_a_realistic_vault_recovers_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    """Members spread over the vault, the last talk one of them."""
    database = realistic_database(12, outcomes=3)
    for position in (1, 6, 11):
        talk = database["talks"][position]
        talk["status"] = "reprocessing-inflight"
        talk["_queue_claim"] = {**copy.deepcopy(example_database()["talks"][0]["_queue_claim"])}
        talk["_queue_claim"]["adherence_baseline"]["excluded_filenames"] = sorted(
            database["talks"][p]["filename"] for p in (1, 6, 11)
        )
    db = tmp_path / qb.DB_NAME
    db.write_bytes(artifact_bytes(database))
    streamed, whole, whole_reads = cli.both_spied(db, *SPEC_BATCH)
    assert streamed == whole and streamed[0] == 0 and whole_reads == []
    assert len(json.loads(streamed[1])["released"]) == 3
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db, *SPEC_BATCH)
    assert streamed_apply == whole_apply and streamed_bytes == whole_bytes


def test_the_view_keeps_only_the_talks_the_recovery_changes(tmp_path: Path) -> None:
    """Given copies one at a time, the view holds whole only the live members' talks, and
    decides what ``plan_recover`` decides on the tree."""
    database = _stranded(tmp_path)
    view = recovery.RecoverView("r1", "b1")
    for position, talk in enumerate(database["talks"]):
        view.add(position, copy.deepcopy(talk))
    assert sorted(view.kept) == [4, 5]
    streamed = view.plan(LATER)
    whole = recovery.plan_recover(database, run_id="r1", batch_id="b1", released_at=LATER)
    assert whole.database is not None and streamed.database is None
    assert streamed.updated == {p: whole.database["talks"][p] for p in (4, 5)}
    assert (streamed.released, streamed.changed) == (whole.released, whole.changed)


@sc.unprovable(b'"title": "again"')
def test_a_vault_the_stream_cannot_prove_goes_the_whole_way(
    tmp_path: Path, cli: sc.BothWays, member: bytes, outcome: int
) -> None:
    db = _vault(tmp_path)
    db.write_bytes(sc.second_talk_respelled(db.read_bytes(), member))
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH)
    assert streamed == whole and streamed[0] == outcome
    assert whole_reads == [db.read_bytes()]
