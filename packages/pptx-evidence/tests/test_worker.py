"""The extraction worker is contained: limits refuse cleanly, the caller survives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import json, os, sys
from pathlib import Path
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence.limits import Limits
from rvault_pptx_evidence.worker import run_isolated
limits = Limits(**json.loads(sys.argv[2]))
try:
    run = run_isolated(Path(sys.argv[1]), "deck.pptx", ocr_mode="disabled", limits=limits)
    outcome = {"ok": True, "slides": run.document["slide_count"]}
    outcome["worker_rss"] = run.worker_peak_rss_kib
except Refusal as refusal:
    outcome = {"ok": False, "code": refusal.code}
try:
    os.waitpid(-1, os.WNOHANG)
    outcome["children_left"] = True
except ChildProcessError:
    outcome["children_left"] = False
print(json.dumps(outcome))
"""


def _run(deck: Path, **limits: object) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(deck), json.dumps(limits)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_worker_returns_the_document(picture_deck: Path) -> None:
    outcome = _run(picture_deck)
    assert outcome["ok"] is True and outcome["slides"] == 2
    assert isinstance(outcome["worker_rss"], int) and outcome["worker_rss"] > 0
    assert outcome["children_left"] is False


def test_memory_limit_is_a_refusal_not_a_crash(picture_deck: Path) -> None:
    outcome = _run(picture_deck, worker_address_space_bytes=48 * 1024 * 1024)
    assert outcome == {"ok": False, "code": "worker_resource_limit", "children_left": False}


def test_wall_deadline_kills_the_worker(picture_deck: Path) -> None:
    outcome = _run(picture_deck, worker_wall_seconds=0.01)
    assert outcome == {"ok": False, "code": "worker_timeout", "children_left": False}


def test_worker_output_bound(picture_deck: Path) -> None:
    outcome = _run(picture_deck, max_worker_output_bytes=100)
    assert outcome == {"ok": False, "code": "worker_resource_limit", "children_left": False}


def test_replaced_deck_is_refused(picture_deck: Path, tmp_path: Path) -> None:
    from rvault_contracts.cli import Refusal
    from rvault_pptx_evidence.extract import extract_path
    from rvault_pptx_evidence.source import file_generation

    deck = tmp_path / "deck.pptx"
    deck.write_bytes(picture_deck.read_bytes())
    checked = file_generation(deck.lstat())
    replacement = tmp_path / "other.pptx"
    replacement.write_bytes(picture_deck.read_bytes())
    replacement.replace(deck)  # same bytes, new file version
    with pytest.raises(Refusal) as refused:
        extract_path(deck, "deck.pptx", ocr_mode="disabled", expected_generation=checked)
    assert refused.value.code == "input_changed"
