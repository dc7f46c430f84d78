"""Real ``rvault-returns persist`` output for the evidence-ledger conformance tests.

A vault whose transcripts come from the transcript owner (``rvault-transcript
vtt-cleanup``: transcript, timing receipt v2, quality receipt), claimed by the
installed ``rvault-db``, scaffolded and completed as a worker does
(``_returns_producer.completed_return``, with a quote that occurs exactly once
in each transcript), then persisted by the installed ``rvault-returns
persist`` (not a test module).
"""

from __future__ import annotations

import atexit
import copy
import shutil
import tempfile
from pathlib import Path
from typing import Any

from _queue_producer import claim
from _returns_producer import completed_return
from _support import write_current_database
from rvault_returns_persistence.catalog import load_catalog
from rvault_testkit.plugin import run_cli, run_cli_applied

CLAIMED_AT = "2026-07-31T18:00:00+00:00"
RUN_DATE = "2026-08-01T09:00:00+00:00"
NAMES = ["2024-01-01-a.md", "2024-02-01-b.md"]


def _line(n: int) -> str:
    return f"in part {n} of the talk the speaker tells one failure story and resolves it"


def owner_transcript(vault: Path, stem: str, cues: int = 80) -> str:
    folder = vault / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["WEBVTT", ""]
    for n in range(cues):
        lines += [f"00:{n * 5 // 60:02d}:{n * 5 % 60:02d}.000 --> 00:{n * 5 // 60:02d}:"
                  f"{n * 5 % 60 + 4:02d}.000", _line(n + 1), ""]  # fmt: skip
    (folder / f"{stem}.en.vtt").write_text("\n".join(lines), encoding="utf-8")
    result = run_cli(
        "rvault-transcript", "vtt-cleanup", folder / f"{stem}.en.vtt", folder / f"{stem}.txt"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return f"transcripts/{stem}.txt"


# One persisted vault per test process, copied for each caller: building it
# runs about ten owner commands (transcripts, claim, persist), and nine tests
# across conformance and reliability start from it. Its files and documents
# hold no absolute path, so a copy is the same vault wherever it lands.
_BUILT: dict[str, Any] = {}


def persisted_vault(root: Path) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    """(database, the returns as sent, the persistence report), in a fresh copy under ``root``."""
    if not _BUILT:
        template = Path(tempfile.mkdtemp(prefix="rvault-persisted-"))
        atexit.register(shutil.rmtree, template, ignore_errors=True)
        db, returns, path = claimed_owner_vault(template)
        result = run_cli_applied("rvault-returns", "persist", db, path, "--run-date", RUN_DATE)
        assert result.returncode == 0, result.stdout + result.stderr
        _BUILT.update(template=template, db=db.relative_to(template), returns=returns)
        _BUILT["report"] = result.json
    shutil.copytree(_BUILT["template"], root, symlinks=True, dirs_exist_ok=True)
    return root / _BUILT["db"], copy.deepcopy(_BUILT["returns"]), copy.deepcopy(_BUILT["report"])


def claimed_owner_vault(root: Path) -> tuple[Path, list[dict[str, Any]], Path]:
    """(database, the completed returns, ``root/returns.json``) just before persist."""
    import json

    vault = root / "vault"
    talks = []
    for name in NAMES:
        path = owner_transcript(vault, name.removesuffix(".md"))
        talks.append(
            {"schema_version": 5, "filename": name, "status": "pending", "transcript_path": path}
        )
    db = write_current_database(vault, talks)
    claim(db, CLAIMED_AT, extra=("--catalog-fingerprint", load_catalog().fingerprint))
    returns = []
    for n, name in enumerate(NAMES, start=3):
        ret = completed_return(db, name)
        for lane in ("patterns_detected", "applicability_assessments"):
            for row in ret["pattern_observations"][lane]:
                for citation in row["evidence_citations"]:
                    citation["quote"] = f"in part {n} of the talk"
        returns.append(ret)
    path = root / "returns.json"
    path.write_text(json.dumps(returns, indent=2), encoding="utf-8")
    return db, returns, path
