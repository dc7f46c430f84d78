"""Real worker-return output for the returns conformance tests (not a test module).

A vault is claimed by the installed ``rvault-db`` (claim v5, baseline bound
to the shipped catalog's fingerprint), each member is scaffolded by the
installed ``rvault-returns scaffold`` and then completed the way a worker
does: prose, one cited detection, one applicability assessment per entry
the validator asks for, and a consistent score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _queue_producer import claim
from _support import pending_talk, write_current_database
from rvault_returns_persistence.catalog import load_catalog
from rvault_testkit.plugin import run_cli

QUOTE = "a real transcript line about failure stories"


def claimed_vault(root: Path) -> tuple[Path, list[str]]:
    vault = root / "vault"
    (vault / "transcripts").mkdir(parents=True)
    talks = []
    names = ["2024-01-01-a.md", "2024-02-01-b.md"]
    for name in names:
        # the cited line occurs once: a quote must locate exactly one place
        lines = [f"{QUOTE} number 1"] + [f"another line number {n}" for n in range(2, 31)]
        talks.append(pending_talk(vault, name, "\n".join(lines) + "\n"))
    db = write_current_database(vault, talks)
    claim(
        db,
        "2026-07-31T18:00:00+00:00",
        extra=("--catalog-fingerprint", load_catalog().fingerprint),
    )
    return db, names


def completed_return(db: Path, filename: str) -> dict[str, Any]:
    scaffold = run_cli("rvault-returns", "scaffold", "--db", db, "--talk", filename)
    assert scaffold.returncode == 0, scaffold.stdout
    ret = scaffold.json
    catalog = load_catalog()
    ret["rhetoric_notes"] = "The talk frames one failure story and resolves it across three acts."
    ret["areas_for_improvement"] = "The close arrives abruptly; no antipattern applies strongly."
    po = ret["pattern_observations"]
    citation = {"source": "transcript", "channel": "transcript", "quote": QUOTE}
    po["patterns_detected"].append(
        {
            "pattern_id": "narrative-arc",
            "confidence": "strong",
            "evidence_source": "transcript",
            "evidence": "A setup, a complication and a resolution in order.",
            "evidence_citations": [citation],
        }
    )
    needed = (
        scaffold.stderr.split("required for:", 1)[1].strip().split(", ")
        if "required for:" in scaffold.stderr
        else []
    )
    for pid in needed:
        entry = catalog.entries[pid]
        po["applicability_assessments"].append(
            {
                "pattern_id": pid,
                "result": "not_applicable",
                "condition_id": entry.conditions[0],
                "evidence_source": "transcript",
                "evidence": "The complete transcript establishes the condition.",
                "evidence_citations": [citation],
            }
        )
    po["pattern_score"] = {"patterns_used": 1, "antipatterns_detected": 0, "score": 1}
    return ret
