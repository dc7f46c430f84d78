"""``rvault-db queue claim`` decides as the read streams the talks, with today's answer.

``queue.streamed_claim`` gives each talk to a ``queue.claim.ClaimView`` right
after the owner's talk loop assessed it (the view keeps what the decision
reads of it: the batch's claims, its filename, the fingerprint it names, its
part of the baseline, and whole only a talk the claim may change), decides
after the last talk and splices the claimed talks into the input; the whole
read decodes the tree and gives the same view every talk. Run through the
console command both ways (the whole way by a stream that proves nothing),
every vault here must give the same exit status, the same stdout byte for
byte (``output_sha256`` included) and, applied, the same installed bytes:
every writer layout, ``--limit`` and ``--talk``, exact replays, refused
claims and refused vaults (bytes and inode left alone), and the bytes the
stream hands to the whole read.
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
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.queue import claim as claims

CLAIM = sc.queue_command("claim")
NOW = "2026-07-31T18:00:00+00:00"
BATCH = ("--run-id", "r1", "--batch-id", "b1", "--now", NOW)
"""An apply's (exit status, stdout) and the bytes it left installed."""


def _talks(vault: Path) -> list[dict[str, Any]]:
    """Processed talks (the baseline's cohort, one left out for its ledger), a live claim of
    another batch, claimable talks with and without a source, one reprocessed before (its
    closed claim goes to history) and talks the claim passes over."""
    qb.write_transcript(vault, "transcripts/b.txt")
    live = example_database(claimed=True)["talks"][0]
    reprocessed = qb.pending_talk(
        "2024-04-01-c.md", status="needs-reprocessing", reprocess_generation=3,
        transcript_path="transcripts/b.txt", title="Über Café 🎤",
    )  # fmt: skip
    baseline = dict(live["_queue_claim"]["adherence_baseline"])
    reprocessed["_queue_claim"] = {
        **live["_queue_claim"], "run_id": "old", "state": "released",
        "released_at": "2026-08-01T00:00:00+00:00", "release_reason": "recovered",
        "adherence_baseline": {**baseline, "excluded_filenames": ["2024-04-01-c.md"]},
    }  # fmt: skip
    return [
        *(qb.processed_talk(f"2023-0{i}-01-done.md", i) for i in range(1, 4)),
        sc.bad_ledger(qb.processed_talk("2023-05-01-ledger.md", 6)),
        live,
        qb.pending_talk("2024-03-01-nosrc.md"),
        qb.remote_talk("2024-01-01-a.md", sc.YT),
        qb.pending_talk("2024-02-01-b.md", transcript_path="transcripts/b.txt"),
        qb.pending_talk("legacy.md", status="skipped_no_video"),
        reprocessed,
    ]


def _vault(tmp_path: Path, layout: str = "artifact", edit: sc.Edit = id) -> Path:
    vault = tmp_path / "vault"
    return sc.write_layout(vault, qb.database(_talks(vault)), layout, edit)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> sc.BothWays:
    return CLAIM.both_ways(capsys, monkeypatch)


SELECTIONS = {
    "limit 2": ("--limit", "2"),
    "limit 9": ("--limit", "9"),
    "two named": ("--talk", "2024-04-01-c.md", "--talk", "2024-01-01-a.md"),
    "explicit fingerprint": ("--limit", "1", "--catalog-fingerprint", qb.FP),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("selection", sorted(SELECTIONS))
def test_a_claim_is_the_same_report_and_bytes_in_every_layout(
    tmp_path: Path, cli: sc.BothWays, layout: str, selection: str
) -> None:
    db = _vault(tmp_path, layout)
    args = (*BATCH, *SELECTIONS[selection])
    streamed, whole, whole_reads = cli.both_spied(db, *args)
    assert streamed == whole and streamed[0] == 0
    report = json.loads(streamed[1])
    assert report["member_count"] >= 1 and report["replayed"] is False
    assert report["baseline_exclusions"] == [
        {"filename": "2023-05-01-ledger.md", "reason": "pattern_observations_invalid"}
    ]
    assert report["adherence_baseline"]["eligible_talk_count"] == 3
    # the artifact framing splices the claimed talks; another layout is rewritten whole
    assert whole_reads == ([] if layout == "artifact" else [db.read_bytes()])
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db, *args)
    assert streamed_apply == whole_apply and streamed_apply[0] == 0
    assert streamed_bytes == whole_bytes
    assert sha256_bytes(streamed_bytes) == report["output_sha256"]
    talks = {t["filename"]: t for t in qb.read_db(db)["talks"]}
    for member in report["members"]:
        assert talks[member["filename"]]["_queue_claim"] == member["claim"]


def test_the_limit_skips_and_the_history_are_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    db = _vault(tmp_path)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH, "--limit", "9")
    assert streamed == whole and whole_reads == []
    report = json.loads(streamed[1])
    assert report["skipped"] == [
        {"filename": "2024-03-01-nosrc.md", "reason": "no_source_capabilities"}
    ]
    assert [m["filename"] for m in report["members"]] == [
        "2024-01-01-a.md", "2024-02-01-b.md", "2024-04-01-c.md",
    ]  # fmt: skip
    cli.apply_both(db, *BATCH, "--limit", "9")
    reprocessed = next(t for t in qb.read_db(db)["talks"] if t["filename"] == "2024-04-01-c.md")
    assert reprocessed["reprocess_generation"] == 4
    assert reprocessed["_queue_claim_history"][0]["state"] == "released"


def test_an_exact_replay_is_the_same_and_writes_nothing(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any
) -> None:
    db = _vault(tmp_path)
    pre_claim = sha256_bytes(db.read_bytes())
    args = (*BATCH, "--limit", "2")
    assert cli.run(db, *args, "--apply", "--expected-sha256", pre_claim)[0] == 0
    before = snapshot_file(db)
    for extra in ((), ("--apply", "--expected-sha256", pre_claim)):
        streamed, whole, whole_reads = cli.both_spied(db, *args, *extra)
        assert streamed == whole and streamed[0] == 0 and whole_reads == []
        assert '"replayed": true' in streamed[1]
        assert snapshot_file(db) == before  # bytes and inode


def _claimed_first(db: Path, cli: sc.BothWays) -> None:
    digest = sha256_bytes(db.read_bytes())
    assert cli.run(db, *BATCH, "--limit", "1", "--apply", "--expected-sha256", digest)[0] == 0


def _other_fingerprint(database: dict[str, Any]) -> None:
    database["talks"][0] = qb.processed_talk("2023-01-01-done.md", 1, fingerprint="b" * 64)


def _no_current_talk(database: dict[str, Any]) -> None:
    for talk in database["talks"]:
        if talk.get("status") == "processed":
            talk["pattern_scoring_generation_status"] = "stale"


def _nothing_claimable(database: dict[str, Any]) -> None:
    database["talks"] = [
        t for t in database["talks"] if t.get("status") not in ("pending", "needs-reprocessing")
    ]
    database["talks"].append(qb.pending_talk("2024-03-01-nosrc.md"))


REFUSED_CLAIMS: dict[str, tuple[sc.Edit, tuple[str, ...], str]] = {
    "nothing claimable": (_nothing_claimable, ("--limit", "3"), "nothing_to_claim"),
    "unknown talk": (id, ("--talk", "2024-01-01-b.md"), "talk_not_found"),
    "named twice": (
        id,
        ("--talk", "2024-01-01-a.md", "--talk", "2024-01-01-a.md"),
        "duplicate_talk",
    ),
    "not claimable": (id, ("--talk", "legacy.md"), "talk_not_claimable"),
    "no sources": (id, ("--talk", "2024-03-01-nosrc.md"), "talk_has_no_sources"),
    "live claim": (id, ("--talk", "2024-04-10-talk-slug.md"), "talk_already_claimed"),
    "two fingerprints": (_other_fingerprint, ("--limit", "1"), "catalog_fingerprint_ambiguous"),
    "no fingerprint": (_no_current_talk, ("--limit", "1"), "catalog_fingerprint_required"),
    "bad fingerprint": (id, ("--limit", "1", "--catalog-fingerprint", "ab"), "invalid_argument"),
}


@pytest.mark.parametrize("name", sorted(REFUSED_CLAIMS))
def test_a_refused_claim_is_refused_the_same_and_left_alone(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, name: str
) -> None:
    edit, args, code = REFUSED_CLAIMS[name]
    db = _vault(tmp_path, edit=edit)
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH, *args)
    assert streamed == whole and streamed[0] == 2 and f'"code": "{code}"' in streamed[1]
    assert whole_reads == []
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db, *BATCH, *args)
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before  # bytes and inode


def test_an_unknown_talk_names_the_closest_filename_both_ways(
    tmp_path: Path, cli: sc.BothWays
) -> None:
    db = _vault(tmp_path)
    streamed, whole = cli.both(db, *BATCH, "--talk", "2024-01-01-b.md")
    assert streamed == whole
    refusal = json.loads(streamed[1])
    assert refusal["closest"][:2] == ["2024-02-01-b.md", "2024-01-01-a.md"]
    assert "2024-02-01-b.md" in refusal["error"]["message"]
    assert refusal["hint"].startswith("`rvault-db status DB`")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--limit", "1", "--now", "2026-08-01T00:00:00+00:00"), "batch_already_claimed"),
        (("--talk", "2024-02-01-b.md"), "batch_already_claimed"),
    ],
    ids=["another stamp", "another selection"],
)
def test_a_live_batch_claimed_again_differently_is_refused_the_same(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, args: tuple[str, ...], code: str
) -> None:
    db = _vault(tmp_path)
    _claimed_first(db, cli)
    before = snapshot_file(db)
    streamed, whole, _ = cli.both_spied(db, *BATCH, *args)
    assert streamed == whole and streamed[0] == 2 and f'"code": "{code}"' in streamed[1]
    assert snapshot_file(db) == before


def test_a_closed_epoch_is_not_reused_either_way(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any
) -> None:
    db = _vault(tmp_path)
    _claimed_first(db, cli)
    document = qb.read_db(db)
    for talk in document["talks"]:
        claim = talk.get("_queue_claim")
        if claim and claim.get("run_id") == "r1":
            talk["_queue_claim"] = dict(
                claim, state="released", released_at=NOW, release_reason="recovered"
            )
            talk["status"] = claim["previous_status"]
    db.write_bytes(artifact_bytes(document))
    before = snapshot_file(db)
    streamed, whole, _ = cli.both_spied(db, *BATCH, "--limit", "1")
    assert streamed == whole and '"code": "epoch_already_closed"' in streamed[1]
    assert snapshot_file(db) == before


def test_a_candidate_the_owner_would_refuse_is_refused_the_same(
    tmp_path: Path, cli: sc.BothWays, monkeypatch: pytest.MonkeyPatch, snapshot_file: Any
) -> None:
    """Both ways the claimed talk gets an invalid ``transcript_source``; the stream assesses
    it as ``store.candidate_bytes`` assesses changed talks."""
    real = claims.claimed_talk

    def breaking(*args: Any) -> dict[str, Any]:
        return {**real(*args), "transcript_source": "guessed"}

    monkeypatch.setattr(claims, "claimed_talk", breaking)
    db = _vault(tmp_path)
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH, "--limit", "1")
    assert streamed == whole and streamed[0] == 2 and '"candidate_invalid"' in streamed[1]
    assert '"$[\\"talks\\"][6][\\"transcript_source\\"]"' in streamed[1]
    assert whole_reads == []
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db, *BATCH, "--limit", "1")
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before


REFUSED_VAULTS = {
    **sc.refused(
        "future talk version", "duplicate filename", "talk not an object", "future config",
        "talks not an array", "bad claim in a late talk",
    ),
    "legacy root: migrate first": sc.legacy_root,
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFUSED_VAULTS))
def test_a_refused_vault_is_refused_the_same_and_left_alone(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, name: str
) -> None:
    db = _vault(tmp_path, edit=REFUSED_VAULTS[name])
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH, "--limit", "2")
    assert whole_reads == []  # refused on the stream's own assessment or the session's
    assert streamed == whole and streamed[0] == 2 and '"ok": false' in streamed[1]
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db, *BATCH, "--limit", "2")
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before


@pytest.mark.parametrize(
    ("given", "code"),
    [("0" * 64, "expected_sha256_mismatch"), ("output", "expected_sha256_is_output")],
)
def test_a_wrong_digest_is_refused_the_same_and_leaves_the_file(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, given: str, code: str
) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    dry = cli.run(db, *BATCH, "--limit", "2")[1]
    if given == "output":
        given = json.loads(dry)["output_sha256"]
    args = (*BATCH, "--limit", "2", "--apply", "--expected-sha256", given)
    streamed = cli.run(db, *args)
    with cli.whole_way():
        whole = cli.run(db, *args)
    assert streamed == whole and streamed[0] == 2 and f'"{code}"' in streamed[1]
    assert snapshot_file(db) == before


def test_a_realistic_vault_claims_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    """Talks spread over the vault need reprocessing, the last one too."""
    database = realistic_database(12, outcomes=3)
    for position in (1, 6, 11):
        database["talks"][position]["status"] = "needs-reprocessing"
    db = tmp_path / qb.DB_NAME
    db.write_bytes(artifact_bytes(database))
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH, "--limit", "3")
    assert streamed == whole and streamed[0] == 0 and whole_reads == []
    assert json.loads(streamed[1])["adherence_baseline"]["eligible_talk_count"] == 9
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(
        db, *BATCH, "--limit", "3"
    )
    assert streamed_apply == whole_apply and streamed_bytes == whole_bytes


def test_the_view_keeps_only_the_talks_the_claim_changes(tmp_path: Path) -> None:
    """Given copies one at a time, the view holds whole only the talks it claims, and decides
    what ``plan_claim`` decides on the tree."""
    database = realistic_database(12, outcomes=3)
    for position in (1, 6, 11):
        database["talks"][position]["status"] = "needs-reprocessing"
    request = claims.ClaimRequest("r1", "b1", NOW, limit=2)
    roots = SourceRoots.from_config(tmp_path, database["config"])
    view = claims.ClaimView(request, roots)
    for position, talk in enumerate(database["talks"]):
        view.add(position, copy.deepcopy(talk))
    assert sorted(view.kept) == [1, 6]
    streamed, whole = view.plan(), claims.plan_claim(database, request, roots)
    assert whole.database is not None and streamed.database is None
    assert streamed.updated == {p: whole.database["talks"][p] for p in (1, 6)}
    assert (streamed.members, streamed.baseline, streamed.changed) == (
        whole.members, whole.baseline, whole.changed,
    )  # fmt: skip


@sc.unprovable(b'"title": "again"')
def test_a_vault_the_stream_cannot_prove_goes_the_whole_way(
    tmp_path: Path, cli: sc.BothWays, member: bytes, outcome: int
) -> None:
    db = _vault(tmp_path)
    db.write_bytes(sc.second_talk_respelled(db.read_bytes(), member))
    streamed, whole, whole_reads = cli.both_spied(db, *BATCH, "--limit", "2")
    assert streamed == whole and streamed[0] == outcome
    assert whole_reads == [db.read_bytes()]
