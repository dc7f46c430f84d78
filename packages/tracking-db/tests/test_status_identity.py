"""``rvault-db status`` carries each talk's identity findings (preflight's light view):
a duplicate upload, a recorded identity that contradicts the talk, an unproven or
contradicted deck binding; the table names the first blocking code."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli

YT = "dQw4w9WgXcQ"


def test_status_rows_show_identity_findings(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    qb.write_pptx(vault / "Deck.pptx")
    binding = qb.contradicted_binding()
    talks = [
        qb.remote_talk("a.md", YT, title="Talk A", date="2024-04-10"),
        qb.remote_talk("b.md", YT, title="Talk A again"),
        qb.pending_talk("c.md", pptx_path="Deck.pptx", deck_binding=binding),
        qb.pending_talk("d.md", pptx_path="Deck.pptx"),
        qb.pending_talk("e.md"),
    ]
    db = qb.write_db(vault, qb.database(talks))
    result = run_cli("rvault-db", "status", db)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("db-status-report", 1, report) == []
    rows = {row["filename"]: row["identity"] for row in report["talks"]}
    assert rows["a.md"] == {"blocking": 0, "warnings": 0, "findings": []}
    assert [f["code"] for f in rows["b.md"]["findings"]] == ["duplicate_recording"]
    assert rows["c.md"]["blocking"] == 1
    assert rows["c.md"]["findings"][0]["code"] == "deck_binding_contradicted"
    assert [(f["code"], f["severity"]) for f in rows["d.md"]["findings"]] == [
        ("deck_binding_unproven", "warning")
    ]
    assert rows["e.md"]["findings"] == []
    table = run_cli("rvault-db", "status", db, "--format", "table").stdout
    assert "[duplicate_recording]" in table and "[deck_binding_contradicted]" in table
