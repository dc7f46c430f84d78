"""Shared fixtures of the tracking-db tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _working_directory_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test ends in the directory it started in.

    A path typed on the command line is relative to the working directory, so
    tests that type vault-relative paths enter their vault first (``os.chdir``
    in their ``_vault`` helper), as a speaker working inside the vault would.
    """
    monkeypatch.chdir(Path.cwd())
