"""Canonical JSON encoding and SHA-256 digests.

Receipts bind artifacts by hash, so producer and verifier must encode the
same value to the same bytes. There is exactly one canonical form: object
keys sorted by code point, separators ``,`` and ``:`` with no whitespace,
non-ASCII characters written as UTF-8 (not ``\\u`` escapes), floats in
Python's shortest round-trip ``repr``, NaN/Infinity refused. The published
vectors in ``rvault_contracts/vectors/canonical-v1.json`` pin it down for any
other implementation.

Artifacts written for people (reports, manifests on disk) use
:func:`artifact_bytes`: the same key order and escaping, two-space indent,
and a final LF, so that files are deterministic and diff well.
"""

from __future__ import annotations

import hashlib
import json
import re

# pathlib and typing only name types here; a refusal printed before any command ran
# (a usage error) then costs no more than the encoding it needs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CANONICAL_VERSION = 1


def canonical_bytes(value: Any) -> bytes:
    """The canonical UTF-8 encoding of a JSON value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def artifact_bytes(value: Any) -> bytes:
    """Deterministic human-readable encoding: sorted keys, indent 2, trailing LF."""
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def sha256_bytes(data: bytes) -> str:
    """Lower-case hex SHA-256 of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def payload_sha256(value: Any) -> str:
    """SHA-256 of the canonical encoding (e.g. ``result_payload_sha256``)."""
    return sha256_bytes(canonical_bytes(value))


def file_sha256(path: str | Path, *, chunk_size: int = 1 << 20) -> str:
    """SHA-256 over a file's exact bytes, streamed."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def is_sha256_hex(value: object) -> bool:
    """True for a 64-character lower-case hex digest.

    A compiled ``fullmatch``: claim validation checks this for every digest of
    every historical claim, hundreds of thousands of times on a large vault.
    """
    return isinstance(value, str) and _SHA256_HEX.fullmatch(value) is not None
