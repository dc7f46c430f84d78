"""Bytes of vault files the site shows (the promoted PDF), read once, no-follow.

The capability resolver has already proved the path is a regular file below
the vault root without a symlink on the way; this reads it through the
writer protocol's snapshot (the final name opened ``O_NOFOLLOW``) and keeps
the bytes, so the digest that binds a video-extracted PDF to its trusted
manifest artifact and the pages rendered as thumbnails are the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.writer import WriterError, read_snapshot


class VaultFiles:
    def __init__(self, vault_root: Path) -> None:
        self.vault_root = vault_root
        self._data: dict[str, bytes | None] = {}

    def data(self, relative: str) -> bytes | None:
        """The file's bytes, or ``None`` when it is missing or cannot be read safely."""
        if relative not in self._data:
            try:
                self._data[relative] = read_snapshot(self.vault_root / relative).data
            except (WriterError, OSError):
                self._data[relative] = None
        return self._data[relative]

    def sha256(self, relative: str) -> str | None:
        data = self.data(relative)
        return sha256_bytes(data) if data is not None else None
