"""The writer's in-place verification reads (``_stream_equal``, ``_read_current``)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from rvault_contracts import writer as writer_module

CHUNK = writer_module._COMPARE_CHUNK


def _fd(path: Path, data: bytes) -> int:
    path.write_bytes(data)
    return os.open(path, os.O_RDONLY)


BIG = bytes(range(256)) * (3 * CHUNK // 256) + b"tail"


@pytest.mark.parametrize(
    ("on_disk", "expected", "equal"),
    [
        (b"", b"", True),
        (b"", b"x", False),
        (b"x", b"", False),
        (BIG, BIG, True),
        (BIG[:CHUNK], BIG[:CHUNK], True),  # exactly one chunk
        (BIG[:-1], BIG, False),  # file shorter
        (BIG + b"!", BIG, False),  # file longer
        (BIG[: CHUNK + 5] + b"#" + BIG[CHUNK + 6 :], BIG, False),  # differs after a chunk
    ],
    # Named: pytest would spell 3 MiB of bytes into each test id (18 MB node ids,
    # about 5 s of every xdist worker's collection and megabytes in every report).
    ids=[
        "both-empty",
        "empty-file",
        "empty-expected",
        "three-chunks",
        "one-chunk",
        "file-shorter",
        "file-longer",
        "differs-after-a-chunk",
    ],
)
def test_stream_equal_is_exact(
    tmp_path: Path, on_disk: bytes, expected: bytes, equal: bool
) -> None:
    fd = _fd(tmp_path / "f", on_disk)
    try:
        digest = hashlib.sha256()
        assert writer_module._stream_equal(fd, expected, digest) is equal
        if equal:
            assert digest.hexdigest() == hashlib.sha256(on_disk).hexdigest()
    finally:
        os.close(fd)


def test_read_current_returns_the_real_bytes_when_they_differ(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"changed")
    dir_fd = os.open(tmp_path, os.O_RDONLY)
    try:
        same = writer_module._read_current(dir_fd, "f", "f", b"changed")
        other = writer_module._read_current(dir_fd, "f", "f", b"expected")
    finally:
        os.close(dir_fd)
    assert same.data == b"changed"
    assert other.data == b"changed"
    assert same.generation == other.generation
