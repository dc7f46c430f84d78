"""``rvault-db preflight`` checks each talk as the read streams it, with today's answer.

``preflight.streamed.streamed_checks`` assesses each talk with the owner's
loop, runs its identity and artifact checks, keeps what the cross-talk and
deck-binding checks need, and drops it; the whole read (``read_with_root``
and ``check_talks`` over the decoded tree, what preflight ran before) decodes
the tree first. Run through the command both ways, every vault here must give
the same exit status and the same stdout, byte for byte: valid vaults in
every writer layout (artifacts present, missing, unreadable and changed,
identity findings, duplicates, relations, stored and re-proven deck
bindings), refused ones, and the ones the stream hands to the whole read.
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
from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence.identity_decks import delivery_deck
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import (
    example_pptx,
    example_source_rejections,
    example_talk,
)
from rvault_tracking_db.preflight import artifacts, run
from rvault_tracking_db.preflight.run import PreflightRequest, run_preflight
from rvault_tracking_db.preflight.talk_checks import talks_of

DECK = "Devoxx/2023/Cost Myths.pptx"
EXTRACTION = "pptx/cost-myths.json"


@pytest.fixture(scope="module")
def extraction(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """One real extraction of a generated Devoxx 2023 deck (``rvault-pptx extract``)."""
    decks = tmp_path_factory.mktemp("decks")
    deck = decks / DECK
    deck.parent.mkdir(parents=True)
    deck.write_bytes(delivery_deck("Kubernetes Cost Myths", "Jane Doe", "Devoxx Belgium 2023"))
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", decks)
    assert result.returncode == 0, result.stderr
    return result.stdout.encode()


def _receipt(extraction: bytes) -> dict[str, Any]:
    """The catalog receipt of the deck: bound to the Kubernetes talk, its extraction named."""
    record = example_pptx()
    record.update(pptx_path=DECK, talk_filename="2023-10-04-kubernetes-cost-myths.md")
    record["visual_evidence"]["artifact"] = {"path": EXTRACTION, "sha256": qb.sha(extraction)}
    return record


def _deck_talks() -> list[dict[str, Any]]:
    """Two talks on the real deck: the one listed first is re-proven only against the other
    (its own title is not on the title slide, the later talk's is: contradicted; alone, the
    delivery year agreeing would make it plausible)."""
    java = qb.pending_talk("2023-10-05-java-records.md", pptx_path=DECK, date="2023-10-05")
    java.update(title="Java Records in Depth", conference="Jfokus")
    k8s = qb.pending_talk("2023-10-04-kubernetes-cost-myths.md", pptx_path=DECK)
    k8s.update(title="Kubernetes Cost Myths", conference="Devoxx Belgium", date="2023-10-04")
    return [java, k8s]


def _talks(vault: Path) -> list[dict[str, Any]]:
    """Talks with every kind of finding: artifacts present, missing, unreadable, changed,
    identities that disagree or collide, rejected sources, deck bindings (the transcript and
    deck they name written by ``identity_and_deck_talks``)."""
    (vault / "slides").mkdir(parents=True, exist_ok=True)
    (vault / "slides" / "bad.pdf").write_bytes(b"not a pdf at all")
    qb.write_pdf(vault / "slides" / "changed.pdf")
    rejected = qb.remote_talk("2024-08-01-rejected.md", "Zz9Yy8Xx7Ww")
    rejected["source_rejections"] = [
        {**example_source_rejections()[0], "url": rejected["video_url"]}
    ]
    return [
        qb.bind_evidence(vault, qb.processed_talk("2023-01-01-done.md", 7)),
        qb.processed_talk("2023-01-02-gone.md", 5, transcript_path="transcripts/gone.txt"),
        example_talk(),
        sc.mismatched_talk(),
        rejected,
        qb.pending_talk("2024-01-01-later.md", transcript_path="transcripts/later.txt"),
        *sc.identity_and_deck_talks(vault),
        qb.pending_talk(
            "2024-03-03-pdf.md", status="processed", slides_local_path="slides/bad.pdf",
            slide_source="pdf",
        ),
        qb.pending_talk(
            "2024-03-04-changed.md", slides_local_path="slides/changed.pdf",
            slides_local_identity={"sha256": qb.sha(b"other bytes"), "size_bytes": 46},
        ),
        qb.pending_talk("2024-03-05-video.md", status="processed", slide_source="video_extracted",
                        youtube_id=sc.OTHER,
                        video_url=f"https://www.youtube.com/watch?v={sc.OTHER}"),
        qb.pending_talk("2024-04-01-skip.md", status="skipped_no_sources",
                        transcript_path="transcripts/t.txt",
                        source_capabilities=sc.local_transcript_caps()),
        *_deck_talks(),
    ]  # fmt: skip


def _database(vault: Path, extraction: bytes) -> dict[str, Any]:
    (vault / EXTRACTION).parent.mkdir(parents=True, exist_ok=True)
    (vault / EXTRACTION).write_bytes(extraction)
    database = qb.database(_talks(vault))
    database["pptx_catalog"] = [_receipt(extraction)]
    return database


def _whole_read(located: Any, _capture: str | None) -> str:
    return located.database


PREFLIGHT = sc.Command(
    argv=("preflight", sc.DB),
    owner=run,
    attribute="streamed_checks",
    whole=lambda *_args: None,
    reads=run,
    read="_whole_checks",
    recorded=_whole_read,
)
"""The whole way: no streamed checks. The whole reads: the databases ``run._whole_checks``
read whole."""


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> sc.BothWays:
    return PREFLIGHT.both_ways(capsys, monkeypatch)


def _codes(out: str) -> set[str]:
    """The finding codes of a report on stdout."""
    return set(json.loads(out)["summary"]["by_code"])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_varied_vault_streams_to_the_same_report_in_every_layout(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes, layout: str
) -> None:
    vault = tmp_path / "vault"
    db = sc.write_layout(vault, _database(vault, extraction), layout)
    whole_reads = cli.spy_whole_reads()
    streamed = cli.run(vault)
    assert whole_reads == []  # the stream proved the layout and checked every talk
    with cli.whole_way():
        whole = cli.run(vault)
    assert whole_reads == [str(db)]
    assert streamed == whole
    assert streamed[0] == 3
    assert {
        "claimed_artifact_missing", "claimed_artifact_unreadable", "slides_pdf_changed",
        "claimed_pdf_invalid", "video_extraction_provenance_missing",
        "status_source_reachability_conflict", "source_identity_title_mismatch",
        "rejected_source_active", "duplicate_recording", "source_relation_invalid",
        "deck_binding_contradicted", "deck_binding_unproven", "deck_binding_disagrees",
    } <= _codes(streamed[1])  # fmt: skip


def test_a_binding_re_proven_against_a_later_talk_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extraction: bytes
) -> None:
    """The first deck talk's proof needs the later talk's title: it is kept until then."""
    vault = tmp_path / "vault"
    database = _database(vault, extraction)
    (vault / qb.DB_NAME).write_bytes(artifact_bytes(database))
    whole_reads = PREFLIGHT.spy_whole_reads(monkeypatch)
    report = run_preflight(PreflightRequest(str(vault)))
    assert whole_reads == []
    java = len(database["talks"]) - 2
    found = [
        (f["talk_index"], f["code"], f["actual"]["reasons"])
        for f in report["findings"]
        if f["talk_index"] in (java, java + 1)
        and f["code"].startswith("deck_binding_")
        and f["code"] != "deck_binding_disagrees"
    ]
    # the later talk's own title is on the slide: proven, no finding
    assert found == [(java, "deck_binding_contradicted", ["title_conflicts"])]


@pytest.mark.parametrize("layout", ["artifact", "json.dumps"])
def test_a_realistic_vault_streams_to_the_same_report(
    tmp_path: Path, cli: sc.BothWays, layout: str
) -> None:
    database = sc.realistic_vault_database()
    database["talks"][9]["youtube_id"] = database["talks"][3]["youtube_id"]
    sc.write_layout(tmp_path, database, layout)
    streamed, whole, whole_reads = cli.both_spied(tmp_path)
    assert whole_reads == []
    assert streamed == whole and streamed[0] == 3
    assert '"talk_count": 40' in streamed[1]


def test_the_full_view_talk_by_talk_makes_check_talks_findings_in_order(
    tmp_path: Path, extraction: bytes
) -> None:
    vault = tmp_path / "vault"
    database = _database(vault, extraction)
    database["talks"].insert(3, 7)  # not an object: no reference, no checks
    view, whole = sc.views_of(database, vault, full=True)
    assert view.findings().items == whole.items
    assert view.talk_count == len(talks_of(database))
    assert len({f.code for f in whole.items}) >= 12


VALID = {**sc.VALID, "only the spec example": lambda d: d.update(talks=[example_talk()])}


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(VALID))
def test_other_valid_vaults_stream_to_the_same_report(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes, name: str, layout: str
) -> None:
    vault = tmp_path / "vault"
    sc.write_layout(vault, _database(vault, extraction), layout, VALID[name])
    streamed, whole, whole_reads = cli.both_spied(vault)
    assert whole_reads == []
    assert streamed == whole


REFUSED = {
    **sc.REFUSED,
    "a root assertion and a bad talk": lambda d: (
        d["config"].update(vault_storage_path="C:vault"),
        d["talks"][3].update(schema_version=6),
    ),
}


@pytest.mark.parametrize("layout", ["artifact", "jq -c"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_vault_is_the_same_blocking_finding_streamed(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes, name: str, layout: str
) -> None:
    vault = tmp_path / "vault"
    sc.write_layout(vault, _database(vault, extraction), layout, REFUSED[name])
    streamed, whole, whole_reads = cli.both_spied(vault)
    assert whole_reads == []  # refused by the stream's own assessment
    assert streamed == whole
    assert streamed[0] == 3 and _codes(streamed[1]) == {"database_unusable"}
    assert '"talk_count": 0' in streamed[1] and '"input_sha256": null' in streamed[1]


@pytest.mark.parametrize("value", ["C:vault", "/elsewhere"])
def test_a_root_assertion_goes_the_whole_way_and_still_checks_the_talks(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes, value: str
) -> None:
    vault = tmp_path / "vault"
    database = _database(vault, extraction)
    database["config"]["vault_storage_path"] = value
    db = qb.write_db(vault, database)
    whole_reads = cli.spy_whole_reads()
    streamed, whole = cli.both(db)
    assert whole_reads == [str(db), str(db)]  # the stream tolerates nothing: read whole
    assert streamed == whole and streamed[0] == 3
    assert {"vault_root_config_invalid", "vault_root_authority_mismatch"} & _codes(streamed[1])
    assert "duplicate_recording" in _codes(streamed[1])


@pytest.mark.parametrize(
    "member", [b'"filename": "again"', sc.NOT_ITS_OWN_ENCODING], ids=sc.UNPROVEN_IDS
)  # a report either way: an unusable database is a finding (exit 3)
def test_a_vault_the_stream_cannot_prove_goes_the_whole_way(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes, member: bytes
) -> None:
    vault = tmp_path / "vault"
    data = sc.second_talk_respelled(artifact_bytes(_database(vault, extraction)), member)
    db = vault / qb.DB_NAME
    db.write_bytes(data)
    whole_reads = cli.spy_whole_reads()
    streamed, whole = cli.both(db)
    assert whole_reads == [str(db), str(db)]
    assert streamed == whole and streamed[0] == 3


@pytest.mark.parametrize("target", ["missing", "a directory"])
def test_an_unreadable_database_is_the_same_finding(
    tmp_path: Path, cli: sc.BothWays, target: str
) -> None:
    if target == "a directory":
        (tmp_path / qb.DB_NAME).mkdir()
    streamed, whole = cli.both(tmp_path)
    assert streamed == whole and streamed[0] == 3
    assert _codes(streamed[1]) == {"database_unusable"}


def test_a_check_that_raises_is_raised_by_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extraction: bytes
) -> None:
    """A talk's check raising hands the vault to the whole read, which raises the same,
    unless a later talk refuses the read (then that refusal is the report)."""
    vault = tmp_path / "vault"
    database = _database(vault, extraction)
    db = vault / qb.DB_NAME
    db.write_bytes(artifact_bytes(database))
    real = artifacts.check_artifacts

    def failing(ref: Any, *args: Any) -> None:
        if ref.index == 4:
            raise LookupError("talk 4")
        real(ref, *args)

    monkeypatch.setattr(artifacts, "check_artifacts", failing)
    whole_reads = PREFLIGHT.spy_whole_reads(monkeypatch)
    with pytest.raises(LookupError, match="talk 4"):
        run_preflight(PreflightRequest(str(db)))
    assert whole_reads == [str(db)]
    database["talks"][9]["schema_version"] = 6  # a later talk refuses the read
    db.write_bytes(artifact_bytes(database))
    report = run_preflight(PreflightRequest(str(db)))
    assert [(f["code"], f["path"]) for f in report["findings"]] == [
        ("database_unusable", '$["talks"][9]["schema_version"]')
    ]
    assert whole_reads == [str(db)]


def _capture(path: Path, talks: list[str]) -> Path:
    """A capture of one recording whose provider title contradicts the talks it lists,
    made from other database bytes (``capture_stale``), with an entry that has no proposal."""
    proposal = {
        "captured_at": "2026-07-31T12:00:00Z", "duration_seconds": 2712, "provider": "youtube",
        "schema_version": 1, "title": "Kubernetes Cost Myths", "upload_date": "2023-10-12",
        "uploader": "Jane Doe", "video_id": sc.YT,
        "webpage_url": f"https://www.youtube.com/watch?v={sc.YT}", "webpage_video_id": sc.YT,
    }  # fmt: skip
    failed = {"code": "metadata_unavailable", "message": "no recorded metadata"}
    document = {
        "captured_at": "2026-07-31T12:00:00Z",
        "database_sha256": "a" * 64,
        "entries": [
            {"error": failed, "proposal": None, "talks": ["2024-02-04-nowhere.md"],
             "video_id": sc.OTHER},
            {"error": None, "proposal": proposal, "talks": talks, "video_id": sc.YT},
        ],
        "schema_version": 1,
    }  # fmt: skip
    path.write_bytes(artifact_bytes(document))
    return path


def test_a_capture_is_reviewed_against_the_talks_it_names_streamed(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes
) -> None:
    vault = tmp_path / "vault"
    (vault / qb.DB_NAME).write_bytes(artifact_bytes(_database(vault, extraction)))
    names = ["2024-02-02-dup.md", "gone.md", example_talk()["filename"], "2024-02-01-yt.md"]
    capture = str(_capture(tmp_path / "capture.json", names))
    streamed, whole, whole_reads = cli.both_spied(vault, "--capture", capture)
    assert whole_reads == []
    assert streamed == whole
    findings = json.loads(streamed[1])["findings"]
    reviewed = {(f["talk_index"], f["code"]) for f in findings if f["path"].startswith('$["e')}
    assert {(2, "source_identity_title_mismatch"), (7, "source_identity_title_mismatch")} <= (
        reviewed
    )
    assert "capture_stale" in _codes(streamed[1])


@pytest.mark.parametrize("vault_state", ["usable", "unusable"])
def test_a_capture_the_reader_refuses_is_refused_the_same(
    tmp_path: Path, cli: sc.BothWays, extraction: bytes, vault_state: str
) -> None:
    """Refused after the talks were checked; an unusable database is the report (exit 3)."""
    vault = tmp_path / "vault"
    database = _database(vault, extraction)
    if vault_state == "unusable":
        database["talks"][4]["schema_version"] = 6
    (vault / qb.DB_NAME).write_bytes(artifact_bytes(database))
    capture = tmp_path / "capture.json"
    capture.write_bytes(b'{"schema_version": 1, "schema_version": 1}')
    streamed, whole = cli.both(vault, "--capture", str(capture))
    assert streamed == whole
    assert streamed[0] == (2 if vault_state == "usable" else 3)
