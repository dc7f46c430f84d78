"""``rvault-db queue inspect`` reads as the talks stream, with today's answer.

``queue.inspect.QueueView`` makes each talk's row and collects its claims
for the epochs; streamed (``queue.streamed_read``), every talk is dropped
after its row. Run through the console command both ways (the whole way by
a stream that proves nothing), every vault here must give the same exit
status and stdout byte for byte: claims of every version, live, closed and
broken epochs, in every writer layout; refused vaults; bytes the stream
cannot prove.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import pytest
from rvault_contracts.canonical import sha256_bytes
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import realistic_database
from rvault_tracking_db.cli import main
from rvault_tracking_db.queue import inspect as queue_inspect
from rvault_tracking_db.queue import streamed_read
from rvault_tracking_db.queue.inspect import QueueView
from test_queue_normalize_stream import _talks

Outcome = tuple[int, str]
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
    db = qb.write_db(vault, qb.database(_talks(vault)))
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


def _run(capsys: pytest.CaptureFixture[str], db: Path) -> Outcome:
    capsys.readouterr()
    code = main(["queue", str(db), "inspect"])
    return code, capsys.readouterr().out


def _both(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db: Path
) -> tuple[Outcome, Outcome, list[bytes]]:
    """The command streamed, then whole, and the whole reads the streamed run made."""
    calls: list[bytes] = []
    whole_read = streamed_read.decode_and_assess

    def recording(data: bytes, *args: Any) -> Any:
        calls.append(data)
        return whole_read(data, *args)

    monkeypatch.setattr(streamed_read, "decode_and_assess", recording)
    streamed = _run(capsys, db)
    streamed_reads = list(calls)
    with monkeypatch.context() as patch:
        patch.setattr(streamed_read, "streamed_assessment", lambda *a, **k: None)
        whole = _run(capsys, db)
    return streamed, whole, streamed_reads


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_claims_and_epochs_inspect_the_same_in_every_layout(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    snapshot_file: Any,
    layout: str,
) -> None:
    db = tmp_path / "vault" / qb.DB_NAME
    document = _claimed_vault(tmp_path)
    db.write_bytes(LAYOUTS[layout](document))
    before = snapshot_file(db)
    streamed, whole, whole_reads = _both(capsys, monkeypatch, db)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 0
    assert '"epoch_membership_mismatch"' in streamed[1]
    assert '"reprocessing-inflight": 3' in streamed[1]  # ready.md's claim is gone, not its status
    assert '"schema_version": 5' in streamed[1] and '"result_payload_sha256"' in streamed[1]
    assert snapshot_file(db) == before


def test_a_realistic_vault_inspects_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / qb.DB_NAME
    db.write_bytes(LAYOUTS["artifact"](realistic_database(12, outcomes=3)))
    streamed, whole, whole_reads = _both(capsys, monkeypatch, db)
    assert whole_reads == [] and streamed == whole and '"talk_count": 12' in streamed[1]


REFUSED: dict[str, Callable[[dict[str, Any]], object]] = {
    "future talk version": lambda d: d["talks"][4].update(schema_version=6),
    "talk not an object": lambda d: d["talks"].insert(2, 7),
    "talks not an array": lambda d: d.update(talks={"a": 1}),
    "bad claim in a late talk": lambda d: d["talks"][-1].update(_queue_claim={"run_id": 5}),
}


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_vault_is_refused_the_same(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    layout: str,
) -> None:
    vault = tmp_path / "vault"
    document = qb.database(_talks(vault))
    REFUSED[name](document)
    db = vault / qb.DB_NAME
    db.write_bytes(LAYOUTS[layout](document))
    streamed, whole, whole_reads = _both(capsys, monkeypatch, db)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 2 and '"ok": false' in streamed[1]


def test_a_legacy_root_and_unproven_bytes_inspect_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    document = qb.database(_talks(vault))
    document.pop("schema_version")  # inspect reads any root version
    db = vault / qb.DB_NAME
    db.write_bytes(LAYOUTS["artifact"](document))
    streamed, whole, whole_reads = _both(capsys, monkeypatch, db)
    assert whole_reads == [] and streamed == whole and streamed[0] == 0
    data = db.read_bytes()
    line = b'      "filename": '
    at = data.index(line, data.index(line) + 1)
    db.write_bytes(data[:at] + b'      "zz": 1E2,\n' + data[at:])  # not its own encoding
    streamed, whole, whole_reads = _both(capsys, monkeypatch, db)
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
    db = qb.write_db(vault, qb.database(_talks(vault)))
    with pytest.raises(LookupError, match="talk 3"):
        inspect(db)
