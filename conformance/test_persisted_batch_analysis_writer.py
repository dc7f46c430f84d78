"""pattern-observations and completed claims: real ``rvault-returns persist`` output
through ``rvault-analysis write``.

The writer authorizes the batch by the receipts persist stored on the
completed claims, recomputes the scoring generation against the current
catalog and renders every persisted ledger. This persists a vault with the
installed ``rvault-returns persist`` (``_persist_producer``) and renders it
with the installed ``rvault-analysis write``: every outcome row, every
canonical citation location and the receipt digest arrive in the Markdown,
the report passes its schema, and a substituted return is refused with the
vault unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

from _persist_producer import RUN_DATE, persisted_vault
from rvault_contracts.canonical import payload_sha256
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli, tree_state
from rvault_tracking_db import api

COVERS = [
    ("pattern-observations", "returns-persistence", "analysis-writer"),
    ("queue-claim", "tracking-db", "analysis-writer"),
]


def test_write_renders_a_real_persisted_batch(tmp_path: Path) -> None:
    db, returns, _ = persisted_vault(tmp_path)
    returns_path = tmp_path / "returns.json"
    outdir = db.parent / "analyses"
    outdir.mkdir()
    result = run_cli("rvault-analysis", "write", returns_path, outdir, "--db", db)
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    assert schema_issues("analysis-write-report", 1, report) == []
    talks = {t["filename"]: t for t in api.read_database(db).database["talks"]}
    assert [w["filename"] for w in report["written"]] == sorted(r["filename"] for r in returns)
    for ret in returns:
        talk = talks[ret["filename"]]
        claim = talk["_queue_claim"]
        assert claim["result_payload_sha256"] == payload_sha256(ret)
        text = (outdir / ret["filename"]).read_text(encoding="utf-8")
        assert f'result_payload_sha256: "{claim["result_payload_sha256"]}"' in text
        assert f'processed_date: "{talk["processed_date"]}"' in text
        assert talk["processed_date"].startswith(RUN_DATE[:10])
        assert 'evidence_basis: "source-verified"' in text
        ledger = talk["pattern_observations"]
        outcomes = text.split("### Outcomes", 1)[1].split("## Catalog feedback", 1)[0]
        for row in ledger["pattern_outcomes"]:
            assert f"| {row['pattern_id']} | {row['outcome']} |" in outcomes
        for row in ledger["patterns_detected"] + ledger["antipatterns_detected"]:
            assert f"#### `{row['pattern_id']}`" in text
            for citation in row["evidence_citations"]:
                start, end = citation["line_start"], citation["line_end"]
                shown = f"line {start}" if start == end else f"lines {start}-{end}"
                assert f'"{citation["quote"]}", transcript {shown}' in text


def test_write_refuses_a_substituted_return_of_a_real_batch(tmp_path: Path) -> None:
    db, returns, _ = persisted_vault(tmp_path)
    outdir = db.parent / "analyses"
    outdir.mkdir()
    returns[0]["rhetoric_notes"] += " Added after persistence."
    substituted = tmp_path / "substituted.json"
    substituted.write_text(json.dumps(returns), encoding="utf-8")
    before = tree_state(tmp_path)
    result = run_cli("rvault-analysis", "write", substituted, outdir, "--db", db)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "receipt_mismatch"
    assert tree_state(tmp_path) == before


def test_write_and_site_report_evidence_replaced_after_persist(tmp_path: Path) -> None:
    """A transcript re-fetched after persist leaves the analysis describing bytes that are
    gone: write and site still render, and both say which evidence no longer matches."""
    db, returns, _ = persisted_vault(tmp_path)
    talks = {t["filename"]: t for t in api.read_database(db).database["talks"]}
    first = talks[returns[0]["filename"]]
    inspected = first["pattern_observations"]["source_inspection"][0]
    replaced = db.parent / inspected["artifact_path"]
    replaced.write_bytes(replaced.read_bytes() + b"a line added after the analysis\n")
    untouched = {r["filename"] for r in returns[1:]}

    outdir = db.parent / "analyses"
    outdir.mkdir()
    written = run_cli("rvault-analysis", "write", tmp_path / "returns.json", outdir, "--db", db)
    assert written.returncode == 0, written.stdout + written.stderr
    report = written.json
    assert schema_issues("analysis-write-report", 1, report) == []
    stale = report["stale_evidence"]
    assert {s["filename"] for s in stale} == {first["filename"]}
    assert {s["filename"] for s in stale}.isdisjoint(untouched)
    [row] = [s for s in stale if s["path"] == inspected["artifact_path"]]
    assert (
        row["code"] == "evidence_changed" and row["recorded_sha256"] == inspected["artifact_sha256"]
    )
    assert any(inspected["artifact_path"] in w for w in report["warnings"])

    site = run_cli("rvault-analysis", "site", db.parent / "report", "--db", db)
    assert site.returncode == 0, site.stdout + site.stderr
    assert schema_issues("analysis-site-report", 1, site.json) == []
    assert [s["path"] for s in site.json["stale_evidence"]] == [s["path"] for s in stale]
    page = db.parent / "report" / f"talk-{first['filename'].removesuffix('.md')}.html"
    assert "evidence_changed" in page.read_text(encoding="utf-8")
