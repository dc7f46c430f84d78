"""The promoted slide PDF bound to its bytes: ``slides_local_identity`` (SHA-256, size).

``rvault-video promote`` installs ``slides/{id}.pdf`` and prints its digest;
``register-slides`` used to store only the path, so a PDF replaced afterwards
was silently cited as the analysed evidence. The ``register_slides_pdf``
lane now derives ``{"sha256", "size_bytes"}`` from the file it checked (read
without following a link below the vault root), and every reader can ask
:func:`check_slides` whether the file still has those bytes: a different
size is ``slides_stale`` without reading a byte, an equal size is hashed.
A talk registered before this field existed is ``unbound`` (nothing to
compare), never guessed current.

Standard library only: the public api re-exports :func:`check_slides`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import is_sha256_hex

from rvault_tracking_db.capabilities import open_under_root

FIELD = "slides_local_identity"


def measure_pdf(vault_root: Path, relative: str) -> dict[str, Any] | None:
    """``{"sha256", "size_bytes"}`` of ``vault_root/relative``, or None when unreadable."""
    fd, _ = open_under_root(vault_root, relative)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
        size = os.fstat(handle.fileno()).st_size
    return {"sha256": digest, "size_bytes": size}


def slides_identity(talk: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The talk's recorded identity when it is well formed (else unknown)."""
    identity = talk.get(FIELD) if talk is not None else None
    if not isinstance(identity, Mapping) or not is_sha256_hex(identity.get("sha256")):
        return None
    size = identity.get("size_bytes")
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return None
    return identity


def check_slides(vault_root: Path, talk: Mapping[str, Any]) -> str | None:
    """``None`` when ``slides_local_path`` still has the recorded bytes, else why not.

    ``unbound``: no (well-formed) identity recorded; ``slides_missing``: the
    file is gone or behind a link; ``slides_stale``: other bytes (size first,
    then SHA-256).
    """
    path = talk.get("slides_local_path")
    identity = slides_identity(talk)
    if not isinstance(path, str) or identity is None:
        return "unbound"
    fd, _ = open_under_root(vault_root, path)
    if fd is None:
        return "slides_missing"
    with os.fdopen(fd, "rb") as handle:
        if os.fstat(handle.fileno()).st_size != identity["size_bytes"]:
            return "slides_stale"
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return None if digest == identity["sha256"] else "slides_stale"
