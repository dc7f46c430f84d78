"""Regressions from an adversarial review of ``rvault-pptx extract``: stable
codes that name the deck, refusals before the worker, nothing changed on disk."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.plugin import console_script, wait_until_open


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"just a text file\n", "not_a_zip"), (b"PK\x03\x04broken", "truncated_archive")],
)
def test_package_refusals_name_the_deck(
    tmp_path: Path, cli: Any, snapshot_tree: Any, content: bytes, code: str
) -> None:
    """These refusals used to carry ``path: null``."""
    deck = tmp_path / "talk.pptx"
    deck.write_bytes(content)
    before = snapshot_tree(tmp_path)
    result = cli("rvault-pptx", "extract", deck, "--no-ocr", "--out", tmp_path / "x.json")
    assert result.returncode == 2, result.stderr
    assert result.json["error"]["code"] == code
    assert result.json["error"]["path"] == str(deck)
    assert snapshot_tree(tmp_path) == before


@pytest.mark.parametrize("where", ["missing", "under_a_file"])
def test_out_into_a_missing_directory_is_refused_before_extracting(
    rich_deck: Path, tmp_path: Path, cli: Any, snapshot_tree: Any, where: str
) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory\n")
    parent = tmp_path / "nodir" if where == "missing" else blocker
    before = snapshot_tree(tmp_path)
    result = cli("rvault-pptx", "extract", rich_deck, "--no-ocr", "--out", parent / "x.json")
    assert result.returncode == 2, result.stderr
    assert result.json["error"] == {
        "code": "output_directory_missing",
        "message": "--out must name a file in an existing directory",
        "path": str(parent),
    }
    assert "worker peak_rss_kib" not in result.stderr  # no extraction was run
    assert snapshot_tree(tmp_path) == before


def test_non_utf8_arguments_are_refused_before_anything_runs(
    rich_deck: Path, tmp_path: Path, cli: Any, snapshot_tree: Any
) -> None:
    """A non-UTF-8 ``--out`` was written and then the report crashed (``internal_error``)."""
    deck = tmp_path / os.fsdecode(b"\xff.pptx")
    shutil.copyfile(rich_deck, deck)
    before = snapshot_tree(tmp_path)
    for args in (
        (deck, "--no-ocr"),
        (rich_deck, "--no-ocr", "--out", tmp_path / os.fsdecode(b"\xfe.json")),
    ):
        result = cli("rvault-pptx", "extract", *args)
        assert result.returncode == 2, result.stderr
        assert result.json["error"]["code"] == "argument_not_utf8"
        assert result.json["error"]["path"].endswith(("\\xff.pptx", "\\xfe.json"))
        assert snapshot_tree(tmp_path) == before


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_unwinds_like_ctrl_c(
    rich_deck: Path, tmp_path: Path, snapshot_tree: Any, signum: int
) -> None:
    """SIGTERM used to kill the supervisor with an empty stdout."""
    out = tmp_path / "talk.json"
    lock = tmp_path / "talk.json.lock"
    with lock.open("a") as held:
        before = snapshot_tree(tmp_path)
        fcntl.flock(held, fcntl.LOCK_EX)  # the run extracts, then waits for the writer lock
        process = subprocess.Popen(
            [console_script("rvault-pptx"), "extract", rich_deck, "--no-ocr", "--out", out],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            wait_until_open(process.pid, lock)
            process.send_signal(signum)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130, stderr  # EXIT_INTERRUPTED
    assert json.loads(stdout)["error"]["code"] == "interrupted"
    assert snapshot_tree(tmp_path) == before


def _deny(monkeypatch: pytest.MonkeyPatch, deck: Path) -> None:
    """Make every stat/open of ``deck`` fail with EACCES, as for a deck the caller
    may not read (the suite runs as root, where ``chmod 000`` blocks nothing)."""
    import errno

    denied = os.fspath(deck)
    real_stat, real_lstat, real_open = os.stat, os.lstat, os.open

    def guard(real: Any) -> Any:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, (str, os.PathLike)) and os.fspath(path) == denied:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), denied)
            return real(path, *args, **kwargs)

        return call

    # Path.is_symlink/exists go through os.stat, the source reader through os.lstat/os.open.
    monkeypatch.setattr(os, "stat", guard(real_stat))
    monkeypatch.setattr(os, "lstat", guard(real_lstat))
    monkeypatch.setattr(os, "open", guard(real_open))


def test_unreadable_deck_is_input_unreadable_not_internal_error(
    rich_deck: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Any,
) -> None:
    """A PermissionError from the pre-check used to escape as ``internal_error`` (exit 1)."""
    from rvault_pptx_evidence.cli import main

    deck = tmp_path / "locked.pptx"
    shutil.copyfile(rich_deck, deck)
    out = tmp_path / "x.json"
    before = snapshot_tree(tmp_path)
    _deny(monkeypatch, deck)
    rc = main(["extract", str(deck), "--no-ocr", "--out", str(out)])
    monkeypatch.undo()
    document = json.loads(capsys.readouterr().out)
    assert rc == 2, document
    assert document["ok"] is False
    assert document["error"]["code"] == "input_unreadable"
    assert document["error"]["path"] == str(deck)
    assert "Permission denied" in document["error"]["message"]
    assert snapshot_tree(tmp_path) == before


def test_unsearchable_output_directory_is_refused_not_an_internal_error(
    rich_deck: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Any,
) -> None:
    """``Path.is_dir`` on an --out directory the caller may not search used to raise."""
    from rvault_pptx_evidence.cli import main

    locked = tmp_path / "locked"
    locked.mkdir()
    out = locked / "x.json"
    before = snapshot_tree(tmp_path)
    _deny(monkeypatch, locked)
    rc = main(["extract", str(rich_deck), "--no-ocr", "--out", str(out)])
    monkeypatch.undo()
    document = json.loads(capsys.readouterr().out)
    assert rc == 2, document
    assert document["error"]["code"] == "output_directory_missing"
    assert document["error"]["path"] == str(locked)
    assert snapshot_tree(tmp_path) == before


def test_unstattable_deck_path_is_input_unreadable(
    tmp_path: Path, cli: Any, snapshot_tree: Any
) -> None:
    """A real OSError other than ENOENT (here ENAMETOOLONG) from the pre-check, end to end."""
    deck = tmp_path / ("x" * 300 + ".pptx")
    before = snapshot_tree(tmp_path)
    result = cli("rvault-pptx", "extract", deck, "--no-ocr", "--out", tmp_path / "x.json")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.json["error"]["code"] == "input_unreadable"
    assert result.json["error"]["path"] == str(deck)
    assert "Traceback" not in result.stderr
    assert snapshot_tree(tmp_path) == before


def test_deck_gone_after_the_read_is_input_changed(
    rich_deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader's closing ``lstat`` used to let an OSError escape (internal failure)."""
    from rvault_contracts.cli import Refusal
    from rvault_pptx_evidence import source

    deck = tmp_path / "talk.pptx"
    shutil.copyfile(rich_deck, deck)
    real_lstat = os.lstat
    calls: list[object] = []

    def lstat_then_vanish(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        calls.append(path)
        if len(calls) > 1:
            raise FileNotFoundError(2, "No such file or directory", os.fspath(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(source.os, "lstat", lstat_then_vanish)
    with pytest.raises(Refusal) as refused:
        source.read_source(deck)
    assert (refused.value.code, refused.value.path) == ("input_changed", str(deck))
    assert len(calls) == 2
