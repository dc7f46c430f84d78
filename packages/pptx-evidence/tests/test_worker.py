"""The extraction worker is contained: limits refuse cleanly, the caller survives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.schemas import is_valid
from rvault_testkit.pptx_evidence import sample_decks

SCRIPT = """
import json, os, sys
from pathlib import Path
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence.limits import Limits
from rvault_pptx_evidence.worker import run_isolated
limits = Limits(**json.loads(sys.argv[2]))
mode = sys.argv[3] if len(sys.argv) > 3 else "disabled"
try:
    run = run_isolated(Path(sys.argv[1]), "deck.pptx", ocr_mode=mode, limits=limits)
    outcome = {"ok": True, "slides": run.document["slide_count"]}
    outcome["worker_rss"] = run.worker_peak_rss_kib
    outcome["sampled_rss"] = run.sampled_peak_rss_bytes
except Refusal as refusal:
    outcome = {"ok": False, "code": refusal.code}
    if "worker_failure" in refusal.context:
        outcome["receipt"] = refusal.context["worker_failure"]
try:
    os.waitpid(-1, os.WNOHANG)
    outcome["children_left"] = True
except ChildProcessError:
    outcome["children_left"] = False
print(json.dumps(outcome))
"""


def _run(deck: Path, ocr: str = "disabled", **limits: object) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(deck), json.dumps(limits), ocr],
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
    assert (outcome["ok"], outcome["code"], outcome["children_left"]) == (
        False,
        "worker_timeout",
        False,
    )
    assert outcome["receipt"]["supervisor_reason_code"] == "wall_time_limit"


def test_worker_output_bound(picture_deck: Path) -> None:
    outcome = _run(picture_deck, max_worker_output_bytes=100)
    assert (outcome["code"], outcome["children_left"]) == ("worker_resource_limit", False)
    assert outcome["receipt"]["supervisor_reason_code"] == "output_limit"


@pytest.fixture(scope="module")
def hungry_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    deck = tmp_path_factory.mktemp("hungry") / "hungry.pptx"
    deck.write_bytes(sample_decks.hungry_ocr_deck())
    return deck


def _assert_receipt(receipt: dict[str, Any], reason: str) -> None:
    assert is_valid("pptx-worker-failure", 1, receipt), receipt
    assert receipt["operation"] == "extract"
    assert receipt["limit_profile"] == "pptx_extract"
    assert receipt["supervisor_reason_code"] == reason


def test_memory_hungry_ocr_is_killed_and_reported(hungry_deck: Path) -> None:
    """The OCR engine is a descendant of the worker: its RSS is charged to the tree."""
    limit = 120 * 1024 * 1024
    outcome = _run(hungry_deck, "enabled", max_rss_bytes=limit)
    assert (outcome["ok"], outcome["code"], outcome["children_left"]) == (
        False,
        "worker_resource_limit",
        False,
    )
    _assert_receipt(outcome["receipt"], "rss_limit")
    assert outcome["receipt"]["observed_peak_rss_bytes"] > limit
    # The same input fits the real profile.
    fits = _run(hungry_deck, "enabled")
    assert fits["ok"] is True and fits["sampled_rss"] > limit


def test_time_hungry_ocr_is_killed_and_reported(hungry_deck: Path) -> None:
    outcome = _run(hungry_deck, "enabled", worker_wall_seconds=0.8)
    assert (outcome["code"], outcome["children_left"]) == ("worker_timeout", False)
    _assert_receipt(outcome["receipt"], "wall_time_limit")
    assert not _stray_engines()


def _stray_engines() -> list[int]:
    """Live (non-zombie) tesseract processes orphaned to init, after a short grace."""
    import time

    import psutil

    for _ in range(20):
        stray = [
            p.pid
            for p in psutil.process_iter(["name", "ppid", "status"])
            if p.info["name"] == "tesseract"
            and p.info["ppid"] == 1
            and p.info["status"] != psutil.STATUS_ZOMBIE
        ]
        if not stray:
            return []
        time.sleep(0.1)
    return stray


def test_request_binds_profile_platform_and_a_fresh_nonce(picture_deck: Path) -> None:
    from rvault_pptx_evidence import worker
    from rvault_pptx_evidence.limits import PPTX_EXTRACT

    first = worker._request("extract", picture_deck, {"x": 1}, PPTX_EXTRACT, None)
    second = worker._request("extract", picture_deck, {"x": 1}, PPTX_EXTRACT, None)
    assert first["nonce"] != second["nonce"]
    assert first["platform"] == second["platform"] and all(first["platform"].values())
    assert first["limit_profile"]["name"] == "pptx_extract"
    assert first["limit_profile"]["max_rss_bytes"] == PPTX_EXTRACT.max_rss_bytes
    assert first["file_generation"][1] == picture_deck.stat().st_ino


def test_a_peak_between_samples_still_fails_closed(
    picture_deck: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that peaks and exits between two samples is judged by its kernel high-water mark.

    Under load the worker could finish before the first sample was taken, and a
    breach of the memory limit then passed unseen (the directory scan test saw it).
    """
    from rvault_contracts.cli import Refusal
    from rvault_pptx_evidence import worker
    from rvault_pptx_evidence.limits import PPTX_EXTRACT, with_overrides

    monkeypatch.setattr(worker, "_sample_rss", lambda *args: None)  # every sample misses
    with pytest.raises(Refusal) as refused:
        worker.run_isolated(
            picture_deck, "deck.pptx", ocr_mode="disabled",
            limits=with_overrides(PPTX_EXTRACT, max_rss_bytes=1024 * 1024),
        )  # fmt: skip
    assert refused.value.code == "worker_resource_limit"
    receipt = refused.value.context["worker_failure"]
    assert receipt["supervisor_reason_code"] == "rss_limit"
    assert receipt["observed_peak_rss_bytes"] > 1024 * 1024


def test_a_large_caller_does_not_count_against_its_worker(picture_deck: Path) -> None:
    """The worker is forked, so its RSS includes every resident page it shares with the
    caller. A large in-process caller (a test runner late in a suite, a batch worker)
    must not make an ordinary deck breach the limit: the limit bounds what the worker
    adds (make test saw 'process tree reached 625 MiB' on a deck that needs far less)."""
    from rvault_pptx_evidence import worker
    from rvault_pptx_evidence.limits import PPTX_EXTRACT, with_overrides

    limit = 192 * 1024 * 1024
    ballast = bytearray(b"\x01") * (256 * 1024 * 1024)  # written, so resident, and inherited
    try:
        run = worker.run_isolated(
            picture_deck, "deck.pptx", ocr_mode="disabled",
            limits=with_overrides(PPTX_EXTRACT, max_rss_bytes=limit),
        )  # fmt: skip
    finally:
        del ballast
    assert run.document["slide_count"] == 2
    # the worker really was that large, shared pages included; only its growth was judged
    assert run.sampled_peak_rss_bytes == 0 or run.sampled_peak_rss_bytes > limit
