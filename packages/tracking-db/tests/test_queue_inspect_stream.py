"""``rvault-db queue inspect`` reads as the talks stream, with today's answer.

``queue.inspect.QueueView`` makes each talk's row and collects its claims
for the epochs; streamed (``streamed_read``), every talk is dropped
after its row. Run through the console command both ways (the whole way by
a stream that proves nothing), every vault here must give the same exit
status and stdout byte for byte: claims of every version, live, closed and
broken epochs, in every writer layout; refused vaults; bytes the stream
cannot prove.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import _stream_cases as sc
import pytest
from rvault_contracts.canonical import sha256_bytes
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import realistic_database
from rvault_tracking_db.cli import main
from rvault_tracking_db.queue import inspect as queue_inspect
from rvault_tracking_db.queue.inspect import QueueView

INSPECT = sc.queue_command("inspect")
LEGACY = {
    "run_id": "old", "batch_id": "1", "claimed_at": "2025-01-01T00:00:00+00:00",
    "previous_status": "pending", "reprocess_generation": 1, "state": "completed",
    "released_at": "2025-01-02T00:00:00+00:00", "release_reason": "completed",
    "result_status": "processed",
}  # fmt: skip


def _claimed_vault(tmp_path: Path) -> dict[str, Any]:
    """Normalized talks, two of them claimed by one batch (v5), one of which then lost its
    claim (the epoch no longer matches its baseline), and legacy v1/v2 history."""
    vault = tmp_path / "vault"
    db = qb.write_db(vault, qb.database(sc.queue_talks(vault)))
    for args in (
        ["normalize"],
        ["claim", "--run-id", "r1", "--batch-id", "b1", "--now", "2026-07-31T18:00:00Z",
         "--talk", "local.md", "--talk", "ready.md", "--catalog-fingerprint", qb.FP],
    ):  # fmt: skip
        digest = sha256_bytes(db.read_bytes())
        assert main(["queue", str(db), *args, "--apply", "--expected-sha256", digest]) == 0
    document = qb.read_db(db)
    talks = {talk["filename"]: talk for talk in document["talks"]}
    del talks["ready.md"]["_queue_claim"]
    talks["2023-01-01-done.md"]["_queue_claim_history"] = [
        LEGACY, dict(LEGACY, schema_version=2, result_payload_sha256="e" * 64)
    ]  # fmt: skip
    return document


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> sc.BothWays:
    return INSPECT.both_ways(capsys, monkeypatch)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_claims_and_epochs_inspect_the_same_in_every_layout(
    tmp_path: Path, cli: sc.BothWays, snapshot_file: Any, layout: str
) -> None:
    db = sc.write_layout(tmp_path / "vault", _claimed_vault(tmp_path), layout)
    before = snapshot_file(db)
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 0
    assert '"epoch_membership_mismatch"' in streamed[1]
    assert '"reprocessing-inflight": 3' in streamed[1]  # ready.md's claim is gone, not its status
    assert '"schema_version": 5' in streamed[1] and '"result_payload_sha256"' in streamed[1]
    assert snapshot_file(db) == before


def test_a_realistic_vault_inspects_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    db = sc.write_layout(tmp_path, realistic_database(12, outcomes=3), "artifact")
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == [] and streamed == whole and '"talk_count": 12' in streamed[1]


# inspect reads any version and duplicate filenames: it refuses only what it cannot walk
REFUSED = sc.refused(
    "future talk version", "talk not an object", "talks not an array", "bad claim in a late talk"
)


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_vault_is_refused_the_same(
    tmp_path: Path, cli: sc.BothWays, name: str, layout: str
) -> None:
    vault = tmp_path / "vault"
    db = sc.write_layout(vault, qb.database(sc.queue_talks(vault)), layout, REFUSED[name])
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 2 and '"ok": false' in streamed[1]


def test_a_legacy_root_and_unproven_bytes_inspect_the_same(
    tmp_path: Path, cli: sc.BothWays
) -> None:
    vault = tmp_path / "vault"
    document = qb.database(sc.queue_talks(vault))
    sc.legacy_root(document)  # inspect reads any root version
    db = sc.write_layout(vault, document, "artifact")
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == [] and streamed == whole and streamed[0] == 0
    db.write_bytes(sc.second_talk_respelled(db.read_bytes(), sc.NOT_ITS_OWN_ENCODING))
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == [db.read_bytes()] and streamed == whole


def test_a_view_that_raises_is_raised_by_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rvault_tracking_db.queue.run import inspect

    real = QueueView.add

    def failing(self: QueueView, index: int, talk: Any) -> None:
        if index == 3:
            raise LookupError("talk 3")
        real(self, index, talk)

    monkeypatch.setattr(queue_inspect.QueueView, "add", failing)
    vault = tmp_path / "vault"
    db = qb.write_db(vault, qb.database(sc.queue_talks(vault)))
    with pytest.raises(LookupError, match="talk 3"):
        inspect(db)
