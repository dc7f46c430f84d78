"""A failure injected at every writer step leaves every bundle path at its exact prior bytes."""

from __future__ import annotations

import argparse
import errno
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_contracts.cli import console_main
from rvault_contracts.writer import FaultHook
from rvault_transcript.cli import build_parser, main
from rvault_transcript.codes import HINTS

NAMES = ("talk.txt", "talk.segments.json", "talk.quality.json")
PRE_INSTALL = [
    "bundle_after_lock",
    "bundle_after_stage_write",
    "bundle_after_stage_fsync",
    "bundle_before_recheck",
]
DURING = [f"bundle_{when}_install:{name}" for name in NAMES for when in ("before", "after")]
FETCH_DURING = [step.replace("talk", "RhEtOr1c_01") for step in DURING]


def vtt_text(lines: int, word: str) -> str:
    cues = []
    for i in range(lines):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        cues.append(f"{at}.000 --> {at}.900\n{word} line {i} of the talk here")
    return "WEBVTT\n\n" + "\n\n".join(cues) + "\n"


def state(directory: Path) -> dict[str, bytes | None]:
    return {
        name: (directory / name).read_bytes() if (directory / name).exists() else None
        for name in NAMES
    }


def inodes(directory: Path) -> dict[str, int | None]:
    return {
        name: (directory / name).stat().st_ino if (directory / name).exists() else None
        for name in NAMES
    }


@pytest.fixture
def vault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A prior bundle (70 lines, so all three files exist) and a new caption file."""
    directory = tmp_path / "transcripts"
    directory.mkdir()
    (directory / "old.vtt").write_text(vtt_text(70, "old"))
    assert main(["vtt-cleanup", str(directory / "old.vtt"), str(directory / "talk.txt")]) == 0
    capsys.readouterr()
    assert all(value is not None for value in state(directory).values())
    return directory


def main_with_fault(argv: list[str], fault: FaultHook) -> int:
    """``main(argv)`` whose request carries ``fault`` (a parser default no option sets)."""

    def parser() -> argparse.ArgumentParser:
        built = build_parser()
        built.set_defaults(bundle_fault=fault)
        return built

    return console_main(parser, argv, HINTS)


def run_with_fault(
    directory: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    step: str,
    new_lines: int,
) -> tuple[int, dict, list[str]]:
    (directory / "new.vtt").write_text(vtt_text(new_lines, "new"))
    seen: list[str] = []

    def fault(name: str) -> None:
        seen.append(name)
        if name == step:
            raise OSError(errno.EIO, f"injected at {name}")

    argv = ["vtt-cleanup", str(directory / "new.vtt"), str(directory / "talk.txt"), "--force"]
    code = main_with_fault(argv, fault)
    return code, json.loads(capsys.readouterr().out), seen


@pytest.mark.parametrize("step", PRE_INSTALL + DURING)
def test_replacement_failure_restores_every_path(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], step: str
) -> None:
    before, before_inodes = state(vault), inodes(vault)
    code, result, seen = run_with_fault(vault, monkeypatch, capsys, step, 80)
    assert step in seen
    assert code == 2 and result["ok"] is False
    assert result["error"]["code"] == ("io_error" if step in PRE_INSTALL else "bundle_rolled_back")
    assert state(vault) == before
    if step in PRE_INSTALL:
        assert inodes(vault) == before_inodes
    leftovers = sorted(
        p.name
        for p in vault.iterdir()
        if p.name not in {*NAMES, "old.vtt", "new.vtt", "talk.txt.lock"}
    )
    assert leftovers == []


@pytest.mark.parametrize("step", DURING)
def test_a_short_import_is_refused_before_any_write(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], step: str
) -> None:
    """Below the floor nothing is staged: no writer step runs, every byte and inode stays."""
    before, before_inodes = state(vault), inodes(vault)
    code, result, seen = run_with_fault(vault, monkeypatch, capsys, step, 5)
    assert code == 2 and result["error"]["code"] == "transcript_quality_failed"
    assert result["reason"] == "too_few_words" and "--duration-seconds" in result["hint"]
    assert seen == []
    assert state(vault) == before and inodes(vault) == before_inodes


def test_failure_after_creating_missing_files_removes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    code, result, _ = run_with_fault(
        directory, monkeypatch, capsys, "bundle_after_install:talk.quality.json", 80
    )
    assert code == 2 and result["error"]["code"] == "bundle_rolled_back"
    assert state(directory) == {name: None for name in NAMES}


def test_failure_after_the_last_install_is_reported_not_rolled_back(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result, _ = run_with_fault(vault, monkeypatch, capsys, "bundle_before_dir_fsync", 80)
    assert code == 0
    assert result["write"]["durability_state"] == "installed_directory_fsync_failed"
    assert (vault / "talk.txt").read_text().startswith("new line 0")


@pytest.mark.parametrize("step", ["bundle_before_recheck", *FETCH_DURING])
def test_fetch_bundle_failure_restores_every_path(
    vault: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    step: str,
) -> None:
    # The fetch bundle is named after its own transcript; reuse the vault's prior bundle names.
    youtube_replay("success")
    recorded_ytdlp(100.0)
    before = state(vault)

    def fault(name: str) -> None:
        if name == step:
            raise OSError(errno.EIO, f"injected at {name}")

    # A YouTube transcript is named {ID}.txt: give the prior bundle those names.
    for name in NAMES:
        (vault / name).rename(vault / name.replace("talk", "RhEtOr1c_01"))
    renamed = {name.replace("talk", "RhEtOr1c_01"): data for name, data in before.items()}
    out = vault / "RhEtOr1c_01.txt"
    code = main_with_fault(["fetch", "RhEtOr1c_01", "--out", str(out), "--existing-source",
                            "unknown", "--duration-seconds", "100", "--force"], fault)  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 2 and result["error"]["code"] in {"io_error", "bundle_rolled_back"}
    assert {name: (vault / name).read_bytes() for name in renamed} == renamed
