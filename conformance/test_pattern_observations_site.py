"""pattern-observations: real ``rvault-returns persist`` output through ``rvault-analysis site``.

The site reads the persisted effective talks through the tracking-db owner
read and renders each ledger's outcome matrix, canonical citations and the
completed-claim receipt. This runs the persisted vault of ``_persist_producer``
through the installed console script and checks every persisted row arrives;
a ledger changed in one field so that it breaks its contract never locks
the vault: the tracking-db owner read reports it as that talk's
``ledger_schema_violation`` warning, and the site is built with that talk's
ledger set aside and its page naming ``pattern_observations_invalid`` at the
field. An unsupported ledger version stays fatal in the owner read
(``unsupported_schema_version``) and no site is written.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest
from _persist_producer import persisted_vault
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from rvault_testkit.plugin import run_cli
from rvault_tracking_db import api

COVERS = [("pattern-observations", "returns-persistence", "analysis-writer")]
REFUSALS = {
    ("pattern-observations", "returns-persistence", "analysis-writer"): [
        ("unsupported_schema_version", ["evidence_schema_version"], 3),
    ],
}
BROKEN = [
    (["pattern_outcomes"], "x"),
    (["opportunity_coverage_identity"], "not-a-digest"),
    (["patterns_detected", 0, "evidence_citations", 0, "line_start"], 0),
]


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    db, _, _ = persisted_vault(tmp_path_factory.mktemp("persisted"))
    return db, json.loads(db.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_site_refuses_a_ledger_that_breaks_its_contract(
    produced: tuple[Path, Any], case: RefusalCase, tmp_path: Path
) -> None:
    db, database = produced
    changed = json.loads(json.dumps(database))
    talk = next(t for t in changed["talks"] if t["pattern_observations"]["patterns_detected"])
    talk["pattern_observations"] = mutated(talk["pattern_observations"], case)
    with replaced(db, changed):
        result = run_cli(
            "rvault-analysis", "site", tmp_path / "site", "--db", db, "--outside-vault"
        )
    assert_refused(case, cli_codes(result))
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize(("path", "value"), BROKEN)
def test_a_ledger_that_breaks_its_contract_is_set_aside_for_its_talk(
    produced: tuple[Path, Any], path: list[Any], value: Any, tmp_path: Path
) -> None:
    db, database = produced
    changed = json.loads(json.dumps(database))
    talk = next(t for t in changed["talks"] if t["pattern_observations"]["patterns_detected"])
    case = RefusalCase(COVERS[0], "pattern_observations_invalid", tuple(path), value)
    talk["pattern_observations"] = mutated(talk["pattern_observations"], case)
    with replaced(db, changed):
        result = run_cli(
            "rvault-analysis", "site", tmp_path / "site", "--db", db, "--outside-vault"
        )
    assert result.returncode == 0, result.stdout + result.stderr
    page_name = f"talk-{talk['filename'].removesuffix('.md')}.html"
    page = html.unescape((tmp_path / "site" / page_name).read_text(encoding="utf-8"))
    assert "pattern_observations_invalid" in page and "rvault-db queue normalize" in page


def test_site_renders_every_persisted_outcome_and_citation(tmp_path: Path) -> None:
    db, returns, _ = persisted_vault(tmp_path)
    result = run_cli("rvault-analysis", "site", tmp_path / "site", "--db", db, "--outside-vault")
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    assert report["page_count"] == len(returns)
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    talks = {t["filename"]: t for t in api.read_database(db).database["talks"]}
    for ret in returns:
        talk = talks[ret["filename"]]
        assert f'<div class="filename">{talk["filename"]}</div>' in index
        page_name = f"talk-{talk['filename'].removesuffix('.md')}.html"
        page = (tmp_path / "site" / page_name).read_text(encoding="utf-8")
        assert talk["_queue_claim"]["result_payload_sha256"] in page
        ledger = talk["pattern_observations"]
        table = page.split('<table class="outcomes">', 1)[1].split("</table>", 1)[0]
        assert table.count("<tr>") == len(ledger["pattern_outcomes"]) + 1
        findings = page.split('id="patterns-h"', 1)[1].split('id="other-h"', 1)[0]
        for row in ledger["patterns_detected"] + ledger["antipatterns_detected"]:
            assert f'id="finding-{row["pattern_id"]}"' in findings
            for citation in row["evidence_citations"]:
                start, end = citation["line_start"], citation["line_end"]
                shown = f"line {start}" if start == end else f"lines {start}-{end}"
                assert shown in findings
