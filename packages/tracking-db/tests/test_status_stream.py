"""``rvault-db status`` builds its rows as the read streams the talks, with today's answer.

``streamed_status.status_report`` assesses each talk with the owner's loop,
builds its row and its identity checks, and drops it; the whole read
(``build_status(read_database(path))``, what status ran before) decodes the
tree first. Run through the console command both ways, every vault here
must give the same exit status and the same stdout, byte for byte: valid
vaults in every writer layout (with identity findings, duplicates, relations,
deck bindings, warnings and claims), refused ones, and the ones the stream
hands to the whole read.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import _stream_cases as sc
import pytest
from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import (
    example_database,
    example_talk,
)
from rvault_tracking_db import streamed_read, streamed_status
from rvault_tracking_db.commands import status as status_command
from rvault_tracking_db.reader import DatabaseRefusal, read_database
from rvault_tracking_db.status import build_status


def _talks(vault: Path) -> list[dict[str, Any]]:
    """Talks with every kind of row: evidence on disk, warnings, identity findings, a claim
    (the transcript and deck they name written by ``identity_and_deck_talks``)."""
    claimed = example_database(claimed=True)["talks"][0]
    return [
        qb.bind_evidence(vault, qb.processed_talk("2023-01-01-done.md", 7)),
        sc.bad_ledger(example_talk("2023-02-01-ledger.md", youtube_id="yt000000002")),
        claimed,
        sc.mismatched_talk(),
        qb.pending_talk("2024-01-01-vimeo.md", video_url="https://vimeo.com/1"),
        *sc.identity_and_deck_talks(vault),
        qb.pending_talk(
            "2024-03-03-slides.md", slides_local_identity={"schema_version": 1, "sha256": "x"},
        ),
        qb.pending_talk(
            "2024-04-01-ready.md", transcript_path="transcripts/t.txt",
            source_capabilities=sc.local_transcript_caps(),
        ),
        qb.pending_talk("2024-05-01-skip.md", status="skipped_duplicate"),
    ]  # fmt: skip


def _database(vault: Path) -> dict[str, Any]:
    database = example_database(claimed=False)
    database["talks"] = _talks(vault)
    return database


def _whole(path: str) -> dict[str, Any]:
    """What ``rvault-db status`` ran before the stream."""
    return build_status(read_database(path))


STATUS = sc.Command(
    argv=("status", sc.DB),
    owner=status_command,
    attribute="status_report",
    whole=_whole,
    reads=streamed_read,
)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> sc.BothWays:
    return STATUS.both_ways(capsys, monkeypatch)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_varied_vault_streams_to_the_same_report_in_every_layout(
    tmp_path: Path, cli: sc.BothWays, layout: str
) -> None:
    vault = tmp_path / "vault"
    db = sc.write_layout(vault, _database(vault), layout)
    streamed, whole, whole_reads = cli.both_spied(db, "--format", "json")
    assert whole_reads == []  # the stream proved the layout and built every row
    assert streamed == whole
    assert streamed[0] == 0
    actions = {row["filename"]: row["next_action"]["code"] for row in _whole(str(db))["talks"]}
    assert actions["2023-02-01-ledger.md"] == "normalize"  # the ledger warning, on its row
    assert actions["2024-04-01-ready.md"] == "claim"


@pytest.mark.parametrize("layout", ["artifact", "json.dumps"])
def test_a_realistic_vault_streams_to_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    db = sc.write_layout(tmp_path, sc.realistic_vault_database(), layout)
    whole_reads = STATUS.spy_whole_reads(monkeypatch)
    report = streamed_status.status_report(db)
    assert whole_reads == []
    assert artifact_bytes(report) == artifact_bytes(_whole(str(db)))
    assert report["totals"]["talks"] == 40


def test_identity_findings_and_the_table_are_the_same_streamed(
    tmp_path: Path, cli: sc.BothWays
) -> None:
    vault = tmp_path / "vault"
    db = qb.write_db(vault, _database(vault))
    report = streamed_status.status_report(db)
    assert artifact_bytes(report) == artifact_bytes(_whole(str(db)))
    codes = {
        row["filename"]: [f["code"] for f in row["identity"]["findings"]] for row in report["talks"]
    }
    assert codes["2024-02-02-dup.md"] == ["duplicate_recording"]
    assert codes["2024-02-03-rel.md"] == []  # its relation names the canonical talk
    assert codes["2024-02-04-nowhere.md"] == ["source_relation_invalid"]
    assert codes["2024-03-01-deck.md"] == ["deck_binding_contradicted"]
    assert codes["2024-03-02-deck.md"] == ["deck_binding_unproven"]
    assert "source_identity_title_mismatch" in codes["2024-07-01-identity.md"]
    rows = {row["filename"]: row for row in report["talks"]}
    assert [i["code"] for i in rows["2024-03-03-slides.md"]["evidence_issues"]] == [
        "slides_identity_invalid"
    ]
    assert rows[example_talk()["filename"]]["next_action"]["code"] == "persist_batch"
    streamed, whole = cli.both(db, "--format", "table")
    assert streamed == whole
    assert "[duplicate_recording]" in streamed[1]


def test_the_light_view_talk_by_talk_makes_check_talks_findings_in_order(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    database = _database(vault)
    database["talks"].insert(3, 7)  # not an object: no reference, no checks
    view, whole = sc.views_of(database, vault, full=False)
    assert view.findings().items == whole.items
    assert len({f.code for f in whole.items}) >= 6


def _malformed_receipt(d: dict[str, Any]) -> None:
    d["pptx_catalog"][0]["visual_evidence"]["outcome"] = "bogus"


VALID = {**sc.VALID, "a catalog receipt warning (not a talk's)": _malformed_receipt}


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(VALID))
def test_other_valid_vaults_stream_to_the_same_report(
    tmp_path: Path, cli: sc.BothWays, name: str, layout: str
) -> None:
    vault = tmp_path / "vault"
    db = sc.write_layout(vault, _database(vault), layout, VALID[name])
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 0


REFUSED = sc.REFUSED


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_vault_is_refused_the_same_streamed(
    tmp_path: Path, cli: sc.BothWays, name: str, layout: str
) -> None:
    vault = tmp_path / "vault"
    db = sc.write_layout(vault, _database(vault), layout, REFUSED[name])
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == []  # refused by the stream's own assessment
    assert streamed == whole
    assert streamed[0] == 2 and '"ok": false' in streamed[1]


def test_a_missing_database_is_refused_the_same(tmp_path: Path, cli: sc.BothWays) -> None:
    streamed, whole = cli.both(tmp_path / qb.DB_NAME)
    assert streamed == whole and streamed[0] == 2
    assert '"database_missing"' in streamed[1]


@sc.unprovable(b'"conference": "again"')
def test_a_vault_the_stream_cannot_prove_goes_the_whole_way(
    tmp_path: Path, cli: sc.BothWays, member: bytes, outcome: int
) -> None:
    vault = tmp_path / "vault"
    data = sc.second_talk_respelled(artifact_bytes(_database(vault)), member)
    db = vault / qb.DB_NAME
    db.write_bytes(data)
    streamed, whole, whole_reads = cli.both_spied(db)
    assert whole_reads == [data]  # read once, whole, after the stream stopped
    assert streamed == whole and streamed[0] == outcome


def test_a_row_that_raises_is_raised_by_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are built before a later talk can refuse the read; one that raises hands the
    vault to the whole read, which refuses first (or raises the same, here)."""
    vault = tmp_path / "vault"
    db = qb.write_db(vault, _database(vault))
    real = streamed_status.StatusRows.add

    def failing(self: Any, position: int, talk: Any, trouble: Any) -> None:
        if position == 4:
            raise LookupError("row 4")
        real(self, position, talk, trouble)

    monkeypatch.setattr(streamed_status.StatusRows, "add", failing)
    whole_reads = STATUS.spy_whole_reads(monkeypatch)
    with pytest.raises(LookupError, match="row 4"):
        streamed_status.status_report(db)
    assert len(whole_reads) == 1
    database = qb.read_db(db)
    database["talks"][9]["schema_version"] = 6  # a later talk refuses the read
    qb.write_db(vault, database)
    with pytest.raises(DatabaseRefusal) as raised:  # the read's refusal, not the row's error
        streamed_status.status_report(db)
    with pytest.raises(DatabaseRefusal) as expected:
        read_database(db)
    assert raised.value.to_dict() == expected.value.to_dict()


def test_rows_that_cannot_start_are_raised_by_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row builder raising on the vault's config: a later talk's refusal still wins."""
    vault = tmp_path / "vault"
    database = _database(vault)
    database["talks"][9]["schema_version"] = 6
    db = qb.write_db(vault, database)

    def failing(*_args: Any) -> None:
        raise LookupError("config")

    monkeypatch.setattr(streamed_status.StatusRows, "__init__", failing)
    with pytest.raises(DatabaseRefusal) as raised:
        streamed_status.status_report(db)
    assert raised.value.to_dict()["error"]["path"] == '$["talks"][9]["schema_version"]'
    database["talks"][9]["schema_version"] = 5
    qb.write_db(vault, database)
    whole_reads = STATUS.spy_whole_reads(monkeypatch)
    with pytest.raises(LookupError, match="config"):
        streamed_status.status_report(db)
    assert len(whole_reads) == 1
