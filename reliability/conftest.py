"""Shared fixtures of the reliability suite (fuzzing, crashes, concurrency, hostile inputs).

Two modes. The default (``make test``) samples: a fixed, seeded subset of the
kill points and a few hundred fuzz inputs per decoder, a few minutes on two
cores. ``RVAULT_SOAK=1`` (nightly) is exhaustive over kill points and runs
thousands of fuzz inputs; see docs/reliability.md.

Every test gets an autouse *sentinel*: a tree outside any vault the test
builds (files, a symlink target, a directory a hostile link points at) that
is compared byte for byte and inode for inode after the test, so a tool that
follows a link or a ``..`` out of the vault fails the test that provoked it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))


settings.register_profile(
    "reliability",
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "reliability-soak",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _tree(root: Path) -> dict[str, tuple[str, bytes | str, int, int]]:
    state: dict[str, tuple[str, bytes | str, int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            st = path.lstat()
            key = str(path.relative_to(root))
            if path.is_symlink():
                state[key] = ("link", str(path.readlink()), st.st_ino, st.st_mode)
            elif path.is_dir():
                state[key] = ("dir", "", st.st_ino, st.st_mode)
            else:
                state[key] = ("file", path.read_bytes(), st.st_ino, st.st_mode)
    return state


@pytest.fixture(autouse=True)
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A tree outside the vault that must be byte- and inode-identical afterwards."""
    root = tmp_path_factory.mktemp("sentinel")
    (root / "secret.txt").write_bytes(b"the speaker's private notes\n")
    (root / "tracking-database.json").write_bytes(b'{"sentinel": true}\n')
    (root / "dir").mkdir()
    (root / "dir" / "nested.bin").write_bytes(bytes(range(256)))
    (root / "writable").mkdir()
    before = _tree(root)
    yield root
    assert _tree(root) == before, "a tool touched the sentinel tree outside the vault"
