"""A generated two-talk archive (decks, recordings with speech), copied for each test.

Generating it costs seconds (two videos, two espeak-ng sentences, FFmpeg),
so one pristine copy is made per test session and each test gets its own
copy of the vault; the deck folder is only read and stays shared.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.archive_batch.archive import Archive, make_archive
from rvault_testkit.plugin import CliResult


@pytest.fixture(scope="session")
def pristine_archive(tmp_path_factory: pytest.TempPathFactory) -> Archive:
    return make_archive(tmp_path_factory.mktemp("archive"), 2)


@pytest.fixture
def archive(pristine_archive: Archive, tmp_path: Path) -> Archive:
    vault = tmp_path / "vault"
    shutil.copytree(pristine_archive.vault, vault, symlinks=True)
    return Archive(
        tmp_path,
        vault,
        vault / "tracking-database.json",
        pristine_archive.decks,
        pristine_archive.talks,
    )


@pytest.fixture
def batch(cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    """``rvault-batch ARGS``: one JSON document on stdout, progress on stderr."""

    def run(*args: Any) -> CliResult:
        return cli("rvault-batch", *args)

    return run
