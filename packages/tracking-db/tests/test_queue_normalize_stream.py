"""``rvault-db queue normalize`` plans as the read streams the talks, with today's answer.

``queue.streamed_normalize`` normalizes each talk right after the owner's
talk loop assessed it and splices the changed ones into the output as it
goes; the whole read (what normalize ran before) decodes the tree first and
plans on it. Run through the console command both ways (the whole way by a
stream that proves nothing), every vault here must give the same exit
status, the same stdout byte for byte (``output_sha256`` included) and,
applied, the same installed bytes: every writer layout, vaults where no,
some and all talks change, refused vaults, and the ones the stream hands to
the whole read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import _stream_cases as sc
import pytest
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_testkit.tracking_db.layouts import COMPACT, LAYOUTS
from rvault_testkit.tracking_db.samples import realistic_database
from rvault_tracking_db.apply_protocol import ApplyRequest
from rvault_tracking_db.queue import normalize as plans
from rvault_tracking_db.queue import splice
from rvault_tracking_db.queue.run import normalize

NORMALIZE = sc.queue_command("normalize")
"""An apply's (exit status, stdout) and the bytes it left installed."""


def _vault(tmp_path: Path, layout: str = "artifact", edit: sc.Edit | None = None) -> Path:
    vault = tmp_path / "vault"
    db = sc.write_layout(vault, qb.database(sc.queue_talks(vault)), layout, edit)
    # an analysed talk's evidence replaced after its analysis: stale, requeued
    (vault / "evidence/2023-03-01-stale/transcript.txt").write_bytes(b"re-fetched\n")
    return db


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> sc.BothWays:
    return NORMALIZE.both_ways(capsys, monkeypatch)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_varied_vault_normalizes_to_the_same_report_and_bytes_in_every_layout(
    tmp_path: Path, cli: sc.BothWays, layout: str
) -> None:
    db = _vault(tmp_path, layout)
    streamed, whole, whole_reads = cli.both_spied(db)
    assert streamed == whole and streamed[0] == 0
    assert '"evidence_identity_stale"' in streamed[1] and '"evidence_ledger_invalid"' in streamed[1]
    assert '"live_claim"' in streamed[1] and '"legacy_status_has_sources"' in streamed[1]
    # the artifact framing splices as it streams; another layout is rewritten whole
    assert whole_reads == ([] if layout == "artifact" else [db.read_bytes()])
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db)
    assert streamed_apply == whole_apply and streamed_apply[0] == 0
    assert streamed_bytes == whole_bytes
    assert '"database_written": true' in streamed_apply[1]
    assert sha256_bytes(streamed_bytes) in streamed[1]  # the dry run's output_sha256


def test_a_normalized_vault_changes_nothing_either_way(tmp_path: Path, cli: sc.BothWays) -> None:
    db = _vault(tmp_path)
    code, _ = cli.run(db, "--apply", "--expected-sha256", sha256_bytes(db.read_bytes()))
    assert code == 0
    for layout in ("artifact", "jq -c"):
        db.write_bytes(LAYOUTS[layout](qb.read_db(db)))
        streamed, whole, whole_reads = cli.both_spied(db)
        assert whole_reads == []  # nothing to splice: any proven layout streams
        assert streamed == whole and '"change_count": 0' in streamed[1]
        (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db)
        assert streamed_apply == whole_apply and streamed_bytes == whole_bytes
        assert '"database_written": false' in streamed_apply[1]


@pytest.mark.parametrize("chunk", [2, splice._STREAMED_CHUNK])
def test_every_talk_changing_splices_chunk_by_chunk_to_the_same_bytes(
    tmp_path: Path, cli: sc.BothWays, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """A realistic vault: every talk changes (capabilities derived, the analysis, whose
    evidence is not on disk, requeued), the last one too."""
    monkeypatch.setattr(splice, "_STREAMED_CHUNK", chunk)
    database = realistic_database(9, outcomes=3)
    database["talks"][4]["title"] = "Sprache, Café und 🎤"
    db = tmp_path / qb.DB_NAME
    db.write_bytes(artifact_bytes(database))
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 0
    assert len({change["filename"] for change in json.loads(streamed[1])["changes"]}) == 9
    (streamed_apply, streamed_bytes), (whole_apply, whole_bytes) = cli.apply_both(db)
    assert streamed_apply == whole_apply and streamed_bytes == whole_bytes
    assert all(t["source_capabilities"] for t in qb.read_db(db)["talks"])


REFUSED = {
    **sc.refused(
        "future talk version", "duplicate filename", "talk not an object", "future config",
        "talks not an array", "bad claim in a late talk",
    ),
    "legacy root: migrate first": sc.legacy_root,
}  # fmt: skip


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_vault_is_refused_the_same_and_left_alone(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, name: str, layout: str
) -> None:
    db = _vault(tmp_path, layout, REFUSED[name])
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == []  # refused on the stream's own assessment
    assert streamed == whole and streamed[0] == 2 and '"ok": false' in streamed[1]
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db)
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before  # bytes and inode


@pytest.mark.parametrize(
    ("given", "code"),
    [("0" * 64, "expected_sha256_mismatch"), ("output", "expected_sha256_is_output")],
)
def test_a_wrong_digest_is_refused_the_same_and_leaves_the_file(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, given: str, code: str
) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    dry = cli.run(db)[1]
    if given == "output":
        given = dry.split('"output_sha256": "')[1][:64]
    args = ("--apply", "--expected-sha256", given)
    streamed = cli.run(db, *args)
    with cli.whole_way():
        whole = cli.run(db, *args)
    assert streamed == whole and streamed[0] == 2 and f'"{code}"' in streamed[1]
    assert snapshot_file(db) == before


def test_a_candidate_the_owner_would_refuse_is_refused_the_same(
    tmp_path: Path, cli: sc.BothWays, monkeypatch: pytest.MonkeyPatch, snapshot_file: Any
) -> None:
    """The per-talk plan both ways gives one talk an invalid ``transcript_source``; the
    stream assesses that changed talk as ``store.candidate_bytes`` does."""
    real = plans.normalize_talk

    def breaking(outcome: Any, position: int, *args: Any) -> Any:
        updated = real(outcome, position, *args)
        if updated is not None and position >= 4:
            updated["transcript_source"] = "guessed"
        return updated

    monkeypatch.setattr(plans, "normalize_talk", breaking)
    db = _vault(tmp_path)
    before = snapshot_file(db)
    streamed, whole, _ = cli.both_spied(db)
    assert streamed == whole and streamed[0] == 2 and '"candidate_invalid"' in streamed[1]
    assert '"$[\\"talks\\"][4][\\"transcript_source\\"]"' in streamed[1]
    (streamed_apply, _), (whole_apply, _) = cli.apply_both(db)
    assert streamed_apply == whole_apply and streamed_apply[0] == 2
    assert snapshot_file(db) == before


def test_a_missing_database_is_refused_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    streamed, whole, _ = cli.both_spied(tmp_path / qb.DB_NAME)
    assert streamed == whole and streamed[0] == 2 and '"database_missing"' in streamed[1]


@sc.unprovable(b'"title": "again"')
def test_a_vault_the_stream_cannot_prove_goes_the_whole_way(
    tmp_path: Path, cli: sc.BothWays, member: bytes, outcome: int
) -> None:
    db = _vault(tmp_path)
    db.write_bytes(sc.second_talk_respelled(db.read_bytes(), member))
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == [db.read_bytes()]  # read once, whole, after the stream stopped
    assert streamed == whole and streamed[0] == outcome


def test_a_plan_that_raises_is_raised_by_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = plans.normalize_talk

    def failing(outcome: Any, position: int, *args: Any) -> Any:
        if position == 3:
            raise LookupError("talk 3")
        return real(outcome, position, *args)

    monkeypatch.setattr(plans, "normalize_talk", failing)
    db = _vault(tmp_path)
    whole_reads = NORMALIZE.spy_whole_reads(monkeypatch)
    with pytest.raises(LookupError, match="talk 3"):
        normalize(db, ApplyRequest())
    assert whole_reads == [db.read_bytes()]


@pytest.mark.parametrize("layout", COMPACT[:1])
def test_a_one_line_vault_with_changes_is_planned_whole(
    tmp_path: Path, cli: sc.BothWays, layout: str
) -> None:
    """The splice needs the artifact framing; one line is rewritten whole, as before."""
    db = _vault(tmp_path, layout)
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == [db.read_bytes()]
    assert streamed == whole and streamed[0] == 0
