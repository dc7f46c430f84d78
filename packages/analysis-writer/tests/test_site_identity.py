"""A talk page says when the owner's identity check finds the analysis may rest on
another delivery's sources (``rvault_tracking_db.api.identity_findings``)."""

from __future__ import annotations

import json
from pathlib import Path

from rvault_testkit.plugin import run_cli
from site_vault import build_vault


def test_a_contradicting_recorded_identity_is_shown_on_the_talk_page(tmp_path: Path) -> None:
    vault = build_vault(tmp_path / "vault", talks=2, processed=2, legacy_every=0)
    document = json.loads(vault.db.read_bytes())
    talk = document["talks"][0]
    year = int(talk["date"][:4])
    talk["source_identity"] = {
        "schema_version": 1,
        "provider": "youtube",
        "video_id": "AbCdEfGhI_1",
        "recorded_date": f"{year + 3}-05-01",  # recorded three years after the catalog date
    }
    vault.db.write_text(json.dumps(document, indent=2), encoding="utf-8")
    out = tmp_path / "site"
    result = run_cli("rvault-analysis", "site", out, "--db", vault.db, "--outside-vault")
    assert result.returncode == 0, result.stdout + result.stderr
    page = (out / f"talk-{talk['filename'].removesuffix('.md')}.html").read_text()
    assert "Source identity" in page
    assert "<code>source_identity_recorded_date_mismatch</code>" in page
    other = document["talks"][1]["filename"].removesuffix(".md")
    assert "Source identity" not in (out / f"talk-{other}.html").read_text()
